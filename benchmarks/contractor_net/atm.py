"""ATM of Contractor.NET's examples (Examples/ATM.cs)."""


class ATM:
    """A cash machine: insert a card, give the password, eject and take the card."""

    def __init__(self) -> None:
        self.card_in = False
        self.card_halfway = False
        self.password_given = False
        self.card = 0
        self.passwd = 0

    def insert_card(self, c: int) -> None:
        """
        pre: not self.card_in and c > 0
        """
        self.card_in = True
        self.card = c

    def enter_password(self, q: int) -> None:
        """
        pre: not self.password_given and q > 0
        """
        self.password_given = True
        self.passwd = q

    def take_card(self) -> None:
        """
        pre: self.card_halfway
        """
        self.card_halfway = False
        self.card_in = False

    def display_main_screen(self) -> None:
        """
        pre: not self.card_in and not self.card_halfway
        """

    def request_password(self) -> None:
        """
        pre: not self.password_given
        """

    def eject_card(self) -> None:
        """
        pre: self.card_in
        """
        self.card_in = False
        self.card_halfway = True
        self.card = 0
        self.passwd = 0
        self.password_given = False

    def request_take_card(self) -> None:
        """
        pre: self.card_halfway
        """

    def canceled_message(self) -> None:
        """
        pre: self.card_in
        """

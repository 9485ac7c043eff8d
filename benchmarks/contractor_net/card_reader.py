"""The second ATM of Contractor.NET's examples (Examples.Zoppi/ATM.cs)."""


class CardReader:
    """Insert a card, authenticate, then print, extract, deposit or change the pin.

    inv: not self.authenticated or self.card_inserted
    """

    def __init__(self) -> None:
        self.card_inserted = False
        self.authenticated = False

    def insert_card(self, number: int) -> None:
        """
        pre: not self.card_inserted
        """
        self.card_inserted = True

    def remove_card(self) -> None:
        """
        pre: self.card_inserted
        """
        self.card_inserted = False
        self.authenticated = False

    def authenticate(self, pin: int) -> None:
        """
        pre: self.card_inserted and not self.authenticated
        """
        self.authenticated = True

    def print_ticket(self) -> None:
        """
        pre: self.authenticated
        """

    def extract(self, amount: int) -> None:
        """
        pre: self.authenticated
        """

    def deposit(self, amount: int) -> None:
        """
        pre: self.authenticated
        """

    def change_pin(self, pin: int) -> None:
        """
        pre: self.authenticated
        """

"""EnrichedDoor of Contractor.NET's examples (Zoppi): the door with its typestate as a field."""


class EnrichedDoor:
    """The train door, with the state number of its typestate kept in `state`.

    inv: 1 <= self.state <= 6
    """

    def __init__(self) -> None:
        self.state = 1
        self.closed = True
        self.moving = False
        self.emergency = False

    def open(self) -> None:
        """
        pre: self.state == 1
        """
        self.state = 2
        self.closed = False

    def close(self) -> None:
        """
        pre: self.state == 2 or self.state == 6
        """
        self.state = 1 if self.state == 2 else 3
        self.closed = True

    def start(self) -> None:
        """
        pre: self.state == 1 or self.state == 2 or self.state == 4
        """
        self.state = 5 if self.state == 4 else 3
        self.moving = True
        if not self.emergency:
            self.closed = True

    def stop(self) -> None:
        """
        pre: self.state == 3 or self.state == 6 or self.state == 5
        """
        if self.state == 3:
            self.state = 1
        elif self.state == 6:
            self.state = 2
        else:
            self.state = 4
        self.moving = False

    def alarm(self) -> None:
        """
        pre: self.state == 3 or self.state == 6 or self.state == 2 or self.state == 1
        """
        self.state = 5 if self.state == 3 or self.state == 6 else 4
        self.emergency = True
        self.closed = False

    def safe(self) -> None:
        """
        pre: self.state == 4 or self.state == 5
        """
        self.state = 2 if self.state == 4 else 6
        self.emergency = False

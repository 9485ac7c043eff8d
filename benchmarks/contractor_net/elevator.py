"""Elevator of Contractor.NET's examples (Zoppi)."""


class Elevator:
    """An elevator that is requested, moves, arrives, and stops when overweight.

    inv: not self.overweight or not self.moving
    inv: not self.overweight or not self.requested
    inv: not self.moving or not self.requested
    """

    def __init__(self) -> None:
        self.overweight = False
        self.moving = False
        self.requested = False

    def request(self, floor: int) -> None:
        """
        pre: not self.requested and not self.moving and not self.overweight
        """
        self.requested = True

    def arrive(self) -> None:
        """
        pre: self.moving or self.requested
        """
        self.moving = False
        self.requested = False

    def go_to(self, floor: int) -> None:
        """
        pre: not self.moving and not self.requested and not self.overweight
        """
        self.moving = True

    def alarm(self) -> None:
        """
        pre: not self.overweight and not self.requested and not self.moving
        """
        self.overweight = True

    def safe(self) -> None:
        """
        pre: self.overweight
        """
        self.overweight = False

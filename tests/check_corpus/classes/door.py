# The train door of the Contractor.NET paper (Figure 1), in the PEP 316 dialect.
# Three bool fields; the invariant says a door in danger is never closed.
# Its enabledness-preserving typestate has 6 states and 15 transitions, and the
# paper's client at the bottom calls open() where the typestate does not enable it.


class Door:
    """A train door that must not be closed while there is danger.

    inv: not self.danger or not self.closed
    """

    def __init__(self) -> None:
        self.closed = True
        self.moving = False
        self.danger = False

    def open(self) -> None:
        """
        pre: self.closed and not self.moving
        """
        self.closed = False

    def close(self) -> None:
        """
        pre: not self.closed and not self.danger
        """
        self.closed = True

    def start(self) -> None:
        """
        pre: not self.moving
        """
        self.moving = True
        if not self.danger:
            self.closed = True

    def stop(self) -> None:
        """
        pre: self.moving
        """
        self.moving = False

    def alarm(self) -> None:
        """
        pre: not self.danger
        """
        self.danger = True
        self.closed = False

    def safe(self) -> None:
        """
        pre: self.danger
        """
        self.danger = False



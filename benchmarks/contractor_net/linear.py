"""Linear of Contractor.NET's examples: three methods that must be called in order."""


class Linear:
    """A counter 0..3; a_i is enabled only when the counter is i.

    inv: self.n >= 0 and self.n <= 3
    """

    def __init__(self) -> None:
        self.n = 0

    def a0(self) -> None:
        """
        pre: self.n == 0
        """
        self.n += 1

    def a1(self) -> None:
        """
        pre: self.n == 1
        """
        self.n += 1

    def a2(self) -> None:
        """
        pre: self.n == 2
        """
        self.n += 1

"""BoundedStack of Contractor.NET's examples (Zoppi): a stack whose size is given."""


class BoundedStack:
    """A stack of `size` slots.

    inv: self.next >= 0 and self.next <= self.length
    """

    def __init__(self, size: int) -> None:
        """
        pre: size > 0
        """
        self.length = size
        self.next = 0

    def push(self, elem: int) -> None:
        """
        pre: self.next < self.length
        """
        self.next += 1

    def pop(self) -> None:
        """
        pre: self.next > 0
        """
        self.next -= 1

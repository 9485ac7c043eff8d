"""GenericStack of Contractor.NET's examples: a stack of capacity 5 (of ints here)."""


class GenericStack:
    """A stack of at most five items.

    inv: 0 <= self.size <= 5
    """

    def __init__(self) -> None:
        self.size = 0

    def push(self, item: int) -> None:
        """
        pre: self.size < 5
        """
        self.size += 1

    def pop(self) -> None:
        """
        pre: self.size > 0
        """
        self.size -= 1

"""FiniteStack of Contractor.NET's examples: a stack index Next in -1..Max, Max > 2."""


class FiniteStack:
    """A stack that knows only the index of its top element.

    inv: self.max > 2 and self.next >= -1 and self.max >= self.next
    """

    def __init__(self, size: int) -> None:
        """
        pre: size > 2
        """
        self.max = size
        self.next = -1

    def pop(self) -> None:
        """
        pre: self.next > -1
        post: self.next == __old__.self.next - 1
        """
        self.next = self.next - 1

    def push(self, elem: int) -> None:
        """
        pre: self.next < self.max
        post: self.next == __old__.self.next + 1
        """
        self.next = self.next + 1

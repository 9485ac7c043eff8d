"""StackSimple of Contractor.NET's examples (Zoppi): capacity given, more than one."""


class StackSimple:
    """A stack of `size` items, size > 1.

    inv: self.capacity > 1 and self.count >= 0 and self.count <= self.capacity
    """

    def __init__(self, size: int) -> None:
        """
        pre: size > 1
        """
        self.capacity = size
        self.count = 0

    def push(self, elem: int) -> None:
        """
        pre: self.count < self.capacity
        """
        self.count += 1

    def pop(self) -> None:
        """
        pre: self.count > 0
        """
        self.count -= 1

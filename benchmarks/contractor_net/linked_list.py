"""LinkedList of Contractor.NET's ICSE 2011 examples: a queue with a size, destroyable."""


class LinkedList:
    """A buffer that can be destroyed (size -1 stands for the C# null buffer).

    inv: self.alive or self.size == -1
    inv: not self.alive or self.size >= 0
    """

    def __init__(self) -> None:
        self.alive = True
        self.size = 0

    def add(self, e: int) -> None:
        """
        pre: self.alive
        """
        self.size += 1

    def remove(self) -> None:
        """
        pre: self.alive and self.size > 0
        """
        self.size -= 1

    def destroy(self) -> None:
        """
        pre: self.alive
        """
        self.alive = False
        self.size = -1

"""A stack backed by a list, holding at most `capacity` items (PEP 316 contracts).

Its typestate: empty {push}, partly full {peek, pop, push}, full {peek, pop}.
"""


class BoundedStack:
    """A last-in first-out stack with a fixed capacity.

    inv: self.capacity >= 1
    inv: len(self.items) <= self.capacity
    """

    def __init__(self, capacity: int) -> None:
        """
        pre: capacity >= 1
        """
        self.capacity = capacity
        self.items: list[int] = []

    def push(self, item: int) -> None:
        """
        pre: len(self.items) < self.capacity
        post: self.items[-1] == item
        """
        self.items.append(item)

    def pop(self) -> int:
        """
        pre: len(self.items) > 0
        post: len(self.items) == len(__old__.self.items) - 1
        """
        return self.items.pop()

    def peek(self) -> int:
        """
        pre: self.items
        """
        return self.items[-1]

# A queue of at most three ints backed by list[int] (PEP 316 dialect): it shows a list
# field with len, indexing, append, pop(0) and `in` (in a postcondition and a return).
# Typestate: empty {contains, enqueue}, one element {contains, dequeue, enqueue},
# two {contains, dequeue, enqueue, rotate}, full {contains, dequeue, rotate}.


class IntQueue:
    """A first-in first-out queue with room for three ints.

    inv: len(self.items) <= 3
    """

    def __init__(self) -> None:
        self.items: list[int] = []

    def enqueue(self, x: int) -> None:
        """
        pre: len(self.items) < 3
        post: self.items[len(self.items) - 1] == x
        """
        self.items.append(x)

    def dequeue(self) -> int:
        """
        pre: len(self.items) > 0
        post: len(self.items) == len(__old__.self.items) - 1
        post: __return__ == __old__.self.items[0]
        """
        return self.items.pop(0)

    def rotate(self) -> None:
        """Move the front element to the back.

        pre: len(self.items) >= 2
        post: self.items[len(self.items) - 1] == __old__.self.items[0]
        """
        front = self.items.pop(0)
        self.items.append(front)

    def contains(self, x: int) -> bool:
        """
        post: __return__ == (x in self.items)
        """
        return x in self.items


if __name__ == "__main__":
    queue = IntQueue()
    queue.enqueue(4)
    queue.enqueue(7)
    queue.rotate()
    print(queue.dequeue(), queue.contains(7))

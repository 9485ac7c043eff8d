# A queue of at most three ints backed by list[int] (PEP 316 dialect): it shows list
# fields with len, indexing, append, pop(0) and `in`, and a parameter (x in remove(x))
# that is enabled exactly when the queue holds some element.
# Typestate: empty {contains, enqueue}, partly filled {contains, dequeue, enqueue, remove},
# full {contains, dequeue, remove}.


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

    def remove(self, x: int) -> None:
        """Remove the first occurrence of x.

        pre: x in self.items
        post: len(self.items) == len(__old__.self.items) - 1
        """
        i = 0
        while self.items[i] != x:
            i += 1
        self.items.pop(i)

    def contains(self, x: int) -> bool:
        """
        post: __return__ == (x in self.items)
        """
        return x in self.items


if __name__ == "__main__":
    queue = IntQueue()
    queue.enqueue(4)
    queue.enqueue(7)
    queue.remove(4)
    print(queue.dequeue(), queue.contains(7))

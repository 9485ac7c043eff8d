"""The ListItr case study of the Contractor papers: an iterator over a list with
has_next / next / remove (preconditions as leading asserts; the invariant in PEP 316 form).

Its typestate has four states: {has_next}, {has_next, next}, {has_next, remove} and
{has_next, next, remove}; a new iterator is in the first (empty list) or the second.
"""


class ListItr:
    """Iterates over `items`; remove() deletes the item the last next() returned.

    inv: 0 <= self.cursor <= len(self.items)
    inv: self.last_ret == -1 or self.last_ret == self.cursor - 1
    """

    def __init__(self, items: list[int]) -> None:
        self.items = items
        self.cursor = 0
        self.last_ret = -1

    def has_next(self) -> bool:
        return self.cursor != len(self.items)

    def next(self) -> int:
        assert self.cursor < len(self.items)
        i = self.cursor
        value = self.items[i]
        self.cursor = i + 1
        self.last_ret = i
        return value

    def remove(self) -> None:
        assert self.last_ret >= 0
        del self.items[self.last_ret]
        if self.last_ret < self.cursor:
            self.cursor -= 1
        self.last_ret = -1

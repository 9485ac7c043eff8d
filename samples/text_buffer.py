"""A text buffer with a cursor: insertion and deletion by slicing a `str` (PEP 316).

Its typestate: empty {insert}, cursor at the start of some text {insert, right}, cursor
inside {delete, insert, left, right}, cursor at the end {delete, insert, left}.
"""


class TextBuffer:
    """
    inv: 0 <= self.cursor <= len(self.text)
    """

    def __init__(self) -> None:
        self.text = ""
        self.cursor = 0

    def insert(self, s: str) -> None:
        """pre: len(s) > 0"""
        self.text = self.text[:self.cursor] + s + self.text[self.cursor:]
        self.cursor += len(s)

    def delete(self) -> None:
        """pre: self.cursor > 0
        post: len(self.text) == len(__old__.self.text) - 1"""
        self.text = self.text[:self.cursor - 1] + self.text[self.cursor:]
        self.cursor -= 1

    def left(self) -> None:
        """pre: self.cursor > 0"""
        self.cursor -= 1

    def right(self) -> None:
        """pre: self.cursor < len(self.text)"""
        self.cursor += 1

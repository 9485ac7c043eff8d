# A file opened for reading or writing, for the client checker's tests: open(mode)
# leads to the read state or the write state depending on its constant argument, and
# is_open() is a state test (a pure bool method whose result tells the state).

READ = 1
WRITE = 2


class File:
    """A file that is closed, open for reading or open for writing.

    inv: 0 <= self.mode <= 2
    """

    def __init__(self) -> None:
        self.mode = 0

    def open(self, mode: int) -> None:
        """
        pre: self.mode == 0 and (mode == 1 or mode == 2)
        """
        self.mode = mode

    def read(self) -> int:
        """
        pre: self.mode == 1
        """
        return 0

    def write(self, data: int) -> None:
        """
        pre: self.mode == 2
        """

    def close(self) -> None:
        """
        pre: self.mode != 0
        """
        self.mode = 0

    def is_open(self) -> bool:
        return self.mode != 0

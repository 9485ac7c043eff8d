"""File of Contractor.NET's examples (Zoppi): open for reading or writing, then close."""

from enum import Enum


class Mode(Enum):
    READ = 1
    WRITE = 2


class File:
    """A file opened in one mode at a time."""

    def __init__(self) -> None:
        self.mode = Mode.READ
        self.open_ = False

    def get_mode(self) -> Mode:
        """
        pre: self.open_
        """
        return self.mode

    def open(self, mode: Mode) -> None:
        """
        pre: not self.open_
        """
        self.mode = mode
        self.open_ = True

    def read(self) -> None:
        """
        pre: self.open_ and self.mode == Mode.READ
        """

    def write(self, data: int) -> None:
        """
        pre: self.open_ and self.mode == Mode.WRITE
        """

    def close(self) -> None:
        """
        pre: self.open_
        """
        self.open_ = False

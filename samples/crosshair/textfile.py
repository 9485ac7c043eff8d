"""A file-like object over a `str` buffer with a position and a `closed` flag
(icontract contracts).

Its typestate: at the end {close, seek, write}, before the end {close, read, seek, write},
closed {} (nothing is enabled any more).
"""

import icontract


@icontract.invariant(lambda self: 0 <= self.pos <= len(self.buffer))
class TextFile:
    """An in-memory text file: writes truncate at the position, reads advance it."""

    def __init__(self) -> None:
        self.buffer: str = ""
        self.pos: int = 0
        self.closed: bool = False

    @icontract.require(lambda self, n: not self.closed and n > 0 and self.pos < len(self.buffer))
    @icontract.ensure(lambda self, n, result: 0 < len(result) <= n)
    def read(self, n: int) -> str:
        chunk = self.buffer[self.pos:self.pos + n]
        self.pos += len(chunk)
        return chunk

    @icontract.require(lambda self, text: not self.closed and len(text) > 0)
    @icontract.ensure(lambda self: self.pos == len(self.buffer))
    def write(self, text: str) -> None:
        self.buffer = self.buffer[:self.pos] + text
        self.pos = len(self.buffer)

    @icontract.require(lambda self, offset: not self.closed and 0 <= offset <= len(self.buffer))
    def seek(self, offset: int) -> None:
        self.pos = offset

    @icontract.require(lambda self: not self.closed, "a file closes once")
    def close(self) -> None:
        self.closed = True

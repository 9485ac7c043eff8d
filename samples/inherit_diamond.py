# Multiple inheritance (PEP 316 dialect): LoggedFile(Logged, Buffered), both extending
# Resource. Python's C3 method resolution order is LoggedFile, Logged, Buffered,
# Resource: the constructor runs Logged.__init__, whose super().__init__() reaches
# Buffered.__init__ and then Resource.__init__; close() runs Logged.close, then
# Buffered.close, then Resource.close, each through super(). Invariants of every class
# hold; the overrides of close() declare no precondition, so Resource's holds.
# Typestate: closed {open}, open and clean {close, write}, open with pending data
# {close, flush, write}.


class Resource:
    """Something to open and close.

    inv: self.opened or not self.dirty
    """

    def __init__(self) -> None:
        self.opened = False
        self.dirty = False

    def open(self) -> None:
        """
        pre: not self.opened
        """
        self.opened = True

    def close(self) -> None:
        """
        pre: self.opened
        """
        self.opened = False


class Buffered(Resource):
    """Writes are buffered until a flush or a close.

    inv: 0 <= self.pending <= 3
    """

    def __init__(self) -> None:
        super().__init__()
        self.pending = 0

    def write(self, n: int) -> None:
        """
        pre: self.opened
        pre: 1 <= n <= 2
        """
        self.pending = min(self.pending + n, 3)
        self.dirty = True

    def close(self) -> None:
        self.pending = 0
        self.dirty = False
        super().close()


class Logged(Resource):
    """Counts its closes (up to 2).

    inv: 0 <= self.closes <= 2
    """

    def __init__(self) -> None:
        super().__init__()
        self.closes = 0

    def close(self) -> None:
        self.closes = min(self.closes + 1, 2)
        super().close()


class LoggedFile(Logged, Buffered):
    """A buffered resource that logs its closes.

    inv: self.dirty == (self.pending > 0)
    """

    def flush(self) -> None:
        """
        pre: self.pending > 0
        """
        self.pending = 0
        self.dirty = False

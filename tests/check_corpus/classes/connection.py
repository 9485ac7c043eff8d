# A connection that must be closed (a resource), for the client checker's tests:
# with --must-call Connection.close, leaving one unclosed is a typestate-leak, and a
# `with` block closes it through __exit__ (__enter__ returns self).


class Connection:
    """A connection: connect it, send over it, close it once.

    inv: not (self.connected and self.closed)
    """

    def __init__(self) -> None:
        self.connected = False
        self.closed = False

    def connect(self) -> None:
        """
        pre: not self.connected and not self.closed
        """
        self.connected = True

    def send(self, data: int) -> None:
        """
        pre: self.connected
        """

    def close(self) -> None:
        """
        pre: not self.closed
        """
        self.connected = False
        self.closed = True

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.closed:
            self.close()

"""A request channel whose protocol is written the way ordinary Python code writes it:
with raises, no contract library. contractor reads the implicit preconditions (raise
guards): a method is enabled iff, for some arguments, its body can finish without
reaching an explicit `raise` or failing `assert`.

It shows a guard helper (`self._check_open()`), a leading `if ...: raise`, an
`if ok: ... else: raise`, a raise deeper in the body that depends on the state, an
`assert` guard, an exception of a Python operation (not a guard: a `may_raise`
finding) and a method that always raises (a `never_enabled` finding).
"""

IDLE = "idle"
STARTED = "started"
SENT = "sent"
MAX_HEADERS = 3


class ProtocolError(Exception):
    """The call is not allowed in the channel's current state."""


class Channel:
    def __init__(self) -> None:
        self.state = IDLE
        self.headers = 0
        self.open = True

    def _check_open(self) -> None:
        if not self.open:
            raise ProtocolError("the channel is closed")

    def start(self) -> None:
        self._check_open()
        if self.state == IDLE:
            self.state = STARTED
            self.headers = 0
        else:
            raise ProtocolError("a request is already under way")

    def header(self, count: int) -> None:
        if self.state != STARTED:
            raise ProtocolError("no request started")
        if count < 1:
            raise ValueError("count must be positive")
        if self.headers + count > MAX_HEADERS:
            raise ProtocolError("too many headers")
        self.headers += count

    def send(self) -> None:
        if self.state != STARTED:
            raise ProtocolError("no request started")
        self.state = SENT

    def receive(self) -> int:
        assert self.state == SENT, "nothing was sent"
        self.state = IDLE
        return 100 // self.headers  # ZeroDivisionError without headers: not a guard

    def close(self) -> None:
        self._check_open()
        self.open = False
        self.state = IDLE

    def reopen(self) -> None:
        raise ProtocolError("a closed channel cannot be reopened")

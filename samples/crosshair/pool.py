"""A connection pool holding a dict of sessions (id -> requests served), up to a limit
(deal contracts).

Its typestate: empty {open_session}, partly used {close_all, close_session, open_session},
full {close_all, close_session}.
"""

import deal


@deal.inv(lambda pool: 1 <= pool.limit and len(pool.sessions) <= pool.limit)
class ConnectionPool:
    """Sessions by id, opened and closed one by one or all at once."""

    limit: int = 1  # deal checks the invariant after each assignment, __init__'s too

    @deal.pre(lambda self, limit: limit >= 1)
    def __init__(self, limit: int) -> None:
        self.sessions: dict[int, int] = {}  # session id -> requests served
        self.limit = limit

    @deal.pre(lambda self, sid: len(self.sessions) < self.limit and sid not in self.sessions)
    @deal.ensure(lambda self, sid, result: sid in self.sessions)
    def open_session(self, sid: int) -> None:
        self.sessions[sid] = 0

    @deal.pre(lambda self, sid: sid in self.sessions)
    def close_session(self, sid: int) -> None:
        del self.sessions[sid]

    @deal.pre(lambda self: len(self.sessions) > 0)
    def close_all(self) -> None:
        self.sessions = {}


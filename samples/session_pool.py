"""A pool of named sessions, each held by a user, up to a capacity; the "admin" session
can audit (a dict with str keys and values, str parameters; PEP 316 contracts).

Its typestate: empty {open}, in use without admin {close, open}, in use with admin
{audit, close, open}, full without admin {close}, full with admin {audit, close}.
"""


class SessionPool:
    """
    inv: self.capacity >= 1 and len(self.sessions) <= self.capacity
    """

    def __init__(self, capacity: int) -> None:
        """pre: capacity >= 1"""
        self.capacity = capacity
        self.sessions: dict[str, str] = {}  # session name -> user

    def open(self, name: str, user: str) -> None:
        """pre: len(self.sessions) < self.capacity and name not in self.sessions and user != ""
        post: self.sessions[name] == user"""
        self.sessions[name] = user

    def close(self, name: str) -> None:
        """pre: name in self.sessions"""
        del self.sessions[name]

    def audit(self) -> str:
        """pre: "admin" in self.sessions"""
        return self.sessions["admin"]

"""A class whose after-state outside code chooses (test_nextmodel.py, test_covers.py): the
case nextmodel.py is for (HTTPConnection's connect and request hand the object to
sys.audit, after which any field may hold anything)."""

CONN = """
import random


class Conn:
    def __init__(self) -> None:
        self.sock = None
        self.state: str = "idle"

    def open(self, host: str) -> None:
        if self.state != "idle":
            raise ValueError("busy")
        self.sock = random.choice([None, host])
        self.state = str(random.random())

    def send(self) -> None:
        if self.sock is None:
            raise ValueError("not open")
        self.state = "sent"

    def finish(self) -> None:
        if self.state != "sent":
            raise ValueError("nothing sent")
        self.state = "idle"

    def reset(self) -> None:
        self.state = "idle"
"""

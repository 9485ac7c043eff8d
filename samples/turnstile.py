# A coin-operated turnstile in the asserts dialect: the leading assert statements of
# each method are its precondition. The mode is an Enum and the credit an int (coins
# paid in advance, at most 3 while unlocked). The asserts dialect has no invariant, so
# the typestate also covers unlocked turnstiles with more credit than any call sequence
# gives (hence push's self-loop on {push}, which no call sequence from the constructor shows).
# Typestate: locked {coin, service}, unlocked {coin, push}, unlocked with 3 coins {push},
# maintenance {resume}.

from enum import Enum


class Mode(Enum):
    LOCKED = 1
    UNLOCKED = 2
    MAINTENANCE = 3


class Turnstile:
    def __init__(self) -> None:
        self.mode = Mode.LOCKED
        self.credit = 0

    def coin(self) -> None:
        assert self.mode == Mode.LOCKED or (self.mode == Mode.UNLOCKED and self.credit < 3), \
            "no coins during maintenance, and at most three in advance"
        if self.mode == Mode.LOCKED:
            self.credit = 0
        self.credit += 1
        self.mode = Mode.UNLOCKED

    def push(self) -> None:
        assert self.mode == Mode.UNLOCKED, "pay first"
        self.credit -= 1
        if self.credit <= 0:
            self.credit = 0
            self.mode = Mode.LOCKED

    def service(self) -> None:
        assert self.mode == Mode.LOCKED
        self.mode = Mode.MAINTENANCE

    def resume(self) -> None:
        assert self.mode == Mode.MAINTENANCE
        self.mode = Mode.LOCKED


if __name__ == "__main__":
    gate = Turnstile()
    gate.coin()
    gate.coin()
    gate.push()
    print(gate.mode.name, "with credit", gate.credit)

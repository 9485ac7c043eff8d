# A countdown with loops (PEP 316 dialect): tick_all() runs `while self.n > 0` and
# reload(amount) runs `for _ in range(amount)`; the invariant 0 <= n <= 5 bounds both
# loops, so the z3 backend's unrolling (8 by default) covers them exactly.
# Typestate: n == 0 {reload}, 0 < n < 5 {reload, tick, tick_all}, n == 5 {tick, tick_all}.


class Countdown:
    """A countdown from at most 5.

    inv: 0 <= self.n <= 5
    """

    def __init__(self, start: int) -> None:
        """
        pre: 0 <= start <= 5
        """
        self.n = start

    def tick(self) -> None:
        """
        pre: self.n > 0
        post: self.n == __old__.self.n - 1
        """
        self.n -= 1

    def tick_all(self) -> int:
        """
        pre: self.n > 0
        post: self.n == 0
        post: __return__ == __old__.self.n
        """
        ticks = 0
        while self.n > 0:
            self.n -= 1
            ticks += 1
        return ticks

    def reload(self, amount: int) -> None:
        """
        pre: self.n < 5
        pre: 1 <= amount <= 5
        post: self.n > __old__.self.n
        """
        for _ in range(amount):
            if self.n < 5:
                self.n += 1


if __name__ == "__main__":
    countdown = Countdown(2)
    countdown.reload(2)
    print("ticked", countdown.tick_all(), "times")

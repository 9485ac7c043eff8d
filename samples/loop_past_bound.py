# A countdown from at most 20 (PEP 316 dialect) whose loops run past the z3 backend's
# default unroll bound (8): tick_all() from n == 20 runs its `while` 20 times. The paths
# still looping after the bound are not followed; the fields and the result they could
# change are arbitrary, constrained only by the postconditions of the finished call, so
# `tick_all` from n == 20 still reaches n == 0 (a may-transition), as the real code does.
# Typestate: n == 0 {reload}, 0 < n < 20 {reload, tick, tick_all}, n == 20 {tick, tick_all}.


class Countdown:
    """A countdown from at most 20.

    inv: 0 <= self.n <= 20
    """

    def __init__(self, start: int) -> None:
        """
        pre: 0 <= start <= 20
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
        pre: self.n < 20
        pre: 1 <= amount <= 20
        post: self.n > __old__.self.n
        """
        for _ in range(amount):
            if self.n < 20:
                self.n += 1

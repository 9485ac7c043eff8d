"""A query in a z3 context of its own (the scratch context of quantifier elimination,
z3util._apply) is interrupted by Ctrl-C and the budget as the main context is: registered
with runguard.interruptible, the watchdog's interrupt reaches it."""

from __future__ import annotations

import threading
import time

import z3

from contractor import runguard


def _undecidable(ctx: z3.Context) -> z3.Solver:
    """A solver z3 never answers within its limit: x^3 + y^3 = z^3 has no positive solution."""
    x, y, z = (z3.Int(n, ctx) for n in "xyz")
    s = z3.Solver(ctx=ctx)
    s.set("timeout", 30_000)
    s.add(x > 0, y > 0, z > 0, x * x * x + y * y * y == z * z * z)
    return s


def _interrupted_after(seconds: float) -> threading.Timer:
    timer = threading.Timer(seconds, runguard._interrupt_z3)
    timer.start()
    return timer


def _settled(timer: threading.Timer) -> None:
    """The timer stopped, and the interrupt it left pending in the main context consumed
    (else the next test's first query there would fail: runguard._clear_z3_interrupt)."""
    timer.cancel()
    timer.join()
    runguard._clear_z3_interrupt()


def test_a_registered_context_is_interrupted():
    scratch = z3.Context()
    solver = _undecidable(scratch)
    timer = _interrupted_after(0.3)
    start = time.monotonic()
    try:
        with runguard.interruptible(scratch):
            assert solver.check() == z3.unknown
    finally:
        _settled(timer)
    assert time.monotonic() - start < 10  # interrupted, not run to its 30 s limit
    assert runguard.OTHER_CONTEXTS.all() == []  # unregistered on the way out


def test_an_unregistered_context_is_not_reached():
    """The registration is what makes the difference (the interrupt goes to the main
    context only): the same query, limited to 2 s, runs to its limit."""
    scratch = z3.Context()
    solver = _undecidable(scratch)
    solver.set("timeout", 2000)
    timer = _interrupted_after(0.3)
    start = time.monotonic()
    try:
        assert solver.check() == z3.unknown
    finally:
        _settled(timer)
    assert time.monotonic() - start > 1.5
    assert solver.reason_unknown() != "interrupted from keyboard"

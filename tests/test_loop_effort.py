"""The loop-iteration feasibility check is bounded by z3's resource units (a count of the
solver's steps), not by wall-clock time: its answer, and so how far a loop is unrolled,
the formulas and the may-answers, must not depend on how busy the machine is. An answer
the units do not reach counts as "another iteration may run" (sound: unrolled further)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import z3
from bruteforce import brute_force_typestate
from runtime_contracts import load_class
from typestate_check import check

from contractor.api import InferOptions, infer
from contractor.z3backend import loops
from contractor.z3backend.executor import Executor
from contractor.z3backend.z3util import FEASIBLE, Assumptions, Effort

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "loop_counter.py"
PARAMS = {"__init__": {"start": list(range(6))}, "reload": {"amount": list(range(6))}}


def _hard() -> z3.BoolRef:
    """A formula z3 does not decide at all (Fermat's last theorem for cubes: unsat, beyond
    its arithmetic), so any limit stops it."""
    x, y, z = z3.Ints("fx fy fz")
    return z3.And(x * x * x + y * y * y == z * z * z, x > 0, y > 0, z > 0)


def test_the_loop_check_asks_with_resource_units_not_wall_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every feasibility question asked from the loop's iteration test carries an Effort
    (resource units, with a wall-clock cap far above what they take) and no timeout of
    its own: going back to `timeout_ms=...` (wall clock) fails here."""
    asked: list[tuple[int | None, Effort | None]] = []
    feasible = Executor.feasible

    def recording(self: Executor, cond: z3.BoolRef, timeout_ms: int | None = None,
                  effort: Effort | None = None) -> bool:
        caller = sys._getframe(1).f_code
        if caller.co_name == "run_loop" and caller.co_filename == loops.__file__:
            asked.append((timeout_ms, effort))
        return feasible(self, cond, timeout_ms, effort)

    monkeypatch.setattr(Executor, "feasible", recording)
    infer(f"{SAMPLE}:Countdown", InferOptions(backend="z3"))
    iterations = [(t, e) for t, e in asked if (t, e) != (None, None)]  # the past-the-bound check: below
    assert iterations, "the sample's loops asked no iteration question"
    assert all(t is None and e == loops.ITERATION for t, e in iterations)
    assert loops.ITERATION.rlimit > 0 and loops.ITERATION.cap_ms >= 10_000


def test_every_feasibility_question_is_asked_in_resource_units(monkeypatch: pytest.MonkeyPatch) -> None:
    """The executor's other questions (the loop past its bound, a sequence's length, a
    comprehension's element) had the assumptions' 2000 ms of wall clock: under load an
    answer could come out undecided, another unrolling, other formulas. Every check the
    assumptions ask now carries an Effort; a wall-clock-only check fails here."""
    asked: list[tuple[int | None, Effort | None]] = []
    check = Assumptions.check

    def recording(self: Assumptions, *extra: z3.BoolRef, timeout_ms: int | None = None,
                  effort: Effort | None = None) -> z3.CheckSatResult:
        asked.append((timeout_ms, effort))
        return check(self, *extra, timeout_ms=timeout_ms, effort=effort)

    monkeypatch.setattr(Assumptions, "check", recording)
    infer(f"{SAMPLE}:Countdown", InferOptions(backend="z3", unroll=3))
    assert asked, "the sample asked no feasibility question"
    assert all(t is None and e is not None and e.rlimit > 0 for t, e in asked)
    assert any(e == FEASIBLE for _, e in asked), "no past-the-bound question asked"


def test_running_out_of_units_is_undecided_whatever_the_wall_clock_allows() -> None:
    """The units stop the check (z3 says "canceled", as for a timeout) long before a cap
    of a minute: the stopping point is a count, the same at every load."""
    a = Assumptions(z3.BoolVal(True), 60_000)
    assert a.check(_hard(), effort=Effort(rlimit=20_000, cap_ms=60_000)) == z3.unknown
    x = z3.Int("x")
    assert a.check(x > 3, effort=Effort(rlimit=20_000, cap_ms=60_000)) == z3.sat
    # the units are this check's only: the next one (the context's default) has none
    s = z3.Solver()
    s.add(_hard())
    s.set("rlimit", 20_000)
    assert s.check() == z3.unknown
    assert "canceled" in s.reason_unknown() or "resource" in s.reason_unknown()
    assert a.check(x > 3, x < 5) == z3.sat


def test_an_undecided_iteration_check_keeps_every_transition(monkeypatch: pytest.MonkeyPatch) -> None:
    """With (almost) no units every iteration check is undecided: the loops unroll to the
    bound and beyond it the paths are unknown; no transition the class takes is lost."""
    calls: list[Any] = []
    real = Assumptions.check

    def counting(self: Assumptions, *extra: z3.BoolRef, **kw: Any) -> z3.CheckSatResult:
        answer = real(self, *extra, **kw)
        if kw.get("effort") == loops.ITERATION:  # (the past-the-bound check has FEASIBLE's)
            calls.append(answer)
        return answer

    monkeypatch.setattr(loops, "ITERATION", Effort(rlimit=1, cap_ms=60_000))
    monkeypatch.setattr(Assumptions, "check", counting)
    ts = infer(f"{SAMPLE}:Countdown", InferOptions(backend="z3", unroll=3))
    assert calls and all(a == z3.unknown for a in calls)
    cls = load_class(SAMPLE, "Countdown")
    brute = brute_force_typestate(cls, {"n": list(range(6))}, PARAMS)
    check(ts, brute, cls, PARAMS, exact=False)



def test_the_guard_coverage_proof_counts_resource_units(monkeypatch: pytest.MonkeyPatch) -> None:
    """A raise guard past a loop's bound asks whether its followed paths cover the rest
    (guards._covered): within resource units too, not a wall-clock timeout; where the
    units run out, the paths are not covered (the guard keeps its unknown part: may)."""
    from contractor.z3backend import guards

    made: list[tuple[int, int]] = []
    real = guards.make_solver

    def recording(timeout_ms: int, *args: Any, rlimit: int = 0, **kw: Any) -> z3.Solver:
        made.append((timeout_ms, rlimit))
        return real(timeout_ms, *args, rlimit=rlimit, **kw)

    monkeypatch.setattr(guards, "make_solver", recording)
    n = z3.Int("n")
    sem: Any = SimpleNamespace(invariant=z3.And(0 <= n, n <= 20))
    assert guards._covered(sem, n > 2, z3.And(n > 5, n < 9))
    assert not guards._covered(sem, n > 6, z3.And(n > 5, n < 9))
    assert made == [(guards.COVERED.cap_ms, guards.COVERED.rlimit)] * 2 and guards.COVERED.rlimit > 0
    monkeypatch.setattr(guards, "COVERED", Effort(rlimit=1_000, cap_ms=60_000))
    assert not guards._covered(sem, z3.BoolVal(False), _hard())  # undecided: not covered


def _pigeons(n: int) -> z3.BoolRef:
    """n + 1 pigeons in n holes, one per hole: unsat, within some thousands of units (n=6)."""
    p = [[z3.Bool(f"pig{i}_{j}") for j in range(n)] for i in range(n + 1)]
    apart = [z3.Or(z3.Not(p[i][j]), z3.Not(p[k][j]))
             for j in range(n) for i in range(n + 1) for k in range(i + 1, n + 1)]
    return z3.And(*[z3.Or(*row) for row in p], *apart)


def _recording_solvers(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    from contractor.z3backend import z3util

    made: list[int] = []
    real = z3util.make_solver

    def recording(timeout_ms: int, *args: Any, rlimit: int = 0, **kw: Any) -> z3.Solver:
        made.append(rlimit)
        return real(timeout_ms, *args, rlimit=rlimit, **kw)

    monkeypatch.setattr(z3util, "make_solver", recording)
    return made


def test_a_check_past_the_shared_solvers_units_goes_on_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """A solver that answered earlier checks gets SHARED_UNITS of a check's units; past
    them the check is asked again on a fresh solver with the rest (and answered there),
    and the next check gets a new shared solver. Spending the whole effort on the shared
    solver, or dropping the rest, fails here."""
    from contractor.z3backend import z3util

    monkeypatch.setattr(z3util, "SHARED_UNITS", 500)
    made = _recording_solvers(monkeypatch)
    a = Assumptions(z3.BoolVal(True), 60_000)
    x = z3.Int("x")
    effort = Effort(rlimit=5_000_000, cap_ms=60_000)
    assert a.check(x > 3, effort=effort) == z3.sat  # a new solver: the whole effort
    assert made == [0]
    assert a.check(_pigeons(6), effort=effort) == z3.unsat  # past 500 units: afresh
    assert made == [0, effort.rlimit - 500]
    # (not a check the first one's model satisfies: satmodels.py would answer that one)
    assert a.check(x < 3) == z3.sat
    assert len(made) == 3  # the shared solver was made anew


def test_a_new_shared_solver_gets_the_whole_effort(monkeypatch: pytest.MonkeyPatch) -> None:
    """A first check has no earlier checks' leftovers to flee: it runs on the shared
    solver with every unit, and only there."""
    from contractor.z3backend import z3util

    monkeypatch.setattr(z3util, "SHARED_UNITS", 500)
    made = _recording_solvers(monkeypatch)
    a = Assumptions(z3.BoolVal(True), 60_000)
    assert a.check(_pigeons(6), effort=Effort(rlimit=5_000_000, cap_ms=60_000)) == z3.unsat
    assert made == [0]


def test_the_units_of_a_check_are_not_exceeded_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Undecided on both solvers, a check is undecided (another iteration may run), and
    the two together spent no more than its effort."""
    from contractor.z3backend import z3util

    monkeypatch.setattr(z3util, "SHARED_UNITS", 500)
    made = _recording_solvers(monkeypatch)
    a = Assumptions(z3.BoolVal(True), 60_000)
    assert a.check(z3.Int("x") > 3, effort=Effort(rlimit=20_000, cap_ms=60_000)) == z3.sat
    assert a.check(_hard(), effort=Effort(rlimit=20_000, cap_ms=60_000)) == z3.unknown
    assert made == [0, 20_000 - 500]

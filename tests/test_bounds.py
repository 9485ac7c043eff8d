"""The bounds of the z3 translation (loop unrolling, inlining depth, untranslated
statements) may only add may-answers: every transition the real class takes is reported,
checked against the brute force on concrete objects (a path cut at a bound leaves the
fields and the result it could write arbitrary, constrained only by the postconditions
of the finished call)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from bruteforce import brute_force_typestate
from runtime_contracts import load_class
from typestate_check import check, tool_transitions

from contractor.api import InferOptions, infer

ROOT = Path(__file__).resolve().parent.parent
TOP = frozenset({"tick", "tick_all"})
ZERO = frozenset({"reload"})

RECURSIVE = textwrap.dedent('''\
    class Drain:
        """inv: self.n == 0 or 9 <= self.n <= 12"""

        def __init__(self) -> None:
            self.n = 12

        def drain(self) -> int:
            """
            pre: self.n > 0
            post: self.n == 0
            """
            return self._step(0)

        def _step(self, done: int) -> int:
            if self.n == 0:
                return done
            self.n -= 1
            return self._step(done + 1)

        def fill(self) -> None:
            """pre: self.n == 0"""
            self.n = 12
    ''')

UNTRANSLATED = textwrap.dedent('''\
    class Flag:
        def __init__(self) -> None:
            self.on = False
            self.count = 0

        def flip(self) -> None:
            k = 0
            while k < 1:
                k += 1
            else:
                self.on = not self.on
            self.count = 1

        def off(self) -> None:
            """pre: self.on"""
            self.on = False
    ''')


@pytest.mark.parametrize("unroll", [3, 8])
def test_loop_past_the_bound_keeps_every_transition(unroll: int) -> None:
    path = ROOT / "samples" / "loop_past_bound.py"
    ts = infer(f"{path}:Countdown", InferOptions(backend="z3", unroll=unroll))
    cls = load_class(path, "Countdown")
    params = {"__init__": {"start": list(range(21))}, "reload": {"amount": list(range(1, 21))}}
    brute = brute_force_typestate(cls, {"n": list(range(21))}, params)
    check(ts, brute, cls, params, exact=False)
    # the case: Countdown(20).tick_all() reaches n == 0, a may with its reason
    got = {t: c for t, c in tool_transitions(ts).items()}
    assert got[(TOP, "tick_all", ZERO)] == "may"
    reason = next(t.reason for t in ts.transitions
                  if t.method == "tick_all" and ts.state(t.source).enabled == tuple(sorted(TOP)))
    assert reason and "--unroll" in reason and "line 35" in reason
    assert any(u.method == "tick_all" and u.line == 35 and "--unroll" in u.construct for u in ts.unknowns)


def _tool_and_brute(tmp_path: Path, source: str, name: str, domains: dict) -> tuple:
    path = tmp_path / "bounded.py"
    path.write_text(source)
    ts = infer(f"{path}:{name}", InferOptions(backend="z3"))
    cls = load_class(path, name)
    return ts, cls, brute_force_typestate(cls, domains)


def test_recursion_past_the_inlining_depth_keeps_every_transition(tmp_path: Path) -> None:
    ts, cls, brute = _tool_and_brute(tmp_path, RECURSIVE, "Drain", {"n": list(range(13))})
    check(ts, brute, cls, {}, exact=False)
    drained = (frozenset({"drain"}), "drain", frozenset({"fill"}))
    assert drained in brute.transitions and tool_transitions(ts)[drained] == "may"
    assert any("recursion" in u.construct for u in ts.unknowns)


def test_untranslated_statement_keeps_every_transition(tmp_path: Path) -> None:
    ts, cls, brute = _tool_and_brute(tmp_path, UNTRANSLATED, "Flag",
                                     {"on": [False, True], "count": [0, 1]})
    check(ts, brute, cls, {}, exact=False)
    flip_on = (frozenset({"flip"}), "flip", frozenset({"flip", "off"}))
    assert tool_transitions(ts)[flip_on] == "may"
    assert any(u.method == "flip" and "else" in u.construct for u in ts.unknowns)


INHERITED_LOOP = textwrap.dedent('''\
    class Base:
        """inv: 0 <= self.n <= 20"""

        def __init__(self) -> None:
            self.n = 20
            self.locked = False

        def drain(self) -> None:
            """pre: self.n > 0 and not self.locked"""
            while self.n > 0:
                self.n -= 1


    class Tank(Base):
        def lock(self) -> None:
            """pre: not self.locked"""
            self.locked = True
    ''')


def test_a_loop_past_the_bound_in_a_base_method_changes_only_what_it_writes(tmp_path: Path) -> None:
    """Readable bases keep the write set: the loop cut at the bound leaves `locked` alone."""
    ts, cls, brute = _tool_and_brute(tmp_path, INHERITED_LOOP, "Tank",
                                     {"n": list(range(21)), "locked": [False, True]})
    check(ts, brute, cls, {}, exact=False)
    drains = {t for t in tool_transitions(ts) if t[1] == "drain"}
    assert (frozenset({"drain", "lock"}), "drain", frozenset({"lock"})) in drains
    assert all("lock" in target for _, _, target in drains)  # never to the locked (stuck) state

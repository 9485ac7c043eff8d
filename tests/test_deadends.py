"""The syntactic proof that no path of a method ends normally on translated code alone
(z3backend/deadends.py), which lets the exploration skip its exact phase.

- wherever it says so, z3 agrees: `not raised and not unknown` is unsatisfiable (every
  method of the semantic cases, the samples and a class with the shapes it must refuse);
- it fires where the last statement of every normal path is untranslated, and not where
  an untranslated statement is in a branch or a `try` whose raise is caught;
- skipping the phase changes no transition (the same typestate as asking it); the
  semantic case every_normal_end_untranslated checks those transitions against concrete runs.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import z3
from guard_cases import GUARD_CASES
from semantic_cases import CASES
from semantic_outside_cases import OUTSIDE_CASES

from contractor import api
from contractor.typestate import Typestate
from contractor.z3backend import semantics
from contractor.z3backend.backend import Z3Backend
from contractor.z3backend.semantics import Outcome

REPO = Path(__file__).resolve().parent.parent
Z3 = api.InferOptions(backend="z3")

SHAPES = '''\
class C:
    def __init__(self) -> None:
        self.open = False
        self.sent = 0

    def last(self, n: int) -> None:
        if not self.open:
            raise ValueError("closed")
        self.sent = n
        self.open = {}

    def callee(self, n: int) -> None:
        if n > 2:
            raise ValueError("big")
        self._break()

    def _break(self) -> None:
        self.sent = 1
        self.open = {}

    def branch(self, n: int) -> None:
        if n > 3:
            self.open = {}
        self.sent = n

    def caught(self, n: int) -> None:
        try:
            if n > 3:
                raise ValueError("big")
            self.sent = {}
        except ValueError:
            pass

    def returned(self, n: int) -> None:
        if n > 3:
            return
        self.open = {}
'''


def _outcomes(target: str) -> dict[str, Outcome]:
    b = Z3Backend(api.load_model(target, Z3))
    out = {}
    for name in [*b.model.constructors, *b.model.actions]:
        o = b.outcome(name)
        if isinstance(o, Outcome):
            out[name] = o
    return out


def _followed_end(o: Outcome) -> z3.CheckSatResult:
    s = z3.Solver()
    s.add(z3.Not(o.raised), z3.Not(o.unknown))
    return s.check()


@pytest.fixture
def shapes(tmp_path: Path) -> str:
    path = tmp_path / "shapes.py"
    path.write_text(SHAPES)
    return f"{path}:C"


def test_the_proof_fires_on_untranslated_last_statements_only(shapes: str):
    found = {name: o.no_followed_end for name, o in _outcomes(shapes).items()}
    assert found == {"__init__": False, "last": True, "callee": True, "branch": False, "caught": False,
                     "returned": False}


def _case_targets(tmp_path: Path) -> list[str]:
    targets = []
    for case in CASES + GUARD_CASES + OUTSIDE_CASES:
        if case.slow:
            continue
        path = tmp_path / f"{case.name}.py"
        path.write_text(textwrap.dedent(case.source).lstrip())
        targets.append(f"{path}:C")
    return targets


def test_z3_agrees_wherever_the_proof_fires(tmp_path: Path, shapes: str):
    samples = [f"{p}:{c}" for p, c in [(REPO / "samples" / "untyped.py", "Printer"),
                                       (REPO / "samples" / "guards.py", "Channel")]]
    fired = 0
    for target in [shapes, *samples, *_case_targets(tmp_path)]:
        for name, o in _outcomes(target).items():
            if o.no_followed_end:
                fired += 1
                assert _followed_end(o) == z3.unsat, (target, name)
    assert fired >= 3  # last, callee, and the semantic case every_normal_end_untranslated


def _shape(ts: Typestate) -> tuple[object, ...]:
    return (ts.states, [(t.source, t.method, t.target, t.certainty, t.reason) for t in ts.transitions],
            [(i.constructor, i.target, i.certainty) for i in ts.initializations], ts.complete)


def test_skipping_the_exact_phase_changes_no_transition(shapes: str, monkeypatch: pytest.MonkeyPatch):
    skipped = api.infer(shapes, Z3)
    monkeypatch.setattr(semantics, "no_followed_normal_end", lambda *_: False)
    asked = api.infer(shapes, Z3)
    assert _shape(skipped) == _shape(asked)
    assert skipped.stats.exploration_queries < asked.stats.exploration_queries

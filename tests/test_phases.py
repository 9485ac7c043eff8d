"""phases.py: where every target of a method is may whichever phase finds it, the phases
asked as one (the class's enabledness heavy) find the same targets with the same
certainty as the phases asked apart; a merged model's reason is its own phase's."""

from __future__ import annotations

from pathlib import Path

import pytest
import z3
from outside_conn import CONN

from contractor.api import InferOptions, load_model
from contractor.explore import explore
from contractor.model import ClassModel
from contractor.z3backend import Z3Backend
from contractor.z3backend import phases as P

ROOT = Path(__file__).resolve().parent.parent
# an untranslated path, loops past the bound, several sources (none merges: next models off)
SAMPLES = ["untyped.py", "loop_past_bound.py", "player.py"]
# smtplib.SMTP's shape: outside code decides a loop (past its bound: may) and the state
READER = """
import random


class Reader:
    def __init__(self) -> None:
        self.lines = 0
        self.open = False
        self.done = False

    def connect(self) -> None:
        if self.open:
            raise ValueError("open")
        self.open = random.random() > 0.5

    def read(self) -> None:
        if not self.open:
            raise ValueError("closed")
        n = 0
        while random.random() > 0.5:
            n += 1
            if n > 3:
                self.done = True
        self.lines = n
        self.open = random.random() > 0.5

    def finish(self) -> None:
        if not self.done:
            raise ValueError("not done")
        self.done = False

    def close(self) -> None:
        self.open = False
"""


def test_heavy_counts_the_nodes_of_the_enabledness() -> None:
    xs = z3.Ints(" ".join(f"ph_x{i}" for i in range(400)))
    light = [xs[0] > 0, z3.BoolVal(True)]
    big = [z3.And(*[x > i for i, x in enumerate(xs)])]  # 400 atoms of 3 nodes (a constant, a number, >)
    assert not P.heavy(light)
    assert not P.heavy([])
    assert P.heavy(big)


def test_a_merged_model_is_labelled_by_the_phase_it_lies_in() -> None:
    path, x = z3.Bool("ph_unknown"), z3.Int("ph_x")
    conds = [(z3.Not(path), True), (z3.And(path, x > 0), False)]
    apart, merged = P.phases(conds, False), P.phases(conds, True)
    assert [p.key for p in apart.asked] == [0, 1]
    assert [p.key for p in merged.asked] == [P.MERGED]
    s = z3.Solver()
    for on_path, want in ((False, True), (True, False)):
        assert s.check(merged.asked[0].cond, path == on_path) == z3.sat
        assert merged.exact_in(merged.asked[0], s.model()) is want
    assert apart.exact_in(apart.asked[0], s.model()) is True  # (apart: the phase's own)
    assert P.phases(conds[:1], True).asked == apart.asked[:1]  # one phase: nothing to merge


class Merging(Z3Backend):
    """Counts the enumerations whose phases were asked as one."""

    merged = 0

    def _all_sat(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        before = P.phases

        def counted(conds, merge):  # type: ignore[no-untyped-def]
            got = before(conds, merge)
            self.merged += got.asked[0].key == P.MERGED if got.asked else 0
            return got

        P.phases = counted
        try:
            return super()._all_sat(*args, **kwargs)
        finally:
            P.phases = before


def _models(path: Path) -> list[ClassModel]:
    import ast

    names = [n.name for n in ast.parse(path.read_text()).body if isinstance(n, ast.ClassDef)]
    found = [load_model(f"{path}:{n}", InferOptions(backend="z3")) for n in names]
    return [m for m in found if m.actions]


def _same_targets(model: ClassModel, monkeypatch: pytest.MonkeyPatch) -> int:
    """Explores with the phases apart and, every class taken as heavy, merged; the
    enumerations merged."""
    apart = Z3Backend(model, timeout=30.0, reuse=False)
    want = explore(model, apart)
    monkeypatch.setattr(P, "HEAVY_ENABLEDNESS", 0)
    merging = Merging(model, timeout=30.0, reuse=False)
    merging.sem = apart.sem  # one translation
    got = explore(model, merging)
    monkeypatch.undo()
    assert got.states == want.states
    assert [(t.source, t.method, t.target, t.certainty) for t in got.transitions] == \
        [(t.source, t.method, t.target, t.certainty) for t in want.transitions]
    assert [i.target for i in got.initializations] == [i.target for i in want.initializations]
    reasons = {(t.method, t.reason) for t in want.transitions}
    assert all(t.certainty == "may" for t in got.transitions if (t.method, t.reason) not in reasons)
    return merging.merged


@pytest.mark.parametrize("source", [READER, CONN])
def test_outside_code_gives_the_same_targets(source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "cls.py"
    path.write_text(source)
    (model,) = _models(path)
    merged = _same_targets(model, monkeypatch)
    assert merged > 0 or source is CONN  # (Reader's read: outside code, and a path not followed)


def test_explorations_find_the_same_targets(monkeypatch: pytest.MonkeyPatch) -> None:
    for sample in SAMPLES:
        for model in _models(ROOT / "samples" / sample):
            _same_targets(model, monkeypatch)


"""A constructor's queries (backend.prepare without a source) are solved in a z3 context of
their own (isolated.IsolatedSolver) without relevancy filtering (CONSTRUCTOR_RELEVANCY):
the explorations are those of the main context's solver with z3's default relevancy
(the same states, transitions, initializations and certainties)."""

from __future__ import annotations

from pathlib import Path

import pytest
import z3
from explored_shapes import class_models, shape

from contractor.z3backend import Z3Backend
from contractor.z3backend import backend as B
from contractor.z3backend.isolated import IsolatedSolver

ROOT = Path(__file__).resolve().parent.parent


class _MainContext:
    """IsolatedSolver's stand-in: a solver of the main context, z3's default relevancy."""

    def __init__(self, assertions: list[z3.BoolRef], timeout_ms: int, **_: object) -> None:
        self.solver = B.make_solver(timeout_ms)
        self.solver.add(*assertions)
        self.last_units = 0  # (read where a method's next model is worth trying: never for a constructor)

    def __getattr__(self, name: str) -> object:
        return getattr(self.solver, name)

    def set(self, key: str, value: object) -> None:
        if key != "smt.relevancy":
            self.solver.set(key, value)


@pytest.mark.parametrize("sample", ["door.py", "player.py", "untyped.py", "loop_counter.py", "session_pool.py"])
def test_constructor_solver_gives_the_main_contexts_explorations(sample: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    for model in class_models(ROOT / "samples" / sample):
        isolated = Z3Backend(model, timeout=30.0, reuse=False)
        got = shape(model, isolated)
        assert got[2], "the class has initializations"
        with monkeypatch.context() as m:
            m.setattr(B, "IsolatedSolver", _MainContext)
            m.setattr(B, "simplified", lambda s, t, *_: IsolatedSolver([z3.simplify(a) for a in s.assertions()], t))
            plain = Z3Backend(model, timeout=30.0, reuse=False)
            plain.sem = isolated.sem
            assert got == shape(model, plain)

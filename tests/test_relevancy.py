"""backend.simplified: a method's shared solver in a z3 context of its own; over a large
query (no relevancy tracking) it answers as a plain solver does."""

from __future__ import annotations

import pytest
import z3

from contractor.z3backend import backend
from contractor.z3backend.backend import expressions, simplified
from contractor.z3backend.z3util import make_solver


def _chain(n: int, tag: str) -> tuple[list[z3.BoolRef], z3.ArithRef]:
    """n nested raise-like conditions: each step's Or holds all the earlier ones."""
    xs = z3.Ints(" ".join(f"iso_{tag}{i}" for i in range(n)))
    raised: z3.BoolRef = z3.BoolVal(False)
    parts = []
    for i, x in enumerate(xs):
        raised = z3.Or(raised, z3.And(z3.Not(raised), x > i))
        parts.append(z3.Implies(z3.Not(raised), xs[i] < i + 2))
    return [*parts, z3.Not(raised)], xs[-1]


def test_a_large_query_answers_as_a_plain_solver_does(monkeypatch: pytest.MonkeyPatch) -> None:
    told, last = _chain(60, "q")
    monkeypatch.setattr(backend, "RELEVANCY_FREE_EXPRS", 500)  # (HTTPConnection's request: 177 K)
    assert expressions(told) >= backend.RELEVANCY_FREE_EXPRS  # past the size: relevancy off
    plain = make_solver(10_000)
    plain.add(*told)
    shared = simplified(plain, 10_000)
    for extra in ([], [last == 5], [last > 100]):
        assert shared.check(*extra) == plain.check(*extra)
    assert shared.check(last > 100) == z3.unsat  # above its bound while nothing raised
    assert shared.check(last == 58) == z3.sat


def test_expressions_grow_with_the_query() -> None:
    small, _ = _chain(3, "s")
    large, _ = _chain(30, "l")
    assert 0 < expressions(small) < expressions(large)

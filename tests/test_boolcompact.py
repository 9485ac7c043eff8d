"""boolcompact.compact: an equivalent formula, smaller where a big one has few atoms."""

from __future__ import annotations

import random

import z3

from contractor.z3backend import dag
from contractor.z3backend.boolcompact import MAX_ATOMS, compact


def _equivalent(a: z3.BoolRef, b: z3.BoolRef) -> bool:
    s = z3.Solver()
    s.add(a != b)
    return s.check() == z3.unsat


def _nested(atoms: list[z3.BoolRef], depth: int) -> z3.BoolRef:
    """raise_if's shape: each step's condition is active (not raised so far) and a test."""
    n = len(atoms)
    raised = z3.BoolVal(False)
    for i in range(depth):
        test = z3.And(atoms[i % n], z3.Not(atoms[(i + 1) % n]), atoms[(i * 3 + 2) % n])
        raised = z3.Or(raised, z3.And(z3.Not(raised), test))
    return z3.Not(raised)


def test_nested_guard_becomes_small_and_equivalent() -> None:
    x, y = z3.Ints("x y")
    s = z3.String("s")
    atoms = [s == z3.StringVal("Idle"), x > 0, y == x + 1, z3.Bool("b"), s == z3.StringVal("sent")]
    f = _nested(atoms, 40)
    g = compact(f)
    assert _equivalent(f, g)
    assert len(dag.postorder(g)) < len(dag.postorder(f)) // 4


def test_random_formulas_stay_equivalent() -> None:
    rnd = random.Random(7)
    atoms = [z3.Bool(f"p{i}") for i in range(5)] + [z3.Int("n") > i for i in range(3)]
    rewritten = 0
    for _ in range(40):
        terms: list[z3.BoolRef] = list(atoms)
        for _ in range(80):
            a, b, c = (rnd.choice(terms[-12:]) for _ in range(3))
            op = rnd.randrange(6)
            terms.append([z3.And(a, b), z3.Or(a, b), z3.Not(a), z3.Implies(a, b), a == b, z3.If(a, b, c)][op])
        f = terms[-1]
        g = compact(f)
        assert _equivalent(f, g)
        rewritten += not g.eq(f)
    assert rewritten >= 10  # the rewriting itself was checked, not only the formulas left alone


def test_too_many_atoms_or_quantified_left_alone() -> None:
    many = [z3.Bool(f"q{i}") for i in range(MAX_ATOMS + 1)]
    f = _nested(many, 60)
    assert compact(f).eq(f)
    x = z3.Int("x")
    q = z3.And(_nested([x > 0, x < 5], 30), z3.Exists([x], x > 3))
    assert compact(q).eq(q)

"""The readable invariants' solver-free shortcuts (readable.entailed, and prefer_equalities
taking a term's value from a literal `term == c`): entailed only ever says "entailed" where
the solver proves it, and the state invariants of the samples and Contractor.NET classes
are the same with the shortcuts as with the solver alone (they save queries only)."""

from __future__ import annotations

from pathlib import Path

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from contractor import api
from contractor.z3backend import readable
from contractor.z3backend.readable import entailed

REPO = Path(__file__).resolve().parent.parent
Z3 = api.InferOptions(backend="z3")
A, B, C = z3.Bools("a b c")
N, M = z3.Ints("n m")
S = z3.String("s")
ATOMS = [A, B, C, N == 0, N == 1, N >= 2, M == N, z3.Length(S) == 0, S == z3.StringVal("x"), N + M == 3]


def _formulas(depth: int) -> st.SearchStrategy[z3.BoolRef]:
    leaf = st.sampled_from(ATOMS)
    if depth == 0:
        return leaf
    sub = _formulas(depth - 1)
    return st.one_of(leaf, st.builds(z3.Not, sub), st.builds(lambda x, y: z3.And(x, y), sub, sub),
                     st.builds(lambda x, y: z3.Or(x, y), sub, sub),
                     st.builds(lambda x, y, z: z3.If(x, y, z), sub, sub, sub))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(ATOMS), st.booleans()), max_size=4), _formulas(3))
def test_entailed_only_where_the_solver_proves_it(literals: list[tuple[z3.BoolRef, bool]], formula: z3.BoolRef):
    lits = [atom if positive else z3.Not(atom) for atom, positive in literals]
    if entailed(lits, formula):
        s = z3.Solver()
        s.add(*lits, z3.Not(formula))
        assert s.check() == z3.unsat, (lits, formula)


def test_entailed_sees_constants_fixed_by_equalities():
    assert entailed([N == 0], z3.And(z3.Not(N == 1), N < 2))
    assert entailed([A, z3.Not(B)], z3.Or(z3.And(A, z3.Not(B)), C))
    assert not entailed([N >= 2], z3.Not(N == 1))  # true, but only the solver sees it
    assert not entailed([], A)


TARGETS = ["samples/door.py:Door", "samples/int_queue.py:IntQueue", "samples/stack.py:BoundedStack",
           "samples/turnstile.py:Turnstile", "samples/text_buffer.py:TextBuffer", "samples/tag_set.py:TagSet",
           "samples/account.py:Account", "benchmarks/contractor_net/enriched_door.py:EnrichedDoor",
           "benchmarks/contractor_net/microwave.py:Microwave", "benchmarks/contractor_net/mp3_player.py:Mp3Player",
           "benchmarks/contractor_net/linear.py:Linear", "benchmarks/contractor_net/elevator.py:Elevator"]


@pytest.mark.parametrize("target", TARGETS)
def test_state_invariants_as_with_the_solver_alone(target: str, monkeypatch: pytest.MonkeyPatch):
    from contractor.z3backend import reuse

    monkeypatch.setattr(reuse, "USE_TABLES", False)  # the shortcuts of the per-state search
    path, cls = target.split(":")
    shortcut = api.infer(f"{REPO / path}:{cls}", Z3)
    monkeypatch.setattr(readable, "entailed", lambda lits, formula, memo=None: False)
    monkeypatch.setattr(readable, "_fixed", lambda lits: {})
    solver_only = api.infer(f"{REPO / path}:{cls}", Z3)
    assert [(s.id, s.invariant, s.executable) for s in shortcut.states] == \
        [(s.id, s.invariant, s.executable) for s in solver_only.states]
    assert _after_exploration(shortcut) <= _after_exploration(solver_only)
    if cls in ("Door", "EnrichedDoor", "Linear", "IntQueue"):
        assert _after_exploration(shortcut) < _after_exploration(solver_only)


def _after_exploration(ts) -> int:
    """The queries the readable invariants (and findings) asked: the exploration's own
    count may differ between two runs under load (a query past the shared incremental
    solver's timeout is asked afresh), and the shortcuts compared here do not touch it."""
    return ts.stats.queries - ts.stats.exploration_queries


@pytest.mark.parametrize("make", [
    lambda n, m: [n == 2],
    lambda n, m: [z3.IntVal(2) == n],
    lambda n, m: [n == 2, n <= 3, m >= 1],
    lambda n, m: [n <= 3, z3.IntVal(1) == n, z3.Not(m == 0)],
    lambda n, m: [m == 0, n >= 3, n <= 3],
])
def test_prefer_equalities_as_with_the_solver_alone(make, monkeypatch: pytest.MonkeyPatch):
    n, m = z3.Ints("n m")
    lits = make(n, m)

    def run() -> tuple[list[z3.BoolRef], int]:
        solver = z3.Solver()
        solver.add(n >= 0, n <= 5, m >= 0)
        asked = []
        return readable.prefer_equalities(list(lits), solver, lambda: asked.append(1)), len(asked)

    shortcut, fewer = run()
    monkeypatch.setattr(readable, "_fixed", lambda lits: {})
    solver_only, more = run()
    assert len(shortcut) == len(solver_only) and all(a.eq(b) for a, b in zip(shortcut, solver_only)), \
        (shortcut, solver_only)
    assert fewer < more or not any(z3.is_eq(x) for x in lits)


@pytest.mark.parametrize("target", TARGETS + ["samples/session_pool.py:SessionPool", "samples/router.py:Router",
                                              "benchmarks/contractor_net/atm.py:ATM"])
def test_state_invariants_from_truth_tables_as_from_the_solver(target: str, monkeypatch: pytest.MonkeyPatch):
    from contractor.z3backend import reuse

    path, cls = target.split(":")
    tables = api.infer(f"{REPO / path}:{cls}", Z3)
    monkeypatch.setattr(reuse, "USE_TABLES", False)
    solver = api.infer(f"{REPO / path}:{cls}", Z3)
    assert [(s.id, s.invariant, s.executable) for s in tables.states] == \
        [(s.id, s.invariant, s.executable) for s in solver.states]
    if cls in ("Door", "Microwave", "Linear"):
        assert _after_exploration(tables) < _after_exploration(solver)


def test_a_truth_table_lists_the_rows_objects_take():
    from contractor.z3backend.readable import truth_table

    a, b = z3.Bools("a b")
    table = truth_table([z3.Implies(a, b), N >= 0, N <= 2], [z3.And(a, N == 0), z3.Or(b, N == 2)], lambda: None)
    assert table is not None
    assert len(table.rows) == 3 * 3  # (n == 0, n == 2): 3 of 4 pairs (n in 0..2); (a, b): 3 of 4 (a -> b)
    assert table.literals((True, True)) is not None and table.literals((True, False)) is None  # a, n == 0: b
    assert truth_table([z3.Length(S) > 0], [z3.Length(S) == 1], lambda: None) is None  # strings: not tabled

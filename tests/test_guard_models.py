"""Raise guards read from models (z3backend/guardmodels.py): the disjunction of `ok` at
each model's chosen values is the guard exactly, within the invariant, as z3's
quantifier elimination gives it where that finishes."""

from __future__ import annotations

import z3

from contractor.z3backend.guardmodels import MAX_MODELS, guard_by_models
from contractor.z3backend.z3util import make_solver


def _equivalent_within(inv: z3.BoolRef, a: z3.BoolRef, b: z3.BoolRef) -> bool:
    s = make_solver(5000)
    s.add(inv, a != b)
    return s.check() == z3.unsat


def test_a_guard_over_states_and_chosen_values_is_exact() -> None:
    state, none, truth = z3.String("state"), z3.Bool("none"), z3.Bool("truth")
    inv = z3.Implies(none, z3.Not(truth))
    b, c = z3.Bools("chosen!b chosen!c")
    n = z3.Int("chosen!n")
    ok = z3.And(z3.Or(none, z3.Not(truth), b), z3.Or(state == "Idle", z3.And(c, n > 3)),
                z3.Implies(b, state != "Sent"))
    found = guard_by_models(inv, ok, [b, c, n])
    assert found is not None
    expected = z3.Tactic("qe")(z3.Exists([b, c, n], ok)).as_expr()
    assert _equivalent_within(inv, found, expected)


def test_a_guard_the_invariant_rules_out_is_false() -> None:
    x = z3.Int("x")
    a = z3.Int("chosen!a")
    found = guard_by_models(x > 5, z3.And(a == x, a < 0), [a])
    assert found is not None and _equivalent_within(x > 5, found, z3.BoolVal(False))


def test_a_guard_needing_more_models_than_the_bound_is_left_to_elimination() -> None:
    # exists a. x == 2 * a: one model per even x, never covering them all
    x, a = z3.Int("x"), z3.Int("chosen!a")
    assert MAX_MODELS < 100
    assert guard_by_models(z3.BoolVal(True), x == 2 * a, [a]) is None


def test_a_search_past_the_bound_is_started_again_with_another_seed(monkeypatch) -> None:
    # the first search (seed 0) made to fail as one picking ever narrower models does:
    # the next seed's search still reads the guard, and exactly
    from contractor.z3backend import guardmodels

    seeds: list[int] = []
    search = guardmodels._by_models

    def first_fails(inv, ok, chosen, effort, allowance, seed):  # type: ignore[no-untyped-def]
        seeds.append(seed)
        first = seed == guardmodels.SEEDS[0]
        return guardmodels.PAST_BOUND if first else search(inv, ok, chosen, effort, allowance, seed)

    monkeypatch.setattr(guardmodels, "_by_models", first_fails)
    x, a = z3.Int("x"), z3.Int("chosen!a")
    found = guard_by_models(x > 0, z3.And(a > x, a < 10), [a])
    assert found is not None and _equivalent_within(x > 0, found, x < 9)
    assert seeds == list(guardmodels.SEEDS[:2])


def test_a_search_z3_leaves_undecided_is_not_started_again(monkeypatch) -> None:
    # out of units (not past the bound): the next seeds would spend the elimination's share
    from contractor.z3backend import guardmodels

    seeds: list[int] = []

    def undecided(inv, ok, chosen, effort, allowance, seed):  # type: ignore[no-untyped-def]
        seeds.append(seed)
        return None

    monkeypatch.setattr(guardmodels, "_by_models", undecided)
    x, a = z3.Int("x"), z3.Int("chosen!a")
    assert guard_by_models(x > 0, z3.And(a > x, a < 10), [a]) is None
    assert seeds == [guardmodels.SEEDS[0]]

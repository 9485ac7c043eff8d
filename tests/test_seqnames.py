"""seqnames.SeqConditions: the conditions of sequence-valued if-then-else terms replaced by
named constants give an equivalent query (the same answers, models of the original terms),
and later terms reuse the names; an IsolatedSolver told with them answers as one without."""

from __future__ import annotations

import itertools

import z3

from contractor.z3backend.isolated import IsolatedSolver
from contractor.z3backend.seqnames import PREFIX, SeqConditions


def _query() -> tuple[list[z3.BoolRef], list[z3.BoolRef]]:
    a, b, c = z3.Bools("sn_a sn_b sn_c")
    n = z3.Int("sn_n")
    mode = z3.String("sn_mode")
    cond = z3.Or(z3.And(a, n > 3), z3.And(b, mode == z3.StringVal("r")))
    picked = z3.If(cond, z3.StringVal("w"), z3.If(z3.And(c, n < 0), mode, z3.StringVal("a")))
    bits = [picked == z3.StringVal("w"), picked == mode, z3.Length(picked) == 1, c]
    return [z3.Or(a, b, c), z3.Not(z3.And(a, b))], bits


def _targets(solver: z3.Solver | IsolatedSolver, bits: list[z3.BoolRef]) -> set[tuple[bool, ...]]:
    """Every combination of the bits some model gives (asked one by one)."""
    out = set()
    for values in itertools.product([False, True], repeat=len(bits)):
        if solver.check(*[b if v else z3.Not(b) for b, v in zip(bits, values)]) == z3.sat:
            out.add(values)
    return out


def test_named_conditions_keep_the_answers_and_the_models() -> None:
    told, bits = _query()
    ctx = z3.Context()
    names = SeqConditions(ctx)
    moved = [t.translate(ctx) for t in told + [z3.And(*bits[:2])]]
    named = names.named(moved)
    assert len(named) == len(moved) + 2  # both conditions named, each defined once
    assert all(f"{PREFIX}" in str(d) for d in named[len(moved):])
    solver = z3.Solver(ctx=ctx)
    solver.add(*named)
    assert solver.check() == z3.sat
    m = solver.model()
    assert all(z3.is_true(m.eval(t, model_completion=True)) for t in moved)  # a model of the original terms
    again = names.named([z3.Not(bits[0]).translate(ctx)])
    assert len(again) == 1 and PREFIX in str(again[0])  # a later term: the same names, no new definition


def test_an_isolated_solver_with_named_conditions_answers_as_one_without() -> None:
    told, bits = _query()
    plain = IsolatedSolver(told, 10_000)
    named = IsolatedSolver(told, 10_000, named=True)
    assert _targets(named, bits) == _targets(plain, bits)
    assert _targets(plain, bits)  # some target at all


def test_a_condition_holding_another_is_defined_on_its_name() -> None:
    a, b = z3.Bools("sn_na sn_nb")
    n = z3.Int("sn_nn")
    inner_cond = z3.And(a, n > 3)
    inner = z3.If(inner_cond, z3.StringVal("x"), z3.StringVal("y"))
    outer = z3.If(z3.Or(b, inner == z3.StringVal("x")), z3.StringVal("p"), z3.StringVal("q"))
    told = [z3.Length(outer) == 1, z3.Not(b)]
    ctx = z3.Context()
    moved = [t.translate(ctx) for t in told]
    named = SeqConditions(ctx).named(moved)
    definitions = named[len(moved):]
    assert len(definitions) == 2
    inner_here = inner_cond.translate(ctx)
    # each condition is written once: the outer one's definition names the inner one
    assert sum(str(inner_here) in str(d) for d in definitions) == 1
    for goal in (outer == z3.StringVal("p"), outer == z3.StringVal("q")):
        plain, renamed = z3.Solver(ctx=ctx), z3.Solver(ctx=ctx)
        plain.add(*moved, goal.translate(ctx))
        renamed.add(*named, goal.translate(ctx))
        assert plain.check() == renamed.check() == z3.sat
        m = renamed.model()
        assert all(z3.is_true(m.eval(t, model_completion=True)) for t in [*moved, goal.translate(ctx)])

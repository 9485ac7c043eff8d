"""The executor's connectives without the binding's coercions (fastterms.py) make the
terms z3.And, z3.Or and z3.Not make, with the same ids in a context (z3's answers
depend on its terms' ids), and the raw accessors answer as the binding does."""

from __future__ import annotations

from typing import Any

import z3

from contractor.z3backend import fastterms as F


def _build(ctx: z3.Context, fast: bool) -> list[int]:
    """A run of term building like the executor's (path conditions, raises, merged untyped
    values), in `ctx`, by fastterms.py (`fast`) or the binding: the ids of the terms made,
    some of them dropped on the way (their ids free again)."""
    not_, and_, or_, ite = (F.not_, F.and_, F.or_, F.ite) if fast else (z3.Not, z3.And, z3.Or, z3.If)
    pair = z3.Datatype("Pair", ctx)
    pair.declare("pair", ("fst", z3.IntSort(ctx)), ("snd", z3.BoolSort(ctx)))
    sort = pair.create()

    def app(f: z3.FuncDeclRef, *args: Any) -> z3.ExprRef:
        return F.app(f, *args) if fast else f(*args)

    p, q, r = (z3.Bool(n, ctx) for n in "pqr")
    x = z3.Int("x", ctx)
    raised = z3.BoolVal(False, ctx)
    value = app(sort.pair, x, p)
    ids = []
    for k in range(6):
        guard = and_(p, x > k) if k % 2 else or_(q, not_(r))
        active = and_(guard, not_(raised), not_(q))
        ids.append(active.get_id())
        raised = or_(raised, and_(active, x == k))
        ids.append(raised.get_id())
        merged = app(sort.pair, ite(active, app(sort.fst, value), x + k), ite(guard, app(sort.snd, value), q))
        value = ite(r, merged, value)
        ids += [value.get_id(), ite(p, k, x).get_id(), app(sort.pair, k, True).get_id()]  # with coercions
        del guard, active, merged  # some terms freed, their ids reused by the next ones
    ids.append(and_(*[not_(z3.Bool(f"b{i}", ctx)) for i in range(5)]).get_id())
    return ids


def test_the_same_terms_with_the_same_ids() -> None:
    assert _build(z3.Context(), fast=False) == _build(z3.Context(), fast=True)


def test_results_equal_the_bindings() -> None:
    p, q = z3.Bools("p q")
    forall = z3.ForAll([z3.Int("i")], z3.Int("i") > 0)
    for args in [(p,), (p, q), (p, z3.Not(q), forall), (forall, p)]:
        assert F.and_(*args).eq(z3.And(*args)) and type(F.and_(*args)) is z3.BoolRef
        assert F.or_(*args).eq(z3.Or(*args))
    assert F.not_(forall).eq(z3.Not(forall))
    # anything but Boolean terms of one context: the binding's own function
    assert F.and_(p, True).eq(z3.And(p, True)) and F.or_().eq(z3.Or()) and F.and_().eq(z3.And())
    assert F.not_(False).eq(z3.Not(False))
    x, y, r = z3.Int("x"), z3.Int("y"), z3.Real("r")
    for a, b in [(x, y), (x, 1), (x, r), (p, q), (p, True)]:
        made = F.ite(p, a, b)
        assert made.eq(z3.If(p, a, b)) and type(made) is type(z3.If(p, a, b))
    dt = z3.Datatype("Box")
    dt.declare("box", ("n", z3.IntSort()), ("b", z3.BoolSort()))
    box = dt.create()
    for args in [(x, p), (1, p), (x, True), (r, p)]:
        try:
            expected = box.box(*args)
        except z3.Z3Exception:
            continue  # a Real where an Int is wanted: the binding refuses it, and so does F.app
        assert F.app(box.box, *args).eq(expected)


def test_accessors_answer_as_the_binding() -> None:
    x, p = z3.Int("x"), z3.Bool("p")
    dt = z3.Datatype("Pair")
    dt.declare("pair", ("fst", z3.IntSort()))
    pair = dt.create()
    terms = [x, p, x + 1, z3.If(p, x, 1), z3.BoolVal(True), z3.BoolVal(False), z3.simplify(x == x), pair.pair(x),
             pair.fst(pair.pair(x)), z3.ForAll([x], x > 0), z3.IntVal(3)]
    other = z3.Context()
    terms += [z3.Int("y", other) + 2, z3.ForAll([z3.Int("i", other)], z3.Int("i", other) > 0)]
    for t in terms:
        assert F.node_id(t) == t.get_id()
        assert F.is_true(t) == z3.is_true(t)
        for k in (z3.Z3_OP_ITE, z3.Z3_OP_DT_CONSTRUCTOR, z3.Z3_OP_DT_ACCESSOR, z3.Z3_OP_TRUE, z3.Z3_OP_ADD):
            assert (F.op_kind(t) == k) == z3.is_app_of(t, k)


def test_bool_children_are_the_bindings() -> None:
    p, q = z3.Bools("p q")
    i = z3.Int("i")
    forall, lam_free = z3.ForAll([i], i * i >= 0), z3.Exists([i], z3.And(i > 0, p))
    for e in [z3.And(p, q, forall, z3.Not(p), i > 3, z3.BoolVal(True)), z3.Or(p, lam_free), z3.Not(forall),
              z3.Implies(p, q), z3.And(z3.Or(p, q), p == q)]:
        made, expected = F.bool_children(e), e.children()
        assert [type(c) for c in made] == [type(c) for c in expected]
        assert all(a.eq(b) for a, b in zip(made, expected)) and len(made) == len(expected)


def test_add_asserts_what_the_binding_asserts() -> None:
    p, q = z3.Bools("p q")
    x = z3.Int("x")
    for terms in [(p, z3.Not(q), x > 2), (p, True), (), (z3.ForAll([x], x * x >= 0), q)]:
        fast, slow = z3.SimpleSolver(), z3.SimpleSolver()
        F.add(fast, *terms)
        slow.add(*terms)
        assert [a.sexpr() for a in fast.assertions()] == [a.sexpr() for a in slow.assertions()]
        assert fast.check() == slow.check()
    other = z3.Context()
    s = z3.SimpleSolver(ctx=other)
    F.add(s, z3.Bool("r", other))  # a solver of another context: its own terms
    assert [a.sexpr() for a in s.assertions()] == ["r"]


def test_eq_is_the_bindings() -> None:
    x, y = z3.Int("x"), z3.Int("y")
    assert F.eq(x, y).eq(x == y)


def test_simplified_keeps_and_or_nested_and_shows_the_same_falses() -> None:
    p, q, r = z3.Bools("p q r")
    earlier = z3.Or(p, q)
    nested = z3.Or(earlier, z3.And(r, z3.Not(earlier)))  # a raise after raises: `raised or (active and c)`
    assert z3.simplify(nested).num_args() == 3  # flattened by default: the prefix copied
    assert F.simplified(nested).num_args() == 2 and F.simplified(nested).arg(0).eq(earlier)
    assert F.shown_false(z3.And(p, z3.Or(q, z3.BoolVal(False)), z3.Not(p)))
    assert not F.shown_false(z3.And(p, z3.Or(q, r)))


def test_opaque_fresh_well_formed_is_the_bindings_term() -> None:
    from contractor.z3backend import opaque as O

    n, t, i = z3.Bool("fwf.none"), z3.Bool("fwf.truth"), z3.Int("fwf.id")
    made = O.make(z3.If(n, O.NONE_ID, z3.If(i == O.NONE_ID, O.NONE_ID - 1, i)), n, z3.And(z3.Not(n), t))
    fresh = O.fresh_well_formed("fwf")
    assert fresh.eq(made) and fresh.get_id() == made.get_id()
    assert isinstance(fresh, z3.DatatypeRef) and fresh.sort() == O.SORT


def test_nested_solvers_answer_as_flattening_ones() -> None:
    from contractor.z3backend.z3util import make_solver

    xs = z3.Bools(" ".join(f"b{k}" for k in range(6)))
    raised: z3.BoolRef = z3.BoolVal(False)
    for k, b in enumerate(xs):  # raise conditions nesting as the executor's do
        raised = z3.Or(raised, z3.And(z3.Not(raised), b, xs[(k + 1) % len(xs)]))
    for query in (z3.And(z3.Not(raised), xs[0]), z3.And(raised, z3.Not(z3.Or(*xs)))):
        answers = set()
        for core in (False, True):
            for nested in (False, True):
                s = make_solver(1000, core=core, nested=nested)
                s.add(query)
                answers.add(str(s.check()))
        assert len(answers) == 1 and "unknown" not in answers

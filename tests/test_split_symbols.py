"""SymbolIndex (split.py) walks raw pointers: its symbols are those a walk through z3's
Python objects finds, for whole terms, for subterms remembered from an earlier walk, and
for objects that are no expressions."""

from __future__ import annotations

import z3

from contractor.z3backend.split import SymbolIndex, conjuncts


def _by_binding(e: z3.AstRef) -> frozenset[str]:
    if z3.is_quantifier(e):
        return _by_binding(e.body())
    if z3.is_var(e) or not z3.is_app(e):
        return frozenset()
    d = e.decl()
    own = {f"{d.name()}/{d.arity()}"} if d.kind() == z3.Z3_OP_UNINTERPRETED else set()
    return frozenset(own.union(*(_by_binding(c) for c in e.children())))


def _terms() -> list[z3.ExprRef]:
    x, y = z3.Ints("x y")
    p = z3.Bool("p")
    f = z3.Function("f", z3.IntSort(), z3.IntSort(), z3.BoolSort())
    a = z3.Array("a", z3.IntSort(), z3.IntSort())
    s = z3.String("s")
    i = z3.Int("i")
    shared = x + y * 2
    return [x, z3.IntVal(7), z3.BoolVal(True), shared, z3.And(p, shared > 0, f(shared, x)),
            z3.ForAll([i], z3.Implies(i > x, a[i] >= y)), z3.Exists([i], f(i, i)), z3.Length(s) > z3.IntVal(2),
            z3.If(p, shared, a[shared]) == x, z3.Lambda([i], a[i] + x)[y], z3.Store(a, x, y)[x] == 1]


def test_symbols_are_the_bindings() -> None:
    fresh = [_by_binding(t) for t in _terms()]
    index = SymbolIndex()
    assert [index.of(t) for t in _terms()] == fresh
    assert [index.of(t) for t in _terms()] == fresh  # remembered: the same answers
    index = SymbolIndex()
    for t in _terms():  # subterms first remembered under a larger term, then asked alone
        index.of(z3.And(t == t) if not isinstance(t, z3.BoolRef) else z3.Not(t))
        assert index.of(t) == _by_binding(t)
    assert index.of(None) == frozenset() and index.of(3) == frozenset()
    sort = z3.IntSort()
    assert index.of(sort) == _by_binding(sort)


def test_conjuncts_flatten_ands_and_drop_true() -> None:
    p, q, r = z3.Bools("p q r")
    e = z3.And(p, z3.And(q, z3.BoolVal(True)), z3.Or(p, r), z3.And(r))
    assert [str(c) for c in conjuncts(e)] == ["p", "q", "Or(p, r)", "r"]
    assert [str(c) for c in conjuncts(z3.BoolVal(True))] == []

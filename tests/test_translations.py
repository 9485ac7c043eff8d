"""isolated.Translations: main-context terms translated into another context once, and
models read through them give what a translation afresh gives."""

from __future__ import annotations

import z3

from contractor.z3backend.isolated import IsolatedModel, IsolatedSolver, Translations


def test_into_and_back_are_the_translations_made_once() -> None:
    x, y = z3.Ints("tr_x tr_y")
    ctx = z3.Context()
    t = Translations(ctx)
    term = z3.If(x > y, x + 1, y - 1)
    first = t.into(term)
    assert first.ctx is ctx and first.eq(term.translate(ctx))
    assert t.into(term) is first  # the cached object, not a new translation
    value = z3.IntVal(7, ctx)
    back = t.back(value)
    assert back.ctx is z3.main_ctx() and back.eq(z3.IntVal(7))
    assert t.back(value) is back


def test_an_isolated_solver_reads_its_models_as_a_fresh_translation_would() -> None:
    x, y = z3.Ints("tr_a tr_b")
    b = z3.Bool("tr_flag")
    s = IsolatedSolver([x + y == 10, x > 3, b == (x > 6)], 10_000)
    assert s.check(y > 2) == z3.sat
    m = s.model()
    plain = IsolatedModel(m.model, m.ctx)  # no Translations: each term translated afresh
    for term in (x, y, b, x * y, z3.If(b, x, y)):
        for _ in range(2):  # the second read through the cache
            assert m.eval(term, model_completion=True).eq(plain.eval(term, model_completion=True))
    assert s.check(y > 2, x < 4) == z3.unsat  # the assumptions translated through the cache too
    assert s.check(y > 2) == z3.sat


def test_terms_translated_together_are_those_translated_one_by_one() -> None:
    x, y = z3.Ints("tr_p tr_q")
    shared = z3.If(x > y, x * 2, y + 3)
    terms = [shared > 1, shared < 9, z3.Or(shared == 4, x == y), shared > 1]  # one twice
    ctx = z3.Context()
    together = Translations(ctx).into_all(terms)
    alone = [t.translate(ctx) for t in terms]
    assert [a.get_id() for a in together] == [b.get_id() for b in alone]  # the same nodes of ctx
    t = Translations(ctx)
    first = t.into(terms[1])
    assert t.into_all(terms)[1] is first  # what was translated already is kept

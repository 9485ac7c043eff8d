"""A model's truth value for an enabledness bit that z3 defined away.

A solver used without push/pop preprocesses `b == exists i. ...` by eliminating `b`;
its model then evaluates `b` to the quantified formula itself (every free symbol replaced
by its value, the quantifier left in place). Reading that as "not true" put objects in
states they are not in: a wrong must-transition of `test_semantics.py`'s
`dict_operations` case, seen only when the shared incremental solver timed out under load
and the query was asked afresh. Here the same situation is built directly.
"""

from __future__ import annotations

import z3

from contractor.z3backend.backend import enabled_in
from contractor.z3backend.z3util import make_solver, truth


def _eliminated_bit_model(second: int) -> tuple[z3.ModelRef, z3.BoolRef, z3.BoolRef]:
    """A model of `b == (1 in q)` (as a quantifier over positions) for q == [5, second],
    and of a plain bit `c == (len(q) == 2)`."""
    s = make_solver(5000)
    b, c = z3.Bools("b c")
    q = z3.Const("q", z3.SeqSort(z3.IntSort()))
    i = z3.Int("i")
    s.add(b == z3.Exists([i], z3.And(0 <= i, i < z3.Length(q), q[i] == 1)))
    s.add(c == (z3.Length(q) == 2))
    s.add(z3.Length(q) == 2, q[0] == 5, q[1] == second)
    assert s.check() == z3.sat
    return s.model(), b, c


def test_z3_leaves_the_eliminated_bit_unevaluated() -> None:
    """The premise: if z3 ever evaluates such a bit to a literal, this test says so (and
    `truth` is then only a safety net)."""
    m, b, _ = _eliminated_bit_model(1)
    value = m.eval(b, model_completion=True)
    assert not z3.is_true(value) and not z3.is_false(value), value


def test_truth_decides_a_formula_the_model_left_quantified() -> None:
    for second, expected in ((1, True), (7, False)):
        m, b, c = _eliminated_bit_model(second)
        assert truth(m, b) is expected
        assert truth(m, c) is True
        assert truth(m, z3.Not(b)) is (not expected)


def test_enabled_in_reads_eliminated_bits_by_their_truth() -> None:
    m, b, c = _eliminated_bit_model(1)
    assert enabled_in(m, {"take": b, "size": c}) == frozenset({"take", "size"})
    m, b, c = _eliminated_bit_model(3)
    assert enabled_in(m, {"take": b, "size": c}) == frozenset({"size"})

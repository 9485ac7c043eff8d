"""Raise guards with many bound Booleans go to qe2 before qe (z3util.projection_first):
the same guard, eliminated exactly, without qe's case splits running into its timeout."""

from __future__ import annotations

import z3

from contractor.z3backend.z3util import QE2_FIRST_BOOLS, eliminate_quantifiers, projection_first


def _guard(n_bools: int, with_int: bool = True) -> tuple[z3.BoolRef, list[z3.ExprRef]]:
    """exists b_0..b_n (path choices) [and v (a value outside code chose)]: the fields x, y
    meet the conditions of the chosen paths."""
    x, y = z3.Ints("x y")
    bs = [z3.Bool(f"b{i}") for i in range(n_bools)]
    v = z3.Int("v")
    body = [z3.Implies(b, x > i) for i, b in enumerate(bs)]
    body.append(z3.Or(*bs))
    if with_int:
        body += [v == x + y, v < 2 * n_bools]
    bound = [*bs, v] if with_int else bs
    return z3.Exists(bound, z3.And(*body)), bound


def test_which_guards_go_to_qe2_first() -> None:
    assert projection_first(_guard(QE2_FIRST_BOOLS)[0])
    assert not projection_first(_guard(QE2_FIRST_BOOLS - 1)[0])  # few Booleans: qe first, as before
    assert not projection_first(_guard(QE2_FIRST_BOOLS + 5, with_int=False)[0])  # Booleans alone: qe
    b, v = z3.Bool("b"), z3.Int("v")
    assert not projection_first(z3.ForAll([b, v], z3.Or(b, v > 0)))  # only `exists` (raise guards)
    assert not projection_first(z3.Int("x") > 0)


def test_qe2_first_eliminates_exactly() -> None:
    formula, _ = _guard(QE2_FIRST_BOOLS + 4)
    assert projection_first(formula)
    result = eliminate_quantifiers(formula, 2000, project=True)
    assert result is not formula and not z3.is_quantifier(result)
    names = {str(c) for c in z3.z3util.get_vars(result)}
    assert names <= {"x", "y"}
    s = z3.Solver()
    s.add(result != formula)  # equivalent over every x, y
    assert s.check() == z3.unsat
    s = z3.Solver()  # and not trivially true: x = 0 enables no path (b_i needs x > i, i >= 0)
    s.add(result, z3.Int("x") == 0)
    assert s.check() == z3.unsat

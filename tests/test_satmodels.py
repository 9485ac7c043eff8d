"""satmodels.py: a check answered `sat` by extending the last `sat` check's model is
satisfiable (the model found satisfies it); where the earlier choices rule the new
check out, or nothing extends them, the check is left to the solver (never `unsat` from
here), so an `unsat` answer, the one that changes a translation, is still the solver's."""

from __future__ import annotations

import z3

from contractor.z3backend.satmodels import SatModels
from contractor.z3backend.z3util import Assumptions, make_solver


def _model(*fs: z3.BoolRef) -> z3.ModelRef:
    s = make_solver(5000)
    s.add(*fs)
    assert s.check() == z3.sat
    return s.model()


def test_an_extension_over_new_values_is_a_model_of_the_new_check() -> None:
    x, y = z3.Ints("sm_x sm_y")
    line = z3.String("sm_line")
    ctx = x >= 0
    first = z3.And(x > 2, x < 10)
    models = SatModels()
    models.restart(_model(ctx, first))
    # the next check: the same path on, with conditions on values made up since
    later = z3.And(first, y == x + 1, z3.Length(line) > 3, z3.Contains(line, z3.StringVal("-")))
    assert models.extends([ctx, later])
    # what the models say together satisfies it (checked by a solver of the main context)
    s = make_solver(5000)
    s.add(ctx, later)
    assert s.check() == z3.sat


def test_earlier_choices_that_rule_the_check_out_leave_it_to_the_solver() -> None:
    x = z3.Int("sm_x2")
    models = SatModels()
    models.restart(_model(x > 0, x < 5))
    fixed = models._models[0].eval(x.translate(models._ctx)).as_long()  # type: ignore[union-attr]
    assert not models.extends([x > 0, x != fixed])  # satisfiable, but not by this model: asked as before
    assert not models.extends([x > 0, x > 100])


def test_an_unsatisfiable_check_is_never_answered_sat() -> None:
    """Through Assumptions: the loop-bound check `k < n` past an invariant `n <= 2` is unsat
    (the loop stops unrolling) even after satisfiable checks whose models were kept."""
    n, k = z3.Int("sm_n"), z3.Int("sm_k")
    a = Assumptions(z3.And(n >= 0, n <= 2), 5000)
    for i in range(2):
        assert a.check(n > i) == z3.sat
    assert a.check(n > 2) == z3.unsat
    assert a.check(z3.And(k == n, k > 5)) == z3.unsat
    assert a.check(n > 1) == z3.sat


def test_no_model_no_answer() -> None:
    assert not SatModels().extends([z3.BoolVal(True)])

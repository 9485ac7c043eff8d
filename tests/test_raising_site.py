"""checks.raising_site: the raise site a finding's counterexample shows is the first whose
condition the model makes true (else the first not shown false, else the first), read in
one evaluation of an if-then-else chain; the same site as evaluating each condition."""

from __future__ import annotations

from typing import Any

import pytest
import z3

from contractor.z3backend.checks import raising_site
from contractor.z3backend.state import Site
from contractor.z3backend.z3util import truth


def one_by_one(m: Any, sites: list[Site]) -> Site:
    values = [truth(m, s.cond) for s in sites]
    return next((s for s, v in zip(sites, values) if v), None) \
        or next((s for s, v in zip(sites, values) if v is not False), sites[0])


class ChainUnevaluated:
    """A model that leaves the chain unevaluated (as a model over sequences may leave an
    out-of-range item): raising_site then decides site by site."""

    def __init__(self, m: z3.ModelRef) -> None:
        self.m = m

    def eval(self, e: z3.ExprRef, model_completion: bool = False) -> z3.ExprRef:
        return e if z3.is_app_of(e, z3.Z3_OP_ITE) else self.m.eval(e, model_completion=model_completion)


x, y = z3.Ints("rs_x rs_y")
CASES = {
    "second true": [x > 5, x == 3, x > 0],
    "first true": [x == 3, x > 5],
    "none true": [x > 5, y > 100, x < 0],
    "last true": [x > 5, y > 100, y == 4],
    "one site": [x > 5],
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("unevaluated", [False, True])
def test_the_site_is_the_one_evaluating_each_condition_gives(name: str, unevaluated: bool) -> None:
    s = z3.Solver()
    s.add(x == 3, y == 4)
    assert s.check() == z3.sat
    m: Any = ChainUnevaluated(s.model()) if unevaluated else s.model()
    sites = [Site(c, f"E{i}", i, "m") for i, c in enumerate(CASES[name])]
    assert raising_site(m, sites) is one_by_one(m, sites)

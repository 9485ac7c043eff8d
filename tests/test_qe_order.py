"""Raise guards go to qe2 before qe (z3util.eliminate_quantifiers with `project`): the
same guard, eliminated exactly, without qe's case splits on the path Booleans running
into its units; qe where qe2 cannot (an uninterpreted function of a bound value), and
for every other elimination."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import z3

from contractor.z3backend import z3util
from contractor.z3backend.z3util import eliminate_quantifiers

ROOT = Path(__file__).resolve().parent.parent


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


def _tactics(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The tactics eliminate_quantifiers runs, in order (each still run)."""
    used: list[str] = []
    real = z3util._apply

    def apply(name: str, *args: object, **kwargs: object) -> z3.BoolRef | None:
        used.append(name)
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(z3util, "_apply", apply)
    return used


def _exact(result: z3.BoolRef, formula: z3.BoolRef) -> None:
    assert result is not formula and not z3.is_quantifier(result)
    assert {str(c) for c in z3.z3util.get_vars(result)} <= {"x", "y"}
    s = z3.Solver()
    s.add(result != formula)  # equivalent over every x, y
    assert s.check() == z3.unsat
    s = z3.Solver()  # and not trivially true: x = 0 enables no path (b_i needs x > i, i >= 0)
    s.add(result, z3.Int("x") == 0)
    assert s.check() == z3.unsat


@pytest.mark.parametrize("n_bools, with_int", [(3, True), (20, True), (13, False), (30, False)])
def test_a_raise_guard_goes_to_qe2_first_and_is_eliminated_exactly(
        monkeypatch: pytest.MonkeyPatch, n_bools: int, with_int: bool) -> None:
    used = _tactics(monkeypatch)
    formula, _ = _guard(n_bools, with_int)
    _exact(eliminate_quantifiers(formula, project=True), formula)
    assert used == ["qe2"]


def test_other_eliminations_go_to_qe(monkeypatch: pytest.MonkeyPatch) -> None:
    used = _tactics(monkeypatch)
    formula, _ = _guard(5)
    _exact(eliminate_quantifiers(formula), formula)
    assert used == ["qe"]


def test_where_qe2_cannot_qe_eliminates(monkeypatch: pytest.MonkeyPatch) -> None:
    """qe2 takes no uninterpreted function of a bound value (z3util._projected): qe then."""
    used = _tactics(monkeypatch)
    x, v = z3.Ints("x v")
    f = z3.Function("qe_order_f", z3.IntSort(), z3.IntSort())
    formula = z3.Exists([v], z3.And(f(v) > x, v == 3))  # qe: f(3) > x
    result = eliminate_quantifiers(formula, project=True)
    assert used == ["qe"]
    assert not z3.is_quantifier(result)
    s = z3.Solver()
    s.add(result != formula)
    assert s.check() == z3.unsat


# a formula qe works on for longer than the units it is given below; then five new terms
# of the context, whose ids are printed
PROBE = """
import sys
import z3
from contractor.z3backend.z3util import Effort, eliminate_quantifiers
xs = z3.Ints(" ".join(f"x{i}" for i in range(12)))
ys = z3.Ints(" ".join(f"y{i}" for i in range(6)))
body = z3.And(*[z3.Or(xs[i] + 2 * ys[i % 6] > xs[(i + 1) % 12], xs[i] - ys[(i + 2) % 6] < 3 * i)
                for i in range(12)], z3.Sum(xs) == 3 * z3.Sum(ys) + 1)
formula = z3.Exists(xs, body)
if sys.argv[1] != "0":
    eliminate_quantifiers(formula, Effort(rlimit=int(sys.argv[1]), cap_ms=60_000))
print([(z3.Int(f"k{i}") + i).get_id() for i in range(5)])
"""


def test_an_elimination_makes_no_term_in_the_callers_context(tmp_path: Path) -> None:
    """qe runs in a context of its own (z3util._apply): the terms it makes before it
    succeeds or runs out of time (how many depends on the machine's speed) would change
    the ids z3 gives the caller's later terms (it recycles freed ids), and z3.simplify
    orders disjunctions by id: the shape of every later formula, and the solver's time
    on it, changed run to run. Each run in a process of its own (a fresh context)."""
    (tmp_path / "probe.py").write_text(PROBE)

    def ids(units: int) -> str:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        return subprocess.run([sys.executable, str(tmp_path / "probe.py"), str(units)], env=env,
                              capture_output=True, text=True, check=True).stdout

    untouched = ids(0)
    assert ids(300_000) == untouched
    assert ids(1_000_000) == untouched


def test_an_elimination_made_elsewhere_comes_back_to_the_callers_context() -> None:
    x, y = z3.Ints("x y")
    result = eliminate_quantifiers(z3.Exists([x], z3.And(x > y, x < 3)))
    assert result.ctx is y.ctx and not z3.is_quantifier(result)
    s = z3.Solver()
    s.add(result != (y < 2))
    assert s.check() == z3.unsat

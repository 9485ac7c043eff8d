"""The installed z3 against queries some releases answer wrongly (tests/z3_regressions/).

contractor pins z3-solver (pyproject.toml); these tests fail if an environment brings a
release that gets them wrong. `zipfile_mode_loop_check.smt2` is one of the loop-iteration
checks of zipfile.ZipFile's constructor (its `modeDict` lookups), asked as contractor asks
it: the assertions, then the iteration's condition as an assumption. z3 4.15.4, 4.16.0 and
5.3.3 answer unsat; 5.4.1 answers sat, and asserting the assumption instead makes every
release answer sat. An unsat answer there would end the loop's paths early: a dropped
transition.
"""

from __future__ import annotations

from pathlib import Path

import z3

QUERY = Path(__file__).parent / "z3_regressions" / "zipfile_mode_loop_check.smt2"
ASKED = '(check-sat-assuming ((= __init__@mode "w")))'


def assertions() -> str:
    text = QUERY.read_text()
    assert ASKED in text
    return text.replace(ASKED, "")


def test_a_satisfiable_assumption_is_not_refuted() -> None:
    solver = z3.Solver()
    solver.set("timeout", 60_000)
    solver.from_string(assertions())
    assert solver.check(z3.String("__init__@mode") == z3.StringVal("w")) == z3.sat


def test_the_same_query_asserted_is_satisfiable() -> None:
    """The witness that the query is satisfiable: with the assumption asserted, every
    release tried answers sat."""
    solver = z3.Solver()
    solver.set("timeout", 60_000)
    solver.from_string(assertions())
    solver.add(z3.String("__init__@mode") == z3.StringVal("w"))
    assert solver.check() == z3.sat

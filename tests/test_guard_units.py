"""Raise guards are read within z3's resource units (a count of the solver's steps), not
within wall-clock time: the same class gives the same guards, and so the same typestate,
however busy the machine is. Wall-clock limits are left only as safety nets far above
what the guards of these classes need (z3util.QE, guardmodels.MODEL, guardqe.VECTOR).

Before, each method's eliminations had 4 s (guards.GUARD_SHARE_S), qe's first try 250 ms,
the models 2 s: smtplib.SMTP's guards came out differently run to run under load
(342 to 360 transitions; `getresponse`'s guard 111 or 134 K characters)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import z3

from contractor.z3backend.z3util import Allowance, Effort, eliminate_quantifiers

ROOT = Path(__file__).resolve().parent.parent

# the guards of each class, read in a process of its own (z3's answers depend on what the
# process made before: the same steps give the same guards), optionally with every reading
# of the clock 100 s after the last (a machine so loaded that each step took that long).
# Lowering BIG_GUARD_NODES sends more of them to models (guardmodels.py); among them a
# qe2 first (many bound Booleans), qe, a guard with an unfinished path (guards._covered)
# and guards over strings
READ = """
import itertools, json, sys, time
from contractor.api import load_model
from contractor.z3backend import guardmodels
from contractor.z3backend.semantics import ClassSemantics
guardmodels.BIG_GUARD_NODES = 100
if sys.argv[1] == "slow":
    ticks = itertools.count(time.monotonic(), 100.0)
    time.monotonic = lambda: next(ticks)
out = {}
for target in sys.argv[2:]:
    sem = ClassSemantics(load_model(target))
    out[target] = [{m: f.sexpr() for m, f in sem.enabled.items()}, [repr(u) for u in sem.unknowns]]
print(json.dumps(out))
"""
TARGETS = ["asyncio.locks:Lock", "wave:Wave_write", "zipfile:ZipFile"]


def _guards(clock: str) -> dict[str, list[object]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    done = subprocess.run([sys.executable, "-c", READ, clock, *TARGETS], env=env, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_guards_do_not_depend_on_the_clock() -> None:
    """However late the clock says it is, the same guards, text for text, and the same unknowns."""
    calm = _guards("calm")
    assert set(calm) == set(TARGETS) and all(guards for guards, _ in calm.values())
    assert _guards("slow") == calm


def _hard_to_eliminate() -> z3.BoolRef:
    """A guard-shaped formula (path Booleans, integers) qe needs about 0.1 M units for."""
    xs = z3.Ints(" ".join(f"x{i}" for i in range(8)))
    bs = z3.Bools(" ".join(f"b{i}" for i in range(6)))
    y = z3.Int("y")
    body = z3.And(*[z3.Implies(b, xs[i] + xs[i + 1] > y + i) for i, b in enumerate(bs)],
                  z3.Or(*bs), z3.Sum(xs) == 3 * y + 1, *[x >= 0 for x in xs])
    return z3.Exists([*xs, *bs], body)


def test_units_not_time_decide_an_elimination() -> None:
    """Too few units: not eliminated, however long the wall-clock cap; enough: eliminated
    exactly; an allowance pays for every try and stops them once spent."""
    formula = _hard_to_eliminate()
    assert eliminate_quantifiers(formula, Effort(rlimit=2_000, cap_ms=600_000)) is formula
    enough = Effort(rlimit=1_500_000, cap_ms=600_000)
    first = eliminate_quantifiers(formula, enough)
    assert first is not formula and not z3.is_quantifier(first)
    s = z3.Solver()
    s.add(first != formula)
    assert s.check() == z3.unsat  # exact
    share = Allowance(50_000_000)
    assert eliminate_quantifiers(formula, enough, project=True, allowance=share) is not formula
    assert 0 < 50_000_000 - share.units < 50_000_000  # what it used, taken off
    spent = Allowance(0)
    assert eliminate_quantifiers(formula, enough, project=True, allowance=spent) is formula

"""Raise guards of big methods read from models instead of by quantifier elimination.

A raise guard is `exists v. ok(c, v)` (guards.py). For any values m of v, `ok(c, m)` is
a formula of the object alone that implies the guard; so is a disjunction of several.
Taking m from a model of `inv(c) and ok(c, v) and not (the disjunction so far)` until
there is none gives a disjunction that holds in every object meeting the invariant where
some v makes `ok` true: the guard exactly, within the invariant, which is where the
exploration uses it. Each model is one satisfiability query on the formula as it is, no
quantifier; where the values the guard depends on keep changing (an integer field
compared with an argument), the disjunction would grow without end: after MAX_MODELS
models, or past the resource units given, the caller's elimination takes over.

On methods that inline most of their class (http.client's `request`: putrequest,
putheader, endheaders, send, connect), z3's `qe` and `qe2` need more than their share of
time, while two or three models decide the guard.

Which models z3 finds depends on its search, and so on the terms' ids: on smtplib.SMTP's
`starttls` some searches pick, model after model, values that each enable a sliver of the
objects only (the disjunction keeps growing), where most decide the guard in 3 to 7 models.
A search past MAX_MODELS is started again with another of SEEDS (z3's random seed), each
as deterministic as the first: the guard, when found, is the same within the invariant
whichever search found it. One z3 left undecided (out of units) is not: the next searches'
units would come out of the elimination's share.
"""

from __future__ import annotations

import z3

from contractor.z3backend.z3util import Allowance, Effort, checked, make_solver

MAX_MODELS = 8
BIG_GUARD_NODES = 1000  # formulas at least this big are read from models first
# one model's query, in z3's resource units (the same answer at any load): SMTP's and
# HTTPConnection's take 0.002 M to 0.08 M units (send_message's first: 0.076 M). A
# finite limit is also handed on, less what is spent, to procedures z3 starts within a
# check (nested limits: its arithmetic's), so its value, even far above what a check takes, can change
# which models z3 finds; the guard is the same within the invariant whichever it finds
MODEL = Effort(rlimit=8_000_000, cap_ms=20_000)
# z3's random seeds of the searches tried in turn (0: the first, as make_solver sets it).
# Offline, SMTP's `starttls` guard from one run: 2 seeds of 6 went past MAX_MODELS (30
# models and more), the others took 3 to 7 models (0.05 to 0.09 s each)
SEEDS = (0, 1, 2, 3)


def guard_by_models(invariant: z3.BoolRef, ok: z3.BoolRef, chosen: list[z3.ExprRef],
                    effort: Effort = MODEL, allowance: Allowance | None = None) -> z3.BoolRef | None:
    """`exists chosen. ok` over the object's fields, exact where `invariant` holds (see
    the module docstring), or None if no search of SEEDS found it within MAX_MODELS
    models, each within `effort`, all within `allowance`."""
    for seed in SEEDS:
        found = _by_models(invariant, ok, chosen, effort, allowance, seed)
        if not isinstance(found, PastBound):  # the guard, or a search z3 left undecided: not retried
            return found
    return None


class PastBound:
    """_by_models' answer where its search went past MAX_MODELS models."""


PAST_BOUND = PastBound()


def _by_models(invariant: z3.BoolRef, ok: z3.BoolRef, chosen: list[z3.ExprRef],
               effort: Effort, allowance: Allowance | None, seed: int) -> z3.BoolRef | PastBound | None:
    """One search for the guard (guard_by_models), with z3's random seed `seed`: the
    guard, PAST_BOUND past MAX_MODELS models, or
    None where a check was undecided (out of units) or a model could not be evaluated."""
    # z3's SMT core (z3util.make_solver): a fresh solver's preprocessing reran over the
    # whole formula with every blocking clause (HTTPConnection's `request` and
    # `endheaders`: 0.45 s, 0.1 s on the core); other models, the same guard
    solver = make_solver(effort.cap_ms, core=True, rlimit=effort.rlimit)
    if seed:
        solver.set("random_seed", seed)
    solver.add(invariant, ok)
    parts: list[z3.BoolRef] = []
    while True:  # each round adds a part or ends: at most MAX_MODELS + 1 checks
        r = checked(solver, effort, allowance)
        if r == z3.unsat:
            return z3.simplify(z3.Or(*parts)) if parts else z3.BoolVal(False)
        if r != z3.sat:
            return None
        if len(parts) == MAX_MODELS:
            return PAST_BOUND
        m = solver.model()
        part = z3.simplify(z3.substitute(ok, *[(c, m.eval(c, model_completion=True)) for c in chosen]))
        if z3.is_false(part):  # the model's fields must satisfy it: z3 could not evaluate something
            return None
        parts.append(part)
        solver.add(z3.Not(part))


__all__ = ["BIG_GUARD_NODES", "MAX_MODELS", "MODEL", "SEEDS", "guard_by_models"]

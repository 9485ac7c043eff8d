"""The phases of a method's all-SAT enumeration (backend.py), and when they are one query.

From a source state, a method's targets are asked in phases whose conditions exclude each
other: the paths the translation followed (exact: their targets are must unless something
else makes them may), then the paths it could not follow (their targets are may, the
postconditions assumed), then the objects past the bound within which the invariant is
followed (may). The phases share the enumeration's blocking clauses, so a later phase
only finds states an earlier one did not.

Where every target of the method is may whichever phase finds it (an untranslated
condition the answers depend on, or code outside the analysed source the method uses),
the phases only choose each target's reason: "depends on code outside..." for the
followed paths, the construct not followed for the others. Asking them apart then costs,
per source state, the exact phase's closing `unsat` (no followed path reaches another
state) and a first check of each later phase. Where the class's enabledness is heavy
(`heavy`), those are as costly as a model (smtplib.SMTP: the exact phase's closing
`unsat` took 8 to 520 ms, up to 1.2 M resource units, for `auth`), and the phases are
asked as one: the same targets, with the same certainty (may), each with the reason of
the phase its model lies in (`exact_in`), which for a state both kinds of path reach
may now be either phase's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import z3

from contractor.z3backend import dag

# nodes of the class's enabledness formulas from which it is heavy: smtplib.SMTP's 4,700
# (starttls 2,321, ehlo_or_helo_if_needed 1,303, login 995: raise guards reading the
# server's replies), against http.client.HTTPConnection's 26, zipfile.ZipFile's 49,
# wave.Wave_write's 33
HEAVY_ENABLEDNESS = 1_000
MERGED = -1  # the key of the phases asked as one (a phase's key: Guards.phase, the last models)


def heavy(enabled: list[z3.BoolRef]) -> bool:
    """Whether the class's enabledness formulas (one per action) are heavy: each query
    reasons about every action's enabledness before and after the call, and a model of
    them is costly to find. A fresh solver (a next model's, nextmodel.py) learns it
    again from scratch; the method's shared solver keeps what it learnt (smtplib.SMTP:
    its checks after the first of an enumeration took 5 ms, a next model 13 to 20 ms, a
    first one from another source state 100 to 770 ms)."""
    # counted formula by formula (a node two share counted twice): a conjunction of them
    # would be a new term of the main context, whose ids the later queries' search follows
    return sum(len(dag.postorder(e)) for e in enabled) >= HEAVY_ENABLEDNESS


@dataclass(frozen=True)
class Phase:
    key: int  # its index among the method's phases, or MERGED
    cond: z3.BoolRef
    exact: bool  # the followed paths (targets must unless the method's answers are may)


@dataclass(frozen=True)
class Phases:
    """The phases asked, in order; `parts`: where they are one (MERGED), the phases it
    stands for, to tell which one a model lies in."""

    asked: list[Phase]
    parts: list[Phase]

    def exact_in(self, phase: Phase, model: Any) -> bool:
        """Whether `model` (of `phase`: a z3 model, or one read through isolated.py) lies on
        followed paths: if merged, whether the first of `parts` true in it is exact."""
        if phase.key != MERGED:
            return phase.exact
        return next((p.exact for p in self.parts if z3.is_true(model.eval(p.cond, model_completion=True))), False)


def phases(conds: list[tuple[z3.BoolRef, bool]], merge: bool) -> Phases:
    """The phases of `conds` (condition, exact?), asked as one where `merge` (and there is
    more than one)."""
    parts = [Phase(i, c, e) for i, (c, e) in enumerate(conds)]
    if not merge or len(parts) < 2:
        return Phases(parts, parts)
    return Phases([Phase(MERGED, z3.simplify(z3.Or(*[p.cond for p in parts])), False)], parts)


__all__ = ["HEAVY_ENABLEDNESS", "MERGED", "Phase", "Phases", "heavy", "phases"]

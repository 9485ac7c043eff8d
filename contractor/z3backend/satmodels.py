"""Satisfiability checks answered by extending an earlier check's model.

The executor asks one solver (z3util.Assumptions) whether paths go on: another loop
iteration, an item of a comprehension. Only an `unsat` answer changes the translation;
`sat` and `unknown` both let the paths run. The checks of one method follow its paths
forwards, so a later check is mostly the earlier one's path with more conditions on the
values made up since (smtplib.SMTP's `send_message` asks whether each inlined
`getreply` reads a second line: 11 checks of 2 K to 12 K nodes with strings, 0.4 s to 3 s
each on the solver, all satisfiable).

A model of the earlier check fixes the values it chose; what is left of the new check
under it is a formula over the values made up since, small once evaluated, which a
solver of its own settles in milliseconds. A model of that, with the earlier one, is a
model of the new check: it is satisfiable, the answer the solver would give or leave
undecided, so the translation is the same. Where the rest is false or not found within
its units, the check is asked as before (the earlier choices may be what rules the new
path out).

Models are read with `model.eval` without completion: a constant or function a model
does not fix stays free in what is left, for the next solver to choose. All of it is
done in a z3 context of its own (the checks and models translated there): the terms it
makes do not take term ids in the main context, whose term order z3's answers depend
on (samples/tag_set.py's exploration answered `unsat` for a source state with targets
when these terms were made in the main context).
"""

from __future__ import annotations

import z3

from contractor.z3backend import fastterms as F
from contractor.z3backend.z3util import make_solver

# z3 resource units for settling what is left of a check under the earlier models (the
# standard-library classes' need at most 20 K; past this, the check is asked as before).
# Counted, not timed, so whether a check is answered here does not depend on the load
EXTEND_RLIMIT = 300_000
EXTEND_CAP_MS = 10_000  # a safety net only, far past what the units take


class SatModels:
    """The models of the last satisfiable check and of its extensions since, in order."""

    def __init__(self) -> None:
        self._ctx: z3.Context | None = None
        self._models: list[z3.ModelRef] = []

    def restart(self, model: z3.ModelRef) -> None:
        """`model` (of a check the solver answered `sat`) is the one to extend from now on."""
        if self._ctx is None:
            self._ctx = z3.Context()
        self._models = [model.translate(self._ctx)]

    def extends(self, formulas: list[z3.BoolRef]) -> bool:
        """Whether the earlier models extend to a model of all `formulas` (then they are
        satisfiable together); the extension is kept for the next check."""
        if not self._models or self._ctx is None:
            return False
        rest = [f.translate(self._ctx) for f in formulas]
        for m in self._models:
            rest = [m.eval(f, model_completion=False) for f in rest]
        rest = [z3.simplify(f) for f in rest]
        rest = [f for f in rest if not F.is_true(f)]
        if not rest:
            return True
        if any(z3.is_false(f) for f in rest):
            return False
        solver = make_solver(EXTEND_CAP_MS, self._ctx, core=True, rlimit=EXTEND_RLIMIT)
        solver.add(*rest)
        if solver.check() != z3.sat:
            return False
        self._models.append(solver.model())
        return True


__all__ = ["EXTEND_CAP_MS", "EXTEND_RLIMIT", "SatModels"]

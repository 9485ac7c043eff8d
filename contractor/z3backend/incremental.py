"""Literals guarding parts of a shared incremental solver's assertions (backend.py's all-SAT).

A method's solver is shared by every source state. What changes from one enumeration to
the next (the source pattern, the phase's condition, the blocking clauses) is asserted
once at the solver's base level behind a literal and switched on by asking that literal
as an assumption of each check, instead of being pushed and popped: the solver keeps the
condition's encoding and the lemmas it learnt for the next source state. A guard whose
enumeration is over is asserted false, which retires its clauses for good. The answers
are those of the same assertions pushed (sat and unsat are facts about the formula);
models, and so witnesses, may differ.
"""

from __future__ import annotations

import z3


class Guards:
    """The guard literals of one backend: a fresh one per enumeration, one per method phase."""

    def __init__(self) -> None:
        self._count = 0
        self._phases: dict[tuple[str, int], tuple[z3.Solver, z3.BoolRef]] = {}

    def _literal(self, kind: str) -> z3.BoolRef:
        self._count += 1
        return z3.Bool(f"contractor!{kind}!{self._count}")

    def fresh(self) -> z3.BoolRef:
        """A literal guarding one enumeration's blocking clauses."""
        return self._literal("enum")

    def phase(self, solver: z3.Solver, name: str, index: int, cond: z3.BoolRef) -> z3.BoolRef:
        """The literal switching on phase `index` of `name`'s enumeration in `solver`: its
        implication asserted the first time the solver asks for it (a method's phases
        are the same for every source state)."""
        hit = self._phases.get((name, index))
        if hit is not None and hit[0] is solver:
            return hit[1]
        lit = self._literal("phase")
        solver.add(z3.Implies(lit, cond))
        self._phases[(name, index)] = (solver, lit)
        return lit

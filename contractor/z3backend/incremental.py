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
        self._empty: set[str] = set()  # phases no source state has a model in (empty)
        self._barren: set[str] = set()  # phases without a model for some source state
        self._tried: set[str] = set()  # phases asked once without a source state

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

    def is_empty(self, lit: z3.BoolRef) -> bool:
        """Whether the phase was proved to have no model whatever the source state (`empty`)."""
        return str(lit) in self._empty

    def empty(self, lit: z3.BoolRef) -> None:
        """The phase's solver, its condition on and no source pattern, is unsatisfiable: as
        the solver's assertions only grow (blocking clauses and other phases' conditions
        behind literals, valid lemmas), so is every later check of that phase."""
        self._empty.add(str(lit))

    def barren(self, lit: z3.BoolRef) -> None:
        """The phase had no model for one source state."""
        self._barren.add(str(lit))

    def worth_asking(self, lit: z3.BoolRef) -> bool:
        """Whether to ask, once, if the phase has a model for any source state, where the
        shared solver lost its way on it: only after it had none for an earlier source
        (smtplib.SMTP's send_message: no translated path ends normally, proved from each
        of its 4 source states, 8-9 M resource units each where a fresh solver did it)."""
        key = str(lit)
        if key not in self._barren or key in self._tried:
            return False
        self._tried.add(key)
        return True

"""State invariants as Python text: for a state's enabledness pattern, a short predicate on
`self` read off z3 (a conjunction of literals, or the simplified formula), else the one the
preconditions give. The search for a short form has a time budget for the whole run."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import z3

from contractor.backend import Enabled
from contractor.typestate import StateInvariant
from contractor.z3backend.dag import has_quantifier
from contractor.z3backend.miniscope import conjuncts
from contractor.z3backend.pyprint import NotPrintable, PyPrinter
from contractor.z3backend.readable import (
    MAX_ATOMS,
    Budget,
    OutOfTime,
    atoms,
    conjunction_of_literals,
    prefer_equalities,
)
from contractor.z3backend.seqabstract import SeqAbstraction, abstraction
from contractor.z3backend.z3util import make_solver

if TYPE_CHECKING:
    from contractor.z3backend.backend import Z3Backend

READABLE_SECONDS = 5.0  # time for making every state invariant of a run readable
SIMPLIFY_ATOMS = 16  # z3's context simplification is tried on formulas this small only
SIMPLIFY_MS = 300  # and for this long per state


class InvariantText:
    """The state invariants of one backend's run (its printer, solver and budget shared)."""

    def __init__(self, backend: Z3Backend):
        self.b = backend
        self.printer: PyPrinter | None = None
        self.inv_solver: z3.Solver | None = None
        self.budget = Budget(READABLE_SECONDS, backend.deadline)
        self.too_big: bool | None = None  # the state patterns' atoms exceed MAX_ATOMS
        self._context: z3.BoolRef | None = None
        self.seqs: SeqAbstraction | None = None

    def __call__(self, enabled: Enabled) -> StateInvariant:
        """A Python predicate on `self` that, for objects meeting the class invariant,
        holds exactly in this state (z3's, else one read off the preconditions). The
        search for a short form has a budget for the whole run (READABLE_SECONDS) and is
        not tried on formulas with more than MAX_ATOMS atoms."""
        started = time.monotonic()
        try:
            text = self.printed(enabled)
        except OutOfTime:
            text = None
        finally:
            self.budget.spend(started)
        if text is None:  # the fallback: read off the preconditions (imported only when needed)
            from contractor.state_invariants import precondition_invariant

            return precondition_invariant(self.b.model, enabled)
        # `m() enabled` stands for an enabledness z3 could not translate: shown, not executable
        return StateInvariant(text, None if "() enabled" in text or "() disabled" in text else text)

    def context_formula(self) -> z3.BoolRef:
        """The class invariant's quantifier-free conjuncts (all of it, when it has no quantifier).
        A weaker context only makes the search keep more literals: a conjunction equivalent
        to the state's formula under it is equivalent under the whole invariant too. Solvers
        answer unknown on quantified contexts (sets' distinctness, all() in an invariant)."""
        if self._context is None:
            self._context = z3.And(*[c for c in conjuncts(self.b.sem.invariant) if not has_quantifier(c)])
        return self._context

    def context(self) -> z3.Solver:
        """A solver holding the context (sequences abstracted, where seqabstract.py can)."""
        if self.inv_solver is None:
            self.inv_solver = make_solver(2000)
            self.seqs = abstraction([self.context_formula(), *self.b.sem.enabled.values()])
            if self.seqs is not None:
                self.inv_solver.add(self.seqs.apply(self.context_formula()), self.seqs.constraints)
            else:
                self.inv_solver.add(self.context_formula())
        return self.inv_solver

    def abstract(self, e: z3.BoolRef) -> z3.BoolRef:
        self.context()
        return self.seqs.apply(e) if self.seqs is not None else e

    def concrete(self, e: z3.BoolRef) -> z3.BoolRef:
        return self.seqs.undo(e) if self.seqs is not None else e

    def printed(self, enabled: Enabled) -> str | None:
        if self.printer is None:
            self.printer = PyPrinter(self.b.sem.fields)
        printer = self.printer
        if self.b.sem.quantified:
            return None
        self.budget.left_ms()  # OutOfTime once the run's share is spent: the cheap form then
        if self.too_big is None:  # the same for every state: negating a bit keeps its atoms
            try:
                atoms(self.b.pattern(enabled), MAX_ATOMS, self.b.atom_order, self.budget)
                self.too_big = False
            except ValueError:  # too big to search for a short form, or to print from z3
                self.too_big = True
        if self.too_big:
            return None
        try:
            lits = self.b.reuse.state_literals(enabled, self.budget) if self.b.reuse is not None else None
            if lits is None:
                pattern = self.abstract(self.b.pattern(enabled))
                lits = conjunction_of_literals(list(pattern.children()) if z3.is_and(pattern) else [pattern],
                                               self.context(), self.b._count, self.budget, self.b.atom_order)
            else:
                lits = [self.abstract(x) for x in lits]
            if lits is not None:
                lits = [self.concrete(x) for x in prefer_equalities(lits, self.context(), self.b._count)]
            if lits is not None:  # printer(And(*lits)), without building the And
                return " and ".join(_literal_text(printer, x, 3) for x in lits) if len(lits) > 1 else \
                    _literal_text(printer, lits[0], 0) if lits else "True"
        except (ValueError, NotPrintable, z3.Z3Exception):
            pass
        pattern = self.b.pattern(enabled)
        if len(atoms(pattern, None, self.b.atom_order, self.budget)) > SIMPLIFY_ATOMS:
            return None  # the precondition form reads better than a half-simplified large formula
        try:
            tactic = z3.TryFor(z3.Tactic("ctx-solver-simplify"), min(SIMPLIFY_MS, self.budget.left_ms()))
            goals = z3.Then(z3.Tactic("simplify"), tactic, z3.Tactic("simplify"))(z3.And(self.context_formula(),
                                                                                         pattern))
            if len(goals) == 1:
                parts = list(goals[0])
                return printer(z3.And(*parts)) if len(parts) > 1 else printer(parts[0]) if parts else "True"
        except (NotPrintable, z3.Z3Exception):
            pass
        return None


def _literal_text(printer: PyPrinter, lit: z3.BoolRef, prec: int) -> str:
    """A literal of a state invariant as Python; an enabledness z3 could not translate
    (`unknown!guards!m`, `unknown!enabled!m`) reads `m() enabled` or `m() disabled`, as the
    fallback invariants of raise-guard states do (NotPrintable otherwise)."""
    try:
        return printer.p(lit, prec)
    except NotPrintable:
        negated = z3.is_not(lit)
        atom = lit.arg(0) if negated else lit
        name = atom.decl().name() if z3.is_app(atom) else ""
        for prefix in ("unknown!guards!", "unknown!enabled!"):
            if name.startswith(prefix):
                return f"{name[len(prefix):]}() {'disabled' if negated else 'enabled'}"
        raise

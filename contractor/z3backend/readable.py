"""Readable state invariants: the shortest conjunction of atomic facts equivalent to a state's
formula (under the class invariant), else z3's context simplification of it.

Both are searches, so they run within a time budget (`Budget`) and give up on formulas with
more than MAX_ATOMS atoms; the caller then shows the plain conjunction.

For the train door, state {alarm, open, start} reads `self.closed and not self.moving
and not self.danger` rather than the raw conjunction of enabled and disabled preconditions.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import z3

from contractor.z3backend import dag

MAX_ATOMS = 64  # beyond this, a formula is shown as it is


class OutOfTime(Exception):
    """The readable-invariant budget is used up."""


@dataclass
class Budget:
    """Seconds left for simplifying state invariants, over a whole run, and never past the
    run's deadline (time.monotonic(); None: no --budget)."""

    seconds: float
    deadline: float | None = None

    def left_ms(self) -> int:
        left = self.seconds if self.deadline is None else min(self.seconds, self.deadline - time.monotonic())
        if left <= 0:
            raise OutOfTime
        return max(1, int(left * 1000))

    def spend(self, since: float) -> None:
        self.seconds -= time.monotonic() - since


class AtomOrder:
    """The stable order of atoms: smaller first, as z3 prints them. z3's printer (Python)
    takes milliseconds per atom, seconds over a run of many states asking about the same
    atoms: one run keeps each atom's key (and the atom, so that its id stays its own)."""

    def __init__(self) -> None:
        self._keys: dict[tuple[int, int], tuple[z3.ExprRef, tuple[int, str]]] = {}

    def key(self, atom: z3.ExprRef) -> tuple[int, str]:
        k = (id(atom.ctx), atom.get_id())
        hit = self._keys.get(k)
        if hit is None:
            text = str(atom)
            hit = self._keys[k] = (atom, (text.count("("), text))
        return hit[1]


def atoms(formula: z3.BoolRef, limit: int | None = None, order: AtomOrder | None = None) -> list[z3.BoolRef]:
    """The Boolean atoms of a quantifier-free formula, in a stable order (ValueError when
    there are more than `limit`). Found by a walk through z3's C API (dag.py): the walk
    through Python objects took 3 of wave:Wave_write's 20 s."""
    found = dag.bool_atoms(formula)
    if limit is not None and len(found) > limit:
        raise ValueError("too many atoms")
    return sorted(found, key=(order or AtomOrder()).key)


def conjunction_of_literals(pattern: list[z3.BoolRef], solver: z3.Solver, count: Callable[[], None],
                            budget: Budget | None = None, order: AtomOrder | None = None) -> list[z3.BoolRef] | None:
    """A short list of literals L with  context |= (AND L <-> AND pattern), or None.

    `solver` holds the context (the class invariant); every query passes the rest as
    assumptions, so one solver serves every state. Raises OutOfTime when `budget` runs out.
    """
    formula = z3.And(*pattern)
    candidates = atoms(formula, MAX_ATOMS, order)

    def limit() -> None:
        if budget is not None:
            solver.set("timeout", min(2000, budget.left_ms()))

    limit()
    count()
    r, consequences = solver.consequences(pattern, candidates)  # one query for every atom
    if r != z3.sat:
        return None
    implied_ids = {}
    for c in consequences:  # each is Implies(assumptions, literal)
        lit = c.arg(1)
        implied_ids[lit.get_id()] = lit
    implied = []
    for a in candidates:  # keep the atoms' stable order
        for lit in (a, z3.Not(a)):
            if any(lit.eq(x) for x in implied_ids.values()):
                implied.append(lit)
    implied = implied or list(implied_ids.values())

    def sufficient(lits: list[z3.BoolRef]) -> bool:
        if entailed(lits, formula):
            return True  # what the solver would answer (unsat), seen without asking it
        limit()
        count()
        return bool(solver.check(*lits, z3.Not(formula)) == z3.unsat)

    if not sufficient(implied):
        return None
    kept = list(implied)
    for lit in implied:  # drop literals the others already imply
        trial = [x for x in kept if not x.eq(lit)]
        if sufficient(trial):
            kept = trial
    return kept


def entailed(lits: list[z3.BoolRef], formula: z3.BoolRef) -> bool:
    """Whether the literals alone entail `formula`, seen without a solver: `formula` with each
    literal's atom replaced by its truth value, and each term a literal fixes to a constant
    (`len(self.items) == 0`) replaced by that constant, simplifies to true. False means not
    seen that way (the caller asks the solver, which also knows the context)."""
    pairs: dict[int, tuple[z3.ExprRef, z3.ExprRef]] = {}
    for lit in lits:
        negated = z3.is_not(lit)
        atom = lit.arg(0) if negated else lit
        pairs.setdefault(atom.get_id(), (atom, z3.BoolVal(not negated)))
        if not negated and z3.is_eq(atom):
            a, b = atom.children()
            if _constant(b) and not _constant(a):
                pairs.setdefault(a.get_id(), (a, b))
            elif _constant(a) and not _constant(b):
                pairs.setdefault(b.get_id(), (b, a))
    return bool(pairs) and z3.is_true(z3.simplify(z3.substitute(formula, *pairs.values())))


def _constant(e: z3.ExprRef) -> bool:
    return bool(z3.is_int_value(e) or z3.is_string_value(e) or z3.is_true(e) or z3.is_false(e))


def _subject(lit: z3.BoolRef) -> z3.ExprRef | None:
    """The term a literal bounds against a constant (`len(x) <= 0` -> `len(x)`), if it does."""
    inner = lit.arg(0) if z3.is_not(lit) else lit
    if not z3.is_app(inner) or inner.num_args() != 2 or z3.is_bool(inner.arg(0)):
        return None
    if inner.decl().kind() not in (z3.Z3_OP_LE, z3.Z3_OP_LT, z3.Z3_OP_GE, z3.Z3_OP_GT, z3.Z3_OP_EQ,
                                   z3.Z3_OP_DISTINCT):
        return None
    a, b = inner.children()
    if z3.is_int_value(b) or z3.is_string_value(b):
        return a
    if z3.is_int_value(a) or z3.is_string_value(a):
        return b
    return None


def prefer_equalities(lits: list[z3.BoolRef], solver: z3.Solver, count: Callable[[], None]) -> list[z3.BoolRef]:
    """`lits` with the bounds on a term that, together, leave it one value replaced by that
    equality: `len(self.items) <= 0` becomes `len(self.items) == 0`, and `self.mode != A and
    self.mode != B` becomes `self.mode == C`. The conjunction stays equivalent under the
    solver's context: the value satisfies every replaced literal, which is about that term alone.
    """
    subjects: dict[int, z3.ExprRef] = {}
    for lit in lits:
        term = _subject(lit)
        if term is not None:
            subjects.setdefault(term.get_id(), term)
    if not subjects:
        return [_tight(lit, lits, solver, count) for lit in lits]
    count()
    if solver.check(*lits) != z3.sat:
        return lits
    model = solver.model()
    fixed = _fixed(lits)
    out = list(lits)
    for key, term in subjects.items():
        if key in fixed:  # a literal `term == c` leaves it c (what the check below would prove)
            value = fixed[key]
        else:
            value = model.eval(term, model_completion=True)
            count()
            if solver.check(*lits, term != value) != z3.unsat:
                continue
        replaced = [i for i, lit in enumerate(out) if (t := _subject(lit)) is not None and t.get_id() == key]
        equality = term == value
        if len(replaced) == 1 and out[replaced[0]].eq(equality):
            continue
        first = replaced[0]
        out = [lit for i, lit in enumerate(out) if i not in replaced[1:]]
        out[first] = equality
    return [_tight(lit, out, solver, count) for lit in out]


def _fixed(lits: list[z3.BoolRef]) -> dict[int, z3.ExprRef]:
    """Term id -> the constant a positive literal `term == c` (or `c == term`) fixes it to."""
    out: dict[int, z3.ExprRef] = {}
    for lit in lits:
        if z3.is_eq(lit):
            a, b = lit.children()
            if _constant(b) and not _constant(a):
                out.setdefault(a.get_id(), b)
            elif _constant(a) and not _constant(b):
                out.setdefault(b.get_id(), a)
    return out


def _tight(lit: z3.BoolRef, lits: list[z3.BoolRef], solver: z3.Solver, count: Callable[[], None]) -> z3.BoolRef:
    """`a <= b` as `a == b` where the context and the other literals leave no room between them."""
    inner = lit.arg(0) if z3.is_not(lit) else lit
    kind = inner.decl().kind() if z3.is_app(inner) else None
    weak = {z3.Z3_OP_LE, z3.Z3_OP_GE} if not z3.is_not(lit) else {z3.Z3_OP_LT, z3.Z3_OP_GT}
    if kind not in weak or inner.num_args() != 2 or z3.is_int_value(inner.arg(0)) or z3.is_int_value(inner.arg(1)):
        return lit
    a, b = inner.children()
    count()
    return a == b if solver.check(*lits, a != b) == z3.unsat else lit

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
from z3 import z3core as C

from contractor.z3backend import dag
from contractor.z3backend import fastterms as F

MAX_ATOMS = 64  # beyond this, a formula is shown as it is
PRINTED_NODES = 10_000  # z3's printer visits at most this many nodes of a term (max_visited)


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
    atoms: one run keeps each atom's key (and the atom, so that its id stays its own).

    An atom that written out as a tree has more nodes than z3's printer visits
    (PRINTED_NODES) is too big to print (z3 would cut it short with "...") and to read:
    ValueError, as for too many atoms. Printing one took a second (codecs.StreamReader:
    a DAG of 200 nodes, 12 K characters cut short; 16 such atoms, 13 s past a 3 s --budget)."""

    def __init__(self) -> None:
        self._keys: dict[tuple[int, int], tuple[z3.ExprRef, tuple[int, str]]] = {}

    def key(self, atom: z3.ExprRef, budget: Budget | None = None) -> tuple[int, str]:
        """The atom's sort key; an atom not printed yet is printed only while `budget` lasts
        (OutOfTime after it: one print may take most of a second, and a formula has up to
        MAX_ATOMS atoms)."""
        k = (id(atom.ctx), atom.get_id())
        hit = self._keys.get(k)
        if hit is None:
            if budget is not None:
                budget.left_ms()
            if dag.tree_size(atom, PRINTED_NODES) > PRINTED_NODES:
                raise ValueError("an atom too big to print")
            text = str(atom)
            hit = self._keys[k] = (atom, (text.count("("), text))
        return hit[1]


def atoms(formula: z3.BoolRef, limit: int | None = None, order: AtomOrder | None = None,
          budget: Budget | None = None) -> list[z3.BoolRef]:
    """The Boolean atoms of a quantifier-free formula, in a stable order (ValueError when
    there are more than `limit`; OutOfTime when `budget` runs out while they are printed to
    be ordered). Found by a walk through z3's C API (dag.py): the walk through Python
    objects took 3 of wave:Wave_write's 20 s."""
    found = dag.bool_atoms(formula)
    if limit is not None and len(found) > limit:
        raise ValueError("too many atoms")
    keys = order or AtomOrder()
    return sorted(found, key=lambda atom: keys.key(atom, budget))


def conjunction_of_literals(pattern: list[z3.BoolRef], solver: z3.Solver, count: Callable[[], None],
                            budget: Budget | None = None, order: AtomOrder | None = None) -> list[z3.BoolRef] | None:
    """A short list of literals L with  context |= (AND L <-> AND pattern), or None.

    `solver` holds the context (the class invariant); every query passes the rest as
    assumptions, so one solver serves every state. Raises OutOfTime when `budget` runs out.
    """
    formula = z3.And(*pattern)
    candidates = atoms(formula, MAX_ATOMS, order, budget)
    timeout: list[int] = []  # the solver's timeout as last set here (set again only when it changes)

    def limit() -> None:
        if budget is not None:
            ms = min(2000, budget.left_ms())
            if timeout != [ms]:
                solver.set("timeout", ms)
                timeout[:] = [ms]

    limit()
    count()
    r, consequences = solver.consequences(pattern, candidates)  # one query for every atom
    if r != z3.sat:
        return None
    implied_ids = {}
    positive: set[int] = set()
    negative: dict[int, z3.BoolRef] = {}  # atom id -> the implied literal Not(atom)
    for c in consequences:  # each is Implies(assumptions, literal)
        lit = c.arg(1)
        implied_ids[lit.get_id()] = lit
        if z3.is_not(lit):
            negative.setdefault(lit.arg(0).get_id(), lit)
        else:
            positive.add(lit.get_id())
    implied = []
    for a in candidates:  # keep the atoms' stable order (an atom is never a negation)
        key = a.get_id()
        if key in positive:
            implied.append(a)
        if key in negative:
            implied.append(negative[key])
    implied = implied or list(implied_ids.values())
    if dag.has_sort(pattern, UNTABLED_SORTS):
        # z3 5.4's consequences can claim more than the pattern implies: on a solver that
        # answered other states' queries before, over strings, it found `_state == "started"`
        # implied by `_state in ("started", "suspended")` (pytest's FDCapture), and the
        # check below only proves the literals sufficient, so the invariant was too strong.
        # Checked where the pattern reads the theories whose answers the truth table does
        # not trust either (sequences, strings, arrays, floats)
        limit()
        count()
        if solver.check(*pattern, z3.Not(z3.And(*implied))) != z3.unsat:
            return None
    refuting = z3.Not(formula)
    memo: dict[int, tuple[z3.BoolRef, list[tuple[int, tuple[z3.ExprRef, z3.ExprRef]]]]] = {}

    def sufficient(lits: list[z3.BoolRef]) -> bool:
        if entailed(lits, formula, memo):
            return True  # what the solver would answer (unsat), seen without asking it
        limit()
        count()
        return bool(solver.check(*lits, refuting) == z3.unsat)

    if not sufficient(implied):
        return None
    kept = list(implied)
    for lit in implied:  # drop literals the others already imply
        trial = [x for x in kept if x.get_id() != lit.get_id()]
        if sufficient(trial):
            kept = trial
    return kept


MAX_TABLE_ATOMS = 4  # a truth table (at most 2^4 rows, each a query) is built over this many atoms at most
UNTABLED_SORTS = (z3.Z3_SEQ_SORT, z3.Z3_RE_SORT, z3.Z3_ARRAY_SORT, z3.Z3_CHAR_SORT, z3.Z3_FLOATING_POINT_SORT)


@dataclass
class TruthTable:
    """Every combination of truth values of `atoms` that objects meeting a context take (all
    of them, by all-SAT), each with the truth values of the `bits` (enabledness formulas
    over those atoms) it gives. From it, conjunction_of_literals's search is read without a
    solver: a literal is implied by a pattern of bits when every row with that pattern has
    it, and literals suffice when every row having them has the pattern. The same answers
    as the solver's, for every state of the context, in one query per row."""

    atoms: list[z3.BoolRef]
    rows: list[tuple[tuple[bool, ...], tuple[bool, ...]]]  # (atoms' values, bits' values)

    def literals(self, pattern: tuple[bool, ...]) -> list[z3.BoolRef] | None:
        """conjunction_of_literals for the bits taking `pattern`: the same list, or None
        where no object has the pattern."""
        having = [values for values, bits in self.rows if bits == pattern]
        if not having:
            return None
        implied = [(i, having[0][i]) for i in range(len(self.atoms)) if len({v[i] for v in having}) == 1]

        def sufficient(lits: list[tuple[int, bool]]) -> bool:
            return all(bits == pattern for values, bits in self.rows if all(values[i] == v for i, v in lits))

        if not sufficient(implied):
            return None
        kept = list(implied)
        for lit in implied:  # drop literals the others already imply, in the same order
            trial = [x for x in kept if x != lit]
            if sufficient(trial):
                kept = trial
        return [self.atoms[i] if v else z3.Not(self.atoms[i]) for i, v in kept]


def truth_table(constraints: list[z3.BoolRef], bits: list[z3.BoolRef], count: Callable[[], None],
                budget: Budget | None = None, order: AtomOrder | None = None) -> TruthTable | None:
    """The TruthTable of `bits` under `constraints`, over the atoms of the bits (in `atoms`'s
    order), or None: sequences, strings, arrays, floats or quantifiers in them (where the
    solver may answer unknown to some per-state question, and that state's invariant is
    then read another way), or a query the solver did not answer. ValueError: more than
    MAX_TABLE_ATOMS atoms. Raises OutOfTime when `budget` runs out."""
    if dag.has_sort([*constraints, *bits], UNTABLED_SORTS) or any(dag.has_quantifier(c) for c in constraints):
        return None  # answers the solver may leave open: the per-state search says when
    atom_list = atoms(z3.And(*bits), MAX_TABLE_ATOMS, order, budget) if bits else []
    solver = z3.SimpleSolver()
    solver.set("random_seed", 0)
    solver.add(*constraints)
    rows: list[tuple[tuple[bool, ...], tuple[bool, ...]]] = []
    while True:
        solver.set("timeout", min(2000, budget.left_ms()) if budget is not None else 2000)
        count()
        r = solver.check()
        if r == z3.unsat:
            return TruthTable(atom_list, rows)
        if r != z3.sat:
            return None
        m = solver.model()
        values = tuple(F.op_kind(m.eval(a, model_completion=True)) == z3.Z3_OP_TRUE for a in atom_list)
        truths = [F.op_kind(m.eval(b, model_completion=True)) for b in bits]  # z3.is_true, is_false
        if not all(t in (z3.Z3_OP_TRUE, z3.Z3_OP_FALSE) for t in truths):
            return None  # a bit the atoms leave open (not expected of a quantifier-free bit)
        rows.append((values, tuple(t == z3.Z3_OP_TRUE for t in truths)))
        if not atom_list:
            return TruthTable(atom_list, rows)
        F.add(solver, F.or_(*[F.not_(a) if v else a for a, v in zip(atom_list, values)]))


def entailed(lits: list[z3.BoolRef], formula: z3.BoolRef,
             memo: dict[int, tuple[z3.BoolRef, list[tuple[int, tuple[z3.ExprRef, z3.ExprRef]]]]] | None = None) -> bool:
    """Whether the literals alone entail `formula`, seen without a solver: `formula` with each
    literal's atom replaced by its truth value, and each term a literal fixes to a constant
    (`len(self.items) == 0`) replaced by that constant, simplifies to true. False means not
    seen that way (the caller asks the solver, which also knows the context). `memo` keeps
    each literal's replacements between calls over the same literals."""
    pairs: dict[int, tuple[z3.ExprRef, z3.ExprRef]] = {}
    for lit in lits:
        if memo is None:
            replacements = _replacements(lit)
        else:
            key = lit.get_id()
            if key not in memo:
                memo[key] = (lit, _replacements(lit))  # the literal kept alive: its id stays its own
            replacements = memo[key][1]
        for key, pair in replacements:
            pairs.setdefault(key, pair)
    return bool(pairs) and _true_after(formula, list(pairs.values()))


def _true_after(formula: z3.BoolRef, pairs: list[tuple[z3.ExprRef, z3.ExprRef]]) -> bool:
    """z3.is_true(z3.simplify(z3.substitute(formula, *pairs))), through z3's C API: the same
    calls and terms, without the Python layer's checks of every pair's sorts (equal here:
    an atom and a truth value, the two sides of an equality), which cost more than the rest."""
    ctx = formula.ctx
    n = len(pairs)
    sources, targets = (z3.Ast * n)(), (z3.Ast * n)()
    for i, (a, b) in enumerate(pairs):
        sources[i], targets[i] = a.as_ast(), b.as_ast()
    substituted = z3.BoolRef(C.Z3_substitute(ctx.ref(), formula.as_ast(), n, sources, targets), ctx)
    simplified = z3.BoolRef(C.Z3_simplify(ctx.ref(), substituted.as_ast()), ctx)
    return bool(C.Z3_get_bool_value(ctx.ref(), simplified.as_ast()) == z3.Z3_L_TRUE)


def _replacements(lit: z3.BoolRef) -> list[tuple[int, tuple[z3.ExprRef, z3.ExprRef]]]:
    """What a literal lets `entailed` replace: its atom by its truth value, and a term it
    fixes to a constant by that constant (keyed by the replaced term's id, in this order)."""
    negated = z3.is_not(lit)
    atom = lit.arg(0) if negated else lit
    out = [(atom.get_id(), (atom, z3.BoolVal(not negated)))]
    if not negated and z3.is_eq(atom):
        a, b = atom.children()
        if _constant(b) and not _constant(a):
            out.append((a.get_id(), (a, b)))
        elif _constant(a) and not _constant(b):
            out.append((b.get_id(), (b, a)))
    return out


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
    subject_of: dict[int, int | None] = {}  # literal id -> the id of the term it bounds (read once)
    for lit in lits:
        term = _subject(lit)
        subject_of[lit.get_id()] = None if term is None else term.get_id()
        if term is not None:
            subjects.setdefault(term.get_id(), term)
    if not subjects:
        return [_tight(lit, lits, solver, count) for lit in lits]
    fixed = _fixed(lits)
    model = None
    if any(key not in fixed for key in subjects):  # a value to try is read off a model
        count()
        if solver.check(*lits) != z3.sat:
            return lits
        model = solver.model()
    out = list(lits)
    for key, term in subjects.items():
        if key in fixed:  # a literal `term == c` leaves it c (what the check below would prove)
            value = fixed[key]
        else:
            assert model is not None
            value = model.eval(term, model_completion=True)
            count()
            if solver.check(*lits, term != value) != z3.unsat:
                continue
        replaced = [i for i, lit in enumerate(out) if _subject_id(lit, subject_of) == key]
        equality = term == value
        if len(replaced) == 1 and out[replaced[0]].eq(equality):
            continue
        first = replaced[0]
        out = [lit for i, lit in enumerate(out) if i not in replaced[1:]]
        out[first] = equality
    return [_tight(lit, out, solver, count) for lit in out]


def _subject_id(lit: z3.BoolRef, known: dict[int, int | None]) -> int | None:
    """The id of the term `lit` bounds (`_subject`), looked up in `known` first."""
    key = lit.get_id()
    if key not in known:
        term = _subject(lit)
        known[key] = None if term is None else term.get_id()
    return known[key]


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

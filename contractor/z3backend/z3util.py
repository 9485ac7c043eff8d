"""Every direct use of z3's solver objects: reproducible solvers, quantifier elimination, model values.

Keeping these in one place makes runs reproducible (fixed seeds) and the rest of the
backend free of z3 configuration details.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import z3

from contractor.z3backend import fastterms as F
from contractor.z3backend import rawapi as R

FLOAT = z3.Float64()
RNE = z3.RNE()


@dataclass(frozen=True)
class Effort:
    """How much a query may cost: `rlimit` of z3's resource units (a count of the solver's
    steps, the same on every machine and at every load, so an answer, and every decision
    taken on it, does not depend on how busy the machine is), with `cap_ms` of wall-clock
    time as a safety net only (no check runs unbounded where z3 stops counting). A check
    that runs out of either is unknown ("canceled"), as a timeout was."""

    rlimit: int
    cap_ms: int


def make_solver(timeout_ms: int, ctx: z3.Context | None = None, *, core: bool = False,
                rlimit: int = 0, nested: bool = False) -> z3.Solver:
    """A solver with fixed seeds, so the same input gives the same models and answers;
    `rlimit` (0: none) z3 resource units per check besides `timeout_ms` (Effort).

    `core`: z3's SMT core alone (what a solver becomes after its first push), without the
    preprocessing tactics a fresh solver runs before every check of a non-incremental
    session. For all-SAT loops over the exploration's exact, quantifier-free parts that
    preprocessing is most of the time: each blocking clause reruns it over the whole
    query (wave.Wave_write's part of close: 0.2 s a check, 0.01 s on the core). Answers
    are the same (sat and unsat are facts about the formula); models, and so witnesses,
    may differ, and an unknown is still unknown to the caller.

    `nested`: the solver keeps nested `and`/`or` as they are instead of
    flattening each into one n-ary term (fastterms.simplified). The executor's questions
    hold its path conditions, where every raise is `raised or (active and cond)` with
    `not raised` inside `active`: flattened, each prefix of that disjunction becomes a
    clause of its own, quadratic in the raises (http.client.HTTPConnection's `request`:
    230 K clauses over 3.4 K Boolean variables for one loop's question, 0.1-0.2 s a
    check; nested, 7-24 K clauses and 5-20 ms). The answers are the same where decided.
    z3's SMT core alone takes no rewriter parameter: a nested `core` solver is a solver
    switched to its incremental mode (the same SMT core) by a push before anything is
    asserted."""
    s = z3.SimpleSolver(ctx=ctx) if core and not nested else z3.Solver(ctx=ctx)
    s.set("random_seed", 0)
    s.set("timeout", max(1, int(timeout_ms)))
    if rlimit:
        s.set("rlimit", int(rlimit))
    if nested:
        s.set("flat_and_or", False)
        if core:
            s.push()
    return s


# of a check's resource units (Effort), at most these are spent on the solver the earlier
# checks of the same assumptions shared; the rest go to a fresh solver (Assumptions.check)
SHARED_UNITS = 500_000


class Assumptions:
    """A solver holding `context`, made on the first `check`: most methods (no loop, no
    comprehension) never ask, and a solver costs about a millisecond to set up and free.
    The same solver, with the same assertion, as making it at once: the same answers."""

    def __init__(self, context: z3.BoolRef, timeout_ms: int) -> None:
        self._context = context
        self._timeout_ms = timeout_ms
        self._solver: z3.Solver | None = None
        self._used = False  # whether the solver answered a check already
        # the solvers a check left (the shared one it renewed, the fresh one): freed, z3 would
        # give their terms' ids to the terms made next, which z3.simplify orders by id; the
        # constructor's all-SAT of zipfile.ZipFile then took 2.8-7 s instead of 1.3-2 s
        self._retired: list[z3.Solver] = []
        from contractor.z3backend.satmodels import SatModels  # (it makes its solvers here)

        self._models = SatModels()  # the last `sat` check's model, extended since

    def check(self, *extra: z3.BoolRef, timeout_ms: int | None = None,
              effort: Effort | None = None) -> z3.CheckSatResult:
        """`extra` with the context; `timeout_ms` (wall clock) or `effort` (z3's resource
        units, capped by its wall clock) for this check only (default: the context's).
        `sat` without asking the solver where the last `sat` check's model extends to
        a model of this one (satmodels.py): the callers act on `unsat` alone."""
        if self._models.extends([self._context, *extra]):
            return z3.sat
        if self._solver is None:
            self._solver = make_solver(self._timeout_ms, nested=True)
            self._solver.add(self._context)
            self._used = False
        try:
            answer = self._asked(extra, timeout_ms, effort)
        finally:
            self._used = True
        if answer == z3.sat:  # answered by the shared solver or, past its units, a fresh one
            self._models.restart((self._solver if self._solver is not None else self._retired[-1]).model())
        return answer

    def _asked(self, extra: tuple[z3.BoolRef, ...], timeout_ms: int | None,
               effort: Effort | None) -> z3.CheckSatResult:
        assert self._solver is not None
        if effort is not None:
            return self._with_effort(extra, effort)
        if timeout_ms is None or timeout_ms == self._timeout_ms:
            return self._solver.check(*extra)
        return self._limited(extra, timeout_ms, 0)

    def _with_effort(self, extra: tuple[z3.BoolRef, ...], effort: Effort) -> z3.CheckSatResult:
        """Asked on the shared solver, within SHARED_UNITS if it answered earlier checks;
        undecided there, asked again with the rest of the units on a fresh solver holding
        the context alone, and the shared solver is made anew at the next check.

        What earlier checks leave in a solver (their terms, theory axioms, lemmas) can slow
        a later check many times over: in zipfile.ZipFile's constructor, after one loop's
        check, another loop's checks took 1.4 M units, then ran out of the 2 M (0.5-1 s
        each), where a fresh solver answers in 0.03-0.07 M. Where the earlier checks help
        (HTTPConnection's and SMTP's loops share their path conditions; up to 0.27 M units
        there) nothing changes. A check spends at most `effort.rlimit` units in all, a
        count, the same at every load; where it is undecided, the iteration runs (sound)."""
        quick = min(effort.rlimit, SHARED_UNITS) if self._used else effort.rlimit
        answer = self._limited(extra, effort.cap_ms, quick)
        if answer != z3.unknown or quick == effort.rlimit:
            return answer
        self._retired.append(self._solver)
        self._solver = None
        fresh = make_solver(effort.cap_ms, rlimit=effort.rlimit - quick, nested=True)
        fresh.add(self._context)
        self._retired.append(fresh)
        return fresh.check(*extra)

    def _limited(self, extra: tuple[z3.BoolRef, ...], timeout_ms: int, rlimit: int) -> z3.CheckSatResult:
        assert self._solver is not None
        self._solver.set("timeout", max(1, int(timeout_ms)))
        if rlimit:
            self._solver.set("rlimit", int(rlimit))  # counted from this check's start
        try:
            return self._solver.check(*extra)
        finally:
            self._solver.set("timeout", self._timeout_ms)
            if rlimit:
                self._solver.set("rlimit", 0)  # none


TRUTH_MS = 5000  # deciding a closed formula a model left unevaluated


def truth(model: Any, e: z3.BoolRef, timeout_ms: int = TRUTH_MS) -> bool | None:
    """e's truth value in `model` (a ModelRef or anything with its `eval`), None if undecided.

    z3 may eliminate a Boolean constant defined by a quantified formula (an enabledness bit
    `b == exists i. ...`) and then evaluate it to that formula, with every free symbol
    replaced by its value but the quantifier left in place: not true, yet not false. Such a
    closed formula is decided here by a query of its own; reading it as false (as
    `is_true` alone would) put objects in states they are not in."""
    v = model.eval(e, model_completion=True)
    op = F.op_kind(v)  # z3.is_true(v), z3.is_false(v) without a declaration object each
    if op == z3.Z3_OP_TRUE:
        return True
    if op == z3.Z3_OP_FALSE:
        return False
    if free_constants(v):
        return None  # not closed after all: no single truth value
    s = make_solver(timeout_ms, v.ctx)
    s.add(v)
    r = s.check()
    return None if r == z3.unknown else bool(r == z3.sat)


# eliminations (qe, qe2) in z3's resource units: the same input gives the same answer at
# every load. The ZipFile, HTTPConnection, Wave_write, Lock and SMTP eliminations that
# succeed need 0.001 M to 0.7 M units; a 2000 ms timeout was 10 M to 20 M units
QE = Effort(rlimit=16_000_000, cap_ms=30_000)

# the executor's other feasibility questions (the loop past its bound, a sequence's
# length, a comprehension's or a set's element): those of the five stdlib classes take
# 0.007 M to 0.04 M units; a 2000 ms timeout, as they had, was 10 M to 20 M
FEASIBLE = Effort(rlimit=10_000_000, cap_ms=20_000)


@dataclass
class Allowance:
    """z3's resource units a group of calls may spend in all (the eliminations of one raise
    guard): each call is given at most what is left, and what it used is taken off. A
    count, so which call runs out is the same at any load."""

    units: int

    def limit(self, effort: Effort) -> Effort | None:
        """`effort` within what is left (None: nothing is)."""
        if self.units <= 0:
            return None
        return Effort(min(effort.rlimit, self.units), effort.cap_ms)

    def spend(self, units: int) -> None:
        self.units -= units


def checked(solver: z3.Solver, effort: Effort, allowance: Allowance | None = None) -> z3.CheckSatResult:
    """`solver.check()` within `effort` (and `allowance`, which pays the units it used);
    unknown without asking where the allowance is spent."""
    limit = effort if allowance is None else allowance.limit(effort)
    if limit is None:
        return z3.unknown
    before = units_counted(solver)
    solver.set("rlimit", limit.rlimit)
    solver.set("timeout", max(1, limit.cap_ms))
    try:
        return solver.check()
    finally:
        if allowance is not None:
            allowance.spend(units_counted(solver) - before)


def units_counted(solver: z3.Solver) -> int:
    """The resource units z3 counted in the solver's context so far (every solver of a context
    shares one count; a check's units are the difference across it)."""
    stats = solver.statistics()
    return int(stats.get_key_value("rlimit count")) if "rlimit count" in stats.keys() else 0


def eliminate_quantifiers(formula: z3.BoolRef, effort: Effort = QE, project: bool = False,
                          allowance: Allowance | None = None) -> z3.BoolRef:
    """`formula` with its quantifiers eliminated where z3's qe tactic manages, else
    unchanged; with `project` (raise guards), by z3's model-based projection (qe2) first,
    and by qe where qe2 cannot; each try within `effort` and `allowance` (z3's resource
    units: the same answer at any load).

    qe splits on the bound Booleans (the path choices of inlined calls) and ran into its
    units on most raise guards that bind any besides values of other sorts (zipfile's 7
    guards of 20 to 52 Booleans: 3 to 6 s each; smtplib.SMTP's 40 to 100: 3 to 14 s),
    and took 0.13 to 0.28 s where it did manage (asyncio.locks.Lock's `acquire`, 4
    Booleans and 2 integers; HTTPConnection's `getresponse`, 13 Booleans alone); qe2
    eliminated every raise guard of those classes and of wave.Wave_write in 2 to 70 ms,
    never more than 1 ms slower than qe. Both eliminations are exact: the guard's meaning
    is the same either way."""
    if not z3.is_quantifier(formula) and not _has_quantifier(formula):
        return formula
    result = _projected(formula, effort, allowance) if project else None
    if result is None:
        result = _apply("qe", formula, effort, allowance)
    return formula if result is None else result


def _apply(name: str, formula: z3.BoolRef, effort: Effort, allowance: Allowance | None = None) -> z3.BoolRef | None:
    """The tactic `name` (then simplify) on `formula` within `effort` and `allowance`, or None.

    Run as a solver made from the tactic: z3 bounds a solver's check by `rlimit`, not a
    tactic's `apply` (which takes a timeout alone), and where the tactic leaves the goal
    undecided the solver's assertions are the goal it left (qe, qe2 and simplify rewrite
    their one goal in place). In a context of its own: the terms it makes are not made in
    the main context, whose term ids (and so the order simplify gives disjunctions) then
    depend on the answer alone."""
    from contractor.runguard import interruptible

    if allowance is not None and allowance.limit(effort) is None:
        return None  # the allowance is spent
    scratch = z3.Context()
    solver = z3.Then(z3.Tactic(name, ctx=scratch), z3.Tactic("simplify", ctx=scratch)).solver()
    solver.add(formula.translate(scratch))
    try:
        with interruptible(scratch):  # Ctrl-C and the budget reach it (runguard.py)
            answer = checked(solver, effort, allowance)
    except z3.Z3Exception:
        return None
    # the goal's formulas, conjoined as the tactic's own answer was (the same text)
    if answer == z3.sat:  # the goal became empty: true
        result = z3.And(scratch)
    elif answer == z3.unsat:  # the goal became false
        result = z3.And(z3.BoolVal(False, scratch), scratch)
    elif solver.reason_unknown() != "unknown":  # ran out of units or time, or was interrupted
        return None
    else:
        result = z3.And(*solver.assertions(), scratch)
    if _has_quantifier(result):
        return None
    return result.translate(formula.ctx)


def _projected(formula: z3.BoolRef, effort: Effort, allowance: Allowance | None = None) -> z3.BoolRef | None:
    """qe2, which takes no uninterpreted function: each application (over free constants
    only, as the callers' formulas have them) stands as a constant meanwhile (exact: the
    quantified values are not under any)."""
    from contractor.z3backend import dag

    nodes = dag.postorder(formula)
    bound_under = {k for k, n in nodes.items() if n.kind == z3.Z3_VAR_AST}
    for k, n in nodes.items():  # nodes mentioning a bound variable
        if any(a in bound_under for a in n.args):
            bound_under.add(k)
    apps = [dag.expr(formula, n) for k, n in nodes.items()
            if n.kind == z3.Z3_APP_AST and n.args and n.decl_kind == z3.Z3_OP_UNINTERPRETED]
    if any(a.get_id() in bound_under for a in apps):
        return None
    pairs = [(a, z3.Const(f"qe2!app!{i}", a.sort())) for i, a in enumerate(apps)]
    result = _apply("qe2", z3.substitute(formula, *pairs) if pairs else formula, effort, allowance)
    if result is None or not pairs:
        return result
    return z3.substitute(result, *[(c, a) for a, c in pairs])


def free_constants(e: z3.ExprRef) -> list[z3.ExprRef]:
    """The uninterpreted constants (0-ary symbols) `e` mentions, in a stable order (by name)."""
    from contractor.z3backend.dag import free_constants as constants

    return constants(e)


def _has_quantifier(e: z3.ExprRef) -> bool:
    from contractor.z3backend.dag import has_quantifier

    return has_quantifier(e)


def py_value(v: z3.ExprRef, settle: bool = True) -> Any:
    """A model value as a plain Python (JSON-friendly) value."""
    plain = plain_value(v)
    if plain is not None:
        return plain
    if settle and not (z3.is_true(v) or z3.is_false(v) or z3.is_int_value(v) or z3.is_string_value(v)
                       or isinstance(v, (z3.FPNumRef, z3.RatNumRef))):
        return py_value(settled(v), settle=False)
    if z3.is_true(v):
        return True
    if z3.is_false(v):
        return False
    if z3.is_int_value(v):
        return v.as_long()
    if isinstance(v, z3.FPNumRef):
        return fp_to_float(v)
    if z3.is_string_value(v):
        return v.as_string()
    if isinstance(v, z3.RatNumRef):
        return float(v.as_fraction())
    raise ValueError(f"no Python value for {v}")


def plain_value(v: z3.ExprRef) -> bool | int | None:
    """True, False or an integer, read through z3's C API (most witness values are; the
    Python predicates cost a wrapper and several checks each); None for anything else."""
    return plain_at(R.pointer(v.ctx_ref()), R.pointer(v.as_ast()))


def plain_at(c: int, a: int) -> bool | int | None:
    """`plain_value` of the term at address `a` in the context at address `c` (rawapi's
    calls on bare pointers: modelread.py reads a model's values so)."""
    kind = R.ptr_ast_kind(c, a)
    if kind == z3.Z3_NUMERAL_AST:
        if R.ptr_sort_kind(c, R.ptr_sort(c, a)) == z3.Z3_INT_SORT:
            return int(R.ptr_numeral_string(c, a))
        return None
    if kind == z3.Z3_APP_AST:
        op = R.ptr_decl_kind(c, R.ptr_app_decl(c, R.ptr_to_app(c, a)))
        if op == z3.Z3_OP_TRUE:
            return True
        if op == z3.Z3_OP_FALSE:
            return False
    return None


def settled(e: z3.ExprRef, timeout_ms: int = 2000) -> z3.ExprRef:
    """A closed term a model's evaluation leaves unreduced because it holds quantifiers over
    finite ranges (`2 in d.values()`): each quantifier decided by a solver, then simplified."""
    found: dict[int, z3.ExprRef] = {}
    todo, seen = [e], set()
    while todo:
        x = todo.pop()
        if x.get_id() in seen:
            continue
        seen.add(x.get_id())
        if z3.is_quantifier(x):
            found[x.get_id()] = x
        else:
            todo.extend(x.children())
    pairs = []
    for q in found.values():
        s = make_solver(timeout_ms)
        s.add(q)
        answer = s.check()
        if answer == z3.unknown:
            return e
        pairs.append((q, z3.BoolVal(answer == z3.sat)))
    return z3.simplify(z3.substitute(e, *pairs)) if pairs else z3.simplify(e)


def fp_to_float(v: z3.FPNumRef) -> float:
    if v.isNaN():
        return math.nan
    if v.isInf():
        return -math.inf if v.isNegative() else math.inf
    if v.isZero():
        return -0.0 if v.isNegative() else 0.0
    exact = z3.simplify(z3.fpToReal(v))
    return float(exact.as_fraction())  # exact: the value is a double


def seq_elements(model: z3.ModelRef, seq: z3.SeqRef, limit: int = 64) -> list[z3.ExprRef]:
    """The elements of a sequence in a model (up to `limit`)."""
    n = z3.simplify(model.eval(z3.Length(seq), model_completion=True))
    if not z3.is_int_value(n):  # not evaluated to a numeral (e.g. an out-of-range item in the term)
        n = z3.simplify(model.eval(z3.Length(z3.simplify(model.eval(seq, model_completion=True))),
                                   model_completion=True))
    n = n.as_long()
    return [model.eval(seq[i], model_completion=True) for i in range(min(n, limit))]

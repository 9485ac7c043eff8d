"""Findings about the contracts themselves: unsatisfiable invariants, constructors and
preconditions, and methods that can break the invariant or their postcondition, or raise.

Each check is one solver query over all objects satisfying the class invariant (the
contract methodology's assumption), and each finding carries the solver's counterexample.
Checks that depend on a condition the translation could not follow are not made: they
would report spurious problems; the unknowns list says what was skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, TypeGuard

import z3

from contractor.errors import BudgetSpent, UnsupportedConstruct
from contractor.typestate import Finding, FindingKind
from contractor.z3backend.encoding import Encoder
from contractor.z3backend.isolated import IsolatedModel, solver_in
from contractor.z3backend.semantics import Outcome
from contractor.z3backend.values import Val
from contractor.z3backend.z3util import make_solver, truth

if TYPE_CHECKING:  # the backend imports this module
    from contractor.z3backend.backend import Z3Backend

MAX_REFINEMENTS = 32  # distinctness lemmas per check; past them the answer is unknown

# a query's answer: the solver's model (z3's, or read from a fresh context), None (unsat) or "unknown"
Answer: TypeAlias = "z3.ModelRef | IsolatedModel | None | str"
Solve = Callable[..., Answer]


def method_findings(b: Z3Backend) -> list[Finding]:
    sem, model = b.sem, b.model
    inexact_labels = {k.split(":")[0] for k in sem.inexact}
    out: list[Finding] = []

    def solve(*parts: z3.BoolRef, undecided: str = "", method: str | None = None, line: int | None = None) -> Answer:
        """The solver's model, None (unsat), or "unknown"; an unknown answer to a question
        naming `undecided` is reported as an unknown finding, never silently dropped."""
        s = make_solver(b.timeout_ms)
        s.add(*parts)
        # sets' items and dicts' keys are distinct: checked per model, with a ground lemma
        # where a model repeats one, as the exploration does (a quantifier makes z3 time out)
        enc = Encoder(sem, s, b.timeout_ms, b._count, distinct=list(sem.distinct_seqs))
        late = False
        for _ in range(MAX_REFINEMENTS):
            try:
                r = b.check(s)
            except BudgetSpent:  # the run's budget is spent: undecided
                r, late = z3.unknown, True
            if r != z3.sat:
                break
            m = s.model()
            if not enc.refine_distinct(m):
                return m
        if r == z3.unsat:
            return None
        if r == z3.unknown and not late and s.reason_unknown() not in ("timeout", "canceled"):
            # z3's incomplete answers (quantifiers, sequences) depend on the context's
            # history: the same query in a fresh context often settles
            fresh = fresh_context_answer([*parts, sem.wf], b.timeout_ms)
            if fresh != "unknown":
                return fresh
        if undecided:
            out.append(Finding(FindingKind.UNKNOWN, f"the solver could not decide whether {undecided} "
                               "(timeout or solver unknown): that finding may be missing", method, line=line))
        return "unknown"

    inv_exact = "invariant" not in inexact_labels
    invariant = sem.post_invariant  # distinctness: refined per model (solve)
    # a must answer of the exploration showed an object meeting the invariant (and enabling
    # the methods in `shown_enabled`): those satisfiability checks would only repeat it
    if inv_exact and not b.invariant_shown and solve(invariant) is None:
        out.append(Finding(FindingKind.UNSATISFIABLE_INVARIANT,
                           "the class invariant is unsatisfiable: no object can exist"))
        return out

    for name in model.constructors + model.actions:
        o = b.outcome(name)
        if isinstance(o, UnsupportedConstruct) or name in inexact_labels:
            continue
        method = model.methods[name]
        is_ctor = name in model.constructors
        line = method.location.line
        base = [o.pre, *[w for w in map(_wf, o.args.values())], z3.Not(o.unknown)]
        if not is_ctor:
            base.append(invariant)
            if inv_exact and name not in b.shown_enabled and solve(invariant, sem.enabled[name]) is None:
                why = ("it ends in an explicit raise for every object meeting the invariant and all arguments"
                       if model.preconditions.guards and not (model.preconditions.declared and method.preconditions)
                       else "its precondition is unsatisfiable for objects meeting the invariant")
                out.append(Finding(FindingKind.NEVER_ENABLED, f"{name}() is never enabled: {why}", name, line=line))
                continue
        normal = z3.Not(o.raised)
        try:
            inv_after = sem.invariant_after(o.after)
        except UnsupportedConstruct:
            continue
        some_path = [x for x in base if not x.eq(z3.Not(o.unknown))]  # unknown paths may succeed
        if is_ctor and inv_exact and solve(*some_path, normal, inv_after) is None:
            out.append(Finding(FindingKind.UNSATISFIABLE_CONSTRUCTOR, f"{name}() cannot produce a valid object: no "
                               "arguments meeting its precondition lead to an object satisfying the invariant",
                               name, line=line))
        if inv_exact:
            m = solve(*base, normal, z3.Not(inv_after), undecided=f"{name}() can break the class invariant",
                      method=name, line=line)
            if is_model(m):
                out.append(Finding(FindingKind.BREAKS_INVARIANT, f"{name}() can break the class invariant",
                                   name, counterexample=b.witness(m, o, not is_ctor), line=line))
        if method.postconditions and o.post_exact:
            m = solve(*base, normal, z3.Not(o.post_ok), undecided=f"{name}() can break its postcondition",
                      method=name, line=line)
            if is_model(m):
                out.append(Finding(FindingKind.BREAKS_POSTCONDITION, f"{name}() can break its postcondition",
                                   name, counterexample=b.witness(m, o, not is_ctor), line=line))
        out.extend(raise_findings(b, name, o, base, solve, is_ctor))
    return out


def raise_findings(b: Z3Backend, name: str, o: Outcome, base: list[z3.BoolRef], solve: Solve,
                   is_ctor: bool) -> list[Finding]:
    declared = set(b.model.methods[name].raises)
    guards = b.model.preconditions.guards and not is_ctor  # explicit raises are then the precondition
    sites = [s for s in o.raises if s.what not in declared and not (guards and s.explicit)]
    if not sites:
        return []
    # an exception of outside code first, when it can happen: the other sites' examples may
    # rest on what outside code returned (a None), which no run of the real code may confirm
    outside = [s for s in sites if s.what.startswith("an exception from")]
    m = solve(*base, z3.Or(*[s.cond for s in outside])) if outside and len(outside) < len(sites) else None
    if not is_model(m):
        m = solve(*base, z3.Or(*[s.cond for s in sites]),
                  undecided=f"{name}() can raise although its precondition holds",
                  method=name, line=b.model.methods[name].location.line)
    if m is None or not is_model(m):
        return []
    # the site the model raises at; a model over sequences may leave a condition unevaluated
    # (an out-of-range item), so failing a true one, the first not shown false
    values = [truth(m, s.cond) for s in sites]
    site = next((s for s, v in zip(sites, values) if v), None) \
        or next((s for s, v in zip(sites, values) if v is not False), sites[0])
    where = f"{site.method}() line {site.line}" if site.method != name else f"line {site.line}"
    cx = b.witness(m, o, not is_ctor)
    cx.pop("after", None)
    cx["exception"] = site.what
    cx["line"] = site.line
    message = f"{name}() can raise {site.what} ({where}) although its precondition holds"
    if not is_ctor and any(k.split(":")[0] == "invariant" for k in b.sem.inexact):
        message += " (the class invariant was not fully translated: the example object may not meet it)"
    return [Finding(FindingKind.MAY_RAISE, message, name, counterexample=cx, line=site.line)]


def is_model(m: object) -> TypeGuard[Any]:  # z3's ModelRef (untyped) or an IsolatedModel
    return m is not None and not isinstance(m, str)


def fresh_context_answer(parts: Sequence[z3.BoolRef], timeout_ms: int) -> Answer:
    """The query in a fresh z3 context: its model (read through the main context's terms),
    None (unsat) or "unknown"."""
    ctx = z3.Context()
    s = solver_in(ctx, timeout_ms)
    s.add(*[p.translate(ctx) for p in parts])
    r = s.check()
    if r == z3.sat:
        return IsolatedModel(s.model(), ctx)
    return None if r == z3.unsat else "unknown"


def _wf(v: Val) -> z3.BoolRef:
    from contractor.z3backend.values import well_formed

    return well_formed(v, asserted=True)

"""Findings about the contracts themselves: unsatisfiable invariants, constructors and
preconditions, and methods that can break the invariant or their postcondition, or raise.

Each check is one solver query over all objects satisfying the class invariant (the
contract methodology's assumption), and each finding carries the solver's counterexample.
Checks that depend on a condition the translation could not follow are not made: they
would report spurious problems; the unknowns list says what was skipped.

"Breaks the invariant" asks about what a run can break (`breakable_invariant`): the
declared invariant and the typed fields' ranges, not an untyped value's well-formedness,
which every Python value has (zipfile.ZipFile's and http.client.HTTPConnection's whole
invariant: their proofs took 0.7 s and 1.3 s and could never end in a finding).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, TypeGuard

import z3

from contractor.errors import BudgetSpent, UnsupportedConstruct
from contractor.typestate import Finding, FindingKind
from contractor.z3backend import fastterms as F
from contractor.z3backend import opaque as O
from contractor.z3backend.encoding import Encoder
from contractor.z3backend.invregion import past_region
from contractor.z3backend.isolated import IsolatedModel, solver_in
from contractor.z3backend.semantics import ClassSemantics, Outcome
from contractor.z3backend.split import conjuncts
from contractor.z3backend.state import Site
from contractor.z3backend.values import Val
from contractor.z3backend.z3util import Effort, make_solver, truth

if TYPE_CHECKING:  # the backend imports this module
    from contractor.z3backend.backend import Z3Backend

MAX_REFINEMENTS = 32  # distinctness lemmas per check; past them the answer is unknown

# a query's answer: the solver's model (z3's, or read from a fresh context), None (unsat) or "unknown"
Answer: TypeAlias = "z3.ModelRef | IsolatedModel | None | str"
Solve = Callable[..., Answer]


def method_findings(b: Z3Backend) -> list[Finding]:
    sem, model = b.sem, b.model
    inexact_labels = {k.split(":")[0] for k in sem.inexact}
    if sem.past_invariant:  # followed within the unroll bound only: not exact for the checks
        inexact_labels.add("invariant")
    out: list[Finding] = []

    def solve(*parts: z3.BoolRef, undecided: str = "", method: str | None = None, line: int | None = None) -> Answer:
        """The solver's model, None (unsat), or "unknown"; an unknown answer to a question
        naming `undecided` is reported as an unknown finding, never silently dropped."""
        # z3util.make_solver: the core, zipfile's checks 20 s -> 4 s; nested, the raise sites'
        # conditions are not flattened (HTTPConnection's findings 0.40 -> 0.30 s)
        s = make_solver(b.timeout_ms, core=True, nested=True)
        F.add(s, *parts)
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
        if r == z3.unknown and not late and s.reason_unknown() != "canceled":
            # z3's incomplete answers (quantifiers, sequences) depend on the context's
            # history: the same query in a fresh context often settles; and where the SMT
            # core alone ran out of time, the preprocessing of a fresh solver may settle it
            fresh = fresh_context_answer([*parts, sem.wf], b.timeout_ms)
            if fresh != "unknown":
                return fresh
        if undecided:
            out.append(Finding(FindingKind.UNKNOWN, f"the solver could not decide whether {undecided} "
                               "(timeout or solver unknown): that finding may be missing", method, line=line))
        return "unknown"

    inv_exact = "invariant" not in inexact_labels
    # inexact only past the unroll bound (invregion.py): exact on the objects within it
    inv_bounded = bool(sem.past_invariant) and not any(k.split(":")[0] == "invariant" for k in sem.inexact)
    invariant = sem.post_invariant  # distinctness: refined per model (solve)
    # a must answer of the exploration showed an object meeting the invariant (and enabling
    # the methods in `shown_enabled`): those satisfiability checks would only repeat it
    if inv_exact and not b.invariant_shown and solve(invariant) is None:
        out.append(Finding(FindingKind.UNSATISFIABLE_INVARIANT,
                           "the class invariant is unsatisfiable: no object can exist"))
        return out

    # The checks below that hold for correct contracts (no method breaks the invariant or its
    # postcondition, none raises) are first asked as one query: unsat proves each of them
    # unsat, so none is asked; otherwise (sat, unknown) each is asked on its own, as always.
    # Where outside code may raise (a call of it the method can reach, as it nearly always can),
    # that query is sat, and so is the merged one: it is not asked (zipfile.ZipFile,
    # http.client.HTTPConnection: 0.25 s each, cut undecided by its wall-clock limit then).
    merged = []
    outside_raises = False
    for name in model.constructors + model.actions:
        o = b.outcome(name)
        if not isinstance(o, UnsupportedConstruct) and name not in inexact_labels:
            is_ctor = name in model.constructors
            merged.append((_base(o, is_ctor, invariant), _violations(b, name, o, is_ctor, inv_exact)))
            outside_raises |= any(map(_outside, _raise_sites(b, name, o, is_ctor)))
    clean = not outside_raises and _all_hold(b, merged)
    for name in model.constructors + model.actions:
        o = b.outcome(name)
        if isinstance(o, UnsupportedConstruct) or name in inexact_labels:
            continue
        method = model.methods[name]
        is_ctor = name in model.constructors
        line = method.location.line
        base = _base(o, is_ctor, invariant)
        if not is_ctor:
            why = ("it ends in an explicit raise for every object meeting the invariant and all arguments"
                   if model.preconditions.guards and not (model.preconditions.declared and method.preconditions)
                   else "its precondition is unsatisfiable for objects meeting the invariant")
            if inv_exact and name not in b.shown_enabled and solve(invariant, sem.enabled[name]) is None:
                out.append(Finding(FindingKind.NEVER_ENABLED, f"{name}() is never enabled: {why}", name, line=line))
                continue
            if inv_bounded and name not in b.shown_enabled:
                never = bounded_never_enabled(b, name, invariant, solve, line, why)
                out.extend(never)
                if any(f.kind == FindingKind.NEVER_ENABLED for f in never):
                    continue
        normal = F.not_(o.raised)
        try:
            inv_after = b.invariant_after(o)
            breakable = b.breakable_after(o)
        except UnsupportedConstruct:
            continue
        some_path = [x for x in base if not x.eq(F.not_(o.unknown))]  # unknown paths may succeed
        # a must initial state of the exploration is an object this constructor built meeting
        # the invariant: the constructor is satisfiable, asking again would only repeat it
        if is_ctor and inv_exact and name not in b.constructed and solve(*some_path, normal, inv_after) is None:
            out.append(Finding(FindingKind.UNSATISFIABLE_CONSTRUCTOR, f"{name}() cannot produce a valid object: no "
                               "arguments meeting its precondition lead to an object satisfying the invariant",
                               name, line=line))
        if inv_exact:
            m = None if clean or not conjuncts(breakable) else \
                solve(*base, normal, F.not_(breakable), undecided=f"{name}() can break the class invariant",
                      method=name, line=line)
            if is_model(m):
                out.append(Finding(FindingKind.BREAKS_INVARIANT, f"{name}() can break the class invariant",
                                   name, counterexample=b.witness(m, o, not is_ctor), line=line))
        elif inv_bounded:  # not in the merged query
            out.extend(bounded_invariant_finding(b, name, o, [*base, normal], breakable, solve, is_ctor, line))
        if clean:
            continue
        if method.postconditions and o.post_exact:
            m = solve(*base, normal, F.not_(o.post_ok), undecided=f"{name}() can break its postcondition",
                      method=name, line=line)
            if is_model(m):
                out.append(Finding(FindingKind.BREAKS_POSTCONDITION, f"{name}() can break its postcondition",
                                   name, counterexample=b.witness(m, o, not is_ctor), line=line))
        out.extend(raise_findings(b, name, o, base, solve, is_ctor))
    return out


def breakable_invariant(sem: ClassSemantics) -> z3.BoolRef:
    """What a run can break of the class invariant: `sem.post_invariant` without the
    well-formedness of its untyped (opaque) fields, which every Python value has (None is
    falsy and has None's identity, nothing else has it); `sem.post_invariant` itself where
    no field is untyped. Asked after the exploration only: a term made before it would
    change the ids of every term after it, and so the models z3 picks (the witnesses)."""
    untyped = {c.get_id() for v in sem.fields.values() if v.kind == "opaque" for c in conjuncts(O.well_formed(v.z))}
    if not untyped:
        return sem.post_invariant
    kept = [c for c in conjuncts(sem.post_invariant) if c.get_id() not in untyped]
    return F.and_(*kept) if kept else z3.BoolVal(True)


def _base(o: Outcome, is_ctor: bool, invariant: z3.BoolRef) -> list[z3.BoolRef]:
    """What every check about a method assumes: its precondition, well-formed arguments, the
    paths the translation followed, and (a method, not a constructor) the class invariant."""
    base = [o.pre, *[w for w in map(_wf, o.args.values())], F.not_(o.unknown)]
    return base if is_ctor else [*base, invariant]


def _violations(b: Z3Backend, name: str, o: Outcome, is_ctor: bool, inv_exact: bool) -> list[z3.BoolRef] | None:
    """What method_findings asks to be satisfiable with `_base` about `name` after its
    never-enabled and constructor checks: normal ends breaking the invariant or the
    postcondition, and the raise sites; None where the invariant after it cannot be expressed."""
    normal = F.not_(o.raised)
    try:
        breakable = b.breakable_after(o)
    except UnsupportedConstruct:
        return None
    out = [F.and_(normal, F.not_(breakable))] if inv_exact and conjuncts(breakable) else []
    if b.model.methods[name].postconditions and o.post_exact:
        out.append(F.and_(normal, F.not_(o.post_ok)))
    sites = _raise_sites(b, name, o, is_ctor)
    if sites:
        out.append(F.or_(*[s.cond for s in sites]))
    return out


# the one query of _all_hold, in z3's resource units (the same answer at any load; about
# 0.25 s idle), capped by wall clock; past it (unknown), each check is asked on its own.
# The samples' and Contractor.NET classes' merged queries take at most 0.015 s.
MERGED = Effort(rlimit=5_000_000, cap_ms=2_000)
MAX_MERGED = 24  # checks merged into that query at most (more: each on its own)


def _all_hold(b: Z3Backend, methods: list[tuple[list[z3.BoolRef], list[z3.BoolRef] | None]]) -> bool:
    """Whether one query proves that no method's violations (`_violations`) can happen: the
    disjunction over the methods of base and some violation is unsat. False where it is
    sat or unknown, or there are fewer than two checks or more than MAX_MERGED to merge."""
    cases = [F.and_(*base, F.or_(*bad)) for base, bad in methods if bad]
    checks = sum(len(bad) for _, bad in methods if bad)
    if checks < 2 or checks > MAX_MERGED:
        return False
    s = make_solver(min(b.timeout_ms, MERGED.cap_ms), core=True, rlimit=MERGED.rlimit)
    F.add(s, F.or_(*cases))
    enc = Encoder(b.sem, s, b.timeout_ms, b._count, distinct=list(b.sem.distinct_seqs))
    for _ in range(MAX_REFINEMENTS):
        try:
            r = b.check(s)
        except BudgetSpent:
            return False
        if r != z3.sat or not enc.refine_distinct(s.model()):
            break
    return bool(r == z3.unsat)


def _raise_sites(b: Z3Backend, name: str, o: Outcome, is_ctor: bool) -> list[Site]:
    """The raise sites of `name` that make findings: not declared, and not a raise guard."""
    declared = set(b.model.methods[name].raises)
    guards = b.model.preconditions.guards and not is_ctor  # explicit raises are then the precondition
    return [s for s in o.raises if s.what not in declared and not (guards and s.explicit)]


def _outside(site: Site) -> bool:
    """A raise site where code outside the analysed source may raise."""
    return site.what.startswith("an exception from")


def raise_findings(b: Z3Backend, name: str, o: Outcome, base: list[z3.BoolRef], solve: Solve,
                   is_ctor: bool) -> list[Finding]:
    sites = _raise_sites(b, name, o, is_ctor)
    if not sites:
        return []
    # an exception of outside code first, when it can happen: the other sites' examples may
    # rest on what outside code returned (a None), which no run of the real code may confirm
    outside = [s for s in sites if _outside(s)]
    m = solve(*base, F.or_(*[s.cond for s in outside])) if outside and len(outside) < len(sites) else None
    if not is_model(m):
        m = solve(*base, F.or_(*[s.cond for s in sites]),
                  undecided=f"{name}() can raise although its precondition holds",
                  method=name, line=b.model.methods[name].location.line)
    if m is None or not is_model(m):
        return []
    site = raising_site(m, sites)
    where = f"{site.method}() line {site.line}" if site.method != name else f"line {site.line}"
    cx = b.witness(m, o, not is_ctor)
    cx.pop("after", None)
    cx["exception"] = site.what
    cx["line"] = site.line
    message = f"{name}() can raise {site.what} ({where}) although its precondition holds"
    if not is_ctor and (b.sem.past_invariant or any(k.split(":")[0] == "invariant" for k in b.sem.inexact)):
        message += " (the class invariant was not fully translated: the example object may not meet it)"
    return [Finding(FindingKind.MAY_RAISE, message, name, counterexample=cx, line=site.line)]


def raising_site(m: Any, sites: list[Site]) -> Site:
    """The site the model raises at; a model over sequences may leave a condition
    unevaluated (an out-of-range item), so failing a true one, the first not shown false.

    Asked first in one evaluation, of `If(c1, 1, If(c2, 2, ... 0))`: each site's condition
    holds the raises of the sites before it (the path condition excludes them), so
    evaluating them one by one evaluated the first sites again for every later one
    (zipfile.ZipFile: 0.3 s). A numeral k names the first site whose condition the model
    makes true, the ones before it evaluated false (0: all false, the first is shown);
    anything else (a condition left unevaluated) is decided site by site, as `truth` does."""
    chain = z3.IntVal(0)
    for k in range(len(sites), 0, -1):
        chain = z3.If(sites[k - 1].cond, z3.IntVal(k), chain)
    first = m.eval(chain, model_completion=True)
    if z3.is_int_value(first):
        k = int(first.as_long())
        return sites[max(k, 1) - 1]
    values = [truth(m, s.cond) for s in sites]
    shown: Site = next((s for s, v in zip(sites, values) if v), None) \
        or next((s for s, v in zip(sites, values) if v is not False), sites[0])
    return shown


def bounded_invariant_finding(b: Z3Backend, name: str, o: Outcome, base: list[z3.BoolRef],
                              inv_after: z3.BoolRef, solve: Solve, is_ctor: bool, line: int | None) -> list[Finding]:
    """Whether `name` can break an invariant followed within --unroll only (invregion.py):
    asked of the objects within the bound before and after the call, where the invariant
    is the real one, so a model is a real counterexample; if there is none, the objects
    past the bound were not checked, and an unknown finding says so."""
    past = b.past_invariant(o, not is_ctor)
    assert past is not None  # only asked when the invariant has a bounded part
    m = solve(*base, F.not_(past), F.not_(inv_after), undecided=f"{name}() can break the class invariant",
              method=name, line=line)
    if is_model(m):
        return [Finding(FindingKind.BREAKS_INVARIANT, f"{name}() can break the class invariant",
                        name, counterexample=b.witness(m, o, not is_ctor), line=line)]
    if m is None and solve(*base, past) is not None:  # no object past the bound: nothing left unchecked
        why = b.sem.past_invariant[0][1]
        return [Finding(FindingKind.UNKNOWN, f"{name}() keeps the class invariant on the objects within --unroll; "
                        f"past the bound ({why}) it was not checked: that finding may be missing", name, line=line)]
    return []  # "unknown": solve reported it


def bounded_never_enabled(b: Z3Backend, name: str, invariant: z3.BoolRef, solve: Solve,
                          line: int | None, why: str) -> list[Finding]:
    """Whether `name` is never enabled, with an invariant followed within --unroll only
    (invregion.py): enabled on no object within the bound, nor on any past it (where the
    invariant is unconstrained), is never enabled; enabled on none within the bound but
    perhaps past it: unknown, said so."""
    past = past_region(b.sem.past_invariant)
    assert past is not None  # only asked when the invariant has a bounded part
    enabled = b.sem.enabled[name]
    if solve(invariant, F.not_(past), enabled, undecided=f"{name}() is never enabled", method=name,
             line=line) is not None:
        return []  # enabled within the bound, or undecided (reported)
    if solve(invariant, past, enabled) is None:
        return [Finding(FindingKind.NEVER_ENABLED, f"{name}() is never enabled: {why}", name, line=line)]
    why = b.sem.past_invariant[0][1]
    return [Finding(FindingKind.UNKNOWN, f"{name}() is enabled on no object within --unroll; past the bound "
                    f"({why}) it was not checked: that finding may be missing", name, line=line)]


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

"""Implicit preconditions (raise guards): a method is enabled in an object iff, for some
arguments, its body (with the class's methods it calls, inlined) can finish without
reaching an explicit `raise` or a failing `assert` of the analysed code.

Exceptions of Python operations (a `ZeroDivisionError`, a `TypeError` on None) and of
code outside the analysed source are not guards: a path ending in one still counts as
"not stopped by a guard", and the exception stays a `may_raise` finding. Code outside
the analysed source is taken to return normally here (else a call before the guard, say
`memoryview(data)`, would make every method enabled by some argument it rejects). Values the
body makes up on the way (results of opaque code, locals set on some paths) are chosen
together with the arguments: the enabledness is `exists p, v. not explicit(c, p, v)`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import Method
from contractor.typestate import Unknown
from contractor.z3backend import dag
from contractor.z3backend import values as V
from contractor.z3backend.guardmodels import BIG_GUARD_NODES, MODEL, guard_by_models
from contractor.z3backend.guardqe import eliminate_hard
from contractor.z3backend.z3util import Allowance, Effort, eliminate_quantifiers, make_solver

if TYPE_CHECKING:  # semantics imports this module
    from contractor.z3backend.semantics import ClassSemantics


IN_GUARDS = "in its raise guards"  # an unknown's detail: where the construct cost exactness


def guarded_enabledness(sem: ClassSemantics, method: Method) -> z3.BoolRef:
    """exists p, v. pre(c, p) and the body does not end in an explicit raise (see the
    module docstring); an unknown predicate of the object where the body cannot be run."""
    try:
        o = sem.run_once(method, guards=True)
    except (UnsupportedConstruct, z3.Z3Exception) as err:
        construct = err.construct if isinstance(err, UnsupportedConstruct) else f"z3: {err}"
        sem.inexact[f"{method.name}:guards"] = construct
        sem.unknowns.append(Unknown(method.name, method.location.line, construct,
                                    "its raise guards could not be read"))
        return sem.unknown_predicate(method.name, "guards")
    ok = z3.And(o.pre, *[V.well_formed(v) for v in o.args.values()], z3.Not(o.explicit))
    fields = {str(c) for c in sem.flat(sem.fields)}
    share = Allowance(GUARD_SHARE)  # one method's eliminations together
    if z3.is_false(o.unknown):
        return _exists(sem, method, ok, fields, share)
    # a path the translation could not follow may or may not reach a raise later: that
    # part is an unknown predicate of the object (every answer using it is may), except
    # where a followed path already enables the method (a loop past its bound after
    # paths that leave it: the guard is then exact)
    known = _exists(sem, method, z3.And(ok, z3.Not(o.unknown)), fields, share)
    if _covered(sem, known, _abstracted(z3.And(ok, o.unknown), fields)[0]):
        return known  # asked with the unfinished paths' values free: no elimination needed
    unfinished = _exists(sem, method, z3.And(ok, o.unknown), fields, share)
    if _covered(sem, known, unfinished):
        return known
    sem.inexact[f"{method.name}:guards"] = next((s.what for s in o.unknowns), "untranslated construct")
    for s in o.unknowns:
        sem.unknowns.append(Unknown(method.name, s.line, s.what, IN_GUARDS))
    return z3.Or(known, z3.And(unfinished, sem.unknown_predicate(method.name, "guards")))


# proving that the followed paths enable a method wherever the others might: in z3's
# resource units (z3util.Effort), so the answer, and with it the guard, does not depend on
# the machine's load. zipfile.ZipFile's and http.client.HTTPConnection's proofs took 5.1 M
# and 5.2 M units (0.3 s idle) on a fresh solver, which a busy machine took past the
# 1000 ms this was; on z3's SMT core (below) they take 6 K to 37 K units
COVERED = Effort(rlimit=15_000_000, cap_ms=20_000)


def _covered(sem: ClassSemantics, known: z3.BoolRef, unfinished: z3.BoolRef) -> bool:
    """Whether no object meeting the invariant has `unfinished` without `known` (then
    `known or (unfinished and anything)` is `known`); unknown counts as no. `unfinished`
    may mention the chosen values: they are free in the query, so `exists` is implicit."""
    if z3.is_true(z3.simplify(known)) or z3.is_false(z3.simplify(unfinished)):
        return True
    # z3's SMT core without a fresh solver's preprocessing, which was most of the proof's
    # time (HTTPConnection's `request`: 0.24 s, 0.04 s on the core; ZipFile's `write` and
    # `open`: 0.13 and 0.17 s, 0.003 s): the answer is the same where both decide it
    solver = make_solver(COVERED.cap_ms, core=True, rlimit=COVERED.rlimit)
    solver.add(sem.invariant, z3.Not(known), unfinished)
    return bool(solver.check() == z3.unsat)


def _exists(sem: ClassSemantics, method: Method, ok: z3.BoolRef, fields: set[str], share: Allowance) -> z3.BoolRef:
    """exists (everything but the fields). ok, quantifier-free where z3 can make it so
    within `share` (z3's resource units for the method's eliminations together);
    applications of uninterpreted functions to the chosen values are chosen values too."""
    deadline = sem.reading_deadline
    if deadline is not None and time.monotonic() >= deadline:
        return sem.out_of_budget(method, "raise guard", "guards")
    ok, size, constants = _abstracted(ok, fields)
    chosen = [c for c in constants if str(c) not in fields]
    if not chosen:
        return z3.simplify(ok)
    effort, models = sem.qe_effort, MODEL
    if deadline is not None:  # the run's budget bounds the eliminations' time too
        left_ms = int((deadline - time.monotonic()) * 1000)
        if left_ms <= 0:
            return sem.out_of_budget(method, "raise guard", "guards")
        effort = Effort(effort.rlimit, min(effort.cap_ms, left_ms))
        models = Effort(models.rlimit, min(models.cap_ms, left_ms))
    if size >= BIG_GUARD_NODES:  # a method inlining most of its class: models first (guardmodels.py)
        found = guard_by_models(sem.invariant, ok, chosen, models, share)
        if found is not None:
            return found
    formula = z3.Exists(chosen, ok)
    within = share.units > 0
    eliminated = eliminate_quantifiers(formula, effort, project=True, allowance=share) if within else formula
    if eliminated is not formula:
        return eliminated
    hard = None
    within = share.units > 0
    if within:  # strings and other sorts qe cannot take
        hard = eliminate_hard(ok, chosen, effort, share)
    if hard is not None and hard.exact:
        return hard.formula
    # z3 cannot eliminate it (or not within the method's share of units): an unknown
    # predicate of the object (its answers are may) rather than a quantified bit the
    # exploration would have to refine; within an over-approximation where guardqe.py
    # found one (outside it, certainly disabled)
    if deadline is not None and time.monotonic() >= deadline - BUDGET_SLACK_S:
        # the run's budget cut the elimination short (its timeout was what was left): said
        # so, as one unknown of the method with the others the budget made (budget_once)
        unknown = sem.out_of_budget(method, "raise guard", "guards", started=True)
        return unknown if hard is None else z3.And(hard.formula, unknown)
    sem.inexact[f"{method.name}:guards"] = "a raise guard z3 could not make quantifier-free"
    sem.unknowns.append(Unknown(method.name, method.location.line, "raise guard",
                                "z3 could not eliminate the arguments and outside values"
                                + ("" if within else " within its share of z3's resource units")))
    unknown = sem.unknown_predicate(method.name, "guards")
    return unknown if hard is None else z3.And(hard.formula, unknown)


# z3's resource units for eliminating one method's arguments and outside values (its
# models, qe and qe2 tries together): a count, so the guard is the same at any load. The
# 4 s this was: SMTP's `starttls` ran its qe2 and qe to 2 s each, 20 M units each
GUARD_SHARE = 40_000_000
BUDGET_SLACK_S = 0.05  # z3 may give up that much before its timeout


def _abstracted(e: z3.BoolRef, fields: set[str]) -> tuple[z3.BoolRef, int, list[z3.ExprRef]]:
    """Replace each application of an uninterpreted function (opaque.py's readings of an
    untyped value) that is not over fields alone by a fresh constant, chosen with the rest;
    and the number of nodes of `e`, and the free constants of the formula made as
    z3util.free_constants gives them (sorted by name): the constants its top-down walk
    reaches (those not under a replaced application alone) and the fresh ones. One walk
    of the formula fewer than asking free_constants after (HTTPConnection's and SMTP's
    raise guards: thousands of nodes, wide conjunctions; 0.06 and 0.12 s in all).

    Two linear walks over the formula's DAG (dag.py): which nodes mention fields only
    (bottom-up), then the outermost applications that do not (top-down)."""
    nodes = dag.postorder(e)
    only: dict[int, bool] = {}
    for key, n in nodes.items():
        if dag.is_constant(n):
            only[key] = dag.name(e, n) in fields
        else:  # a quantifier's bound variables are not fields
            only[key] = n.kind != z3.Z3_QUANTIFIER_AST and all(only[a] for a in n.args)
    apps: dict[int, z3.ExprRef] = {}
    seen: set[int] = set()
    todo = [next(reversed(nodes))]  # the root comes last
    while todo:
        key = todo.pop()
        if key in seen:
            continue
        seen.add(key)
        n = nodes[key]
        if n.kind == z3.Z3_APP_AST and n.args and n.decl_kind == z3.Z3_OP_UNINTERPRETED and not only[key]:
            apps[key] = dag.expr(e, n)
            continue
        todo.extend(reversed(n.args))
    # dag.free_constants' choice among constants of one name (the last in postorder)
    found = {dag.name(e, n): n for key, n in nodes.items() if key in seen and key not in apps and dag.is_constant(n)}
    if not apps:
        return e, len(nodes), [dag.expr(e, found[k]) for k in sorted(found)]
    pairs = [(a, z3.Const(f"guard!app!{i}", a.sort())) for i, a in enumerate(apps.values())]
    constants = {k: dag.expr(e, n) for k, n in found.items()}
    constants.update((c.decl().name(), c) for _, c in pairs)
    return z3.substitute(e, *pairs), len(nodes), [constants[k] for k in sorted(constants)]

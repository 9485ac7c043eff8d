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

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import BOOL, FLOAT, INT, STR, Method, TypeRef
from contractor.typestate import Unknown
from contractor.z3backend import values as V
from contractor.z3backend.values import Val
from contractor.z3backend.z3util import eliminate_quantifiers, free_constants


def _type_of_sort(sort: z3.SortRef) -> TypeRef:
    if sort == z3.BoolSort():
        return BOOL
    if sort == z3.IntSort():
        return INT
    if sort == z3.StringSort():
        return STR
    if isinstance(sort, z3.FPSortRef):
        return FLOAT
    if isinstance(sort, z3.SeqSortRef):
        return TypeRef("list", (_type_of_sort(sort.basis()),))
    raise UnsupportedConstruct(f"a value of sort {sort} in a raise guard")


def _unknown_predicate(sem, name: str, label: str) -> z3.BoolRef:
    args = sem.flat(sem.fields)
    if not args:
        return z3.Bool(f"unknown!{label}!{name}")
    return z3.Function(f"unknown!{label}!{name}", *[a.sort() for a in args], z3.BoolSort())(*args)


def guarded_enabledness(sem, method: Method) -> z3.BoolRef:
    """exists p, v. pre(c, p) and the body does not end in an explicit raise (see the
    module docstring); an unknown predicate of the object where the body cannot be run."""
    try:
        o = sem.run(method, sem.fields, f"{method.name}.", guards=True)
    except (UnsupportedConstruct, z3.Z3Exception) as err:
        construct = err.construct if isinstance(err, UnsupportedConstruct) else f"z3: {err}"
        sem.inexact[f"{method.name}:guards"] = construct
        sem.unknowns.append(Unknown(method.name, method.location.line, construct,
                                    "its raise guards could not be read"))
        return _unknown_predicate(sem, method.name, "guards")
    ok = z3.And(o.pre, *[V.well_formed(v) for v in o.args.values()], z3.Not(o.explicit))
    if not z3.is_false(o.unknown):
        # a path the translation could not follow may or may not reach a raise later
        sem.inexact[f"{method.name}:guards"] = next((s.what for s in o.unknowns), "untranslated construct")
        for s in o.unknowns:
            sem.unknowns.append(Unknown(method.name, s.line, s.what, "in its raise guards"))
        ok = z3.And(ok, z3.Or(z3.Not(o.unknown), _unknown_predicate(sem, method.name, "guards")))
    fields = {str(c) for c in sem.flat(sem.fields)}
    chosen = [c for c in free_constants(ok) if str(c) not in fields]
    if not chosen:
        return z3.simplify(ok)
    formula = z3.Exists(chosen, ok)
    eliminated = eliminate_quantifiers(formula, sem.qe_timeout_ms)
    if eliminated is formula:
        try:
            params = {str(c): Val(_type_of_sort(c.sort()), c) for c in chosen}
        except UnsupportedConstruct:
            return formula  # z3 decides it as a quantified formula (may answer unknown)
        sem.quantified[method.name] = (params, ok)
    return eliminated

"""Opaque values: what contractor cannot type (an untyped parameter, the result of code
outside the analysed source, a field assigned values of several types).

An opaque value is one z3 datatype term `obj(oid, none, truth)`: its identity, whether it
is None, and its truth value, the three things the analysed code can test without
knowing the type. Anything else (an attribute, a call, an operator, `==`) gives a new
opaque value or Boolean that the query may choose freely. Storing a typed value into
an opaque place keeps its None-ness and truth; reading an opaque value where a type is
expected gives a value of that type that is a function of the object (the same object
reads the same).
"""

from __future__ import annotations

import z3
from z3 import z3 as _Z3PY
from z3 import z3core as C

from contractor.model import OPAQUE, TypeRef
from contractor.z3backend import fastterms as F

_DT = z3.Datatype("Opaque")
_DT.declare("obj", ("oid", z3.IntSort()), ("none", z3.BoolSort()), ("truth", z3.BoolSort()))
SORT = _DT.create()
NONE_ID = -1  # the identity of None
_ACCESSORS = (SORT.oid, SORT.none, SORT.truth)


def oid(z: z3.ExprRef) -> z3.ArithRef:
    return _project(z, 0)


def is_none(z: z3.ExprRef) -> z3.BoolRef:
    return _project(z, 1)


def truth(z: z3.ExprRef) -> z3.BoolRef:
    return _project(z, 2)


_MAX_ITES = 16  # if-then-else nodes a projection is pushed through before it stays an accessor


def _project(z: z3.ExprRef, k: int) -> z3.ExprRef:
    """Field k of z, read through `obj(...)` and if-then-else (the same term z3 would
    simplify to): the identity of a value outside code has seen many times is then its
    identity term, not an accessor over every truth it had (each path condition included)."""
    return _projected(z, k, {})


def _projected(e: z3.ExprRef, k: int, memo: dict[int, z3.ExprRef]) -> z3.ExprRef:
    """`_project`'s walk (`memo`: by node id). A module function, not a closure calling
    itself: such a closure is a reference cycle, and the terms it holds were freed when
    Python's cycle collector ran, so z3's term ids, and the witnesses its models gave,
    changed with any change to how many Python objects a run made."""
    key = F.node_id(e)
    if key in memo:
        return memo[key]
    op = F.op_kind(e)
    if op == z3.Z3_OP_DT_CONSTRUCTOR:
        out = F.arg(e, k)
    elif op == z3.Z3_OP_ITE and len(memo) < _MAX_ITES:
        out = F.ite(F.arg(e, 0), _projected(F.arg(e, 1), k, memo), _projected(F.arg(e, 2), k, memo))
    else:
        out = F.app(_ACCESSORS[k], e)
    memo[key] = out
    return out


def make(identity: z3.ArithRef, none: z3.BoolRef, truthy: z3.BoolRef) -> z3.ExprRef:
    return F.app(SORT.obj, identity, none, truthy)


def well_formed(z: z3.ExprRef) -> z3.BoolRef:
    """None is falsy and has None's identity; nothing else has it."""
    return F.and_(z3.Implies(is_none(z), F.not_(truth(z))), is_none(z) == (oid(z) == NONE_ID))


def fresh_well_formed(name: str) -> z3.ExprRef:
    """An arbitrary opaque value, well-formed whatever its constants are:
    `obj(If(n, -1, If(i == -1, -2, i)), n, And(Not(n), t))` of fresh constants n, t, i.

    Made by z3's C calls directly, the ones `z3.Bool`, `z3.Int`, `==` and `z3.If` make on
    these arguments, in the same order (the numerals too, each time the binding's
    coercion makes it), without the binding's sort objects and coercions in Python: the
    same terms with the same ids (z3's answers depend on them). Every value outside code
    returns is one (HTTPConnection's raise guards: 1.2 K, a tenth of reading them)."""
    ctx = z3.main_ctx()
    ref = ctx.ref()
    bools, ints = C.Z3_mk_bool_sort(ref), C.Z3_mk_int_sort(ref)  # z3's own sorts: never freed

    def const(suffix: str, sort: z3.SortRef) -> z3.ExprRef:
        return z3.ExprRef(C.Z3_mk_const(ref, C.Z3_mk_string_symbol(ref, f"{name}.{suffix}"), sort), ctx)

    def numeral(value: int) -> z3.ExprRef:
        return z3.ExprRef(C.Z3_mk_numeral(ref, str(value), ints), ctx)

    n, t, i = const("none", bools), const("truth", bools), const("id", ints)
    none_id = numeral(NONE_ID)
    is_none_id = z3.ExprRef(C.Z3_mk_eq(ref, i.as_ast(), none_id.as_ast()), ctx)
    other = numeral(NONE_ID - 1)
    inner = z3.ExprRef(C.Z3_mk_ite(ref, is_none_id.as_ast(), other.as_ast(), i.as_ast()), ctx)
    none_again = numeral(NONE_ID)
    identity = z3.ExprRef(C.Z3_mk_ite(ref, n.as_ast(), none_again.as_ast(), inner.as_ast()), ctx)
    not_none = z3.ExprRef(C.Z3_mk_not(ref, n.as_ast()), ctx)
    truthy = z3.ExprRef(C.Z3_mk_and(ref, 2, (z3.Ast * 2)(not_none.as_ast(), t.as_ast())), ctx)
    made = C.Z3_mk_app(ref, SORT.obj.ast, 3, (z3.Ast * 3)(identity.as_ast(), n.as_ast(), truthy.as_ast()))
    return _Z3PY._to_expr_ref(made, ctx)


def fresh_object(name: str, truthy: z3.BoolRef) -> z3.ExprRef:
    """A new object (not None) of unknown identity: `[]` stored where a value is untyped."""
    i = z3.Int(f"{name}.id")
    return make(F.ite(i == NONE_ID, NONE_ID - 1, i), z3.BoolVal(False), truthy)


def none_term() -> z3.ExprRef:
    return make(z3.IntVal(NONE_ID), z3.BoolVal(True), z3.BoolVal(False))


def of_term(term: z3.ExprRef, truthy: z3.BoolRef) -> z3.ExprRef:
    """A typed value seen as an opaque object: its identity is a function of the value."""
    ident = z3.Function(f"opaque!id!{term.sort()}", term.sort(), z3.IntSort())
    return make(F.ite(ident(term) == NONE_ID, NONE_ID - 1, ident(term)), z3.BoolVal(False), truthy)


def as_term(z: z3.ExprRef, sort: z3.SortRef) -> z3.ExprRef:
    """The typed value an opaque object reads as where a `sort` is expected."""
    return z3.Function(f"opaque!as!{sort}", SORT, sort)(z)


def is_opaque(t: TypeRef) -> bool:
    return t.kind == "opaque"


__all__ = ["OPAQUE", "SORT", "as_term", "is_none", "is_opaque", "make", "none_term", "of_term", "oid",
           "truth", "well_formed"]

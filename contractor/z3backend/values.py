"""Python values as z3 terms, with Python's semantics for the operations the backend supports.

A `Val` pairs a contractor TypeRef with its z3 term(s). Ints are unbounded z3 Ints,
floats are IEEE doubles (round to nearest even, as CPython), strings are z3 Strings,
Enum members are Ints indexing the member list, lists of scalars are z3 sequences, and
an Optional carries an `is None` flag beside its value. Operations that Python would
raise on (division by zero, a None operand) report their failure condition to the
caller instead of raising, so the executor can turn it into an exception path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import BOOL, FLOAT, INT, NONE, STR, TypeKind, TypeRef
from contractor.z3backend import fastterms as F
from contractor.z3backend import mappings as M
from contractor.z3backend import opaque as O
from contractor.z3backend import tuples as T
from contractor.z3backend.z3util import FLOAT as FLOAT_SORT
from contractor.z3backend.z3util import RNE

SCALARS = ("bool", "int", "float", "str", "enum")


@dataclass(frozen=True)
class Val:
    """A typed symbolic value: its type and its z3 term."""

    type: TypeRef
    z: Any  # z3 term; None for the None constant; an object id (int) for "class"
    is_none: Any = None  # z3 BoolRef, for Optional values only

    @property
    def kind(self) -> TypeKind:
        return self.type.kind


NONE_VAL = Val(NONE, None)


def sort_of(t: TypeRef) -> z3.SortRef:
    if t.kind == "opaque":
        return O.SORT
    if t.kind == "bool":
        return z3.BoolSort()
    if t.kind in ("int", "enum"):
        return z3.IntSort()
    if t.kind == "float":
        return FLOAT_SORT
    if t.kind == "str":
        return z3.StringSort()
    if t.kind == "list" and t.args and (t.args[0].kind in SCALARS or t.args[0].kind == "tuple"):
        return z3.SeqSort(sort_of(t.args[0]))
    if t.kind == "tuple":
        return T.tuple_sort(t, sort_of)
    if t.kind == "set" and len(t.args) == 1 and _key_type(t.args[0]):
        return M.set_sort(t, sort_of)
    if t.kind == "dict" and len(t.args) == 2 and _key_type(t.args[0]) \
            and (t.args[1].kind in SCALARS or t.args[1].kind == "tuple"):
        return M.dict_sort(t, sort_of)
    raise UnsupportedConstruct(f"values of type {t}")


def _key_type(t: TypeRef) -> bool:
    """Set elements and dict keys z3 compares as Python does (floats are not: -0.0, NaN)."""
    return (t.kind in SCALARS or t.kind == "tuple") and "float" not in str(t)


def fresh(t: TypeRef, name: str) -> Val:
    """An unconstrained value of type t, made of constants named after `name`."""
    if t.kind == "optional":
        inner = t.args[0]
        if inner.kind == "optional" or inner.kind == "none":
            return fresh(inner, name)
        v = fresh(inner, name)
        return Val(t, v.z, z3.Bool(f"{name}.is_none"))
    if t.kind == "none":
        return NONE_VAL
    return Val(t, z3.Const(name, sort_of(t)))


def well_formed(v: Val, distinct: bool = True, asserted: bool = False) -> z3.BoolRef:
    """Constraints every value of its type meets (an Enum index is in range; a set's
    elements and a dict's keys are distinct, unless `distinct` is False: values built by the
    translated operations are, and the quantifier is costly). `asserted`: the result is
    asserted as it is, never negated or quantified (a cheaper distinctness encoding)."""
    if v.kind == "opaque":
        return O.well_formed(v.z)
    if v.kind == "enum":
        return F.and_(v.z >= 0, v.z < len(v.type.members))
    if v.kind == "optional" and v.type.args[0].kind == "enum":
        return F.or_(v.is_none, F.and_(v.z >= 0, v.z < len(v.type.args[0].members)))
    if v.kind == "tuple":
        return F.and_(*[well_formed(x, distinct, asserted) for x in tuple_items(v)])
    if v.kind == "set" and v.z is not None and distinct:
        return M.distinct_asserted(v.z) if asserted else M.distinct(v.z)
    if v.kind == "dict" and v.z is not None and distinct:
        return M.distinct_asserted(M.keys(v.z)) if asserted else M.distinct(M.keys(v.z))
    return z3.BoolVal(True)


def seq_of(v: Val) -> z3.SeqRef:
    """The elements of a set, the keys of a dict."""
    return M.keys(v.z) if v.kind == "dict" else v.z


def tuple_items(v: Val) -> list[Val]:
    """The items of a tuple value, one Val per position."""
    sort = sort_of(v.type)
    return [Val(a, T.item(sort, v.z, i)) for i, a in enumerate(v.type.args)]


def make_tuple(items: list[Val]) -> Val:
    for x in items:
        if x.kind not in SCALARS and x.kind not in ("tuple", "list", "opaque"):
            raise UnsupportedConstruct(f"a tuple holding a {x.type}")
    t = TypeRef(TypeKind.TUPLE, tuple(x.type for x in items))
    return Val(t, T.make(sort_of(t), [x.z for x in items]))


def const(value: Any) -> Val:
    if value is None:
        return NONE_VAL
    if isinstance(value, bool):
        return Val(BOOL, z3.BoolVal(value))
    if isinstance(value, int):
        return Val(INT, z3.IntVal(value))
    if isinstance(value, float):
        return Val(FLOAT, z3.FPVal(value, FLOAT_SORT))
    if isinstance(value, str):
        return Val(STR, z3.StringVal(value))
    if isinstance(value, tuple):
        return make_tuple([const(x) for x in value])
    raise UnsupportedConstruct(f"constant {value!r}")


# -- conversions ---------------------------------------------------------------------

def to_int(v: Val) -> z3.ArithRef:
    if v.kind == "int":
        return v.z
    if v.kind == "bool":
        return F.ite(v.z, z3.IntVal(1), z3.IntVal(0))
    raise UnsupportedConstruct(f"{v.type} used as an int")


def to_float(v: Val) -> z3.FPRef:
    if v.kind == "float":
        return v.z
    return z3.fpToFP(RNE, z3.ToReal(to_int(v)), FLOAT_SORT)


def truthy(v: Val) -> z3.BoolRef:
    """Python's bool(v)."""
    k = v.kind
    if k == "opaque":
        return O.truth(v.z)
    if k == "bool":
        return v.z
    if k == "int":
        return v.z != 0
    if k == "float":
        return F.not_(z3.fpIsZero(v.z))
    if k in ("str", "list"):
        return z3.BoolVal(False) if v.z is None else z3.Length(v.z) > 0  # None: `[]` not yet typed
    if k == "none":
        return z3.BoolVal(False)
    if k == "enum" and v.type.by_value:  # IntEnum's OFF = 0 is false: its value decides
        raise UnsupportedConstruct(f"truth value of {v.type} (an enum whose members act as their values)")
    if k in ("enum", "class"):
        return z3.BoolVal(True)
    if k == "tuple":
        return z3.BoolVal(len(v.type.args) > 0)
    if k in ("set", "dict"):
        return z3.BoolVal(False) if v.z is None else z3.Length(seq_of(v)) > 0
    if k == "optional":
        return F.and_(F.not_(v.is_none), truthy(Val(v.type.args[0], v.z)))
    raise UnsupportedConstruct(f"truth value of {v.type}")


def unwrap(v: Val) -> tuple[Val, z3.BoolRef]:
    """The value inside an Optional, and the condition under which it is None (a TypeError)."""
    if v.kind == "optional":
        return Val(v.type.args[0], v.z), v.is_none
    if v.kind == "none":
        raise UnsupportedConstruct("an operation on None")
    return v, z3.BoolVal(False)


def coerce(v: Val, t: TypeRef) -> Val:
    """v stored into a place declared with type t (bool->int->float widen; None into Optional;
    anything into an opaque place, an opaque value into a typed one: see opaque.py)."""
    if v.type == t:
        return v
    if t.kind == "opaque":
        return Val(t, to_opaque(v))
    if v.kind == "opaque" and t.kind != "any":
        inner = t.args[0] if t.kind == "optional" else t
        term = O.as_term(v.z, sort_of(inner))
        return Val(t, term, O.is_none(v.z)) if t.kind == "optional" else Val(t, term)
    if t.kind == "optional":
        inner = t.args[0]
        if v.kind == "none":
            return Val(t, fresh(inner, "_unused_").z if inner.kind != "none" else None, z3.BoolVal(True))
        if v.kind == "optional":
            c = coerce(Val(v.type.args[0], v.z), inner)
            return Val(t, c.z, v.is_none)
        return Val(t, coerce(v, inner).z, z3.BoolVal(False))
    if t.kind == "int" and v.kind == "bool":
        return Val(INT, to_int(v))
    if t.kind == "float" and v.kind in ("bool", "int"):
        return Val(FLOAT, to_float(v))
    if t.kind == "enum" and v.kind == "enum" and v.type.name == t.name:
        return v
    if t.kind == "list" and v.kind == "list" and v.type.args == () :
        return Val(t, z3.Empty(sort_of(t)))
    if t.kind == "list" and v.kind == "tuple" and t.args:
        # a tuple where `tuple[T, ...]` or `Sequence[T]` is expected (read as a list of T,
        # contracts/types.py): its items in order (pytest's `_assert_state("start", ("initialized",))`)
        return Val(t, seq_of_items(t, tuple_items(v) if v.type.args else []))
    if t.kind == v.kind == "set" and v.type.args == ():
        return Val(t, z3.Empty(sort_of(t)))
    if t.kind == v.kind == "dict" and v.type.args == ():
        return Val(t, M.empty_dict(sort_of(t)))
    if t.kind == "tuple" and v.kind == "tuple" and len(t.args) == len(v.type.args):
        items = [coerce(x, a) for x, a in zip(tuple_items(v), t.args)]
        return Val(t, T.make(sort_of(t), [x.z for x in items]))
    if t.kind == "any":
        return v
    raise UnsupportedConstruct(f"{a_value_of(v.type)} where {t} is expected")


def seq_of_items(t: TypeRef, items: list[Val]) -> z3.SeqRef:
    """The z3 sequence of a list type `t` holding `items` in order, each coerced to its item type."""
    if not items:
        return z3.Empty(sort_of(t))
    units = [z3.Unit(coerce(x, t.args[0]).z) for x in items]
    return z3.Concat(*units) if len(units) > 1 else units[0]


def a_value_of(t: TypeRef) -> str:
    """How messages name a value of type t: "a list[int] value"; for a type z3 does not
    model (an unreadable field's type, a call's result of different types on different
    paths), which has no readable name, "a value of a type the z3 backend does not model"."""
    return "a value of a type the z3 backend does not model" if t.kind == "any" else f"a {t} value"


def to_opaque(v: Val) -> z3.ExprRef:
    """A typed value as an opaque object term (its None-ness and truth kept)."""
    if v.kind == "opaque":
        return v.z
    if v.kind == "none":
        return O.none_term()
    if v.kind == "optional":
        inner = Val(v.type.args[0], v.z)
        return F.ite(v.is_none, O.none_term(), O.of_term(inner.z, truthy(inner)))
    if v.kind in ("class", "any", "undefined") or not isinstance(v.z, z3.ExprRef):
        raise UnsupportedConstruct(f"{a_value_of(v.type)} where an untyped value is expected")
    return O.of_term(v.z, truthy(v))


def join_type(a: TypeRef, b: TypeRef) -> TypeRef:
    """The type both branches' values are stored as, for an if-then-else."""
    if a == b:
        return a
    if "opaque" in (a.kind, b.kind) and "class" not in (a.kind, b.kind):
        return TypeRef(TypeKind.OPAQUE)
    if a.kind == "none":
        return b if b.kind == "optional" else TypeRef(TypeKind.OPTIONAL, (b,))
    if b.kind == "none":
        return join_type(b, a)
    if a.kind == "optional" or b.kind == "optional":
        ia = a.args[0] if a.kind == "optional" else a
        ib = b.args[0] if b.kind == "optional" else b
        return TypeRef(TypeKind.OPTIONAL, (join_type(ia, ib),))
    kinds = {a.kind, b.kind}
    if kinds <= {"bool", "int"}:
        return INT
    if kinds <= {"bool", "int", "float"}:
        return FLOAT
    if a.kind == b.kind and a.kind in ("list", "set", "dict"):
        return a if a.args else b
    if a.kind == "tuple" and b.kind == "tuple" and len(a.args) == len(b.args):
        return TypeRef(TypeKind.TUPLE, tuple(join_type(x, y) for x, y in zip(a.args, b.args)))
    if not kinds & {"class", "any", "undefined"}:
        return TypeRef(TypeKind.OPAQUE)  # of different types on different paths: untyped from here on
    raise UnsupportedConstruct(f"a value that is {a} on one path and {b} on another")


def _same_object(a: Val, b: Val) -> bool:
    """Whether two values, one of them a reference to an object of the analysed class (its
    id), are the same reference. The other may be any value (`return self` on one path,
    an untyped value on another): never the same then, and not compared with `==`, which
    z3 5.4 refuses between an id and a term of another sort."""
    if a.kind != b.kind:
        return False
    x, y = a.z, b.z
    if isinstance(x, z3.ExprRef) or isinstance(y, z3.ExprRef):
        return isinstance(x, z3.ExprRef) and isinstance(y, z3.ExprRef) and x.eq(y)
    return bool(x == y)


def ite(cond: z3.BoolRef, a: Val, b: Val) -> Val:
    """`a if cond else b`."""
    if a is b:
        return a
    if a.kind == "class" or b.kind == "class":
        if _same_object(a, b):
            return a
        raise UnsupportedConstruct("a reference to different objects on different paths")
    t = join_type(a.type, b.type)
    if t.kind == "none":
        return NONE_VAL
    a, b = coerce(a, t), coerce(b, t)
    if t.kind == "optional":
        return Val(t, F.ite(cond, a.z, b.z), F.ite(cond, a.is_none, b.is_none))
    if t.kind == "opaque":  # kept as obj(...) (one constructor: the same value), so reading its
        # identity, None-ness or truth never goes back through every merge it came from
        return Val(t, O.make(*(F.ite(cond, read(a.z), read(b.z)) for read in (O.oid, O.is_none, O.truth))))
    return Val(t, F.ite(cond, a.z, b.z))

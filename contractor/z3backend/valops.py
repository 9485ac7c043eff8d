"""Python's operators on z3 values: arithmetic (ints unbounded, floats IEEE with round to
nearest even), `==`/`is`, ordering and `in`, with Python's promotions. An operation Python
would raise on reports its failure condition to the caller instead of raising."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import FLOAT, INT, STR, RunsAs, TypeRef
from contractor.z3backend import fastterms as F
from contractor.z3backend import mappings as M
from contractor.z3backend import opaque as O
from contractor.z3backend.values import Val, coerce, seq_of, to_float, to_int, to_opaque, tuple_items
from contractor.z3backend.z3util import FLOAT as FLOAT_SORT
from contractor.z3backend.z3util import RNE


def numeric_pair(a: Val, b: Val) -> tuple[str, Any, Any]:
    """Both operands as ints, or both as floats, as Python's arithmetic would promote them."""
    kinds = {a.kind, b.kind}
    if kinds <= {"bool", "int"}:
        return "int", to_int(a), to_int(b)
    if kinds <= {"bool", "int", "float"}:
        return "float", to_float(a), to_float(b)
    raise UnsupportedConstruct(f"arithmetic on {a.type} and {b.type}")


def floordiv_int(x: z3.ArithRef, y: z3.ArithRef) -> z3.ArithRef:
    # z3's div rounds so that the remainder is non-negative; Python's // floors.
    return F.ite(y > 0, x / y, (-x) / (-y))


def binop(op: str, a: Val, b: Val) -> tuple[Val, z3.BoolRef]:
    """a <op> b, and the condition under which Python raises instead (e.g. ZeroDivisionError)."""
    no = z3.BoolVal(False)
    if op == "+" and a.kind == b.kind == "str":
        return Val(STR, z3.Concat(a.z, b.z)), no
    if op == "+" and a.kind == b.kind == "list":
        t = a.type if a.type.args else b.type
        return Val(t, z3.Concat(coerce(a, t).z, coerce(b, t).z)), no
    kind, x, y = numeric_pair(a, b)
    if kind == "int":
        if op == "+":
            return Val(INT, x + y), no
        if op == "-":
            return Val(INT, x - y), no
        if op == "*":
            return Val(INT, x * y), no
        if op == "//":
            return Val(INT, floordiv_int(x, y)), y == 0
        if op == "%":
            return Val(INT, x - y * floordiv_int(x, y)), y == 0
        if op == "/":
            q = z3.fpRealToFP(RNE, z3.ToReal(x) / z3.ToReal(y), FLOAT_SORT)
            return Val(FLOAT, q), y == 0
        raise UnsupportedConstruct(f"operator {op} on ints")
    if op == "+":
        return Val(FLOAT, z3.fpAdd(RNE, x, y)), no
    if op == "-":
        return Val(FLOAT, z3.fpSub(RNE, x, y)), no
    if op == "*":
        return Val(FLOAT, z3.fpMul(RNE, x, y)), no
    if op == "/":
        return Val(FLOAT, z3.fpDiv(RNE, x, y)), z3.fpIsZero(y)
    raise UnsupportedConstruct(f"operator {op} on floats")


def negate(v: Val) -> Val:
    if v.kind == "float":
        return Val(FLOAT, z3.fpNeg(v.z))
    return Val(INT, -to_int(v))


def absolute(v: Val) -> Val:
    if v.kind == "float":
        return Val(FLOAT, z3.fpAbs(v.z))
    x = to_int(v)
    return Val(INT, F.ite(x < 0, -x, x))


def _same_runtime_class(a: TypeRef, b: TypeRef) -> bool:
    """Whether two values read as lists are surely both lists or both tuples at run time."""
    return a.runs_as is b.runs_as is not RunsAs.EITHER


def _runtime_name(t: TypeRef) -> str:
    return {RunsAs.LIST: "a list", RunsAs.TUPLE: "a tuple read as a list",
            RunsAs.EITHER: "a sequence read as a list"}[t.runs_as]


def equal(a: Val, b: Val) -> z3.BoolRef:
    """a == b (and `is` for None, bools and Enum members); for an opaque value, `is`."""
    if a.kind == "opaque" or b.kind == "opaque":
        return O.oid(to_opaque(a)) == O.oid(to_opaque(b))
    if a.kind == "none" or b.kind == "none":
        other = b if a.kind == "none" else a
        if other.kind == "none":
            return z3.BoolVal(True)
        return other.is_none if other.kind == "optional" else z3.BoolVal(False)
    if a.kind == "optional" or b.kind == "optional":
        ua, na = (Val(a.type.args[0], a.z), a.is_none) if a.kind == "optional" else (a, z3.BoolVal(False))
        ub, nb = (Val(b.type.args[0], b.z), b.is_none) if b.kind == "optional" else (b, z3.BoolVal(False))
        return F.ite(F.or_(na, nb), F.and_(na, nb), equal(ua, ub))
    if a.kind == b.kind == "list" and not _same_runtime_class(a.type, b.type):
        # `tuple[T, ...]` or Sequence[T] (read as lists) against a list: `() == []` is False
        raise UnsupportedConstruct(f"comparison of {_runtime_name(a.type)} and {_runtime_name(b.type)}")
    if a.kind == b.kind == "list" and (a.z is None or b.z is None):  # [] of unknown item type
        other = b if a.z is None else a
        return z3.BoolVal(True) if other.z is None else z3.Length(other.z) == 0
    if a.kind == b.kind and a.kind in ("set", "dict"):
        if a.z is None or b.z is None:  # an empty literal of unknown item type
            other = b if a.z is None else a
            return z3.BoolVal(True) if other.z is None else z3.Length(seq_of(other)) == 0
        if a.type != b.type:
            raise UnsupportedConstruct(f"comparison of {a.type} and {b.type}")
        return M.same_elements(a.z, b.z) if a.kind == "set" else M.same_dict(a.z, b.z)
    if a.kind == b.kind and a.kind in ("str", "bool", "list"):
        return a.z == b.z
    if a.kind == b.kind == "tuple":
        if len(a.type.args) != len(b.type.args):
            return z3.BoolVal(False)
        return F.and_(*[equal(x, y) for x, y in zip(tuple_items(a), tuple_items(b))])
    if a.kind == "enum" or b.kind == "enum":
        if a.kind == b.kind and a.type.name == b.type.name:
            return a.z == b.z
        by_value = next((v.type for v in (a, b) if v.kind == "enum" and v.type.by_value), None)
        if by_value is not None:  # IntEnum.ON == 1: its value decides, which z3 does not model
            with_type = b.type if a.type is by_value else a.type
            raise UnsupportedConstruct(f"comparison of {by_value} (an enum whose members act as their values) "
                                       f"and {with_type}")
        return z3.BoolVal(False)
    if {a.kind, b.kind} <= {"bool", "int", "float"}:
        kind, x, y = numeric_pair(a, b)
        return x == y if kind == "int" else z3.fpEQ(x, y)
    if {a.kind, b.kind} == {"list", "tuple"}:
        listed = a if a.kind == "list" else b
        if listed.type.runs_as is RunsAs.LIST:  # a list never equals a tuple
            return z3.BoolVal(False)
        # `tuple[T, ...]` and Sequence[T] are read as lists (contracts/types.py): the value may
        # be a tuple at run time, equal to a tuple of the same items
        raise UnsupportedConstruct("comparison of a sequence read as a list with a tuple")
    if a.kind != b.kind:
        return z3.BoolVal(False)
    raise UnsupportedConstruct(f"comparison of {a.type} values")


def order(op: str, a: Val, b: Val) -> z3.BoolRef:
    """a < b, a <= b, a > b, a >= b."""
    if a.kind == b.kind == "str":
        x, y = a.z, b.z  # z3 orders strings by code points, as Python does
        return {"<": lambda: x < y, "<=": lambda: x <= y, ">": lambda: y < x, ">=": lambda: y <= x}[op]()
    kind, x, y = numeric_pair(a, b)
    if kind == "int":
        table: dict[str, Callable[[], z3.BoolRef]] = {"<": lambda: x < y, "<=": lambda: x <= y,
                                      ">": lambda: x > y, ">=": lambda: x >= y}
    else:
        table = {"<": lambda: z3.fpLT(x, y), "<=": lambda: z3.fpLEQ(x, y),
                 ">": lambda: z3.fpGT(x, y), ">=": lambda: z3.fpGEQ(x, y)}
    return table[op]()


def _may_equal_across(a: TypeRef, b: TypeRef) -> bool:
    """Whether values of two types coerce() does not convert may still be equal in Python:
    `1 in {True}` (bool and int, either way), `Mode.ON in {1}` (an enum equal to its values)."""
    if a.kind == "enum" and b.kind == "enum" and a.name == b.name:
        return False
    return ({a.kind, b.kind} <= {"bool", "int", "float"}
            or any(t.kind == "enum" and t.by_value for t in (a, b)))


def contains(item: Val, container: Val) -> z3.BoolRef:
    """item in container (str in str, scalar in list, anything in a tuple)."""
    if container.kind == "str" and item.kind == "str":
        return z3.Contains(container.z, item.z)
    if container.kind == "tuple":
        return F.or_(*[equal(item, x) for x in tuple_items(container)])
    if container.kind in ("set", "dict"):
        if container.z is None:
            return z3.BoolVal(False)
        elem = container.type.args[0]
        if item.kind == "float" and elem.kind != "float":
            raise UnsupportedConstruct(f"a float looked up in a {container.type}")
        try:
            x = coerce(item, elem)
        except UnsupportedConstruct:  # another type: never equal to an element ...
            if _may_equal_across(item.type, elem):  # ... unless Python compares them by value
                raise UnsupportedConstruct(f"`in` on a {container.type} with a key of type {item.type}") from None
            return z3.BoolVal(False)
        return M.has(seq_of(container), x.z)
    if container.kind == "list":
        elem = container.type.args[0] if container.type.args else item.type
        if "float" in str(elem) or item.kind == "float":
            raise UnsupportedConstruct("`in` on a list of floats")  # == is not IEEE in Seq
        return z3.Contains(container.z, z3.Unit(coerce(item, elem).z))
    raise UnsupportedConstruct(f"`in` on {container.type}")

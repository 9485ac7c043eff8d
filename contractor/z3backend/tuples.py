"""Tuples as z3 values: one z3 datatype per tuple type, `mk(f0, f1, ...)`, so a tuple is a
single term (a field, a constant, an element of a list) and its items are accessors.

`tuple[int, ...]` is a sequence and is handled as a list (contracts/types.py); the types
here are fixed-length, with a type per position.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import TypeRef


@functools.cache
def tuple_sort(t: TypeRef, sort_of: Callable[[TypeRef], z3.SortRef]) -> z3.DatatypeSortRef:
    """The datatype of tuple type t (one per type: z3 identifies datatypes by name)."""
    d = z3.Datatype(str(t) if t.args else "tuple[]")
    d.declare("mk", *[(f"{t}.{i}", sort_of(a)) for i, a in enumerate(t.args)])
    return d.create()


def make(sort: z3.DatatypeSortRef, items: list[z3.ExprRef]) -> z3.ExprRef:
    return sort.constructor(0)(*items)


def item(sort: z3.DatatypeSortRef, z: z3.ExprRef, i: int) -> z3.ExprRef:
    """The i-th item (0 <= i < len), simplified where `z` is a constructor application."""
    return z3.simplify(sort.accessor(0, i)(z))


def normalise_index(i: int, n: int) -> int | None:
    """Python's index into a tuple of length n (negative from the end), None if out of range."""
    j = i + n if i < 0 else i
    return j if 0 <= j < n else None


def check_homogeneous(t: TypeRef) -> TypeRef:
    """The one item type of a tuple indexed by a non-constant index."""
    if not t.args or any(a != t.args[0] for a in t.args):
        raise UnsupportedConstruct(f"a non-constant index into a {t}")
    return t.args[0]

"""Sets and dicts as z3 terms that keep `len` exact.

A set is a sequence of distinct elements; a dict is a datatype `mk(keys, vals)`: its keys a
sequence of distinct keys in insertion order (as Python's dicts), its values an array from
keys to values, read only at present keys. `len` is the sequence's length, `in` is
containment, and adding, removing and lookups are sequence and array operations. That the
elements (keys) are distinct is a well-formedness constraint of every set (dict) that is not
built by these operations (fields and parameters): one quantifier over positions.

A set's sequence is in insertion order; CPython iterates a set in hash order, so a for loop
over a set reads its items in any order (loops.py) and its answers are may (a dict's order
is its insertion order, as here).
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Callable

import z3

from contractor.model import TypeRef
from contractor.z3backend import fastterms as F

SortOf = Callable[[TypeRef], z3.SortRef]


def set_sort(t: TypeRef, sort_of: SortOf) -> z3.SeqSortRef:
    return z3.SeqSort(sort_of(t.args[0]))


@functools.cache
def dict_sort(t: TypeRef, sort_of: SortOf) -> z3.DatatypeSortRef:
    d = z3.Datatype(str(t))
    k, v = sort_of(t.args[0]), sort_of(t.args[1])
    d.declare("mk", (f"{t}.keys", z3.SeqSort(k)), (f"{t}.vals", z3.ArraySort(k, v)))
    return d.create()


def keys(d: z3.DatatypeRef) -> z3.SeqRef:
    return d.sort().accessor(0, 0)(d)


def vals(d: z3.DatatypeRef) -> z3.ArrayRef:
    return d.sort().accessor(0, 1)(d)


def make(sort: z3.DatatypeSortRef, ks: z3.SeqRef, vs: z3.ArrayRef) -> z3.DatatypeRef:
    return sort.constructor(0)(ks, vs)


def empty_dict(sort: z3.DatatypeSortRef) -> z3.DatatypeRef:
    ks = sort.constructor(0).domain(0)
    vs = sort.constructor(0).domain(1)
    return make(sort, z3.Empty(ks), z3.Const(f"empty!{sort}", vs))  # values of no key: never read


def distinct(seq: z3.SeqRef) -> z3.BoolRef:
    """No element occurs twice (valid in any position of a formula)."""
    # each element's first occurrence is where it is: one bound variable, cheaper than i < j
    i = z3.Int("dist!i")
    return z3.ForAll([i], z3.Implies(F.and_(0 <= i, i < z3.Length(seq)), z3.IndexOf(seq, z3.Unit(seq[i]), 0) == i))


def distinct_asserted(seq: z3.SeqRef) -> z3.BoolRef:
    """No element occurs twice, for a constraint asserted as it is (not negated, not under a
    quantifier): some function maps each element back to its position. One bound variable and
    no `indexof`, which z3's sequence solver handles badly; the function is free, so the
    formula means "distinct" only where the solver may choose it."""
    i = z3.Int("dist!i")
    pos = z3.Function(f"pos!{zlib.crc32(seq.sexpr().encode())}", seq.sort().basis(), z3.IntSort())
    return z3.ForAll([i], z3.Implies(F.and_(0 <= i, i < z3.Length(seq)), pos(seq[i]) == i))


def has(seq: z3.SeqRef, x: z3.ExprRef) -> z3.BoolRef:
    return z3.Contains(seq, z3.Unit(x))


def add(seq: z3.SeqRef, x: z3.ExprRef) -> z3.SeqRef:
    """seq with x appended unless present."""
    return F.ite(has(seq, x), seq, z3.Concat(seq, z3.Unit(x)))


def remove(seq: z3.SeqRef, x: z3.ExprRef) -> z3.SeqRef:
    """seq without (its only occurrence of) x."""
    return F.ite(z3.IndexOf(seq, z3.Unit(x), 0) < 0, seq, cut(seq, x))


def cut(seq: z3.SeqRef, x: z3.ExprRef) -> z3.SeqRef:
    """seq without its first x, where x is in seq."""
    at = z3.IndexOf(seq, z3.Unit(x), 0)
    # the rest runs to the end (extract clamps): membership.py recognises this shape
    return z3.Concat(z3.Extract(seq, 0, at), z3.Extract(seq, at + 1, z3.Length(seq)))


def same_elements(a: z3.SeqRef, b: z3.SeqRef) -> z3.BoolRef:
    """Set equality of two sequences of distinct elements: same length, a's elements in b."""
    i = z3.Int("same!i")
    return F.and_(z3.Length(a) == z3.Length(b),
                  z3.ForAll([i], z3.Implies(F.and_(0 <= i, i < z3.Length(a)), has(b, a[i]))))


def same_dict(a: z3.DatatypeRef, b: z3.DatatypeRef) -> z3.BoolRef:
    ka, kb = keys(a), keys(b)
    i = z3.Int("samed!i")
    in_range = F.and_(0 <= i, i < z3.Length(ka))
    return F.and_(z3.Length(ka) == z3.Length(kb),
                  z3.ForAll([i], z3.Implies(in_range, F.and_(has(kb, ka[i]), vals(a)[ka[i]] == vals(b)[ka[i]]))))


def value_present(d: z3.DatatypeRef, v: z3.ExprRef) -> z3.BoolRef:
    """v in d.values()."""
    i = z3.Int("val!i")
    ks = keys(d)
    return z3.Exists([i], F.and_(0 <= i, i < z3.Length(ks), vals(d)[ks[i]] == v))

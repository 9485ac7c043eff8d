"""Python's str (and sequence) operations as z3 terms: slicing with clamping and negative
indices, find/index, str() of ints and bools, f-strings.

Pure functions of z3 terms; the executor (seqcalls.py) turns their failure conditions into
exceptions. Strings and lists share the slice rules, since both are z3 sequences.
"""

from __future__ import annotations

import z3

from contractor.errors import UnsupportedConstruct
from contractor.z3backend import fastterms as F


def _clamp(i: z3.ArithRef, n: z3.ArithRef) -> z3.ArithRef:
    """A slice bound as Python normalises it: negative counts from the end, then clamped to [0, n]."""
    j = F.ite(i < 0, i + n, i)
    return F.ite(j < 0, 0, F.ite(j > n, n, j))


def slice_of(s: z3.SeqRef, lower: z3.ArithRef | None, upper: z3.ArithRef | None) -> z3.SeqRef:
    """s[lower:upper] (step 1); None is an omitted bound."""
    n = z3.Length(s)
    start = _clamp(lower, n) if lower is not None else z3.IntVal(0)
    stop = _clamp(upper, n) if upper is not None else n
    return z3.Extract(s, start, F.ite(stop > start, stop - start, 0))


def without_slice(s: z3.SeqRef, lower: z3.ArithRef | None, upper: z3.ArithRef | None) -> z3.SeqRef:
    """s after `del s[lower:upper]` (step 1): the items before the clamped start and from
    the clamped stop on (an empty slice, stop <= start, deletes nothing)."""
    n = z3.Length(s)
    start = _clamp(lower, n) if lower is not None else z3.IntVal(0)
    stop = _clamp(upper, n) if upper is not None else n
    rest = F.ite(stop > start, stop, start)
    return z3.Concat(z3.Extract(s, 0, start), z3.Extract(s, rest, n - rest))


def find(s: z3.SeqRef, sub: z3.SeqRef, start: z3.ArithRef | None = None,
         end: z3.ArithRef | None = None) -> z3.ArithRef:
    """s.find(sub[, start[, end]]), as CPython: start is not clamped to len(s), so
    "abc".find("", 4) == -1 while "abc".find("", 3) == 3."""
    n = z3.Length(s)
    lo = z3.IntVal(0) if start is None else F.ite(start < 0, F.ite(start + n < 0, 0, start + n), start)
    hi = n if end is None else _clamp(end, n)
    hit = z3.IndexOf(z3.Extract(s, 0, hi), sub, lo)
    return F.ite(hi - lo < z3.Length(sub), -1, hit)


def str_of_int(x: z3.ArithRef) -> z3.SeqRef:
    """str(x) for an int (z3's IntToStr covers only non-negative ints)."""
    return F.ite(x >= 0, z3.IntToStr(x), z3.Concat(z3.StringVal("-"), z3.IntToStr(-x)))


def str_of(kind: str, z: z3.ExprRef) -> z3.SeqRef:
    """str(v) for the kinds whose text z3 can build: str, int, bool."""
    if kind == "str":
        return z
    if kind == "int":
        return str_of_int(z)
    if kind == "bool":
        return F.ite(z, z3.StringVal("True"), z3.StringVal("False"))
    raise UnsupportedConstruct(f"str() of a {kind}")


def count_steps(s: z3.SeqRef, sub: z3.SeqRef, bound: int) -> tuple[z3.ArithRef, z3.BoolRef]:
    """s.count(sub) for a non-empty sub, by unrolling `bound` searches: the count, and the
    condition under which there are more than `bound` occurrences (then the count is not
    known). (z3's recursive functions would need no bound, but z3 5.4 can hang on them.)"""
    total: z3.ArithRef = z3.IntVal(0)
    pos: z3.ArithRef = z3.IntVal(0)
    for _ in range(bound):
        hit = z3.IndexOf(s, sub, pos)
        total = F.ite(hit >= 0, total + 1, total)
        pos = F.ite(hit >= 0, hit + z3.Length(sub), z3.Length(s) + 1)
    more = F.and_(pos <= z3.Length(s), z3.IndexOf(s, sub, pos) >= 0)
    return total, more

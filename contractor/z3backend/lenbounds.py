"""Bounds on the length of a set or dict field that the class invariant states (`len(self.d) <= 2`).

A quantifier over the positions of a sequence (`v in d.values()`, `d == {...}`, a loop's
rest, `any(...)` over a set) is what z3 decides slowly: its sequence solver and its
quantifier instantiation meet. Where the sequence is a field whose length the invariant
bounds by a small N, membership.py writes `exists i < len(s). p(s[i])` as

    (p(s[0]) or ... or p(s[N-1]) over the positions below len(s)) if len(s) <= N else (the quantifier)

which is the same formula for every s (the quantifier stays where the bound does not
hold), and, where the invariant is asserted, one without a quantifier to instantiate: a
query of the dict_operations case that took z3 25 s takes 0.1 s so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import z3

MAX_UNROLLED = 8  # longer bounds: the disjunction's size costs more than the quantifier


@dataclass(frozen=True)
class LenBounds:
    """Sequences (a set field's, a dict field's keys) with the largest length the invariant allows."""

    bounds: tuple[tuple[z3.SeqRef, int], ...] = ()

    def of(self, seq: z3.ExprRef) -> int | None:
        for s, n in self.bounds:
            if s.eq(seq):
                return n
        return None

    @staticmethod
    def read(invariant: z3.BoolRef, seqs: list[z3.SeqRef]) -> LenBounds:
        """The bounds `invariant` states as top-level conjuncts `len(s) <= c` (or `<`, in any
        orientation) over the sequences `seqs`."""
        from contractor.z3backend.miniscope import conjuncts

        found: dict[int, tuple[z3.SeqRef, int]] = {}
        for c in conjuncts(invariant):
            hit = _upper_bound(c)
            if hit is None:
                continue
            seq, n = hit
            if not any(seq.eq(s) for s in seqs) or not 0 <= n <= MAX_UNROLLED:
                continue
            old = found.get(seq.get_id())
            if old is None or n < old[1]:
                found[seq.get_id()] = (seq, n)
        return LenBounds(tuple(found.values()))


def _upper_bound(c: z3.BoolRef) -> tuple[z3.SeqRef, int] | None:
    """(s, n) if c says len(s) <= n (n an integer constant)."""
    negated = z3.is_not(c)
    atom = c.arg(0) if negated else c
    if not (z3.is_le(atom) or z3.is_ge(atom) or z3.is_lt(atom) or z3.is_gt(atom)):
        return None
    a, b = atom.children()
    # as `len <op> n`: flip `n <op> len`
    if z3.is_app_of(b, z3.Z3_OP_SEQ_LENGTH) and z3.is_int_value(a):
        a, b = b, a
        op = {z3.Z3_OP_LE: z3.Z3_OP_GE, z3.Z3_OP_GE: z3.Z3_OP_LE,
              z3.Z3_OP_LT: z3.Z3_OP_GT, z3.Z3_OP_GT: z3.Z3_OP_LT}[atom.decl().kind()]
    else:
        op = atom.decl().kind()
    if not (z3.is_app_of(a, z3.Z3_OP_SEQ_LENGTH) and z3.is_int_value(b)):
        return None
    n = b.as_long()
    if negated:  # not (len >= n): len < n
        op = {z3.Z3_OP_LE: z3.Z3_OP_GT, z3.Z3_OP_GE: z3.Z3_OP_LT,
              z3.Z3_OP_LT: z3.Z3_OP_GE, z3.Z3_OP_GT: z3.Z3_OP_LE}[op]
    if op == z3.Z3_OP_LE:
        return a.arg(0), n
    if op == z3.Z3_OP_LT:
        return a.arg(0), n - 1
    return None


def unrolled(seq: z3.SeqRef, n: int, at: Callable[[z3.ExprRef], z3.BoolRef], forall: bool,
             quantified: z3.BoolRef) -> z3.BoolRef:
    """`quantified` (forall/exists over seq's positions, `at(x)` its formula for the item x)
    as its first n positions where len(seq) <= n, itself elsewhere."""
    length = z3.Length(seq)
    if forall:
        body = z3.And(*[z3.Implies(j < length, at(seq[j])) for j in range(n)], z3.BoolVal(True))
    else:
        body = z3.Or(*[z3.And(j < length, at(seq[j])) for j in range(n)], z3.BoolVal(False))
    return z3.If(length <= n, body, quantified)

"""Sequences abstracted away for the readable-invariant search: where a formula reads each
sequence only as `len(s)` and `c in s` for constants c, it is equisatisfiable with the same
formula over an int n_s and booleans b_{s,c} with `n_s >= number of true b_{s,c}` (the c are
distinct values, so a sequence holding them has at least that many items; and any such
count is met by some sequence, the item types being infinite). The literal search then asks
only linear arithmetic, which z3 answers at once, instead of its sequence solver (seconds
per state on a set of str). The literals found are mapped back before printing.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

ABSTRACTED = (z3.Z3_OP_SEQ_LENGTH, z3.Z3_OP_SEQ_CONTAINS)


@dataclass
class SeqAbstraction:
    """The substitution to abstract variables, its inverse, and the counting constraints."""

    forward: list[tuple[z3.ExprRef, z3.ExprRef]]
    back: list[tuple[z3.ExprRef, z3.ExprRef]]
    constraints: z3.BoolRef

    def apply(self, e: z3.BoolRef) -> z3.BoolRef:
        return z3.substitute(e, *self.forward) if self.forward else e

    def undo(self, e: z3.BoolRef) -> z3.BoolRef:
        return z3.substitute(e, *self.back) if self.back else e


def abstraction(formulas: list[z3.BoolRef]) -> SeqAbstraction | None:
    """The abstraction covering every sequence atom of `formulas`, or None when some sequence
    is read otherwise (an item, a slice, a concatenation, a quantifier) or holds a
    non-constant or Boolean needle."""
    lengths: dict[int, z3.ExprRef] = {}
    members: dict[int, z3.ExprRef] = {}
    seen: set[int] = set()
    todo = list(formulas)
    while todo:
        e = todo.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if z3.is_quantifier(e):
            return None
        if z3.is_app_of(e, z3.Z3_OP_SEQ_LENGTH) and _atomic_seq(e.arg(0)):
            lengths[e.arg(0).get_id()] = e.arg(0)
            continue
        if z3.is_app_of(e, z3.Z3_OP_SEQ_CONTAINS):
            s, unit = e.children()
            if not (_atomic_seq(s) and z3.is_app_of(unit, z3.Z3_OP_SEQ_UNIT) and _value(unit.arg(0))):
                return None
            members[e.get_id()] = e
            lengths[s.get_id()] = s
            continue
        if isinstance(e, z3.SeqRef) and not z3.is_string(e):
            return None  # a sequence read some other way
        if z3.is_app(e):
            todo.extend(e.children())
    if not lengths:
        return None
    forward, back, constraints = [], [], []
    count: dict[int, list[z3.BoolRef]] = {k: [] for k in lengths}
    for s in lengths.values():
        n = z3.FreshInt("len")
        forward.append((z3.Length(s), n))
        back.append((n, z3.Length(s)))
        constraints.append(n >= 0)
    for m in members.values():
        b = z3.FreshBool("in")
        forward.append((m, b))
        back.append((b, m))
        count[m.arg(0).get_id()].append(b)
    for k, s in lengths.items():
        if count[k]:
            n = next(v for t, v in forward if t.eq(z3.Length(s)))
            constraints.append(n >= z3.Sum(*[z3.If(b, 1, 0) for b in count[k]]))
    return SeqAbstraction(forward, back, z3.And(*constraints))


def _atomic_seq(s: z3.ExprRef) -> bool:
    """A field's sequence: a constant, or a dict's keys accessor applied to one."""
    if z3.is_const(s):
        return not z3.is_string(s)
    return bool(z3.is_app_of(s, z3.Z3_OP_DT_ACCESSOR) and z3.is_const(s.arg(0)))


def _value(x: z3.ExprRef) -> bool:
    return bool(z3.is_string_value(x) or z3.is_int_value(x))

"""An invariant followed within the unroll bound: exact there, unknown past it.

`inv: self.total == sum(self.values)` is unrolled up to --unroll items; past them its
translation is unknown (comprehensions.py marks those paths). Rather than making the whole
invariant an unknown predicate (every answer of the class then may), the condition becomes
`If(past, unknown, exact)`, where `past` is the region of the object's fields the unrolled
translation does not cover (`len(self.values) > 8`). The exploration (backend.py) then asks
twice: about objects outside the region before and after the call, where the invariant is
the real one and a model is a real object (must), and about the rest (may, naming the
bound). Only a region over the object's own fields qualifies: it can be read of the object
after a call (by substitution) as of the object before it.
"""

from __future__ import annotations

import z3

from contractor.z3backend.dag import constant_names


def region(unknown: z3.BoolRef, fields: list[z3.ExprRef]) -> z3.BoolRef | None:
    """`unknown` (where a condition's translation was not followed), if it reads only the
    constants of `fields`; None otherwise."""
    allowed: set[str] = set()
    for f in fields:
        allowed |= constant_names(f)
    past = z3.simplify(unknown)
    return past if constant_names(past) <= allowed else None


def past_region(past: list[tuple[z3.BoolRef, str]]) -> z3.BoolRef | None:
    """The fields' region where some bounded condition is not followed, or None."""
    return z3.Or(*[p for p, _ in past]) if past else None


__all__ = ["past_region", "region"]

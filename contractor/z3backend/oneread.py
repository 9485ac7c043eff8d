"""One translation of a method for both its raise guards and its transitions.

Reading raise guards (guards.py) runs a method with code outside the analysed source
returning normally; its transitions need that code's exceptions too. The two runs differ
only where outside code may raise, and there the executor writes the raise under
`not READING_GUARDS` (executor.outside_raise_if, and a context manager's swallowing):
so a method is translated once, with that constant free, and each reading substitutes it
(true for the guard, false for the transitions). Translating was about half of a run on
classes with many outside calls (HTTPConnection, SMTP).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import z3

from contractor.z3backend.state import FALSE, READING_GUARDS, TRUE, Site
from contractor.z3backend.values import Val

if TYPE_CHECKING:  # semantics imports guards, which imports this module
    from contractor.z3backend.semantics import Outcome


def reading(o: Outcome, guards: bool) -> Outcome:
    """The outcome with outside code returning normally (`guards`) or possibly raising."""
    pair = [(READING_GUARDS, TRUE if guards else FALSE)]

    def f(e: z3.ExprRef) -> z3.ExprRef:
        return z3.substitute(e, *pair)

    def b(e: z3.BoolRef) -> z3.BoolRef:
        return z3.simplify(z3.substitute(e, *pair))

    def val(v: Val) -> Val:
        z = f(v.z) if isinstance(v.z, z3.ExprRef) else v.z
        is_none = f(v.is_none) if isinstance(v.is_none, z3.ExprRef) else v.is_none
        return Val(v.type, z, is_none)

    def sites(s: list[Site]) -> list[Site]:
        return [replace(x, cond=f(x.cond)) for x in s]

    return replace(o, after={k: val(v) for k, v in o.after.items()}, result=val(o.result),
                   raised=b(o.raised), unknown=b(o.unknown), raises=sites(o.raises),
                   unknowns=sites(o.unknowns), pre=f(o.pre), post_ok=f(o.post_ok), explicit=b(o.explicit),
                   outside=b(o.outside), outside_sites=sites(o.outside_sites))

__all__ = ["reading"]

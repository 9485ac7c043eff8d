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
from z3 import z3core as C

from contractor.z3backend import fastterms as F
from contractor.z3backend import rawapi as R
from contractor.z3backend.state import FALSE, READING_GUARDS, TRUE, Site
from contractor.z3backend.values import Val

if TYPE_CHECKING:  # semantics imports guards, which imports this module
    from contractor.z3backend.semantics import Outcome


def reading(o: Outcome, guards: bool) -> Outcome:
    """The outcome with outside code returning normally (`guards`) or possibly raising."""
    pair = [(READING_GUARDS, TRUE if guards else FALSE)]
    # every term is rewritten in one z3.substitute call: the terms share most of their
    # nodes (each raise site's condition holds the path condition there), and z3 visits
    # a shared node once per call; one call per site was a quarter of reading the guard
    # of an smtplib.SMTP method
    terms: list[z3.ExprRef] = []

    def add(e: z3.ExprRef) -> int:
        terms.append(e)
        return len(terms) - 1

    def val_at(v: Val) -> tuple[int | None, int | None]:
        return (add(v.z) if isinstance(v.z, z3.ExprRef) else None,
                add(v.is_none) if isinstance(v.is_none, z3.ExprRef) else None)

    after = {k: val_at(v) for k, v in o.after.items()}
    result = val_at(o.result)
    flags = [add(e) for e in (o.raised, o.unknown, o.pre, o.post_ok, o.explicit, o.outside)]
    site_lists = [[add(x.cond) for x in s] for s in (o.raises, o.unknowns, o.outside_sites)]
    new = _substitute_all(terms, pair)

    def val(v: Val, at: tuple[int | None, int | None]) -> Val:
        return Val(v.type, v.z if at[0] is None else new[at[0]], v.is_none if at[1] is None else new[at[1]])

    def sites(s: list[Site], at: list[int]) -> list[Site]:
        return [replace(x, cond=new[i]) for x, i in zip(s, at)]

    raised, unknown, pre, post_ok, explicit, outside = (new[i] for i in flags)
    return replace(o, after={k: val(v, after[k]) for k, v in o.after.items()}, result=val(o.result, result),
                   raised=z3.simplify(raised), unknown=z3.simplify(unknown),
                   raises=sites(o.raises, site_lists[0]), unknowns=sites(o.unknowns, site_lists[1]),
                   pre=pre, post_ok=post_ok, explicit=z3.simplify(explicit), outside=z3.simplify(outside),
                   outside_sites=sites(o.outside_sites, site_lists[2]))


def _substitute_all(terms: list[z3.ExprRef], pairs: list[tuple[z3.ExprRef, z3.ExprRef]]) -> list[z3.ExprRef]:
    """Each term with `pairs` substituted, in one call: the terms as the arguments of an
    uninterpreted function (which z3 leaves as it is), read back after."""
    if not terms:
        return []
    # the function and its application made by the C calls z3.Function and its __call__
    # make (the domain is the terms' own sorts: nothing to cast), and the arguments read
    # back by fastterms.arg: the same terms, without the binding's per-argument sort
    # objects and checks (a third of reading smtplib.SMTP's outcomes)
    ctx = terms[0].ctx
    ref = ctx.ref()
    n = len(terms)
    args = (z3.Ast * n)(*[t.as_ast() for t in terms])
    domain = (z3.Sort * n)(*[R.get_sort(ref, a) for a in args])
    pack = z3.FuncDeclRef(C.Z3_mk_func_decl(ref, z3.to_symbol("oneread!pack", ctx), n, domain,
                                            z3.BoolSort(ctx).ast), ctx)
    packed = z3.substitute(F.bool_ref(C.Z3_mk_app(ref, pack.ast, n, args), ctx), *pairs)
    return [F.arg(packed, i) for i in range(n)]


__all__ = ["reading"]

"""A syntactic proof that no path of a method ends normally through translated code alone.

The exploration's exact phase of a method asks for a normal end (`not raised`) on a path
the translation followed (`not unknown`). Where the last thing every remaining path does
is untranslated (smtplib.SMTP's send_message returns what sendmail returns, a dict z3 does
not model), that phase has no model from any source state, but proving it was the costliest
query of SMTP's exploration: `raised` and `unknown` hold every path condition, flattened to
690,000 edges, and z3 spent 2 to 9 M resource units per source state (unknown under load,
where the method's enumeration fell back to undecided candidates).

The executor marks an untranslated statement's paths unknown with the condition `c` of the
paths running there (`Executor.active()`): a conjunction of `not raised-so-far`, `not
unknown-so-far`, the path guard and the frame's flags, and `unknown := unknown or c`. If
every conjunct of some site's `c` is `true`, `not false`, or `not X` where each disjunct of
X (nested `or`s flattened, by node identity) is a disjunct of the final `raised` or
`unknown`, then `not raised and not unknown` implies `c`, and `c` implies `unknown`: no
path ends normally and followed. The check reads node identities only (no solver); where
the shape differs (a `try` undoing raises, a branch's guard) it proves nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

import z3

from contractor.z3backend import fastterms as F
from contractor.z3backend.state import Site


def _leaves(e: z3.BoolRef, op: int) -> list[z3.BoolRef]:
    """The operands of `e` under nested applications of `op` (and, or), each node once."""
    out: list[z3.BoolRef] = []
    seen: set[int] = set()
    todo = [e]
    while todo:
        x = todo.pop()
        key = F.node_id(x)
        if key in seen:
            continue
        seen.add(key)
        if F.op_kind(x) == op:
            todo.extend(F.bool_children(x))
        else:
            out.append(x)
    return out


def no_followed_normal_end(raised: z3.BoolRef, unknown: z3.BoolRef, sites: Iterable[Site]) -> bool:
    """Whether `not raised and not unknown` is unsatisfiable by the shape of the terms
    (see the module's docstring): True is a proof, False proves nothing."""
    if F.op_kind(unknown) == z3.Z3_OP_TRUE:
        return True
    disjuncts = {F.node_id(x) for x in _leaves(unknown, z3.Z3_OP_OR)}
    ended = disjuncts | {F.node_id(x) for x in _leaves(raised, z3.Z3_OP_OR)}
    for site in reversed(list(sites)):  # the last untranslated statement is the likeliest
        if F.node_id(site.cond) in disjuncts and all(_implied(c, ended) for c in _leaves(site.cond, z3.Z3_OP_AND)):
            return True
    return False


def _implied(conjunct: z3.BoolRef, ended: set[int]) -> bool:
    """Whether `not raised and not unknown` implies `conjunct` (`ended`: the disjuncts of both)."""
    op = F.op_kind(conjunct)
    if op == z3.Z3_OP_TRUE:
        return True
    if op != z3.Z3_OP_NOT:
        return False
    inner = conjunct.arg(0)
    return all(F.op_kind(x) == z3.Z3_OP_FALSE or F.node_id(x) in ended for x in _leaves(inner, z3.Z3_OP_OR))


__all__ = ["no_followed_normal_end"]

"""Sequence-valued if-then-else terms of a solver's assertions, their conditions named.

z3's sequence theory rewrites `s == t` afresh (th_rewriter, whose cache lasts one call)
each time it is told that two sequence terms differ. Where `s` is an if-then-else whose
condition is a method's path condition, each of those rewrites walks the whole condition:
zipfile.ZipFile's constructor query holds 32 string-valued if-then-else terms, conditions
of up to 2,300 nodes, and those rewrites were 0.75 s of its 1.3 s of checks. Here each
such condition `c` (other than a constant) is replaced, wherever it occurs, by a fresh
Boolean constant `k`, and `k == c` is asserted (`c` itself with the other conditions
named in it): an equivalent query on the query's own symbols (the same answers; the models
of those symbols satisfy the original terms; the definitions are well founded, a condition
naming only conditions inside it), whose sequence terms are small. The fresh constants
live in the solver's own context only.
"""

from __future__ import annotations

import z3

from contractor.z3backend import fastterms as F
from contractor.z3backend import rawapi as R

PREFIX = "contractor!seqcond!"  # the fresh constants' names (a `!` no Python name holds)


class SeqConditions:
    """The names given so far in one context (a solver's: the conditions of later terms,
    blocking clauses, are named as those of the first, by the same constants)."""

    def __init__(self, ctx: z3.Context) -> None:
        self.ctx = ctx
        # addresses of the nodes walked and of the conditions named (the solver keeps the
        # terms it was told alive, so an address stays its node's)
        self._seen: set[int] = set()
        self._named: set[int] = set()
        self._pairs: list[tuple[z3.BoolRef, z3.BoolRef]] = []  # (condition, its constant)

    def named(self, terms: list[z3.BoolRef]) -> list[z3.BoolRef]:
        """`terms` with every named condition replaced by its constant, followed by the
        definitions of the conditions named for them."""
        fresh = [(c, z3.Bool(f"{PREFIX}{len(self._pairs) + i}", self.ctx))
                 for i, c in enumerate(self._conditions(terms))]
        self._pairs.extend(fresh)
        out = [z3.substitute(t, *self._pairs) for t in terms] if self._pairs else list(terms)
        return out + [k == self._defined(c, k) for c, k in fresh]

    def _defined(self, c: z3.BoolRef, k: z3.BoolRef) -> z3.BoolRef:
        """What `k` names: `c` with the other named conditions in it replaced by their
        constants too (a condition holds earlier ones, a path condition its prefixes: left
        as they were, the query held every condition twice, as written under the
        definitions and renamed in the terms; zipfile.ZipFile's constructor, 1.9 to 1.6 M
        expressions, its checks 0.54 to 0.42 s)."""
        others = [p for p in self._pairs if p[1] is not k]
        return z3.substitute(c, *others) if others else c

    def _conditions(self, terms: list[z3.BoolRef]) -> list[z3.BoolRef]:
        """The conditions (not constants, not named yet) of the sequence-valued
        if-then-else terms under `terms`, in the order met; a walk on bare pointers."""
        c = R.pointer(self.ctx.ref())
        arg, kind_of = R.ptr_app_arg, R.ptr_ast_kind
        to_app, decl, decl_kind, num_args = R.ptr_to_app, R.ptr_app_decl, R.ptr_decl_kind, R.ptr_app_num_args
        seen, found = self._seen, []
        stack = [a for a in (R.pointer(t.as_ast()) for t in reversed(terms)) if a not in seen]
        app_ast, ite, seq = z3.Z3_APP_AST, z3.Z3_OP_ITE, z3.Z3_SEQ_SORT
        while stack:
            a = stack.pop()
            if a in seen:
                continue
            seen.add(a)
            if kind_of(c, a) != app_ast:  # numerals, variables; quantifiers left whole
                continue
            app = to_app(c, a)
            n = num_args(c, app)
            if n == 0:
                continue
            if n == 3 and decl_kind(c, decl(c, app)) == ite and R.ptr_sort_kind(c, R.ptr_sort(c, a)) == seq:
                cond = arg(c, app, 0)
                if cond not in self._named and kind_of(c, cond) == app_ast and num_args(c, to_app(c, cond)):
                    self._named.add(cond)
                    found.append(F.bool_ref(R.boxed(cond), self.ctx))
            for j in range(n - 1, -1, -1):
                x = arg(c, app, j)
                if x not in seen:
                    stack.append(x)
        return found


__all__ = ["PREFIX", "SeqConditions"]

"""Independent parts of a query: its conjuncts grouped by the z3 symbols they share.

A query about method m from source state S asks for a pre-object in S, arguments and a
post-object, and projects the models onto the post-object's enabledness bits. Written
as conjuncts (m's precondition and normal termination, the invariant before and after,
each action's enabledness before and after), it falls apart into groups that share no
uninterpreted symbol (field constant, argument, unknown predicate). Groups sharing no
symbol are independent: the query is satisfiable iff each group is, and the projections
of its models are exactly the products of each group's projections. So a group's answer
depends only on the source bits it reads, and is reused for every state agreeing on them.

A group that m does not touch (none of m's conjuncts; every post-object term in it is
the pre-object's own term) copies its bits from the source: its answer is the source's
bits, and only a witness is asked for, shared by every method that leaves it alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3

from contractor.z3backend.values import Val

Symbols = frozenset[str]


class SymbolIndex:
    """The uninterpreted symbols of z3 terms, memoised by AST id (terms are kept alive
    with their entry, so an id is never reused while it is remembered)."""

    def __init__(self) -> None:
        self._memo: dict[int, tuple[z3.AstRef, Symbols]] = {}

    def of(self, e: object) -> Symbols:
        if not isinstance(e, z3.AstRef):
            return frozenset()
        hit = self._memo.get(e.get_id())
        if hit is not None:
            return hit[1]
        if z3.is_quantifier(e):
            out = self.of(e.body())
        elif z3.is_var(e) or not z3.is_app(e):
            out = frozenset()
        else:
            decl = e.decl()
            own = frozenset([f"{decl.name()}/{decl.arity()}"]) if decl.kind() == z3.Z3_OP_UNINTERPRETED else frozenset()
            out = own.union(*(self.of(c) for c in e.children())) if e.num_args() else own
        self._memo[e.get_id()] = (e, out)
        return out

    def of_val(self, v: Val) -> Symbols:
        return self.of(v.z) | self.of(v.is_none)


def conjuncts(e: z3.BoolRef) -> list[z3.BoolRef]:
    """The top-level conjuncts of e (nested Ands flattened, literal True dropped)."""
    out, todo = [], [e]
    while todo:
        x = todo.pop()
        if z3.is_and(x):
            todo.extend(reversed(x.children()))
        elif not z3.is_true(x):
            out.append(x)
    return out


@dataclass
class Group:
    """One independent part: constraints, the actions whose source bits it reads (`pre`)
    and whose post bits it decides (`post`), and the witness terms it holds."""

    constraints: list[z3.BoolRef] = field(default_factory=list)
    pre: dict[str, z3.BoolRef] = field(default_factory=dict)
    post: dict[str, z3.BoolRef] = field(default_factory=dict)
    terms: list[tuple[str, str, Val]] = field(default_factory=list)  # (part, name, value)
    touched: bool = False  # holds a conjunct of the method, or a post term it changes

    def signature(self) -> tuple[Any, ...]:
        """Equal for equal untouched groups of different methods (their answers are shared)."""
        return (tuple(sorted(c.get_id() for c in self.constraints)), tuple(sorted(self.pre)),
                tuple(sorted((p, n) for p, n, _ in self.terms)))


@dataclass
class Item:
    """One constraint, enabledness bit or witness term, with the symbols it reads."""

    symbols: Symbols
    kind: str  # "constraint", "pre", "post", "term"
    payload: tuple[Any, ...]


def group(items: list[Item]) -> list[Group]:
    """Union-find over shared symbols; items without symbols share one ground group."""
    parent: dict[int, int] = {}

    def find(i: int) -> int:
        while parent.get(i, i) != i:
            parent[i] = parent.get(parent[i], parent[i])
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    ground = -1
    for i, item in enumerate(items):
        if not item.symbols:
            if ground < 0:
                ground = i
            parent[find(i)] = find(ground)
        for s in item.symbols:
            if s in owner:
                parent[find(i)] = find(owner[s])
            else:
                owner[s] = i
    groups: dict[int, Group] = {}
    for i, item in enumerate(items):
        g = groups.setdefault(find(i), Group())
        if item.kind == "constraint":
            c, touched = item.payload
            g.constraints.append(c)
            g.touched |= touched
        elif item.kind == "pre":
            g.pre[item.payload[0]] = item.payload[1]
        elif item.kind == "post":
            action, formula, same = item.payload
            g.post[action] = formula
            g.touched |= not same
        else:
            part, name, v, same = item.payload
            g.terms.append((part, name, v))
            g.touched |= not same
    return list(groups.values())


def method_groups(index: SymbolIndex, base: list[z3.BoolRef], invariant: z3.BoolRef,
                  invariant_after: z3.BoolRef, enabled: dict[str, z3.BoolRef],
                  enabled_after: dict[str, z3.BoolRef], fields: dict[str, Val], args: dict[str, Val],
                  after: dict[str, Val]) -> list[Group]:
    """The independent parts of the queries about one method (any source state)."""
    items: list[Item] = []
    # `not False` (nothing raises, the invariant after a method setting constants) is true:
    # kept, it made a ground part of its own, one more solver and query per method
    for c in (x for b in base for x in conjuncts(b) if not _true(x)):
        items.append(Item(index.of(c), "constraint", (c, True)))
    before = [c for c in conjuncts(invariant) if not _true(c)]
    seen = {c.get_id() for c in before}
    for c in before:
        items.append(Item(index.of(c), "constraint", (c, False)))
    for c in conjuncts(invariant_after):
        if c.get_id() not in seen and not _true(c):  # a conjunct over fields the method leaves alone is the same term
            items.append(Item(index.of(c), "constraint", (c, True)))
    for a, e in enabled.items():
        items.append(Item(index.of(e), "pre", (a, e)))
        e2 = enabled_after[a]
        items.append(Item(index.of(e2), "post", (a, e2, e2.eq(e))))
    for k, v in fields.items():
        if shown(k, v):
            items.append(Item(index.of_val(v), "term", ("fields", k, v, True)))
    for k, v in args.items():
        items.append(Item(index.of_val(v), "term", ("args", k, v, False)))
    for k, v in after.items():
        if shown(k, v):
            old = fields.get(k)
            same = old is not None and _same(old, v)
            items.append(Item(index.of_val(v), "term", ("after", k, v, same)))
    return group(items)


def _true(c: z3.BoolRef) -> bool:
    """`not False`: true as it stands."""
    return bool(z3.is_not(c) and z3.is_false(c.arg(0)))


def state_groups(index: SymbolIndex, invariant: z3.BoolRef, enabled: dict[str, z3.BoolRef]) -> list[Group]:
    """The independent parts of the state patterns (the invariant and every enabledness)."""
    items = [Item(index.of(c), "constraint", (c, False)) for c in conjuncts(invariant)]
    items += [Item(index.of(e), "pre", (a, e)) for a, e in enabled.items()]
    return group(items)


def shown(name: str, v: Val) -> bool:
    """Whether a field appears in a witness (as Z3Backend.witness decides)."""
    return v.kind not in ("any", "undefined") and not (name.startswith("__") and name.endswith("__"))


def _same(a: Val, b: Val) -> bool:
    def eq(x: z3.AstRef | None, y: z3.AstRef | None) -> bool:
        if isinstance(x, z3.AstRef) and isinstance(y, z3.AstRef):
            return bool(x.eq(y))
        return x is None and y is None
    return a.type == b.type and eq(a.z, b.z) and eq(a.is_none, b.is_none)


__all__ = ["Group", "SymbolIndex", "conjuncts", "method_groups", "shown", "state_groups"]

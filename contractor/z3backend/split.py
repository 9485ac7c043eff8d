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

from contractor.z3backend import fastterms as F
from contractor.z3backend import rawapi as R
from contractor.z3backend.values import Val

Symbols = frozenset[str]


class SymbolIndex:
    """The uninterpreted symbols of z3 terms, memoised by AST id. An entry keeps alive the
    term it was found under (the term itself, or a term it is a subterm of), so an id is
    never reused while it is remembered.

    Terms are walked on raw pointers through z3's C accessors (rawapi.py), each shared
    node once: walking them as z3's Python objects made a wrapper per child visited, most
    of the time of splitting a small class's methods. Only an uninterpreted application's
    declaration is read through the binding (its name and arity make its symbol)."""

    def __init__(self) -> None:
        self._memo: dict[int, tuple[z3.AstRef, Symbols]] = {}

    def of(self, e: object) -> Symbols:
        if not isinstance(e, z3.AstRef):
            return frozenset()
        if not isinstance(e, z3.ExprRef):
            return self._of_object(e)
        c = R.pointer(e.ctx_ref())
        root = R.pointer(e.as_ast())
        key = R.ptr_ast_id(c, root)
        hit = self._memo.get(key)
        if hit is not None:
            return hit[1]
        done = self._walk(e, c, root)
        for k, found in done.items():  # every node walked is remembered: `e` keeps it alive
            self._memo.setdefault(k, (e, found))
        return done[key]

    def _walk(self, e: z3.ExprRef, c: int, root: int) -> dict[int, Symbols]:
        """The symbols of every node under `root` (a pointer of `e`'s term) not yet remembered, by id."""
        ast_id, arg = R.ptr_ast_id, R.ptr_app_arg
        done: dict[int, Symbols] = {}
        expanded: dict[int, tuple[Symbols, list[int]]] = {}  # id -> (own symbol, children), children pending
        stack = [root]
        while stack:
            a = stack[-1]
            key = ast_id(c, a)
            if key in done:
                stack.pop()
                continue
            hit = self._memo.get(key)
            if hit is not None:
                done[key] = hit[1]
                stack.pop()
                continue
            if key not in expanded:
                kind = R.ptr_ast_kind(c, a)
                own: Symbols = _NONE
                children: list[int] = []
                if kind in (z3.Z3_APP_AST, z3.Z3_NUMERAL_AST):
                    app = R.ptr_to_app(c, a)
                    decl = R.ptr_app_decl(c, app)
                    if R.ptr_decl_kind(c, decl) == z3.Z3_OP_UNINTERPRETED:
                        f = z3.FuncDeclRef(R.boxed(decl), e.ctx)
                        own = frozenset([f"{f.name()}/{f.arity()}"])
                    children = [arg(c, app, j) for j in range(R.ptr_app_num_args(c, app))]
                elif kind == z3.Z3_QUANTIFIER_AST:
                    children = [R.ptr_quantifier_body(c, a)]
                expanded[key] = (own, children)
                stack.extend(children)
                continue
            stack.pop()
            own, children = expanded.pop(key)
            done[key] = own.union(*[done[ast_id(c, x)] for x in children]) if children else own
        return done

    def _of_object(self, e: z3.AstRef) -> Symbols:
        """`of` on a z3 object that is no expression, through the binding."""
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


_NONE: Symbols = frozenset()


def conjuncts(e: z3.BoolRef) -> list[z3.BoolRef]:
    """The top-level conjuncts of e (nested Ands flattened, literal True dropped)."""
    out, todo = [], [e]
    while todo:
        x = todo.pop()
        op = F.op_kind(x) if isinstance(x, z3.ExprRef) else -1  # z3.is_and, z3.is_true without wrappers
        if op == z3.Z3_OP_AND:
            todo.extend(reversed(F.bool_children(x)))
        elif op != z3.Z3_OP_TRUE:
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
    # a changed post bit or post term is in the group of its pre bit or field, whatever
    # symbols it reads: an untouched group copies the source's bits for its actions (and
    # the fields' values), which is right only where no other group decides them. A
    # method setting a field to a constant (after-term and post bits without a symbol)
    # otherwise left the field's group untouched, its post bits copied from the source
    for a, e in enabled.items():
        items.append(Item(index.of(e), "pre", (a, e)))
        e2 = enabled_after[a]
        same = bool(e2.eq(e))
        items.append(Item(index.of(e2) if same else index.of(e2) | index.of(e), "post", (a, e2, same)))
    for k, v in fields.items():
        if shown(k, v):
            items.append(Item(index.of_val(v), "term", ("fields", k, v, True)))
    for k, v in args.items():
        items.append(Item(index.of_val(v), "term", ("args", k, v, False)))
    for k, v in after.items():
        if shown(k, v):
            old = fields.get(k)
            same = old is not None and _same(old, v)
            symbols = index.of_val(v) if same or old is None else index.of_val(v) | index.of_val(old)
            items.append(Item(symbols, "term", ("after", k, v, same)))
    return group(items)


def _true(c: z3.BoolRef) -> bool:
    """`not False`: true as it stands."""
    return isinstance(c, z3.ExprRef) and F.op_kind(c) == z3.Z3_OP_NOT and F.op_kind(c.arg(0)) == z3.Z3_OP_FALSE


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

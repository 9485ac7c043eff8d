"""Executor mixin: the builtins that consume an iterable: sum(), min() and max() of one
iterable (with `default=`), sorted() (with `reverse=`), list(), set() and dict() of any
iterable or generator, and any()/all() where the quantifier encoding (quantifiers.py)
does not apply (an element that can raise, tuple targets, several `for` clauses).

All read the items through the comprehension core (comprehensions.py): exact up to
--unroll items, an unknown past it. sorted() sorts the at most --unroll items with a
sorting network of comparisons (ints, bools and strs: orders where equal means identical).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import BOOL, INT, TypeKind, TypeRef
from contractor.z3backend import fastterms as F
from contractor.z3backend import valops as P
from contractor.z3backend import values as V
from contractor.z3backend.comprehensions import COMPREHENSIONS, OrderMatters
from contractor.z3backend.values import Val

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
else:
    _Host = object

CONSUMERS = ("sum", "min", "max", "sorted", "list", "set", "dict")
SORTABLE = ("int", "bool", "str")


class Aggregates(_Host):
    """Mixin of Executor: needs the comprehension core (instances, produced, iterable_parts,
    build_list/set/dict, past_bound) and eval, unwrap, raise_if, unsupported."""

    def call_aggregate(self, name: str, node: ast.Call) -> Val | None:
        """The builtin `name` consuming an iterable, or None where exprs.py's own rules apply
        (min/max of several arguments, list(a_list), set(), dict())."""
        if name not in CONSUMERS or len(node.args) != 1 or any(isinstance(a, ast.Starred) for a in node.args):
            if name == "sum" and len(node.args) == 2 and not node.keywords:
                return self.aggregate_sum(node.args[0], self.eval(node.args[1]), node)
            return None
        arg = node.args[0]
        keywords = {k.arg: k.value for k in node.keywords}
        if None in keywords:
            raise self.unsupported(node, f"**kwargs in a call to {name}()")
        if name == "sum":
            if keywords.keys() - {"start"}:
                raise self.unsupported(node, "sum() with keyword arguments other than start=")
            start = self.eval(keywords["start"]) if "start" in keywords else V.const(0)
            return self.aggregate_sum(arg, start, node)
        if name in ("min", "max"):
            if keywords.keys() - {"default"}:
                raise self.unsupported(node, f"{name}() with key= (a function)")
            return self.aggregate_extreme(name, arg, keywords.get("default"), node)
        if name == "sorted":
            if keywords.keys() - {"reverse"}:
                raise self.unsupported(node, "sorted() with key= (a function)")
            return self.aggregate_sorted(arg, keywords.get("reverse"), node)
        if keywords:
            raise self.unsupported(node, f"keyword arguments to {name}()")
        if name in ("list", "set") and not isinstance(arg, COMPREHENSIONS):
            v = self.eval_any(arg)
            if isinstance(v, Val) and v.kind == name:
                return v  # a copy: the same value (fields are never aliased)
            if name == "list" and isinstance(v, Val) and v.kind == "set" and v.z is not None:
                return Val(TypeRef(TypeKind.LIST, v.type.args), v.z)  # its elements in its order
            parts = self.value_parts(v, node)
            return self.build_list(parts, node) if name == "list" else self.build_set(parts, node)
        if name == "dict" and isinstance(arg, ast.Dict):
            return self.eval(arg)
        if name == "dict":
            if not isinstance(arg, (ast.GeneratorExp, ast.ListComp)):
                v = self.eval(arg)
                if v.kind == "dict":
                    return v
                raise self.unsupported(node, f"dict() of a {v.type}")
            return self.build_dict(self.produced(arg.elt, arg.generators, node), node)
        parts = self.iterable_parts(arg, node)
        return self.build_list(parts, node) if name == "list" else self.build_set(parts, node)

    def aggregate_sum(self, arg: ast.expr, start: Val, node: ast.AST) -> Val:
        first = self.unwrap(start, node)
        if first.kind not in ("int", "bool", "float"):
            raise self.unsupported(node, f"sum() starting from a {first.type}")

        def attempt(any_order: bool) -> Val:
            acc = first

            def add(g: z3.BoolRef, v: Val) -> None:
                nonlocal acc
                item = self.unwrap(v, node)
                if any_order and item.kind not in ("int", "bool"):
                    raise OrderMatters  # a float sum rounds differently in another order
                try:
                    total, _ = P.binop("+", acc, item)
                except UnsupportedConstruct as e:
                    raise self.unsupported(node, e.construct) from None
                acc = V.ite(g, total, acc)
            self.each_part(arg, node, add, any_order)
            return acc
        acc = self.order_free(arg, attempt)
        return V.coerce(acc, INT) if acc.kind == "bool" else acc

    def each_part(self, arg: ast.expr, node: ast.AST, use: Callable[[z3.BoolRef, Val], None],
                  any_order: bool = False) -> None:
        """use(condition, element) for each element, in order, evaluated where it is produced."""
        if isinstance(arg, COMPREHENSIONS) and not isinstance(arg, ast.DictComp):
            self.instances(arg.generators, node, lambda: use(self.guard, self.eval(arg.elt)), any_order=any_order)
            return
        for g, v in self.iterable_parts(arg, node, any_order):
            use(g, v)

    def aggregate_extreme(self, name: str, arg: ast.expr, default: ast.expr | None, node: ast.AST) -> Val:
        """min()/max() of an iterable: the first smallest (largest) item; ValueError if empty."""
        op = "<" if name == "min" else ">"

        def attempt(any_order: bool) -> tuple[Val | None, z3.BoolRef]:
            best: Val | None = None
            have = z3.BoolVal(False)

            def consider(g: z3.BoolRef, v: Val) -> None:
                nonlocal best, have
                v = self.unwrap(v, node)
                if any_order and v.kind not in ("int", "bool", "str"):
                    raise OrderMatters  # equal floats (0.0, -0.0) or NaN: the first one wins
                if best is None:
                    best, have = v, g
                    return
                try:
                    better = P.order(op, v, best)
                except UnsupportedConstruct as e:
                    raise self.unsupported(node, e.construct) from None
                best = V.ite(F.and_(g, F.or_(F.not_(have), better)), v, best)
                have = F.or_(have, g)
            self.each_part(arg, node, consider, any_order)
            return best, have
        best, have = self.order_free(arg, attempt)
        fallback = self.eval(default) if default is not None else None
        if fallback is None:
            self.raise_if(F.not_(have), "ValueError", node)
        if best is None:
            return fallback if fallback is not None else V.const(0)
        return V.ite(have, best, fallback) if fallback is not None else best

    def aggregate_sorted(self, arg: ast.expr, reverse: ast.expr | None, node: ast.AST) -> Val:
        descending = z3.BoolVal(False) if reverse is None else V.truthy(self.eval(reverse))
        if isinstance(arg, COMPREHENSIONS):
            v = self.build_list(self.iterable_parts(arg, node), node)
        else:
            v = self.eval_any(arg)
            if not (isinstance(v, Val) and v.kind == "list"):
                v = self.build_list(self.value_parts(v, node), node)
        if v.z is None:
            return v
        elem = v.type.args[0]
        if elem.kind not in SORTABLE:
            raise self.unsupported(node, f"sorted() of {elem} items")
        n = z3.Length(v.z)
        self.past_bound(n > self.unroll, node)
        result = v.z  # past the bound: unknown paths, any value will do
        for length in range(self.unroll, -1, -1):
            if length and not self.feasible(F.and_(self.active(), n == length)):
                continue  # the assumptions rule this length out
            items = [Val(elem, v.z[i]) for i in range(length)]
            up, down = _network(items, "<"), _network(items, ">")
            ordered = [V.ite(descending, d, u) for u, d in zip(up, down)]
            result = F.ite(n == length, V.seq_of_items(v.type, ordered), result)
        return Val(v.type, result)

    def unrolled_quantifier(self, name: str, arg: ast.expr, node: ast.AST) -> Val:
        """any()/all() item by item, stopping (as Python does) at the first item deciding."""
        def attempt(any_order: bool) -> z3.BoolRef:
            decided = z3.BoolVal(False)  # any: a true item seen; all: a false one

            def visit_value(g: z3.BoolRef, v: Val) -> None:
                nonlocal decided
                t = V.truthy(v)
                decided = F.or_(decided, F.and_(g, t if name == "any" else F.not_(t)))

            if isinstance(arg, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
                lazy = isinstance(arg, ast.GeneratorExp)

                def visit() -> None:
                    nonlocal decided
                    t = self.condition(arg.elt)
                    decided = F.or_(decided, F.and_(self.guard, t if name == "any" else F.not_(t)))
                if lazy:  # a generator stops being read once any()/all() decides
                    self.instances(arg.generators, node, visit, running=lambda: F.not_(decided),
                                   any_order=any_order)
                else:  # a list or set is built whole first
                    for g, v in self.produced(arg.elt, arg.generators, node, any_order):
                        visit_value(g, v)
            else:
                for g, v in self.iterable_parts(arg, node, any_order):
                    visit_value(g, v)
            return decided
        decided = self.order_free(arg, attempt)
        return Val(BOOL, decided if name == "any" else F.not_(decided))


def _network(items: list[Val], op: str) -> list[Val]:
    """The items in order by `op` (a bubble-sort network of compare-and-swaps)."""
    out = list(items)
    for i in range(len(out)):
        for j in range(len(out) - 1 - i):
            a, b = out[j], out[j + 1]
            swap = P.order(op, b, a)
            out[j], out[j + 1] = V.ite(swap, b, a), V.ite(swap, a, b)
    return out

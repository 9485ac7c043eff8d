"""Executor mixin: list, set and dict comprehensions (and generator expressions read by
list(), set(), dict(), sum(), min(), max(), sorted(), any(), all()) unrolled item by item.

`[f(x) for x in xs if c(x)]` is built as Python builds it: for k < --unroll, where the k-th
item exists and the filters hold, f(x_k) is appended (added to the set, put in the dict).
Each element is evaluated under the condition that it is produced, so an element that
raises raises on exactly those paths, and a helper it calls runs there. A path with an item
past the bound is an unknown naming the comprehension (a may-answer, never a wrong one),
unless the assumptions (the invariant, `len(xs) <= 3`) rule it out. Comprehension
variables are local to the comprehension, as in Python 3.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar, cast

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import TypeKind, TypeRef
from contractor.z3backend import fastterms as F
from contractor.z3backend import mappings as M
from contractor.z3backend import values as V
from contractor.z3backend.mapcalls import put
from contractor.z3backend.outside import escapes_self
from contractor.z3backend.state import TRUE
from contractor.z3backend.values import Val
from contractor.z3backend.z3util import make_solver

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost
    from contractor.z3backend.host import ExecutorHost as _Host
else:
    _Host = object

COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
Visit = Callable[[], None]
T = TypeVar("T")


class OrderMatters(Exception):
    """Raised by an any-order reading on an item whose order changes the consumer's result
    (a float in sum(), min(), max()): order_free then reads in every order."""


def each_item(iterable: ast.expr, node: ast.AST) -> list[ast.comprehension]:
    """`for _item in iterable` as a comprehension clause, to read any iterable item by item."""
    target = ast.copy_location(ast.Name(id="_item!", ctx=ast.Store()), node)
    return [ast.comprehension(target=target, iter=iterable, ifs=[], is_async=0)]


def item_name(node: ast.AST) -> ast.Name:
    return ast.copy_location(ast.Name(id="_item!", ctx=ast.Load()), node)


class Comprehensions(_Host):
    """Mixin of Executor: needs eval, eval_any, condition, guard, frame, active, feasible,
    loop_items, mark_unknown, raise_if, unroll, loc and unsupported."""

    # -- the unrolling core ------------------------------------------------------------

    def instances(self, generators: list[ast.comprehension], node: ast.AST, visit: Visit,
                  running: Callable[[], z3.BoolRef] = lambda: TRUE, any_order: bool = False) -> None:
        """Calls `visit` once per combination of items (up to --unroll per clause) with the
        targets bound and the guard narrowed to "this combination is produced" (and
        `running()`, false once a consumer such as any() has stopped). `any_order`: the
        consumer's result does not depend on the order of the items (see `order_free`), so
        a set is read in its own sequence's order instead of every order CPython may take."""
        saved_guard = self.guard
        try:
            self._clause(generators, 0, node, visit, running, any_order)
        finally:
            self.guard = saved_guard

    def _clause(self, gens: list[ast.comprehension], level: int, node: ast.AST, visit: Visit,
                running: Callable[[], z3.BoolRef], any_order: bool = False) -> None:
        if level == len(gens):
            visit()
            return
        comp = gens[level]
        if comp.is_async:
            raise self.unsupported(node, "an async comprehension")
        at = self.loop_items(comp, any_order)
        if isinstance(at, str):  # "opaque"
            raise self.unsupported(comp.iter, "a comprehension over an untyped value")
        outer = self.guard
        names = _target_names(comp.target)
        saved = {n: (self.frame.locals.get(n), self.frame.defined.pop(n, None)) for n in names}
        try:
            for k in range(self.unroll + 1):
                more, item = at(k)
                if k == self.unroll:
                    self.guard = outer
                    self.past_bound(F.and_(more, running()), node)
                    break
                self.guard = F.and_(outer, more, running())
                if not self.feasible(self.active()):
                    break
                self.bind_target(comp.target, item, node)
                for cond in comp.ifs:
                    self.guard = F.and_(self.guard, self.condition(cond))
                self._clause(gens, level + 1, node, visit, running, any_order)
                self.guard = outer
        finally:
            self.guard = outer
            for n, (value, defined) in saved.items():
                if value is None:
                    self.frame.locals.pop(n, None)
                else:
                    self.frame.locals[n] = value
                if defined is not None:
                    self.frame.defined[n] = defined

    def past_bound(self, cond: z3.BoolRef, node: ast.AST) -> None:
        """Paths where `cond` (an item past the bound) holds become unknown."""
        c = F.and_(self.active(), cond)
        if not self.feasible(c) or (self.context is None and not _satisfiable(c)):
            return
        saved = self.guard
        self.guard = F.and_(saved, cond)
        try:
            err = UnsupportedConstruct(f"a comprehension or aggregate over more than {self.unroll} "
                                       "items (--unroll)", self.loc(node))
            self.mark_unknown(err, node, None)
        finally:
            self.guard = saved

    def bounded(self, size: z3.ArithRef) -> bool:
        """Whether the assumptions (or the condition so far) rule out more than --unroll
        items: then unrolling is exact and quantifier-free, which z3 decides far faster."""
        c = F.and_(self.active(), size > self.unroll)
        return not self.feasible(c) or (self.context is None and not _satisfiable(c))

    def bind_target(self, target: ast.expr, item: Val, node: ast.AST) -> None:
        """A comprehension variable (or `k, v` of a tuple item) bound to `item`."""
        if isinstance(target, ast.Name):
            self.frame.locals[target.id] = item
            return
        if isinstance(target, (ast.Tuple, ast.List)) and item.kind == "tuple" \
                and not any(isinstance(e, ast.Starred) for e in target.elts):
            parts = V.tuple_items(item)
            if len(parts) != len(target.elts):
                self.raise_if(TRUE, "ValueError", node)
                return
            for t, x in zip(target.elts, parts):
                self.bind_target(t, x, node)
            return
        raise self.unsupported(node, f"a comprehension target unpacking a {item.type}")

    # -- comprehensions as values ------------------------------------------------------

    def produced(self, elt: ast.expr, generators: list[ast.comprehension],
                 node: ast.AST, any_order: bool = False) -> list[tuple[z3.BoolRef, Val]]:
        """Each instance's condition and element value."""
        out: list[tuple[z3.BoolRef, Val]] = []

        def visit() -> None:
            out.append((self.guard, self.eval(elt)))
        self.instances(generators, node, visit, any_order=any_order)
        return out

    def order_free(self, node: ast.AST, attempt: Callable[[bool], T]) -> T:
        """attempt(True): the items read in any order, for a consumer whose result does not
        depend on it (any, all, sum and min/max of ints, a set built from the items). That
        holds only if reading the items has no effect: where one raised, called code, wrote
        state or went past the bound (or binds a name, `:=`), the order matters, and
        attempt(False) reads sets in every order CPython may take (loops.py)."""
        if not any(isinstance(n, ast.NamedExpr) for n in ast.walk(node)):
            saved = self.snapshot()
            try:
                result = attempt(True)
                if not self.changed_since(saved):
                    return result
            except OrderMatters:
                pass
            self.restore(saved)
        return attempt(False)

    def translated(self, node: ast.expr, build: Callable[[], Val]) -> Val:
        """build(), or where it cannot be translated and the expression cannot reach `self`,
        an opaque value outside code chose (outside.py), as before this module."""
        saved = self.snapshot()
        try:
            return build()
        except UnsupportedConstruct:
            if escapes_self(node):
                raise
            self.restore(saved)
            return self.fresh_opaque(type(node).__name__, node)

    def e_ListComp(self, node: ast.ListComp) -> Val:
        return self.translated(node, lambda: self.build_list(self.produced(node.elt, node.generators, node), node))

    def build_list(self, parts: list[tuple[z3.BoolRef, Val]], node: ast.AST) -> Val:
        if not parts:
            return Val(TypeRef(TypeKind.LIST), None)
        t = _joined(self, [v for _, v in parts], node)
        lt = TypeRef(TypeKind.LIST, (t,))
        try:
            acc = z3.Empty(V.sort_of(lt))
        except UnsupportedConstruct as e:
            raise self.unsupported(node, e.construct) from None
        for g, v in parts:
            acc = F.ite(g, z3.Concat(acc, z3.Unit(V.coerce(v, t).z)), acc)
        return Val(lt, acc)

    def e_SetComp(self, node: ast.SetComp) -> Val:
        return self.translated(node, lambda: self.order_free(node, lambda any_order: self.build_set(
            self.produced(node.elt, node.generators, node, any_order), node)))

    def build_set(self, parts: list[tuple[z3.BoolRef, Val]], node: ast.AST) -> Val:
        if not parts:
            return Val(TypeRef(TypeKind.SET), None)
        t = _joined(self, [v for _, v in parts], node)
        st = TypeRef(TypeKind.SET, (t,))
        try:
            acc = z3.Empty(V.sort_of(st))
        except UnsupportedConstruct as e:
            raise self.unsupported(node, e.construct) from None
        for g, v in parts:
            acc = F.ite(g, M.add(acc, V.coerce(v, t).z), acc)
        return Val(st, acc)

    def e_DictComp(self, node: ast.DictComp) -> Val:
        pair = ast.copy_location(ast.Tuple(elts=[node.key, node.value], ctx=ast.Load()), node)
        return self.translated(node, lambda: self.build_dict(self.produced(pair, node.generators, node), node))

    def build_dict(self, parts: list[tuple[z3.BoolRef, Val]], node: ast.AST) -> Val:
        if not parts:
            return Val(TypeRef(TypeKind.DICT), None)
        if any(v.kind != "tuple" or len(v.type.args) != 2 for _, v in parts):
            raise self.unsupported(node, "dict() of items that are not pairs")
        kt = _joined(self, [V.tuple_items(v)[0] for _, v in parts], node)
        vt = _joined(self, [V.tuple_items(v)[1] for _, v in parts], node)
        dt = TypeRef(TypeKind.DICT, (kt, vt))
        try:
            d = Val(dt, M.empty_dict(V.sort_of(dt)))
        except UnsupportedConstruct as e:
            raise self.unsupported(node, e.construct) from None
        for g, v in parts:
            k, x = V.tuple_items(v)
            d = Val(dt, F.ite(g, put(d, k, x).z, d.z))
        return d

    def e_GeneratorExp(self, node: ast.GeneratorExp) -> Val:
        def refuse() -> Val:
            raise self.unsupported(node, "a generator expression used other than by list(), set(), "
                                         "dict(), sum(), min(), max(), sorted(), any() or all()")
        return self.translated(node, refuse)

    def value_parts(self, v: object, node: ast.AST) -> list[tuple[z3.BoolRef, Val]]:
        """The items of an iterable already evaluated (not evaluated again: it may have
        called code with effects)."""
        holder = "_iterable!"
        saved = self.frame.locals.get(holder)
        # the holder only feeds the loop reading it (eval_any), which takes any iterable, not only a Val
        self.frame.locals[holder] = cast(Val, v)
        try:
            it = ast.copy_location(ast.Name(id=holder, ctx=ast.Load()), node)
            return self.produced(item_name(node), each_item(it, node), node)
        finally:
            if saved is None:
                self.frame.locals.pop(holder, None)
            else:
                self.frame.locals[holder] = saved

    def iterable_parts(self, arg: ast.expr, node: ast.AST, any_order: bool = False) -> list[tuple[z3.BoolRef, Val]]:
        """The items a builtin consuming `arg` reads: a comprehension's elements, or the items
        of any iterable the loops read (range, str, list, tuple, set, dict, views)."""
        if isinstance(arg, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            return self.produced(arg.elt, arg.generators, node, any_order)
        if isinstance(arg, ast.DictComp):
            return self.produced(arg.key, arg.generators, node, any_order)
        return self.produced(item_name(node), each_item(arg, node), node, any_order)


def _target_names(target: ast.expr) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _joined(ex: ExecutorHost, values: list[Val], node: ast.AST) -> TypeRef:
    t = values[0].type
    try:
        for v in values[1:]:
            t = V.join_type(t, v.type)
    except UnsupportedConstruct as e:
        raise ex.unsupported(node, e.construct) from None
    return t


def _satisfiable(cond: z3.BoolRef, timeout_ms: int = 1000) -> bool:
    """False only where z3 shows quickly that `cond` cannot hold (a bound in the same
    condition, `len(xs) <= 3 and sum(xs) > 2`); undecided counts as possible."""
    s = make_solver(timeout_ms)
    s.add(cond)
    return bool(s.check() != z3.unsat)

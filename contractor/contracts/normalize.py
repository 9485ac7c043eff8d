"""Rewrite contract expressions into the normal form of `contractor.model` (`self`,
parameter names, `__return__`, `__old__.self.x`, `__old__.p`).

Every function returns a fresh tree (the input is deep-copied first); nodes keep the
line numbers of the original source, and replacement nodes take the position of the
node they replace.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from typing import TypeVar, cast

_Node = TypeVar("_Node", bound=ast.AST)

RETURN = "__return__"
OLD = "__old__"


def old_ref(name: str, at: ast.AST) -> ast.expr:
    """`__old__.<name>` placed at `at`'s position."""
    node = ast.Attribute(value=ast.Name(id=OLD, ctx=ast.Load()), attr=name, ctx=ast.Load())
    return _place(node, at)


def name_ref(name: str, at: ast.AST) -> ast.expr:
    return _place(ast.Name(id=name, ctx=ast.Load()), at)


def _place(node: _Node, at: ast.AST) -> _Node:
    for sub in ast.walk(node):
        ast.copy_location(sub, at)
    return node


def _bound_by(node: ast.AST) -> set[str]:
    """Names a comprehension or lambda binds for its own body."""
    names: set[str] = set()
    if isinstance(node, ast.Lambda):
        a = node.args
        names.update(x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs])
        names.update(x.arg for x in (a.vararg, a.kwarg) if x)
    elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        for gen in node.generators:
            names.update(n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name))
    return names


class _Substitute(ast.NodeTransformer):
    """Replace free occurrences of names by expressions (respecting inner bindings)."""

    def __init__(self, mapping: dict[str, Callable[[ast.Name], ast.expr]]):
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.expr:
        make = self.mapping.get(node.id)
        if make is None or not isinstance(node.ctx, ast.Load):
            return node
        return make(node)

    def _scoped(self, node: ast.AST) -> ast.AST:
        inner = {k: v for k, v in self.mapping.items() if k not in _bound_by(node)}
        return _Substitute(inner).generic_visit(node)

    visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _scoped


def substitute(expr: ast.expr, mapping: dict[str, Callable[[ast.Name], ast.expr]]) -> ast.expr:
    """A copy of expr with each free name in mapping replaced by mapping[name](the_name_node)."""
    return cast(ast.expr, _Substitute(mapping).visit(copy.deepcopy(expr)))


def rename(expr: ast.expr, names: dict[str, str]) -> ast.expr:
    """A copy of expr with free names renamed (e.g. a lambda's `obj` to `self`)."""
    return substitute(expr, {old: _renamer(new) for old, new in names.items() if old != new})


def _renamer(new: str) -> Callable[[ast.Name], ast.expr]:
    return lambda node: name_ref(new, node)


def to_old(expr: ast.expr, names: set[str]) -> ast.expr:
    """A copy of expr evaluated before the call: each free name p in names becomes `__old__.p`."""
    return substitute(expr, {n: (lambda node: old_ref(node.id, node)) for n in names})


class _Attributes(ast.NodeTransformer):
    """Replace `<base>.<attr>` (base a free name) using a function of the attribute node."""

    def __init__(self, base: str, make: Callable[[ast.Attribute], ast.expr]):
        self.base, self.make = base, make

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if isinstance(node.value, ast.Name) and node.value.id == self.base and isinstance(node.ctx, ast.Load):
            return self.make(node)
        return cast(ast.expr, self.generic_visit(node))

    def _scoped(self, node: ast.AST) -> ast.AST:
        return node if self.base in _bound_by(node) else self.generic_visit(node)

    visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _scoped


def replace_attributes(expr: ast.expr, base: str, make: Callable[[ast.Attribute], ast.expr]) -> ast.expr:
    """A copy of expr where every `base.attr` is replaced by make(that attribute node)."""
    return cast(ast.expr, _Attributes(base, make).visit(copy.deepcopy(expr)))


def _same(node: ast.Name) -> ast.expr:
    return node


def free_names(expr: ast.expr, names: set[str]) -> list[ast.Name]:
    """The free occurrences of the given names (for "is base still used bare?" checks)."""
    found: list[ast.Name] = []

    class _Find(_Substitute):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            if node.id in self.mapping:
                found.append(node)
            return node

    _Find({n: _same for n in names}).visit(expr)
    return found


class _Implies(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "implies" and len(node.args) == 2 \
                and not node.keywords:
            cond, then = node.args
            return ast.copy_location(ast.IfExp(cond, then, ast.copy_location(ast.Constant(True), node)), node)
        return node


def rewrite_implies(expr: ast.expr) -> ast.expr:
    """CrossHair's PEP 316 helper: `implies(X, Y)` becomes `Y if X else True`. The tree is
    rewritten in place: it is the caller's own, just parsed from the clause (a deep copy
    of a one-line clause took six times as long as parsing it)."""
    return cast(ast.expr, _Implies().visit(expr))


def shift(expr: ast.expr, line: int, col: int) -> ast.expr:
    """Move a tree parsed from a one-line string to (line, col) of the file."""
    for node in ast.walk(expr):
        if isinstance(node, (ast.expr, ast.stmt, ast.arg, ast.keyword, ast.excepthandler)):
            node.lineno = line
            node.end_lineno = line
            node.col_offset = (node.col_offset or 0) + col
            if node.end_col_offset is not None:
                node.end_col_offset += col
    return expr

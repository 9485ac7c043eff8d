"""Calls that name a base class's method: `super().m(...)`, `super(C, self).m(...)` and
`Base.m(self, ...)`, rewritten into calls of that method on `self`, as Python resolves them.

The rewritten call names a method of the model called `Owner.m` (the method `m` as class
`Owner` defines it), so the z3 backend inlines it like any other method of the class.
A call that lands in an unreadable base becomes a call of an opaque method (its effect
unknown); `super().__init__()` that reaches `object` does nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from contractor.contracts.bases import ClassSource, Linearised, Unreadable, dotted_name
from contractor.contracts.treecopy import copy_tree
from contractor.model import FunctionNode

OBJECT_METHODS = frozenset({"__init__", "__init_subclass__", "__post_init__"})


@dataclass(frozen=True)
class SuperTarget:
    """Where a super call lands: a readable class's own definition, an unreadable base, or
    nothing (object's no-op)."""

    method: str
    owner: Linearised | None  # None: object (no effect)

    @property
    def name(self) -> str:
        return f"{self.owner.name}.{self.method}" if self.owner is not None else ""


def next_definition(mro: list[Linearised], start: int, method: str,
                    defines: Callable[[ClassSource, str], bool]) -> SuperTarget | None:
    """The first class in `mro[start:]` that defines `method` (an unreadable class may)."""
    for c in mro[start:]:
        if isinstance(c, Unreadable) or defines(c, method):
            return SuperTarget(method, c)
    return SuperTarget(method, None) if method in OBJECT_METHODS else None


def _self_call(name: str, call: ast.Call, args: list[ast.expr]) -> ast.Call:
    func = ast.Attribute(ast.Name("self", ast.Load()), name, ast.Load())
    new = ast.Call(func, args, call.keywords)
    return ast.copy_location(new, call)


class SuperRewriter(ast.NodeTransformer):
    """Rewrites one method body of class `mro[owner]` (`explicit` resolves `Base.m`, given
    the dotted class name and the method); `needed` collects where the calls land."""

    def __init__(self, mro: list[Linearised], owner: int, defines: Callable[[ClassSource, str], bool],
                 explicit: Callable[[str, str], SuperTarget | None]):
        self.mro = mro
        self.owner = owner
        self.defines = defines
        self.explicit = explicit
        self.needed: list[SuperTarget] = []

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if not isinstance(func, ast.Attribute):
            return node
        target: SuperTarget | None = None
        args = list(node.args)
        if _is_super(func.value):
            target = next_definition(self.mro, self.owner + 1, func.attr, self.defines)
        elif args and isinstance(args[0], ast.Name) and args[0].id == "self":
            dotted = dotted_name(func.value)
            if dotted == "object" and func.attr in OBJECT_METHODS:
                target, args = SuperTarget(func.attr, None), args[1:]  # object.__init__(self)
            elif dotted is not None:
                target = self.explicit(dotted, func.attr)
                args = args[1:]
        if target is None:
            return node
        if target.owner is None:  # object.__init__(): nothing happens
            return ast.copy_location(ast.Constant(None), node)
        self.needed.append(target)
        return _self_call(target.name, node, args)


def _is_super(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "super" \
        and (not expr.args or (len(expr.args) == 2 and isinstance(expr.args[1], ast.Name)
                               and expr.args[1].id == "self"))


def rewrite(fn: FunctionNode, rewriter: SuperRewriter) -> FunctionNode:
    """A copy of `fn` with its super calls rewritten (the parsed module is left alone)."""
    new: FunctionNode = rewriter.visit(copy_tree(fn))
    ast.fix_missing_locations(new)
    return new


__all__ = ["SuperRewriter", "SuperTarget", "next_definition", "rewrite"]

"""Which list, dict and set arguments a method may change in place.

A postcondition reads its arguments after the call (`lst == OLD.lst + [value]`: icontract
and PEP 316 evaluate it on the argument objects the method was given). The translation
treats containers as values: `lst.append(v)` makes the local `lst` a new value and the
postcondition would read the argument as it was on entry. So a postcondition that names
an argument the method may change is not translated (an honest unknown, never a wrong
`breaks_postcondition`). "May change" is read syntactically and conservatively: every
use of the name other than a plain read (an item, a comparison, iteration, `len(lst)`,
a non-mutating method such as `lst.count(x)`) counts, a call handing it on included.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

MUTABLE_KINDS = ("list", "dict", "set")
# builtins that only read their argument
READING_CALLS = frozenset({"len", "sum", "min", "max", "sorted", "any", "all", "list", "set", "tuple", "dict",
                           "frozenset", "str", "repr", "bool", "int", "float", "isinstance", "enumerate",
                           "zip", "reversed", "print"})
# container methods that do not change the container
READING_METHODS = frozenset({"count", "index", "copy", "get", "keys", "values", "items", "issubset",
                             "issuperset", "isdisjoint", "union", "intersection", "difference",
                             "symmetric_difference"})


def _reads_only(name: ast.Name, parent: ast.AST | None, grand: ast.AST | None) -> bool:
    if not isinstance(name.ctx, ast.Load):
        return False
    if isinstance(parent, ast.Subscript):
        return parent.value is name and isinstance(parent.ctx, ast.Load)
    if isinstance(parent, ast.Attribute):
        return parent.attr in READING_METHODS and isinstance(grand, ast.Call) and grand.func is parent
    if isinstance(parent, ast.Call):
        return isinstance(parent.func, ast.Name) and parent.func.id in READING_CALLS and name in parent.args
    if isinstance(parent, (ast.For, ast.comprehension)):
        return parent.iter is name
    return isinstance(parent, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.BinOp, ast.If, ast.While,
                               ast.IfExp, ast.Assert, ast.FormattedValue, ast.Expr))


def changed_arguments(body: Iterable[ast.stmt], names: set[str]) -> set[str]:
    """Those of `names` some statement of `body` may change in place (or rebind)."""
    parents: dict[int, ast.AST] = {}
    nodes: list[ast.AST] = []
    for stmt in body:
        for node in ast.walk(stmt):
            nodes.append(node)
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
    changed: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Name) and node.id in names and node.id not in changed:
            parent = parents.get(id(node))
            grand = parents.get(id(parent)) if parent is not None else None
            if not _reads_only(node, parent, grand):
                changed.add(node.id)
    return changed


def names_in(expr: ast.expr) -> set[str]:
    """The plain names a condition reads (`OLD.x`'s captures are attributes of `__old__`)."""
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}


__all__ = ["MUTABLE_KINDS", "changed_arguments", "names_in"]

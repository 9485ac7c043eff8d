"""Where the analysed class hands `self` out, so that an untyped value may be the object.

Outside code changes only what it is handed (README, "What is assumed"), and untyped values
are taken to be other objects than `self`. Both fail once `self` is stored where an untyped
value can bring it back: `self.parent = self`, `self.handler = Handler(self)`,
`registry.add(self)`. Then `self.parent.bump()` may change the object's own fields, which
the havoc of an untyped value does not cover, and a transition would be lost. This module
finds the first such place in the class's methods, syntactically; the executor then treats
every call handing outside code an untyped value as reaching `self` (unknown, may).

Not an escape: `self.x` and `self.m(...)`, `return self` (the caller already holds it),
`return Handle(self)` (a handle for the caller: see _returned_handle),
`x is self`, formatting it (`f"{self}"`, `repr(self)`), `with self`, the builtins that
only look at it (`isinstance`, `type`, `id`, `hasattr`, `getattr`, `len`, `bool`,
`hash`, `print`, `super`), `sys.audit` (observes, see outside.py) and a base class's
method called on it (`Base.method(self, ...)`, code of the class).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from contractor.model import ClassModel, TypeRef
from contractor.z3backend.values import Val

_LOOKS_ONLY = frozenset({"isinstance", "issubclass", "type", "id", "hasattr", "getattr", "repr", "str",
                         "format", "hash", "len", "bool", "print", "super", "sys.audit"})


@dataclass(frozen=True)
class Escape:
    """A place where `self` is handed out."""

    method: str
    line: int
    code: str  # the expression handing it out

    def __str__(self) -> str:
        return f"`self` is handed out at line {self.line} ({self.code})"


def self_escape(model: ClassModel) -> Escape | None:
    """The first place (by line) where one of the class's methods hands `self` out, if any."""
    own = {model.name.rsplit(".", 1)[-1], *(b.name.rsplit(".", 1)[-1] for b in model.bases)}
    found: list[Escape] = []
    for name, method in model.methods.items():
        for stmt in method.body:
            parents = {id(c): p for p in ast.walk(stmt) for c in ast.iter_child_nodes(p)}
            for node in ast.walk(stmt):
                if isinstance(node, ast.Name) and node.id == "self" and \
                        _hands_out(node, parents.get(id(node)), own) and not _returned_handle(node, parents):
                    parent = parents.get(id(node), node)
                    found.append(Escape(name, getattr(node, "lineno", 0), ast.unparse(parent)[:60]))
    return min(found, key=lambda e: (e.line, e.method)) if found else None


def _returned_handle(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """`return Handle(self, ...)`: the handle goes to the caller, who may change the object
    through it later, between its method calls (ZipFile.open's writer): outside the
    typestate's model of an object changed by its own methods (README, "What is assumed")."""
    parent = parents.get(id(node))
    while isinstance(parent, ast.Call) and node in parent.args:
        node, parent = parent, parents.get(id(parent))
    return isinstance(parent, ast.Return) and isinstance(node, ast.Call)


def _hands_out(node: ast.Name, parent: ast.AST | None, own: set[str]) -> bool:
    if isinstance(parent, ast.Attribute) and parent.value is node:
        return False  # self.x, self.m(...)
    if isinstance(parent, (ast.Return, ast.FormattedValue, ast.withitem)) or parent is None:
        return False
    if isinstance(parent, ast.Compare) and all(isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops):
        return False
    if isinstance(parent, ast.Call) and node in parent.args:
        func = parent.func
        called = ast.unparse(func)
        if called in _LOOKS_ONLY:
            return False
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in own:
            return False  # Base.method(self, ...): the class's own code
    return True


def may_be_self(v: object) -> bool:
    """Whether a value is (or holds) an untyped object, which may be `self` once it escaped."""
    return isinstance(v, Val) and (v.kind == "opaque" or _holds_untyped(v.type))


def _holds_untyped(t: TypeRef) -> bool:
    return any(a.kind in ("opaque", "any") or _holds_untyped(a) for a in t.args)

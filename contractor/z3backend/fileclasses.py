"""Plain classes of the analysed file, whose instances z3 knows a little about.

`Node(value)`, where `Node` is a class of the analysed file, runs code outside the analysed
class (its `__init__`, which may raise, and may change what it is handed), but what it
returns is known when the class is *plain*: bound once at module level by a `class`
statement without decorators or keywords (no metaclass), whose bases are `object` or plain
classes of the file, none defining `__new__`. Its result is then a new object, never None,
and true unless the class (or a base) defines `__bool__` or `__len__`.
"""

from __future__ import annotations

import ast
import enum


class Truth(enum.Enum):
    """The truth of a new instance of a plain class."""

    TRUE = "true"  # no __bool__ or __len__: every instance is true
    DECIDED_BY_IT = "decided by the instance"  # __bool__ or __len__ answers


def plain_classes(module: ast.Module) -> dict[str, Truth]:
    """Each plain class of the file, by name, with the truth of its new instances; read once
    per class analysed (outside.py asks it at every call of a module-level name)."""
    bound: dict[str, list[ast.stmt]] = {}
    for stmt in module.body:
        for name in _names_bound(stmt):
            bound.setdefault(name, []).append(stmt)
    out: dict[str, Truth] = {}
    for name in bound:
        truth = _instance_truth(bound, name, 0)
        if truth is not None:
            out[name] = truth
    return out


def _names_bound(stmt: ast.stmt) -> set[str]:
    if isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return {stmt.name}
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return {a.asname or a.name.split(".")[0] for a in stmt.names}
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _instance_truth(bound: dict[str, list[ast.stmt]], name: str, depth: int) -> Truth | None:
    """How true a new `name(...)` is, if `name` is a plain class of the file (else None)."""
    stmts = bound.get(name, [])
    if depth > 8 or len(stmts) != 1 or not isinstance(stmts[0], ast.ClassDef):
        return None
    cls = stmts[0]
    if cls.decorator_list or cls.keywords:
        return None
    defined = {s.name for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    defined |= {t.id for s in cls.body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)}
    if "__new__" in defined:
        return None
    truth = Truth.DECIDED_BY_IT if defined & {"__bool__", "__len__"} else Truth.TRUE
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id == "object":
            continue
        if not isinstance(base, ast.Name):
            return None
        inherited = _instance_truth(bound, base.id, depth + 1)
        if inherited is None:
            return None
        if inherited is Truth.DECIDED_BY_IT:
            truth = Truth.DECIDED_BY_IT
    return truth

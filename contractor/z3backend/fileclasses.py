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


def _bindings(module: ast.Module, name: str) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for stmt in module.body:
        if isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
            out.append(stmt)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)) and any(
                (a.asname or a.name.split(".")[0]) == name for a in stmt.names):
            out.append(stmt)
        elif any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                 for n in ast.walk(stmt) if not isinstance(stmt, (ast.ClassDef, ast.FunctionDef,
                                                                   ast.AsyncFunctionDef))):
            out.append(stmt)
    return out


def instance_truth(module: ast.Module, name: str, depth: int = 0) -> Truth | None:
    """How true a new `name(...)` is, if `name` is a plain class of the file (else None)."""
    bound = _bindings(module, name)
    if depth > 8 or len(bound) != 1 or not isinstance(bound[0], ast.ClassDef):
        return None
    cls = bound[0]
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
        inherited = instance_truth(module, base.id, depth + 1)
        if inherited is None:
            return None
        if inherited is Truth.DECIDED_BY_IT:
            truth = Truth.DECIDED_BY_IT
    return truth

"""Constants of a class and of its module, read from literals (never executed).

A class-level `NAME = <literal>` (or `NAME: ClassVar[...]`/`Final[...] = <literal>`) that no
method of the class ever assigns through an attribute (`self.NAME = ...`, `cls.NAME += ...`)
is a constant, not a field: `self.NAME`, `cls.NAME` and `ClassName.NAME` read its value.
A module-level `NAME = <literal>` is a module constant. Literals are what `ast.literal_eval`
accepts, restricted to immutable values (numbers, strings, booleans and tuples of them): a
list, dict or set could be mutated through the name, so it is no constant.
"""

from __future__ import annotations

import ast
from typing import Any

from contractor.contracts.types import is_classvar


def literal(node: ast.expr | None) -> tuple[bool, Any]:
    """(True, value) for an immutable literal (see the module docstring), else (False, None)."""
    if node is None:
        return False, None
    try:
        v = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None
    return immutable(v), v


def immutable(v: Any) -> bool:
    if isinstance(v, tuple):
        return all(immutable(x) for x in v)
    return isinstance(v, (bool, int, float, str))


# metaclasses known not to change the class attributes a class body binds
_PLAIN_METACLASSES = frozenset({"type", "ABCMeta", "DBCMeta"})


def rebinds_class_attributes(cls: ast.ClassDef) -> bool:
    """Whether the class is made by a metaclass that may change what its body binds (and its
    subclasses' bodies: jinja2's NodeType sets `abstract = False` on every Node subclass that
    does not say otherwise), or defines `__init_subclass__` (which may do the same to its
    subclasses), so class-level values are not those the source shows."""
    if any(isinstance(s, ast.FunctionDef) and s.name == "__init_subclass__" for s in cls.body):
        return True
    for k in cls.keywords:
        if k.arg == "metaclass":
            target = k.value
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if name not in _PLAIN_METACLASSES:
                return True
    return False


def _is_final(ann: ast.expr) -> bool:
    target = ann.value if isinstance(ann, ast.Subscript) else ann
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    return name == "Final"


def _assigned_attributes(cls: ast.ClassDef) -> set[str]:
    """Attribute names some method of the class assigns, augments or deletes (on any object)."""
    names: set[str] = set()
    for fn in cls.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif isinstance(node, ast.Delete):
                targets = list(node.targets)
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Attribute):
                        names.add(sub.attr)
    return names


def class_constants(cls: ast.ClassDef) -> dict[str, Any]:
    """The class's constants by name (see the module docstring). An annotated name without
    ClassVar/Final is a field with a default, as PEP 526 reads it."""
    written = _assigned_attributes(cls)
    out: dict[str, Any] = {}
    for stmt in cls.body:
        value: ast.expr | None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name, value = stmt.targets[0].id, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if not (is_classvar(stmt.annotation) or _is_final(stmt.annotation)):
                continue  # `x: int = 0` declares an instance field with a default
            name, value = stmt.target.id, stmt.value
        else:
            continue
        ok, v = literal(value)
        if ok and name not in written:
            out[name] = v
        elif name in out:  # assigned twice at class level: the last assignment counts
            del out[name]
    return out


def module_constants(module: ast.Module) -> dict[str, Any]:
    """Module-level `NAME = <literal>` assignments (the last one of each name)."""
    out: dict[str, Any] = {}
    for stmt in module.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name, value = stmt.targets[0].id, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            name, value = stmt.target.id, stmt.value
        else:
            continue
        ok, v = literal(value)
        if ok:
            out[name] = v
        else:
            out.pop(name, None)
    return out

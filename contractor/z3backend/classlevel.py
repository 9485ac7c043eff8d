"""The names a class body (or a base class's) binds at class level, the defaults an
instance field reads until it is set: the value where it is a literal z3 models
(`-1` and `(0, 1)` too, as `ast.literal_eval` reads them), else None (not translated)."""

from __future__ import annotations

import ast

from contractor.contracts.constants import literal, rebinds_class_attributes
from contractor.errors import UnsupportedConstruct
from contractor.model import ClassModel
from contractor.z3backend import values as V
from contractor.z3backend.values import Val


def class_bindings(model: ClassModel) -> dict[str, ast.expr]:
    """Each class-level `name = value` (`name: T = value`) of the class and its bases: the
    value's syntax by name as instances read it (private names mangled per class); the
    last binding counts. No term is made (z3's term ids stay those of a run without it)."""
    from contractor.contracts.inherit import mangle

    out: dict[str, ast.expr] = {}
    lineage = [b.node for b in reversed(model.bases) if b.node is not None] + [model.node]
    several = len(lineage) > 1  # private names are per class (inherit.py mangles them so)
    for owner in lineage:
        for stmt in owner.body:
            targets: list[ast.expr] = []
            if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                targets, value = [stmt.target], stmt.value
            elif isinstance(stmt, ast.Assign):
                targets, value = list(stmt.targets), stmt.value
            for t in targets:
                if isinstance(t, ast.Name):
                    out[mangle(t.id, owner.name) if several else t.id] = value
    return out


def class_defaults(model: ClassModel) -> dict[str, Val | None]:
    """class_bindings' values as z3 values, None where a value is not translated (every
    one, where a metaclass of the lineage may change them)."""
    rebound = any(rebinds_class_attributes(n) for n in [model.node] + [b.node for b in model.bases if b.node])
    return {name: None if rebound else _default(value) for name, value in class_bindings(model).items()}


def _default(value: ast.expr) -> Val | None:
    if isinstance(value, ast.Constant):  # None too
        v = value.value
    else:
        ok, v = literal(value)
        if not ok:
            return None
    try:
        return V.const(v)
    except UnsupportedConstruct:
        return None


__all__ = ["class_bindings", "class_defaults"]

"""`hasattr(self, "name")` decided from the class's source: the analysed objects are of
exactly the analysed class, so a name its class body (or a readable base's) defines is
there, and a name defined nowhere is not, unless the class could make attributes at run
time (`__getattr__`, `setattr(self, ...)`, `self.__dict__`, `vars(self)`), a base cannot
be read, the name is a property or descriptor (its getter may raise AttributeError), or
the name is a field (whether it is set depends on the path): those are left undecided.
"""

from __future__ import annotations

import ast

from contractor.model import ClassModel

_OBJECT_NAMES = frozenset(dir(object))
_DYNAMIC_HOOKS = frozenset({"__getattr__", "__getattribute__", "__setattr__", "__dict__", "__slots__"})


_PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod"})


def class_level_names(cls: ast.ClassDef) -> tuple[set[str], set[str]]:
    """The names a class body defines, split in two: plain ones (undecorated methods,
    nested classes, class attributes assigned a value that is no call) and the others,
    whose reading runs code that may raise AttributeError (properties, descriptors)."""
    plain: set[str] = set()
    others: set[str] = set()
    for stmt in cls.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            simple = all(isinstance(d, ast.Name) and d.id in _PLAIN_DECORATORS for d in stmt.decorator_list)
            (plain if simple else others).add(stmt.name)
        elif isinstance(stmt, ast.ClassDef):
            plain.add(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            has_call = any(isinstance(n, ast.Call) for n in ast.walk(stmt.value))
            (others if has_call else plain).update(names)
        elif not isinstance(stmt, (ast.Expr, ast.Pass, ast.AnnAssign)):
            others.add("__dict__")  # an if/for/try at class level: names made conditionally
    return plain, others


def _makes_attributes(cls: ast.ClassDef) -> bool:
    """Whether the class body could give its objects attributes by a computed name."""
    for node in ast.walk(cls):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "vars") \
                and node.args and not (isinstance(node.args[0], ast.Name) and node.args[0].id not in ("self", "cls")):
            return True
        if isinstance(node, ast.Attribute) and node.attr == "__dict__":
            return True
    return False


def static_hasattr(model: ClassModel, name: str) -> bool | None:
    """`hasattr(self, name)` for an object of exactly `model`'s class; None: undecided."""
    if name in _OBJECT_NAMES:
        return True
    bodies = [model.node] + [b.node for b in model.bases]
    if any(b is None for b in bodies):
        return None  # a base that cannot be read
    defined: set[str] = set()
    for body in bodies:  # in method resolution order: the first definition of a name counts
        assert body is not None
        plain, others = class_level_names(body)
        if _makes_attributes(body) or others & _DYNAMIC_HOOKS or plain & _DYNAMIC_HOOKS:
            return None
        if name in others and name not in defined:
            return None
        defined |= plain | others
    if name in defined:
        return True
    fields = set(model.fields) | {f"_{model.name.lstrip('_')}{f}" for f in model.fields if f.startswith("__")}
    if name in fields or name.lstrip("_") in {f.lstrip("_") for f in fields}:
        return None  # an instance attribute: set or not depending on the path
    return False


__all__ = ["class_level_names", "static_hasattr"]

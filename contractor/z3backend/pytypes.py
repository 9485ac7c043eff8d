"""Untyped values whose Python type is known exactly: a bytes constant, and what bytes'
own methods and operators give (`b"".join(parts)`, `b"%s" % x`, `s.encode()`).

z3 does not model bytes: such a value stays an untyped object (opaque.py), but its type
is exactly `bytes` (never a subclass), so `hasattr(v, "read")` and `isinstance(v, C)`
have one answer, decided here instead of being a value outside code chose. Code that
sniffs its argument (`if hasattr(data, "read"): ...` in http.client's `send`) then
follows only the branch the type takes. `C` is decided where it is a builtin class or an
attribute of a module the analysed module imports by its own name and that the running
interpreter has already imported (`io.TextIOBase`, `collections.abc.Iterable`): nothing
is imported for it. Anything else keeps the untyped answer (a fresh Boolean). A value z3
models (str, int, float, bool) is an instance of the superclasses of every class it may
have at run time (a float-typed value may be an int): that answer (True) is decided too.
"""

from __future__ import annotations

import ast
import builtins
import importlib
from typing import TYPE_CHECKING

import z3

from contractor.z3backend.values import Val

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
else:
    _Host = object

# bytes methods whose result is a bytes object (where they return at all)
BYTES_RESULTS = frozenset({"join", "replace", "strip", "lstrip", "rstrip", "lower", "upper", "title",
                           "capitalize", "swapcase", "center", "ljust", "rjust", "zfill", "expandtabs",
                           "translate", "removeprefix", "removesuffix", "__mod__", "__add__"})


# the classes a value z3 models may have at run time (or subclasses of them: a parameter
# typed by its default, `mode="r"`, passes `isinstance(mode, str)`); a float-typed value
# may hold an int or a bool (`x: float = 0`, a field assigned both 0 and 0.5), an
# int-typed one a bool
MODELLED_CLASSES: dict[str, tuple[type, ...]] = {"str": (str,), "int": (int,), "float": (int, float),
                                                 "bool": (bool,)}

# standard modules whose classes an isinstance test is decided against (importing one runs
# no user code and has no visible effect)
DECIDED_MODULES = frozenset({
    "abc", "array", "collections", "collections.abc", "datetime", "decimal", "enum", "fractions",
    "io", "numbers", "os", "pathlib", "queue", "re", "socket", "ssl", "threading", "types", "typing",
    "email.message", "zipfile", "tarfile", "http.client", "urllib.parse",
})


class KnownTypes(_Host):
    """Mixin of Executor: the exact Python types of some untyped values, and the hasattr /
    isinstance answers they decide."""

    def note_type(self, v: Val, cls: type) -> Val:
        """`v` (an untyped value) is exactly of class `cls`."""
        if v.kind == "opaque" and isinstance(v.z, z3.ExprRef):
            self.known_types[v.z.get_id()] = (v.z, cls)  # the term kept alive with its id
        return v

    def known_type(self, v: object) -> type | None:
        if not isinstance(v, Val) or v.kind != "opaque" or not isinstance(v.z, z3.ExprRef):
            return None
        found = self.known_types.get(v.z.get_id())
        return None if found is None else found[1]

    def decided_hasattr(self, v: object, name: str) -> bool | None:
        cls = self.known_type(v)
        return None if cls is None else hasattr(cls, name)

    def decided_isinstance(self, v: object, classes: ast.expr) -> bool | None:
        cls = self.known_type(v)
        modelled = MODELLED_CLASSES.get(v.kind) if cls is None and isinstance(v, Val) else None
        resolved = None if cls is None and modelled is None else self.resolve_classes(classes)
        if resolved is None:
            return None
        if cls is not None:
            return issubclass(cls, resolved)
        # a value z3 models may be of a subclass of each class it may have: only True is decided
        return True if modelled is not None and all(issubclass(c, resolved) for c in modelled) else None

    def resolve_classes(self, node: ast.expr) -> tuple[type, ...] | None:
        """The classes `node` names (a name, a dotted name, or a tuple of them), where this
        module decides them (see the module docstring); None otherwise."""
        if isinstance(node, ast.Tuple):
            parts = [self.resolve_classes(e) for e in node.elts]
            return None if any(p is None for p in parts) else tuple(c for p in parts if p for c in p)
        path: list[str] = []
        while isinstance(node, ast.Attribute):
            path.insert(0, node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id in self.frame.locals or node.id in self.constants:
            return None
        memo = self.__dict__
        if "_module_names" not in memo:
            memo["_module_names"] = module_names(self.model.module)
        imported, other = memo["_module_names"]
        if node.id in other:
            return None
        found: object = None
        if not path:
            found = None if node.id in imported else getattr(builtins, node.id, None)
        else:
            for k in range(len(path), 0, -1):  # `collections.abc.Iterable`: the longest module
                name = ".".join([node.id, *path[:k - 1]])
                if name in imported and name in DECIDED_MODULES:
                    found = importlib.import_module(name)
                    for attr in path[k - 1:]:
                        found = getattr(found, attr, None)
                    break
        return (found,) if isinstance(found, type) else None


def result_type(receiver: type | None, method: str) -> type | None:
    """The exact type of `receiver.method(...)`'s result, where this module knows it."""
    if receiver is bytes and method in BYTES_RESULTS:
        return bytes
    return None


def module_names(module: ast.Module) -> tuple[frozenset[str], frozenset[str]]:
    """The modules the module imports as `import a.b` (a and a.b), and every other name its
    top level binds (assignments, defs, classes, `from` imports, `import x as y`): a name
    in both is not taken to be the module."""
    imported: set[str] = set()
    other: set[str] = set()
    todo: list[ast.stmt] = list(module.body)
    while todo:
        stmt = todo.pop()
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                if a.asname is None:
                    parts = a.name.split(".")
                    imported.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
                else:
                    other.add(a.asname)
            continue
        if isinstance(stmt, ast.ImportFrom):
            other.update(a.asname or a.name for a in stmt.names)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            other.add(stmt.name)
            continue
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                other.add(n.id)
        for field in ("body", "orelse", "finalbody", "handlers"):  # if/try/with at top level
            for sub in getattr(stmt, field, []):
                if isinstance(sub, ast.ExceptHandler):
                    todo.extend(sub.body)
                    if sub.name:
                        other.add(sub.name)
                else:
                    todo.append(sub)
    return frozenset(imported), frozenset(other)


__all__ = ["BYTES_RESULTS", "KnownTypes", "module_names", "result_type"]

"""The base classes of a class, found in source without importing anything, and their
method resolution order (Python's C3 linearisation).

A base is looked up where Python would find it: a class of the same module, or one
imported (`from pkg.mod import Base`, `import pkg.mod` then `pkg.mod.Base`, relative
imports), following re-exports through other modules. A base whose source cannot be
read (a C extension, a module not found, a name bound at run time) is *unreadable*: it
stays in the MRO as a leaf, and what it could define is unknown to the analysis.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from pathlib import Path

from contractor.errors import InputError, Location
from contractor.target import all_classes, display, find_module, parse_file, top_level_classes

# bases that contribute nothing the analysis models (typing markers, abc, contract mixins)
NEUTRAL = frozenset({"object", "Generic", "Protocol", "ABC", "DBC", "typing.Generic", "typing.Protocol",
                     "abc.ABC", "icontract.DBC"})
MAX_REEXPORTS = 6
BUILTIN_CLASSES = frozenset(n for n, v in vars(builtins).items() if isinstance(v, type))


@dataclass(frozen=True)
class ClassSource:
    """A readable class: its node and the file it is in."""

    name: str
    path: Path
    display_path: str
    source: str
    module: ast.Module
    node: ast.ClassDef

    @property
    def key(self) -> tuple[str, str]:
        return (str(self.path), self.name)


@dataclass(frozen=True)
class Unreadable:
    """A base class whose source contractor cannot read."""

    name: str  # as written in the class statement
    reason: str
    location: Location

    @property
    def key(self) -> tuple[str, str]:
        return ("<unreadable>", self.name)


Linearised = ClassSource | Unreadable


def dotted_name(expr: ast.expr) -> str | None:
    """`a.b.c` for an attribute chain over a name, else None."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    return ".".join([expr.id, *reversed(parts)])


def _package_of(path: Path, level: int) -> Path:
    folder = path.resolve().parent  # a relative path's parents stop at "."
    for _ in range(level - 1):
        folder = folder.parent
    return folder


class BaseResolver:
    """Finds the ClassSource of base-class expressions, caching parsed modules."""

    def __init__(self, root: Path):
        self.root = root
        self._modules: dict[Path, tuple[str, ast.Module]] = {}

    def module_at(self, path: Path) -> tuple[str, ast.Module]:
        if path not in self._modules:
            self._modules[path] = parse_file(path, display(path))
        return self._modules[path]

    def _module_file(self, dotted: str, importer: Path, level: int) -> Path | None:
        if level:
            stem = _package_of(importer, level).joinpath(*dotted.split(".")) if dotted else \
                _package_of(importer, level)
            for candidate in (stem.with_name(stem.name + ".py"), stem / "__init__.py"):
                if candidate.is_file():
                    return candidate
            return None
        return find_module(dotted, self.root)

    def lookup(self, name: str, path: Path, depth: int = 0) -> ClassSource | str:
        """The class `name` (possibly dotted) as seen from module `path`, or why not."""
        if depth > MAX_REEXPORTS:
            return f"{name}: too many re-exports"
        source, module = self.module_at(path)
        head, _, rest = name.partition(".")
        if not rest:
            classes = top_level_classes(module)
            if head in classes:
                return ClassSource(head, path, display(path), source, module, classes[head])
        for node in module.body:
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if (alias.asname or alias.name) != head:
                        continue
                    where = self._module_file(node.module or "", path, node.level)
                    if where is None:
                        return f"module {'.' * node.level}{node.module or ''} has no readable source"
                    return self.lookup(alias.name + ("." + rest if rest else ""), where, depth + 1) \
                        if not (where.name == "__init__.py" and self._is_submodule(where, alias.name)) \
                        else self._in_submodule(where, alias.name, rest, depth)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    if bound != head or not rest:
                        continue
                    dotted = alias.name if alias.asname else name.rsplit(".", 1)[0]
                    cls_name = name[len(head) + 1:] if alias.asname else name[len(dotted) + 1:]
                    where = self._module_file(dotted, path, 0)
                    if where is None:
                        return f"module {dotted} has no readable source"
                    return self.lookup(cls_name, where, depth + 1)
        return f"{name} is not a class defined or imported at the top of {display(path)}"

    @staticmethod
    def _is_submodule(init: Path, name: str) -> bool:
        return (init.parent / f"{name}.py").is_file() or (init.parent / name / "__init__.py").is_file()

    def _in_submodule(self, init: Path, sub: str, rest: str, depth: int) -> ClassSource | str:
        if not rest:
            return f"{sub} is a module, not a class"
        where = init.parent / f"{sub}.py"
        where = where if where.is_file() else init.parent / sub / "__init__.py"
        return self.lookup(rest, where, depth + 1)

    @staticmethod
    def _sibling(cls: ClassSource, name: str) -> ClassSource | None:
        """For a nested class, a class of the enclosing class's body named `name` (the body
        a nested class statement's bases are evaluated in)."""
        for dotted, node in all_classes(cls.module).items():
            if node is not cls.node or "." not in dotted:
                continue
            outer = all_classes(cls.module)[dotted.rsplit(".", 1)[0]]
            for n in outer.body:
                if isinstance(n, ast.ClassDef) and n.name == name and n is not cls.node:
                    return ClassSource(n.name, cls.path, cls.display_path, cls.source, cls.module, n)
        return None

    @staticmethod
    def _binds(module: ast.Module, name: str) -> bool:
        """Whether the module defines or imports `name` at the top (shadowing a builtin)."""
        for node in module.body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                return True
            if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                    (a.asname or a.name.split(".")[0]) == name for a in node.names):
                return True
        return False

    def bases_of(self, cls: ClassSource) -> list[Linearised]:
        out: list[Linearised] = []
        for expr in cls.node.bases:
            target = expr.value if isinstance(expr, ast.Subscript) else expr  # Generic[T], Base[int]
            name = dotted_name(target)
            loc = Location(cls.display_path, expr.lineno, expr.col_offset)
            if name is None:
                out.append(Unreadable(ast.unparse(expr), "not a plain class name", loc))
                continue
            if name in NEUTRAL or name.rsplit(".", 1)[-1] in NEUTRAL:
                continue
            if "." not in name and name in BUILTIN_CLASSES and not self._binds(cls.module, name):
                out.append(Unreadable(name, "a built-in class (written in C)", loc))
                continue
            sibling = self._sibling(cls, name)
            if sibling is not None:
                out.append(sibling)
                continue
            try:
                found = self.lookup(name, cls.path)
            except InputError as exc:
                found = f"its module cannot be read ({exc})"
            out.append(found if isinstance(found, ClassSource) else Unreadable(name, found, loc))
        return out


def c3(cls: ClassSource, resolver: BaseResolver) -> list[Linearised]:
    """The class's method resolution order (without `object`), as Python computes it."""
    memo: dict[tuple[str, str], list[Linearised]] = {}

    def mro(c: Linearised, stack: tuple[tuple[str, str], ...]) -> list[Linearised]:
        if isinstance(c, Unreadable):
            return [c]
        if c.key in memo:
            return memo[c.key]
        if c.key in stack:
            raise InputError(f"class {c.name} inherits from itself", Location(c.display_path, c.node.lineno, 0),
                             "class statement")
        bases = resolver.bases_of(c)
        seqs = [list(mro(b, stack + (c.key,))) for b in bases] + [list(bases)]
        result: list[Linearised] = [c]
        while any(seqs):
            seqs = [s for s in seqs if s]
            for seq in seqs:
                head = seq[0]
                if not any(head.key in {x.key for x in s[1:]} for s in seqs):
                    break
            else:
                raise InputError(f"class {c.name}: no consistent method resolution order for its bases "
                                 "(Python refuses this class too)",
                                 Location(c.display_path, c.node.lineno, c.node.col_offset), "class statement")
            result.append(head)
            seqs = [s[1:] if s[0].key == head.key else s for s in seqs]
        memo[c.key] = result
        return result

    return mro(cls, ())


__all__ = ["BaseResolver", "ClassSource", "Unreadable", "Linearised", "c3", "dotted_name", "NEUTRAL"]

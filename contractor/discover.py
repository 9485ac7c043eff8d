"""Several targets per run: a class (`file.py:Class`, `module:Class`, `Class`), or every class
with contracts or raise guards in a file, a folder or a package (`contractor infer src/`).

Only the source is read (ast); nothing is imported. Each class's output folder is named
by its module path and name (`samples.door.Door`), so equal class names in different
modules do not overwrite each other.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from contractor.errors import InputError
from contractor.target import (
    ResolvedTarget,
    display,
    find_module,
    parse_file,
    python_files,
    resolve,
    top_level_classes,
)

_CONTRACT_LINE = re.compile(r"^\s*(pre|post|inv)(\[[^\]]*\])?:", re.MULTILINE)
_CONTRACT_DECORATORS = frozenset({"require", "ensure", "invariant", "pre", "post", "inv", "raises", "snapshot"})
_NOT_ANALYSED_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "Exception",
                                 "BaseException", "Protocol", "TypedDict", "NamedTuple",
                                 "TestCase", "IsolatedAsyncioTestCase"})  # tests, not protocols
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute):
        return target.attr
    return target.id if isinstance(target, ast.Name) else ""


def _has_contract_decorator(node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(_decorator_name(d) in _CONTRACT_DECORATORS for d in node.decorator_list)


def _docstring_contract(node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    doc = ast.get_docstring(node)
    return bool(doc and (_CONTRACT_LINE.search(doc) or ":raises" in doc))


def _raises(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A raise guard or leading assert: `raise` or `assert` in the method's own body (not in
    a function, lambda or class defined inside it: those raise when called, if ever)."""
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Raise, ast.Assert)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return False


def has_contracts(cls: ast.ClassDef) -> bool:
    """Whether a class states contracts (any dialect) or guards a public method with a raise."""
    bases = {b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in cls.bases}
    if bases & _NOT_ANALYSED_BASES or any(b.endswith(("Error", "Exception")) for b in bases):
        return False
    if _has_contract_decorator(cls) or _docstring_contract(cls):
        return True
    for fn in cls.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if _has_contract_decorator(fn) or _docstring_contract(fn):
            return True
        if (not fn.name.startswith("_") or fn.name == "__init__") and _raises(fn):
            return True
    return False


def module_qualified(display_path: str, class_name: str) -> str:
    """`samples/door.py`, `Door` -> `samples.door.Door` (a file outside the working folder: its stem)."""
    shown = Path(display_path)
    parts = list(shown.with_suffix("").parts) if not shown.is_absolute() else [shown.stem]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join([p for p in parts if p not in (".", "..")] + [class_name])


def qualified_name(resolved: ResolvedTarget) -> str:
    """The class's module path and name, e.g. `samples.door.Door` (its output folder's name)."""
    return module_qualified(resolved.display_path, resolved.name)


def classes_in_file(path: Path) -> list[ResolvedTarget]:
    """The top-level classes of a file that have contracts or raise guards, in source order."""
    shown = display(path)
    source, module = parse_file(path, shown)
    return [ResolvedTarget(path, shown, source, module, node)
            for node in top_level_classes(module).values() if has_contracts(node)]


def _files(path: Path) -> list[Path]:
    return [path] if path.is_file() else python_files(path)


def _is_path(target: str, root: Path) -> Path | None:
    candidate = Path(target) if Path(target).is_absolute() else root / target
    if ":" not in target and (candidate.is_dir() or (target.endswith(".py") and candidate.is_file())):
        return candidate
    return None


def expand(targets: Sequence[str], root: Path) -> list[ResolvedTarget]:
    """The classes the targets name, each once, in the order given (a folder's in path order).

    A target that names a class must resolve (InputError otherwise); a file, folder or
    package contributes its classes with contracts or raise guards and must have some.
    """
    found: list[ResolvedTarget] = []
    seen: set[tuple[Path, str]] = set()

    def add(items: Iterable[ResolvedTarget]) -> None:
        for item in items:
            key = (item.path.resolve(), item.name)
            if key not in seen:
                seen.add(key)
                found.append(item)

    for target in targets:
        path = _is_path(target, root)
        if path is None and _DOTTED.match(target):
            module = find_module(target, root)
            if module is not None:
                path = module.parent if module.name == "__init__.py" else module
        if path is None:
            add([resolve(target, root)])
            continue
        classes = [c for f in _files(path) for c in classes_in_file(f)]
        if not classes:
            raise InputError(f"{target}: no class with contracts or raise guards in {display(path)}",
                             construct="target")
        add(classes)
    return found


__all__ = ["classes_in_file", "expand", "has_contracts", "module_qualified", "qualified_name"]

"""The class chooser's list: the classes under a folder that have contracts or raise guards.

Files are parsed with `ast`, never imported. A class qualifies when it, or one of its
methods, has contract decorators (icontract, deal), PEP 316 docstring lines (`pre:`,
`post:`, `inv:`), `assert` statements or `raise` statements in its methods.
"""

from __future__ import annotations

import ast
import enum
import re
from dataclasses import dataclass
from pathlib import Path

from contractor.target import display, python_files

_DOC_LINE = re.compile(r"^\s*:?(pre|post|inv)(\[[\w\s,.]*\])?::?", re.MULTILINE)
_ICONTRACT = frozenset({"require", "ensure", "invariant", "snapshot"})
_DEAL = frozenset({"pre", "post", "ensure", "inv", "raises", "reason"})


class Evidence(enum.Enum):
    """Why a class is listed."""

    ICONTRACT = "icontract"
    DEAL = "deal"
    PEP316 = "pep316"
    ASSERTS = "asserts"
    RAISE_GUARDS = "raise guards"


@dataclass(frozen=True)
class ClassEntry:
    """A class the view can analyse: its target string, where it is and why it is listed."""

    name: str
    path: str  # as displayed (relative to the working folder when under it)
    line: int
    evidence: tuple[Evidence, ...]

    @property
    def target(self) -> str:
        return f"{self.path}:{self.name}"

    def to_dict(self) -> dict:
        return {"name": self.name, "path": self.path, "line": self.line, "target": self.target,
                "evidence": [e.value for e in self.evidence]}


def _decorator_evidence(dec: ast.expr) -> Evidence | None:
    func = dec.func if isinstance(dec, ast.Call) else dec
    if isinstance(func, ast.Name):  # from icontract import require
        return Evidence.ICONTRACT if func.id in _ICONTRACT - {"snapshot"} else None
    if not isinstance(func, ast.Attribute):
        return None
    module = func.value.id if isinstance(func.value, ast.Name) else ""
    if module == "icontract" and func.attr in _ICONTRACT:
        return Evidence.ICONTRACT
    if module == "deal" and func.attr in _DEAL:
        return Evidence.DEAL
    return None


def class_evidence(node: ast.ClassDef) -> tuple[Evidence, ...]:
    """The kinds of contract the class shows, in Evidence order (empty: none)."""
    found: set[Evidence] = set()
    functions = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for owner in [node, *functions]:
        found.update(e for e in map(_decorator_evidence, owner.decorator_list) if e)
        doc = ast.get_docstring(owner, clean=False)
        if doc and _DOC_LINE.search(doc):
            found.add(Evidence.PEP316)
    for fn in functions:
        for inner in ast.walk(fn):
            if isinstance(inner, ast.Assert):
                found.add(Evidence.ASSERTS)
            elif isinstance(inner, ast.Raise) and inner.exc is not None:
                found.add(Evidence.RAISE_GUARDS)
    return tuple(e for e in Evidence if e in found)


def classes_in_file(path: Path) -> list[ClassEntry]:
    """The qualifying top-level classes of one file ([] when it cannot be read or parsed)."""
    try:
        module = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return []
    shown = display(path)
    entries = []
    for node in module.body:
        if isinstance(node, ast.ClassDef):
            evidence = class_evidence(node)
            if evidence:
                entries.append(ClassEntry(node.name, shown, node.lineno, evidence))
    return entries


FileKey = tuple[int, int]  # (mtime in ns, size): a file not changed since it was parsed


def discover(root: Path, cache: dict[Path, tuple[FileKey, list[ClassEntry]]] | None = None) -> list[ClassEntry]:
    """The qualifying classes under `root` (a folder, or one .py file), by path then line.

    With `cache` (kept by the caller between calls), unchanged files are not parsed again.
    """
    files = [root] if root.is_file() else python_files(root)
    found: list[ClassEntry] = []
    for path in files:
        try:
            stat = path.stat()
        except OSError:
            continue
        key = (stat.st_mtime_ns, stat.st_size)
        if cache is not None and path in cache and cache[path][0] == key:
            found.extend(cache[path][1])
            continue
        entries = classes_in_file(path)
        if cache is not None:
            cache[path] = (key, entries)
        found.extend(entries)
    return found


__all__ = ["ClassEntry", "Evidence", "class_evidence", "classes_in_file", "discover"]

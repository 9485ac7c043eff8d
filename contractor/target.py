"""Resolve a target (`file.py:Class`, `package.module:Class` or a bare `Class`) to its source.

Nothing is imported: modules are found on disk by searching the root and `sys.path`,
and classes are found by parsing files with `ast`.
"""

from __future__ import annotations

import ast
import os
import re
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

from contractor.errors import InputError, Location, TargetNotFound

SKIP_DIRS = frozenset({
    ".git", ".venv", "venv", "env", "site-packages", "build", "dist", "output",
    "__pycache__", "node_modules", ".tox", ".hypothesis",
})
_CLASS_LINE = re.compile(r"^class\s+([A-Za-z_]\w*)", re.MULTILINE)
_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_CLASS_PATH = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")  # Outer.Inner
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


@dataclass(frozen=True)
class ResolvedTarget:
    """A class found in a source file, with the file's text and parse tree."""

    path: Path
    display_path: str  # relative to the working directory when possible
    source: str
    module: ast.Module
    node: ast.ClassDef

    @property
    def name(self) -> str:
        return self.node.name


def display(path: Path) -> str:
    """The path relative to the working directory if it lies under it, else absolute."""
    absolute = path.resolve()
    try:
        return absolute.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(absolute)


def parse_file(path: Path, shown: str) -> tuple[str, ast.Module]:
    """Read and parse a Python file; errors name the file (and line, for syntax errors)."""
    if not path.is_file():
        raise InputError(f"no such file: {shown}", construct="target")
    try:
        with tokenize.open(path) as f:  # a UTF-8 BOM or a PEP 263 coding line, as Python reads them
            source = f.read()
    except (OSError, UnicodeDecodeError, SyntaxError, LookupError) as exc:
        raise InputError(f"cannot read {shown}: {exc}", construct="target") from exc
    try:
        return source, ast.parse(source, filename=shown)
    except SyntaxError as exc:
        loc = Location(shown, exc.lineno or 1, max((exc.offset or 1) - 1, 0))
        raise InputError(f"syntax error: {exc.msg}", loc, "syntax") from exc
    except (RecursionError, MemoryError) as exc:  # Python's parser has a nesting limit
        lines = source.splitlines() or [""]
        longest = max(range(len(lines)), key=lambda i: len(lines[i]))
        raise InputError("an expression is nested too deeply for Python's parser (probably the one on "
                         "this line, the longest)", Location(shown, longest + 1), "deep expression") from exc


def top_level_classes(module: ast.Module) -> dict[str, ast.ClassDef]:
    return {n.name: n for n in module.body if isinstance(n, ast.ClassDef)}


def all_classes(module: ast.Module) -> dict[str, ast.ClassDef]:
    """Every class by its dotted name from the module (`Outer`, `Outer.Inner`), not those
    inside functions."""
    found: dict[str, ast.ClassDef] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for n in body:
            if isinstance(n, ast.ClassDef):
                found[prefix + n.name] = n
                visit(n.body, f"{prefix}{n.name}.")
    visit(module.body, "")
    return found


_CODING = re.compile(r"^([ \t\f]*#.*?coding[:=][ \t]*)([-\w.]+)")


def utf8_coding(text: str) -> str:
    """`text` (decoded source) to be written as UTF-8: a PEP 263 line in its first two lines
    that names another encoding is made to say utf-8, so Python reads the file back right."""
    lines = text.splitlines(keepends=True)
    for i in range(min(2, len(lines))):
        lines[i] = _CODING.sub(lambda m: m.group(1) + "utf-8", lines[i], count=1)
    return "".join(lines)


def _close(name: str, candidates: list[str]) -> str:
    import difflib

    matches = difflib.get_close_matches(name, sorted(set(candidates)), n=5, cutoff=0.6)
    return f"; did you mean {', '.join(matches)}?" if matches else ""


def _in_file(path: Path, class_name: str) -> ResolvedTarget:
    shown = display(path)
    source, module = parse_file(path, shown)
    classes = all_classes(module)
    if class_name not in classes:
        listed = f" (it defines: {', '.join(sorted(classes))})" if classes else " (it defines no class)"
        raise TargetNotFound(
            f"no class {class_name!r} in {shown}{_close(class_name, list(classes))}{listed}")
    return ResolvedTarget(path, shown, source, module, classes[class_name])


def find_module(dotted: str, root: Path) -> Path | None:
    """The file of `package.module` under root or a sys.path entry, found without importing."""
    parts = dotted.split(".")
    for base in [root, *(Path(p or ".") for p in sys.path)]:
        stem = base.joinpath(*parts)
        for candidate in (stem.with_name(stem.name + ".py"), stem / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def python_files(root: Path) -> list[Path]:
    """Every *.py under root, skipping virtualenvs, build output and caches; sorted."""
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.endswith(".egg-info"))
        found.extend(Path(dirpath) / f for f in sorted(filenames) if f.endswith(".py"))
    return found


def _bare(class_name: str, root: Path) -> ResolvedTarget:
    all_names: list[str] = []
    hits: list[ResolvedTarget] = []
    for path in python_files(root):
        try:
            with tokenize.open(path) as f:
                text = f.read()
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
            continue
        names = _CLASS_LINE.findall(text)
        all_names.extend(names)
        if class_name in names:
            try:
                hits.append(_in_file(path, class_name))
            except TargetNotFound:
                continue  # the regex matched inside a string: not a class after all
    if not hits:
        raise TargetNotFound(
            f"no class {class_name!r} in the Python files under {display(root)}"
            f"{_close(class_name, all_names)}")
    if len(hits) > 1:
        listed = ", ".join(sorted(f"{h.display_path}:{class_name}" for h in hits))
        raise TargetNotFound(f"class name {class_name!r} is ambiguous; name one of: {listed}")
    return hits[0]


def resolve(target: str, root: Path) -> ResolvedTarget:
    """Find the class a target names. Raises InputError / TargetNotFound with the reason."""
    target = target.strip()
    if ":" in target:
        where, _, class_name = target.rpartition(":")
        if not _CLASS_PATH.match(class_name):
            raise TargetNotFound(f"{target!r}: {class_name!r} is not a class name "
                                 "(expected file.py:ClassName, package.module:ClassName or ClassName)")
        if where.endswith(".py") or "/" in where or os.sep in where:
            path = Path(where)
            return _in_file(path if path.is_absolute() else root / path, class_name)
        if not _DOTTED.match(where):
            raise TargetNotFound(f"{target!r}: {where!r} is neither a .py file nor a module name")
        found = find_module(where, root)
        if found is None:
            raise TargetNotFound(
                f"module {where!r} not found under {display(root)} or on sys.path (it is never imported; "
                f"name its file instead: path/to/{where.split('.')[-1]}.py:{class_name})")
        return _in_file(found, class_name)
    if target.endswith(".py"):
        path = Path(target) if Path(target).is_absolute() else root / target
        _, module = parse_file(path, display(path))
        listed = ", ".join(f"{target}:{name}" for name in top_level_classes(module)) or "(it defines no class)"
        raise TargetNotFound(f"{target!r} names a file, not a class; name one of: {listed}")
    if not _IDENT.match(target):
        raise TargetNotFound(
            f"{target!r} is not a target (expected file.py:ClassName, package.module:ClassName or ClassName)")
    return _bare(target, root)


__all__ = ["ResolvedTarget", "resolve", "parse_file", "python_files", "find_module", "display"]

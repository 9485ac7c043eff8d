"""Client checking: `contractor check` follows every object of a typestated class through
client code and reports each call its possible states may not enable.

Pipeline (one module per stage): `loader` (typestates in) -> `resolve` (which names
mean a typestated class or a client function) -> `flow`/`exprs` (the abstract
interpreter over one body, on the `domain` of states per object) -> `summaries` (the
driver and bottom-up function summaries) -> `messages` (diagnostics).
"""

from __future__ import annotations

import ast
import gc
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from contractor.check.loader import default_cache_dir, load_class, load_typestate_file
from contractor.check.protocol import Protocol
from contractor.check.records import Mode, Options
from contractor.diagnostics import Diagnostic, Severity
from contractor.errors import InputError, Location

SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "venv", "site-packages"})


@dataclass(frozen=True)
class CheckOptions:
    mode: Mode = Mode.SOUND
    strict: bool = False
    must_call: tuple[str, ...] = ()  # "Class.method"


def load_protocols(classes: Sequence[str] = (), typestates: Sequence[Path] = (),
                   must_call: Sequence[str] = (), cache_dir: Path | None = None,
                   cache: bool = True) -> list[Protocol]:
    """The typestates of `--class FILE.py:Class` targets (inferred, cached under `cache_dir`
    unless not `cache`) and `--typestate` files, with the `--must-call Class.method`
    obligations attached. InputError on bad input."""
    protocols = [load_typestate_file(Path(p)) for p in typestates]
    where = (cache_dir or default_cache_dir()) if cache else None
    protocols += [load_class(t, where) for t in classes]
    wanted: dict[str, set[str]] = {}
    for spec in must_call:
        cls, _, method = spec.rpartition(".")
        if not cls or not method.isidentifier():
            raise InputError(f"--must-call expects Class.method, got {spec!r}", construct="--must-call")
        wanted.setdefault(cls, set()).add(method)
    for cls, methods in wanted.items():
        matching = [p for p in protocols if p.name == cls]
        if not matching:
            known = ", ".join(sorted({p.name for p in protocols})) or "none"
            raise InputError(f"--must-call {cls}.{min(methods)}: no typestate of class {cls} was given "
                             f"(classes: {known})", construct="--must-call")
        for p in matching:
            try:
                p.require(frozenset(methods))
            except ValueError as e:
                raise InputError(f"--must-call: {e}", construct="--must-call") from None
    return protocols


def python_files(paths: Sequence[Path]) -> list[tuple[Path, tuple[str, ...], bool]]:
    """The files to check, with the module names each can be imported as and whether it
    was named on the command line (rather than found in a folder)."""
    out: list[tuple[Path, tuple[str, ...], bool]] = []
    for root in paths:
        if root.is_file():
            out.append((root, (root.stem,), True))
        elif root.is_dir():
            for f in sorted(root.rglob("*.py")):
                rel = f.relative_to(root)
                if any(part.startswith(".") or part in SKIPPED_DIRS for part in rel.parts[:-1]):
                    continue
                parts = list(rel.with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts = parts[:-1] or [root.name]
                dotted = ".".join(parts)
                out.append((f, (dotted, parts[-1]) if dotted != parts[-1] else (dotted,), False))
        else:
            raise InputError(f"no such file or folder: {root}", Location(str(root), 1), "PATH")
    return out


def check(paths: Sequence[Path], protocols: Sequence[Protocol],
          options: CheckOptions = CheckOptions()) -> list[Diagnostic]:
    """Check every Python file under `paths` against `protocols`; the diagnostics, unsorted.

    A file named in `paths` that does not parse is an InputError; one found in a folder
    is skipped with a `syntax-error` warning."""
    gc_was_enabled = gc.isenabled()
    gc.disable()  # the syntax trees are large and acyclic work makes no garbage cycles:
    try:  # a collector pass over every AST node would cost more than the analysis
        return _check(paths, protocols, options)
    finally:
        if gc_was_enabled:
            gc.enable()


def _check(paths: Sequence[Path], protocols: Sequence[Protocol], options: CheckOptions) -> list[Diagnostic]:
    from contractor.check.messages import diagnostics
    from contractor.check.resolve import Index
    from contractor.check.summaries import Checker

    index = Index(list(protocols))
    skipped: list[Diagnostic] = []
    for path, names, named in python_files(paths):
        try:
            tree = ast.parse(path.read_bytes(), filename=str(path))  # bytes: BOM and coding cookie
        except OSError as e:
            raise InputError(f"cannot read: {e.strerror}", Location(str(path), 1), "PATH") from None
        except (SyntaxError, ValueError) as e:  # ValueError: NUL bytes
            line, col = getattr(e, "lineno", None) or 1, getattr(e, "offset", None) or 1
            message = f"syntax error: {getattr(e, 'msg', e)}"
            if named:
                raise InputError(message, Location(str(path), line, col - 1), "PATH") from None
            skipped.append(Diagnostic(str(path), line, col, Severity.WARNING, f"{message}; file not checked",
                                      "syntax-error"))
            continue
        index.add(str(path), names, tree)
    checker = Checker(index, Options(options.mode, options.strict))
    checker.run()
    return diagnostics(checker) + skipped


__all__ = ["CheckOptions", "Mode", "Protocol", "check", "load_protocols", "python_files"]

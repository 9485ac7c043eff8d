"""The disk cache of CrossHair answers: one JSON file per (class source, options, query),
under `.contractor-cache/` in the working directory or $CONTRACTOR_CACHE_DIR.

Each entry is written to a temporary file and renamed into place, so an interrupted run
leaves only complete entries behind and the next run reuses them. The cache folder is
marked as one (a `CACHEDIR.TAG`, so backup tools skip it, and a `.gitignore` of `*`, so
it is never committed). An entry's key includes contractor's and CrossHair's versions
and the text of every module the class's module imports that can be found on disk, so
an upgrade or an edit of an imported helper never reuses a stale answer.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CACHE_VERSION = 2
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by contractor (CrossHair answers).\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)


def default_directory() -> Path:
    return Path(os.environ.get("CONTRACTOR_CACHE_DIR") or Path.cwd() / ".contractor-cache")


def mark_directory(directory: Path) -> None:
    """Create the cache folder with its CACHEDIR.TAG and .gitignore (kept if present)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in (("CACHEDIR.TAG", CACHEDIR_TAG), (".gitignore", "# created by contractor\n*\n")):
        marker = directory / name
        if not marker.exists():
            marker.write_text(text, encoding="utf-8")


def is_cache_directory(directory: Path) -> bool:
    """Whether `directory` is a cache folder contractor made (it has contractor's CACHEDIR.TAG)."""
    try:
        return (directory / "CACHEDIR.TAG").read_text(encoding="utf-8").startswith(CACHEDIR_TAG.splitlines()[0])
    except OSError:
        return False


def _version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "unknown"


def _relative(module_path: Path, level: int, name: str | None) -> Path | None:
    base = module_path.resolve().parent  # a relative path's parents stop at "."
    for _ in range(level - 1):
        base = base.parent
    stem = base.joinpath(*name.split(".")) if name else base
    for candidate in (stem.with_name(stem.name + ".py"), stem / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_sources(module: ast.Module, module_path: Path) -> dict[str, str]:
    """A digest of the text of each module `module` imports that is found on disk (next to
    it, under the working folder or on sys.path: local helpers, the stdlib, an installed
    package's `__init__`), by module name."""
    from contractor.target import find_module

    root = module_path.resolve().parent  # a relative path's parent is eventually "." itself
    while (root / "__init__.py").is_file() and root != root.parent:  # absolute imports start
        root = root.parent  # above the top package

    def absolute(name: str) -> Path | None:
        return find_module(name, root) or find_module(name, Path.cwd())

    paths: dict[str, Path | None] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            paths.update((alias.name, absolute(alias.name)) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            paths[node.module] = absolute(node.module)
            for alias in node.names:  # `from pkg import sub` may name a module
                paths[f"{node.module}.{alias.name}"] = absolute(f"{node.module}.{alias.name}")
        elif isinstance(node, ast.ImportFrom):
            prefix = "." * node.level + (node.module or "")
            paths[prefix] = _relative(module_path, node.level, node.module)
            for alias in node.names:
                inner = f"{node.module}.{alias.name}" if node.module else alias.name
                paths[f"{prefix}{'.' if node.module else ''}{alias.name}"] = _relative(
                    module_path, node.level, inner)
    found: dict[str, str] = {}
    for name, path in sorted(paths.items()):
        if path is None:
            continue
        try:
            found[name] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        except OSError:
            continue
    return found


def fingerprint(module: ast.Module, module_path: Path) -> dict[str, Any]:
    """What besides the class and the options decides CrossHair's answers."""
    return {"contractor": _version("contractor"), "crosshair": _version("crosshair-tool"),
            "imports": imported_sources(module, module_path)}


def _digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


@dataclass(frozen=True)
class DiskCache:
    """Entries of one analysis setting (class source text + options), in their own folder."""

    folder: Path

    @classmethod
    def for_setting(cls, setting: dict[str, Any], directory: Path | None = None) -> DiskCache:
        return cls((directory or default_directory()) / _digest([CACHE_VERSION, setting])[:24])

    def _path(self, query: Any) -> Path:
        return self.folder / f"{_digest(query)[:32]}.json"

    def get(self, query: Any) -> Any | None:
        try:
            entry = json.loads(self._path(query).read_text())
        except (OSError, ValueError):
            return None
        return entry["value"] if entry.get("query") == json.loads(json.dumps(query, default=str)) else None

    def put(self, query: Any, value: Any) -> None:
        mark_directory(self.folder.parent)
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        try:
            with os.fdopen(fd, "w") as out:
                json.dump({"query": query, "value": value}, out, default=str)
            os.replace(tmp, self._path(query))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

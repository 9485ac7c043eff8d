"""Run settings from three layers: built-in defaults, `[tool.contractor]` in pyproject.toml,
and the command line, each overriding the one before (CrossHair's options overlay).

`PartialSettings` holds what one layer says (None: nothing); `Settings` is complete.
Per-class tables, `[tool.contractor.classes."Name"]` (the class name, or its dotted module
path and name), override the project's settings for that class:

    [tool.contractor]
    backend = "z3"
    timeout = 5
    targets = ["src/"]

    [tool.contractor.classes."mypkg.door.Door"]
    methods = ["open", "close", "start", "stop"]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from contractor.errors import InputError, Location

BACKENDS = ("z3", "crosshair", "auto")
# seconds of solving per class when nothing else says (`--budget 0` or `budget = 0`: no limit);
# after it the typestate is partial, never a hang
DEFAULT_BUDGET = 60.0
# seconds CrossHair may spend on a class under the auto backend (from its first question):
# after it, what z3 left undecided stays may (`0`: only the run's budget bounds it)
DEFAULT_CROSSHAIR_BUDGET = 10.0


@dataclass(frozen=True)
class Settings:
    """Every option of `contractor infer` and `contractor strengthen`, complete."""

    backend: str = "auto"
    budget: float = DEFAULT_BUDGET  # seconds of solving per class (z3 and CrossHair); 0: no limit
    crosshair_budget: float = DEFAULT_CROSSHAIR_BUDGET  # CrossHair's share under auto; 0: no own limit
    timeout: float = 10.0  # seconds per solver query
    unroll: int = 8
    max_states: int | None = None
    jobs: int = 0  # worker processes for a large exploration (contractor.parallel); 0: one per CPU
    preconditions: str | None = None  # declared | implicit | both; None: by the class
    methods: tuple[str, ...] | None = None  # the actions; None: public methods
    exclude: tuple[str, ...] = ()
    must_call: tuple[str, ...] = ()  # Class.method obligations (for `contractor check`)
    out: Path | None = None  # None: output/<module path>.<Class>/
    cache: bool = True
    cache_dir: Path | None = None
    format: str = "text"
    fail_on: str | None = None
    png: bool = False
    svg: bool = True
    html: bool = True
    dialect: str | None = None  # strengthen: the added contracts' dialect; None: the class's own
    targets: tuple[str, ...] = ()  # what to analyse when the command line names nothing
    state_names: bool = False  # name states by their invariants (closed_not_moving) instead of S1..Sn


@dataclass(frozen=True)
class PartialSettings:
    """What one layer sets; None leaves the layer below in force."""

    backend: str | None = None
    budget: float | None = None
    crosshair_budget: float | None = None
    timeout: float | None = None
    unroll: int | None = None
    max_states: int | None = None
    jobs: int | None = None
    preconditions: str | None = None
    methods: tuple[str, ...] | None = None
    exclude: tuple[str, ...] | None = None
    must_call: tuple[str, ...] | None = None
    out: Path | None = None
    cache: bool | None = None
    cache_dir: Path | None = None
    format: str | None = None
    fail_on: str | None = None
    png: bool | None = None
    svg: bool | None = None
    html: bool | None = None
    dialect: str | None = None
    targets: tuple[str, ...] | None = None
    state_names: bool | None = None


def overlay(base: Settings, *layers: PartialSettings) -> Settings:
    """`base` with every value a layer sets, later layers winning."""
    for layer in layers:
        given = {f.name: getattr(layer, f.name) for f in fields(layer) if getattr(layer, f.name) is not None}
        base = replace(base, **given)
    return base


# -- pyproject.toml ----------------------------------------------------------------------

_KINDS: dict[str, type | tuple[type, ...]] = {
    "backend": str, "budget": (int, float), "crosshair_budget": (int, float), "timeout": (int, float),
    "unroll": int,
    "max_states": int, "jobs": int, "preconditions": str, "methods": list, "exclude": list, "must_call": list,
    "out": str, "cache": bool, "cache_dir": str, "format": str, "fail_on": str,
    "png": bool, "svg": bool, "html": bool, "dialect": str, "targets": list, "state_names": bool,
}
_CHOICES = {
    "backend": BACKENDS, "preconditions": ("declared", "implicit", "both"),
    "format": ("text", "json", "sarif", "github"), "fail_on": ("error", "warning"),
    "dialect": ("pep316", "icontract", "deal", "asserts"),
}


@dataclass(frozen=True)
class ProjectConfig:
    """`[tool.contractor]` of a pyproject.toml: the project's layer and per-class layers."""

    path: Path | None
    settings: PartialSettings
    classes: dict[str, PartialSettings]

    def for_class(self, name: str, qualified: str) -> PartialSettings:
        """The per-class layer of class `name` (module path `qualified`), if any."""
        return self.classes.get(qualified) or self.classes.get(name) or PartialSettings()


NO_CONFIG = ProjectConfig(None, PartialSettings(), {})


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml in `start` or its parents."""
    for folder in [start, *start.parents]:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _convert(key: str, value: Any, where: Location) -> Any:
    expected = _KINDS[key]
    if isinstance(value, bool) and expected in (int, (int, float)) or not isinstance(value, expected):
        kind = expected.__name__ if isinstance(expected, type) else "number"
        raise InputError(f"[tool.contractor] {key.replace('_', '-')} must be a {kind}, not {value!r}",
                         where, "pyproject.toml")
    if key in _CHOICES and value not in _CHOICES[key]:
        raise InputError(f"[tool.contractor] {key.replace('_', '-')} must be one of "
                         f"{', '.join(_CHOICES[key])}, not {value!r}", where, "pyproject.toml")
    if isinstance(value, list):
        if not all(isinstance(v, str) for v in value):
            raise InputError(f"[tool.contractor] {key.replace('_', '-')} must be a list of strings",
                             where, "pyproject.toml")
        return tuple(value)
    if key in ("out", "cache_dir"):
        return Path(str(value))
    if key in ("budget", "crosshair_budget", "timeout"):
        assert isinstance(value, (int, float))
        return float(value)
    return value


def _layer(table: dict[str, Any], where: Location, base: Path) -> PartialSettings:
    given: dict[str, Any] = {}
    for raw, value in table.items():
        key = raw.replace("-", "_")
        if key not in _KINDS:
            import difflib

            close = difflib.get_close_matches(key, list(_KINDS), n=1)
            hint = f"; did you mean {close[0].replace('_', '-')!r}?" if close else ""
            raise InputError(f"[tool.contractor] has no option {raw!r}{hint}", where, "pyproject.toml")
        given[key] = _convert(key, value, where)
    for key in ("out", "cache_dir"):  # relative to the pyproject.toml's folder
        if key in given and not given[key].is_absolute():
            given[key] = base / given[key]
    if "targets" in given:
        given["targets"] = tuple(t if Path(t).is_absolute() or not _is_path(t) else str(base / t)
                                 for t in given["targets"])
    return PartialSettings(**given)


def _is_path(target: str) -> bool:
    return "/" in target or target.endswith(".py") or target in (".", "..")


_TOOL = r"""[ \t]*(?:tool|"tool"|'tool')[ \t]*"""
_CONTRACTOR = r"""[ \t]*(?:contractor|"contractor"|'contractor')"""
# the only TOML lines that can put something under tool.contractor: a header
# [tool.contractor...] or [[tool.contractor...]], a [tool] header (its keys may be
# `contractor`), and a key `tool.contractor... =` or `tool = {...}` (an inline table)
_MAY_CONFIGURE = re.compile(rf"^[ \t]*\[\[?{_TOOL}(?:\.{_CONTRACTOR}|\]\]?[ \t]*(?:#.*)?$)"
                            rf"|^{_TOOL}(?:\.{_CONTRACTOR}|=)", re.MULTILINE)


def may_configure_contractor(text: str) -> bool:
    """Whether a pyproject.toml's text can hold a [tool.contractor] table (when not, it is not
    parsed: a TOML error elsewhere in it is not contractor's to report). A key spelled with
    escapes ("contr\\u0061ctor") is not seen."""
    return "contractor" in text and _MAY_CONFIGURE.search(text) is not None


def read_project(path: Path | None) -> ProjectConfig:
    """The `[tool.contractor]` settings of the pyproject.toml at `path` (none if None or absent)."""
    if path is None:
        return NO_CONFIG
    where = Location(str(path), 1)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot read {path}: {e.strerror}", where, "pyproject.toml") from None
    if not may_configure_contractor(text):  # spare tomllib's import and parse (3 ms of a run)
        return ProjectConfig(path, PartialSettings(), {})
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"not TOML: {e}", where, "pyproject.toml") from None
    table = data.get("tool", {}).get("contractor", {})
    if not isinstance(table, dict):
        raise InputError("[tool.contractor] must be a table", where, "pyproject.toml")
    table = dict(table)
    classes = table.pop("classes", {})
    if not isinstance(classes, dict) or not all(isinstance(v, dict) for v in classes.values()):
        raise InputError('[tool.contractor.classes] must hold one table per class, e.g. '
                         '[tool.contractor.classes."mypkg.door.Door"]', where, "pyproject.toml")
    base = path.parent
    return ProjectConfig(path, _layer(table, where, base),
                         {name: _layer(sub, where, base) for name, sub in classes.items()})


__all__ = ["BACKENDS", "NO_CONFIG", "PartialSettings", "ProjectConfig", "Settings", "find_pyproject",
           "may_configure_contractor", "overlay", "read_project"]

"""Diagnostics as data, and the reporters that print them: text, JSON, SARIF 2.1.0, GitHub.

`contractor infer` (its findings) and `contractor check` (protocol violations in client
code) both produce `Diagnostic` values; this module is the one place that renders them,
so every command speaks the same formats (as pyflakes' messages and reporter do).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from contractor.strict_json import dumps

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"


class Severity(enum.Enum):
    """How bad a diagnostic is; ERROR is the worst."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    @property
    def rank(self) -> int:
        """Larger is worse: NOTE 0, WARNING 1, ERROR 2."""
        return {Severity.NOTE: 0, Severity.WARNING: 1, Severity.ERROR: 2}[self]

    def at_least(self, other: Severity) -> bool:
        return self.rank >= other.rank


class OutputFormat(enum.Enum):
    TEXT = "text"
    JSON = "json"
    SARIF = "sarif"
    GITHUB = "github"


@dataclass(frozen=True)
class Related:
    """A secondary location of a diagnostic (a helper's line, a step of the path leading there)."""

    path: str
    line: int
    col: int
    message: str


@dataclass(frozen=True)
class Diagnostic:
    """One finding at one place. `line` and `col` are 1-based."""

    path: str
    line: int
    col: int
    severity: Severity
    message: str
    code: str
    notes: tuple[Related, ...] = ()

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line, self.col, self.code, self.message)


@dataclass(frozen=True)
class Rule:
    """What a diagnostic code means (SARIF's reportingDescriptor)."""

    code: str
    description: str
    help_uri: str | None = None


def _sorted(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    return sorted(diagnostics, key=Diagnostic.sort_key)


def format_text(diagnostic: Diagnostic) -> str:
    """`path:line:col: severity: message [code]`, then one `path:line:col: note: ...` per note."""
    d = diagnostic
    lines = [f"{d.path}:{d.line}:{d.col}: {d.severity.value}: {d.message} [{d.code}]"]
    lines.extend(f"{n.path}:{n.line}:{n.col}: note: {n.message}" for n in d.notes)
    return "\n".join(lines)


def _github_escape(text: str, *, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def format_github(diagnostic: Diagnostic) -> str:
    """A GitHub Actions workflow command (`::error file=...,line=...,col=...,title=...::message`)."""
    d = diagnostic
    command = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}[d.severity]
    message = d.message + "".join(f"\n{n.path}:{n.line}:{n.col}: {n.message}" for n in d.notes)
    props = ",".join([
        f"file={_github_escape(d.path, prop=True)}",
        f"line={d.line}",
        f"col={d.col}",
        f"title={_github_escape(d.code, prop=True)}",
    ])
    return f"::{command} {props}::{_github_escape(message)}"


def _tool_version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # here: importing it costs ~0.1 s

    try:
        return version("contractor")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "0"


def _location(path: str, line: int, col: int, message: str | None = None) -> dict[str, Any]:
    loc: dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": {"uri": path.replace("\\", "/")},
            "region": {"startLine": max(line, 1), "startColumn": max(col, 1)},
        }
    }
    if message is not None:
        loc["message"] = {"text": message}
    return loc


_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


def to_sarif(diagnostics: Sequence[Diagnostic], *, tool: str = "contractor",
             rules: Sequence[Rule] = ()) -> dict[str, Any]:
    """A SARIF 2.1.0 log: one run, one result per diagnostic, a rule per code used."""
    known = {r.code: r for r in rules}
    codes = sorted({d.code for d in diagnostics} | set(known))
    index = {code: i for i, code in enumerate(codes)}
    descriptors = []
    for code in codes:
        descriptor: dict[str, Any] = {"id": code, "name": code}
        rule = known.get(code)
        if rule is not None:
            descriptor["shortDescription"] = {"text": rule.description}
            if rule.help_uri:
                descriptor["helpUri"] = rule.help_uri
        descriptors.append(descriptor)
    results = []
    for d in _sorted(diagnostics):
        result: dict[str, Any] = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": _SARIF_LEVEL[d.severity],
            "message": {"text": d.message},
            "locations": [_location(d.path, d.line, d.col)],
        }
        if d.notes:
            result["relatedLocations"] = [
                {"id": i, **_location(n.path, n.line, n.col, n.message)}
                for i, n in enumerate(d.notes)
            ]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {
                "name": tool,
                "version": _tool_version(),
                "rules": descriptors,
            }},
            "results": results,
        }],
    }


def _to_json(diagnostics: Sequence[Diagnostic]) -> dict[str, Any]:
    items = []
    for d in _sorted(diagnostics):
        item = asdict(d)
        item["severity"] = d.severity.value
        items.append(item)
    return {"diagnostics": items}


def render(diagnostics: Sequence[Diagnostic], fmt: OutputFormat, *, tool: str = "contractor",
           rules: Sequence[Rule] = ()) -> str:
    """The diagnostics in one format, sorted by place; text output ends with a newline when non-empty."""
    if fmt is OutputFormat.JSON:
        return dumps(_to_json(diagnostics), indent=2) + "\n"
    if fmt is OutputFormat.SARIF:
        return dumps(to_sarif(diagnostics, tool=tool, rules=rules), indent=2) + "\n"
    line = format_github if fmt is OutputFormat.GITHUB else format_text
    body = "\n".join(line(d) for d in _sorted(diagnostics))
    return body + "\n" if body else ""


def exit_code(diagnostics: Sequence[Diagnostic], fail_on: Severity | None) -> int:
    """1 when some diagnostic is at least as severe as `fail_on`, else 0 (None: never fail)."""
    if fail_on is None:
        return 0
    return 1 if any(d.severity.at_least(fail_on) for d in diagnostics) else 0


__all__ = [
    "Diagnostic", "OutputFormat", "Related", "Rule", "Severity",
    "exit_code", "format_github", "format_text", "render", "to_sarif",
]

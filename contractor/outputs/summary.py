"""The readable text summary printed by `contractor infer`: states, transitions, findings,
unknowns and statistics, marked PARTIAL when the exploration did not finish."""

from __future__ import annotations

from typing import Any

from contractor.typestate import Typestate


def _value(value: Any) -> str:
    """Python's spelling of a witness value (True, None, 'text'), as the class's author writes it."""
    return repr(value)


def _mapping(data: dict[str, Any] | None) -> str:
    """`{"fields": {"x": 1}, "args": {...}}` as `fields: x=1; args: ...` (flat values as `k=v`)."""
    if not data:
        return ""
    parts = []
    for key, value in data.items():
        if isinstance(value, dict):
            inner = ", ".join(f"{k}={_value(v)}" for k, v in value.items())
            parts.append(f"{key}: {inner or '-'}")
        else:
            parts.append(f"{key}={_value(value)}")
    return "; ".join(parts)


def _header(ts: Typestate) -> list[str]:
    may = sum(t.certainty == "may" for t in ts.transitions)
    partial = "  PARTIAL (the exploration did not finish)" if not ts.complete else ""
    lines = [
        f"{ts.class_name} ({ts.source}): {len(ts.states)} states, "
        f"{len(ts.transitions)} transitions ({may} may){partial}",
        f"methods: {', '.join(ts.methods) or '-'}",
    ]
    if ts.always_enabled:
        lines.append(
            f"always enabled: {', '.join(ts.always_enabled)} "
            "(in every state; not repeated below, nor their self-loops)"
        )
    if ts.dialects:
        lines.append(f"contracts: {', '.join(ts.dialects)}")
    return lines


def _states(ts: Typestate) -> list[str]:
    lines = ["", "States:"]
    for s in ts.states:
        marks = [m for m, on in (("initial", s.initial), ("witnessed", s.witnessed)) if on]
        mark = f" ({', '.join(marks)})" if marks else ""
        shown = ts.shown_enabled(s)
        if shown:
            enabled = ", ".join(shown)
        else:
            enabled = "only the always-enabled methods" if s.enabled else "nothing (stuck)"
        lines.append(f"  {s.id}{mark}: {enabled}")
        if s.invariant:
            lines.append(f"      invariant: {s.invariant}")
    return lines


def _may(certainty: str, reason: str | None) -> str:
    if certainty != "may":
        return ""
    return f"  [may: {reason}]" if reason else "  [may]"


def _transitions(ts: Typestate) -> list[str]:
    lines = ["", "Initializations:"]
    for i in ts.initializations:
        lines.append(f"  {i.constructor} -> {i.target}{_may(i.certainty, i.reason)}")
    lines += ["", "Transitions:"]
    for t in ts.transitions:
        if ts.hides(t):
            continue
        lines.append(f"  {t.source} --{t.method}--> {t.target}{_may(t.certainty, t.reason)}")
    return lines


def _findings(ts: Typestate) -> list[str]:
    if not ts.findings:
        return ["", "Findings: none"]
    lines = ["", f"Findings ({len(ts.findings)}):"]
    for f in ts.findings:
        where = ", ".join(
            x
            for x in (
                f.method and f"method {f.method}",
                f.state and f"state {f.state}",
                f.line is not None and f"line {f.line}",
            )
            if x
        )
        lines.append(f"  [{f.kind}] {f.message}" + (f" ({where})" if where else ""))
        if f.counterexample:
            lines.append(f"      counterexample: {_mapping(f.counterexample)}")
    return lines


def _unknowns(ts: Typestate) -> list[str]:
    if not ts.unknowns:
        return []
    lines = ["", f"Not translated ({len(ts.unknowns)}; their queries gave may-answers):"]
    for u in ts.unknowns:
        detail = f": {u.detail}" if u.detail else ""
        lines.append(f"  {u.method}, line {u.line}: {u.construct}{detail}")
    return lines


def _stats(ts: Typestate) -> list[str]:
    per = ", ".join(f"{name}: {n}" for name, n in sorted(ts.stats.queries_by_backend.items()))
    return [
        "",
        f"Solver queries: {ts.stats.queries}" + (f" ({per})" if per else ""),
        f"Backend: {ts.stats.backend}; time: {ts.stats.seconds:.2f} s",
    ]


def to_text(ts: Typestate) -> str:
    """The summary of `ts` as lines of plain text."""
    lines = (
        _header(ts) + _states(ts) + _transitions(ts) + _findings(ts) + _unknowns(ts) + _stats(ts)
    )
    return "\n".join(lines) + "\n"


__all__ = ["to_text"]

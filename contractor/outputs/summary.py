"""The readable text summary printed by `contractor infer`: states, transitions, findings,
unknowns and statistics, marked PARTIAL when the exploration did not finish."""

from __future__ import annotations

from contractor.diagnostics import format_text
from contractor.model import ClassModel
from contractor.outputs.findings import finding_diagnostics
from contractor.typestate import Typestate


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
            f"(in {ts.always_where}; not repeated below, nor their self-loops)"
        )
    if ts.has_undecided:
        lines.append(UNDECIDED_NOTE)
    if ts.dialects:
        lines.append(f"contracts: {', '.join(ts.dialects)}")
    lines.append(f"preconditions: {_PRECONDITIONS.get(ts.preconditions, ts.preconditions)}")
    return lines


UNDECIDED_NOTE = ("m?: may be enabled (z3 could not decide its enabledness; the state holds objects "
                  "where it can be enabled, perhaps not all of them)")

_PRECONDITIONS = {
    "declared": "declared (the contracts as written)",
    "implicit": "implicit (raise guards: enabled iff the body can finish without an explicit raise)",
    "both": "declared and implicit (the contracts and the raise guards)",
}


def _states(ts: Typestate) -> list[str]:
    lines = ["", "States:"]
    for s in ts.states:
        marks = [m for m, on in (("initial", s.initial), ("witnessed", s.witnessed)) if on]
        mark = f" ({', '.join(marks)})" if marks else ""
        shown = ts.shown_labels(s)
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


def _findings(ts: Typestate, model: ClassModel | None) -> list[str]:
    """Each finding as a diagnostic line (`path:line:col: severity: message [kind]`, unindented so
    editors and CI logs recognise it), its counterexample as a `note:` line below it."""
    if not ts.findings:
        return ["", "Findings: none"]
    diagnostics = finding_diagnostics(ts, model)
    return ["", f"Findings ({len(ts.findings)}):", *(format_text(d) for d in diagnostics)]


def _unknowns(ts: Typestate) -> list[str]:
    if not ts.unknowns:
        return []
    # an invariant followed within --unroll still gives must-answers there (invregion.py):
    # only the answers that need what was not translated are may
    lines = ["", f"Not translated ({len(ts.unknowns)}; the answers that depend on them are may):"]
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


def to_text(ts: Typestate, model: ClassModel | None = None) -> str:
    """The summary of `ts` as lines of plain text; `model`, the class `ts` is about, places
    findings that name no line at their method's or class's definition."""
    lines = (
        _header(ts) + _states(ts) + _transitions(ts) + _findings(ts, model) + _unknowns(ts)
        + _stats(ts)
    )
    return "\n".join(lines) + "\n"


__all__ = ["to_text"]

"""`contractor infer`'s findings as diagnostics: a severity per finding kind, a place in the
source for each finding, and the rule descriptions SARIF readers show.

The place is the line the finding names, else the method's `def`, else the class; the
column is that of the `def` or `class` keyword when the line is theirs, else 1.
"""

from __future__ import annotations

from contractor.columns import SourceLines
from contractor.diagnostics import Diagnostic, Related, Rule, Severity
from contractor.errors import Location
from contractor.model import ClassModel
from contractor.typestate import Finding, FindingKind, Typestate

SEVERITY: dict[FindingKind, Severity] = {
    FindingKind.NEVER_ENABLED: Severity.WARNING,
    FindingKind.BREAKS_INVARIANT: Severity.ERROR,
    FindingKind.BREAKS_POSTCONDITION: Severity.ERROR,
    FindingKind.MAY_RAISE: Severity.WARNING,
    FindingKind.NO_ENABLED_METHOD: Severity.WARNING,
    FindingKind.UNSATISFIABLE_INVARIANT: Severity.ERROR,
    FindingKind.UNSATISFIABLE_CONSTRUCTOR: Severity.ERROR,
    FindingKind.UNKNOWN: Severity.NOTE,
    FindingKind.INCOMPLETE: Severity.WARNING,
    FindingKind.UNDEFINED_NAME: Severity.ERROR,
    FindingKind.BLOCKED_CALL: Severity.WARNING,
    FindingKind.CROSSHAIR_UNAVAILABLE: Severity.WARNING,
    FindingKind.CACHE_DISABLED: Severity.NOTE,
}

RULES: tuple[Rule, ...] = (
    Rule(FindingKind.NEVER_ENABLED.value,
         "The method's precondition is unsatisfiable together with the invariant: it can never be called."),
    Rule(FindingKind.BREAKS_INVARIANT.value,
         "The method can end in an object that breaks the class invariant."),
    Rule(FindingKind.BREAKS_POSTCONDITION.value, "The method can break its own postcondition."),
    Rule(FindingKind.MAY_RAISE.value,
         "The method's body can raise an undeclared exception although its precondition holds."),
    Rule(FindingKind.NO_ENABLED_METHOD.value, "A state enables no method: objects in it are stuck."),
    Rule(FindingKind.UNSATISFIABLE_INVARIANT.value, "No object satisfies the class invariant."),
    Rule(FindingKind.UNSATISFIABLE_CONSTRUCTOR.value,
         "No arguments let a constructor produce an object meeting the invariant."),
    Rule(FindingKind.UNKNOWN.value, "A question the backend could not answer; its answers are 'may'."),
    Rule(FindingKind.INCOMPLETE.value, "The exploration stopped early: the typestate is partial."),
    Rule(FindingKind.UNDEFINED_NAME.value,
         "A contract reads a name nothing defines: evaluating it raises NameError."),
    Rule(FindingKind.BLOCKED_CALL.value,
         "A contract made a call the CrossHair sandbox blocks (a side effect): it counted as false."),
    Rule(FindingKind.CROSSHAIR_UNAVAILABLE.value,
         "The CrossHair worker could not answer (import failed, it died or ran out of time): "
         "z3's answers stand, as may where undecided."),
    Rule(FindingKind.CACHE_DISABLED.value,
         "The CrossHair answer cache could not be written: the run went on without it."),
)


def _counterexample(data: dict[str, object]) -> str:
    parts = []
    for key, value in data.items():
        if isinstance(value, dict):
            inner = ", ".join(f"{k}={v!r}" for k, v in value.items())
            parts.append(f"{key}: {inner or '-'}")
        else:
            parts.append(f"{key}={value!r}")
    return "counterexample: " + "; ".join(parts)


def _place(finding: Finding, model: ClassModel | None) -> tuple[int, int]:
    """(line, column), both 1-based, of a finding."""
    anchors: list[Location] = []
    if model is not None:
        method = model.methods.get(finding.method or "")
        if method is not None:
            anchors.append(method.location)
        if model.location is not None:
            anchors.append(model.location)
    lines = SourceLines({model.path: model.source} if model is not None else {})
    if finding.line is not None:
        col = next((lines.column(a.path, a.line, a.col) for a in anchors if a.line == finding.line), 1)
        return finding.line, col
    if anchors:
        return anchors[0].line, lines.column(anchors[0].path, anchors[0].line, anchors[0].col)
    return 1, 1


def finding_diagnostics(ts: Typestate, model: ClassModel | None = None) -> list[Diagnostic]:
    """One diagnostic per finding of `ts`, in the order of `ts.findings`; `model` (the class
    the typestate is about) places findings without a line at their method or class."""
    out = []
    for f in ts.findings:
        line, col = _place(f, model)
        notes = (Related(ts.source, line, col, _counterexample(f.counterexample)),) if f.counterexample else ()
        message = f.message if f.state is None or f.state in f.message else f"{f.message} (state {f.state})"
        out.append(Diagnostic(ts.source, line, col, SEVERITY[f.kind], f"{ts.class_name}: {message}",
                              f.kind.value, notes))
    return out


__all__ = ["RULES", "SEVERITY", "finding_diagnostics"]

"""Readable text for a diagram's tooltips: a state's enabled methods and invariant, a
transition's certainty, its witness as field values and arguments, and why it is *may*.

The DOT diagram (and so `typestate.svg` and `report.html`) and `contractor view` show the
same text, made here once.
"""

from __future__ import annotations

import math
from typing import Any

from contractor.typestate import Initialization, State, Transition, Typestate

MUST_MEANS = "must: the solver found an object and arguments making this move"
MAY_MEANS = "may: the solver could not decide, so the move is kept"


def value_text(value: Any) -> str:
    """A JSON value from a witness in Python notation (True, None, 'text', [1, 2], float('nan'))."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{value_text(k)}: {value_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    if isinstance(value, float) and not math.isfinite(value):
        return f"float('{value!r}')"
    return repr(value)


def assignments(values: dict[str, Any]) -> str:
    """`{"a": True, "n": 3}` -> `a=True, n=3`."""
    return ", ".join(f"{name}={value_text(v)}" for name, v in values.items())


def call_text(method: str, args: dict[str, Any] | None) -> str:
    return f"{method}({assignments(args or {})})"


def witness_lines(witness: dict[str, Any] | None, method: str) -> list[str]:
    """The witness as lines: the object before, the call, the fields the call changed."""
    if not witness:
        return []
    lines = []
    before = witness.get("fields")
    if before:
        lines.append(f"object before: {assignments(before)}")
    lines.append(f"call: {call_text(method, witness.get('args'))}")
    after = witness.get("after")
    if after is not None:
        if before:
            changed = {k: v for k, v in after.items() if k not in before or before[k] != v}
            lines.append(f"changed: {assignments(changed)}" if changed else "changed: nothing")
        else:
            lines.append(f"object after: {assignments(after)}")
    return lines


def witness_text(witness: dict[str, Any] | None, method: str) -> str:
    return "; ".join(witness_lines(witness, method))


def _certainty_lines(certainty: str, witness: dict[str, Any] | None, method: str,
                     reason: str | None) -> list[str]:
    lines = [MAY_MEANS if certainty == "may" else MUST_MEANS]
    if certainty == "may" and reason:
        lines.append(f"reason: {reason}")
    shown = witness_lines(witness, method)
    if shown:
        lines.append("witness:")
        lines.extend(f"  {line}" for line in shown)
    return lines


def transition_tooltip(t: Transition) -> str:
    return "\n".join([f"{t.source} --{t.method}--> {t.target}",
                      *_certainty_lines(t.certainty, t.witness, t.method, t.reason)])


def initialization_tooltip(i: Initialization) -> str:
    return "\n".join([f"{i.constructor} --> {i.target} (initial)",
                      *_certainty_lines(i.certainty, i.witness, i.constructor, i.reason)])


def state_tooltip(ts: Typestate, s: State) -> str:
    kind = " (initial)" if s.initial else ""
    enabled = ", ".join(s.labels()) if s.enabled else "none (stuck)"
    lines = [f"{s.id}{kind}", f"enabled: {enabled}"]
    if s.undecided:
        lines.append(f"may be enabled (undecided): {', '.join(s.undecided)}")
    if s.invariant:
        lines.append(f"invariant: {s.invariant}")
    return "\n".join(lines)


__all__ = [
    "assignments", "initialization_tooltip", "state_tooltip", "transition_tooltip",
    "value_text", "witness_lines", "witness_text",
]

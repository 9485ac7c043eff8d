"""The typestate as a Mermaid state diagram (`typestate.mmd`, which GitHub renders).

Mermaid state diagrams cannot dash an edge, so may-transitions say `(may)` in their
label; each state's description lists its enabled methods, except those enabled in every
state: a note lists them once, and their self-loops are left out.
"""

from __future__ import annotations

import re

from contractor.typestate import Typestate

_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def _id(state_id: str) -> str:
    """A Mermaid-safe state identifier (ids are `S<n>` already; anything else is mangled)."""
    return _UNSAFE.sub("_", state_id)


def _label(method: str, certainty: str) -> str:
    return f"{method} (may)" if certainty == "may" else method


def to_mermaid(ts: Typestate) -> str:
    """The `stateDiagram-v2` text of `ts`."""
    lines = ["stateDiagram-v2"]
    if not ts.complete:
        lines.append("    %% PARTIAL: the exploration did not finish")
    for s in ts.states:
        shown = ts.shown_labels(s)
        if shown:
            description = ", ".join(shown)
        else:
            description = "always-enabled methods only" if s.enabled else "stuck: no method enabled"
        lines.append(f"    {_id(s.id)} : {description}")
    if ts.always_enabled:
        note = f"always enabled (in {ts.always_where}): {', '.join(ts.always_enabled)}"
        lines.append(f"    note right of {_id(ts.states[0].id)} : {note}")
    if ts.has_undecided:
        lines.append(f"    note left of {_id(ts.states[0].id)} : m? may be enabled (z3 could not decide it)")
    for i in ts.initializations:
        lines.append(f"    [*] --> {_id(i.target)} : {_label(i.constructor, i.certainty)}")
    for t in ts.transitions:
        if ts.hides(t):
            continue
        lines.append(f"    {_id(t.source)} --> {_id(t.target)} : {_label(t.method, t.certainty)}")
    stuck = [_id(s.id) for s in ts.states if not s.enabled]
    if stuck:
        lines.append("    classDef stuck fill:#ddd,stroke:#b22222")
        lines.extend(f"    class {sid} stuck" for sid in stuck)
    return "\n".join(lines) + "\n"


__all__ = ["to_mermaid"]

"""The typestate as a Graphviz DOT digraph (`typestate.dot`, and the source of the SVG).

States are nodes labelled with their id and enabled methods; initial states are drawn
bold with a double circle and reached from an invisible start point by one arrow per
constructor; may-transitions are dashed with a `?` after the method; stuck states
(no enabled method) are filled grey and labelled as stuck. Large typestates ask for
the neato layout (see LARGE), which stays fast where dot's would take minutes.
"""

from __future__ import annotations

import textwrap

from contractor.typestate import State, Transition, Typestate

START = "__start__"  # the invisible start point's node id
WRAP = 28  # characters per line of a node's method list
# Beyond this many transitions the layout is neato's instead of dot's: dot lays out edge
# labels as extra nodes, which takes minutes for a few hundred labelled edges (neato: seconds).
LARGE = 80


def quote(text: str) -> str:
    """A DOT double-quoted string for `text` (newlines become DOT's centred line breaks)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n") + '"'


def _attrs(**attrs: str) -> str:
    return "[" + ", ".join(f"{key}={quote(value)}" for key, value in attrs.items()) + "]"


def node_label(state: State, loops: tuple[str, ...] = ()) -> str:
    if not state.enabled:
        return f"{state.id}\n(stuck: no method enabled)"
    methods = textwrap.wrap(", ".join(state.enabled), WRAP, break_long_words=False)
    folded = textwrap.wrap("loops: " + ", ".join(loops), WRAP, break_long_words=False) if loops else []
    return "\n".join([state.id, *methods, *folded])


def _node(state: State, loops: tuple[str, ...] = ()) -> str:
    attrs = {"label": node_label(state, loops), "tooltip": state.invariant or state.id}
    if state.initial:
        attrs.update(shape="doublecircle", style="bold")
    if not state.enabled:
        attrs.update(
            style="filled,bold" if state.initial else "filled",
            fillcolor="lightgrey",
            color="firebrick",
        )
    return f"  {quote(state.id)} {_attrs(**attrs)};"


def _edge(source: str, target: str, method: str, certainty: str) -> str:
    attrs = {"label": method}
    if certainty == "may":
        attrs.update(label=f"{method}?", style="dashed")
    return f"  {quote(source)} -> {quote(target)} {_attrs(**attrs)};"


def to_dot(ts: Typestate, *, drawn: tuple[Transition, ...] | None = None,
           loops: dict[str, tuple[str, ...]] | None = None, note: str = "") -> str:
    """The DOT text of `ts` (deterministic: states, then edges, in the typestate's order).

    For a folded diagram (see `diagram`): `drawn` are the transitions drawn as edges
    (default: all), `loops` (state id -> methods) the self-loops shown in the state's
    label instead, and `note` a further title line saying what is left out.
    """
    loops = loops or {}
    drawn = ts.transitions if drawn is None else drawn
    title = _title(ts) + (f"\n{note}" if note else "")
    graph = {"label": title, "labelloc": "t", "rankdir": "LR", "fontname": "Helvetica"}
    if len(drawn) > LARGE:
        graph.update(layout="neato", overlap="false")
    lines = [
        f"digraph {quote(ts.class_name)} {{",
        f"  graph {_attrs(**graph)};",
        f"  node {_attrs(shape='ellipse', fontname='Helvetica', fontsize='11')};",
        f"  edge {_attrs(fontname='Helvetica', fontsize='10')};",
    ]
    if ts.initializations:
        lines.append(f"  {quote(START)} {_attrs(shape='point', style='invis', label='')};")
    lines.extend(_node(s, loops.get(s.id, ())) for s in ts.states)
    lines.extend(_edge(START, i.target, i.constructor, i.certainty) for i in ts.initializations)
    lines.extend(_edge(t.source, t.target, t.method, t.certainty) for t in drawn)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _title(ts: Typestate) -> str:
    partial = " (PARTIAL)" if not ts.complete else ""
    return f"{ts.class_name}: {len(ts.states)} states, {len(ts.transitions)} transitions{partial}"


__all__ = ["node_label", "quote", "to_dot"]

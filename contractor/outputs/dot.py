"""The typestate as a Graphviz DOT digraph (`typestate.dot`, and the source of the SVG).

States are nodes labelled with their id and enabled methods; methods enabled in every
state are listed once in the title, not in each node, and their self-loops are left out.
Initial states are drawn bold and reached from a filled start dot by one arrow per
constructor (not a double circle, which in automata notation means accepting).
May-transitions are dashed with a `?` after the method; stuck states (no enabled method)
are filled grey. Every node and edge carries an `id`, a `class` and a readable tooltip
(see `tooltips`), which the SVG keeps, so pages can find and explain them. Large
typestates ask for the neato layout (see LARGE), which stays fast where dot's would take
minutes.
"""

from __future__ import annotations

from contractor.outputs.tooltips import initialization_tooltip, state_tooltip, transition_tooltip
from contractor.typestate import State, Transition, Typestate

START = "__start__"  # the start dot's node id
WRAP = 28  # characters per line of a node's method list
# Beyond this many transitions the layout is neato's instead of dot's: dot lays out edge
# labels as extra nodes, which takes minutes for a few hundred labelled edges (neato: seconds).
LARGE = 80
# Beyond this many edges a transition's tooltip is just `S1 --m--> S2` (no witness): such
# a graph is not drawn (see `diagram`), and the witnesses are in typestate.json.
TOOLTIPS_UP_TO = 1000


def quote(text: str) -> str:
    """A DOT double-quoted string for `text` (newlines become DOT's centred line breaks)."""
    if '"' not in text and "\\" not in text and "\n" not in text:  # ids and names: nothing to escape
        return '"' + text + '"'
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n") + '"'


def wrap(text: str, width: int) -> list[str]:
    """`textwrap.wrap(text, width, break_long_words=False)`, greedily and fast when the
    words are separated by single spaces and hold no hyphen (method lists: textwrap's
    regular expressions took seconds over thousands of states, and importing textwrap, which
    compiles them, half a millisecond of every run)."""
    if "-" in text or "  " in text or any(c in text for c in "\t\n\r\v\f") or text != text.strip():
        import textwrap

        return textwrap.wrap(text, width, break_long_words=False)
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) <= width:
            line += " " + word
        else:
            if line:
                lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines


def _attrs(**attrs: str) -> str:
    return "[" + ", ".join(f"{key}={quote(value)}" for key, value in attrs.items()) + "]"


def node_id(state_id: str) -> str:
    """The SVG element id of a state's node."""
    return f"state-{state_id}"


def transition_id(index: int) -> str:
    """The SVG element id of `ts.transitions[index]`'s edge."""
    return f"transition-{index}"


def initialization_id(index: int) -> str:
    """The SVG element id of `ts.initializations[index]`'s edge."""
    return f"init-{index}"


def node_label(state: State, ts: Typestate | None = None, loops: tuple[str, ...] = ()) -> str:
    """The id and the enabled methods (without the always-enabled ones when `ts` is given),
    then the folded self-loops `loops`, if any."""
    if not state.enabled:
        return f"{state.id}\n(stuck: no method enabled)"
    shown = ts.shown_labels(state) if ts is not None else state.labels()
    methods = wrap(", ".join(shown), WRAP) if shown else ["(always-enabled only)"]
    folded = wrap("loops: " + ", ".join(loops), WRAP) if loops else []
    return "\n".join([state.id, *methods, *folded])


def _node(state: State, ts: Typestate, loops: tuple[str, ...] = ()) -> str:
    classes = (["state"] + ["initial"] * state.initial + ["stuck"] * (not state.enabled)
               + ["unexplored"] * state.unexplored)
    attrs = {"id": node_id(state.id), "class": " ".join(classes),
             "label": node_label(state, ts, loops), "tooltip": state_tooltip(ts, state)}
    if state.initial:
        attrs.update(style="bold")
    if not state.enabled:
        attrs.update(
            style="filled,bold" if state.initial else "filled",
            fillcolor="lightgrey",
            color="firebrick",
        )
    if state.unexplored:  # what a stopped exploration did not reach (contractor.unexplored)
        attrs.update(style="dashed,bold" if state.initial else "dashed", color="grey40", fontcolor="grey40")
    return f"  {quote(state.id)} {_attrs(**attrs)};"


def _edge(source: str, target: str, method: str, certainty: str, edge_id: str, kind: str,
          tooltip: str) -> str:
    attrs = {"id": edge_id, "class": f"{kind} {certainty}", "label": method,
             "tooltip": tooltip, "labeltooltip": tooltip}
    if source == START:  # a longer arrow, so the constructor's name sits beside it, not on it
        attrs.update(minlen="2")
    if certainty == "may":
        attrs.update(label=f"{method}?", style="dashed")
    return f"  {quote(source)} -> {quote(target)} {_attrs(**attrs)};"


def to_dot(ts: Typestate, *, drawn: tuple[Transition, ...] | None = None,
           loops: dict[str, tuple[str, ...]] | None = None, note: str = "") -> str:
    """The DOT text of `ts` (deterministic: states, then edges, in the typestate's order).

    For a folded diagram (see `diagram`): `drawn` are the transitions drawn as edges
    (default: all), `loops` (state id -> methods) the self-loops shown in the state's
    label instead, and `note` a further title line saying what is left out. Self-loops
    of always-enabled methods are never drawn (`Typestate.hides`).
    """
    loops = loops or {}
    drawn = ts.transitions if drawn is None else drawn
    index = {(t.source, t.method, t.target): n for n, t in enumerate(ts.transitions)}
    edges = [t for t in drawn if not ts.hides(t)]
    title = _title(ts) + (f"\n{note}" if note else "")
    graph = {"label": title, "labelloc": "t", "rankdir": "LR", "fontname": "Helvetica"}
    if len(edges) > LARGE:
        graph.update(layout="neato", overlap="false")
    lines = [
        f"digraph {quote(ts.class_name)} {{",
        f"  graph {_attrs(**graph)};",
        f"  node {_attrs(shape='ellipse', fontname='Helvetica', fontsize='11')};",
        f"  edge {_attrs(fontname='Helvetica', fontsize='10')};",
    ]
    if ts.initializations:
        lines.append(f"  {quote(START)} {_attrs(id='start', shape='point', width='0.15', label='', tooltip='start')};")
    lines.extend(_node(s, ts, loops.get(s.id, ())) for s in ts.states)
    lines.extend(
        _edge(START, i.target, i.constructor, i.certainty, initialization_id(n), "initialization",
              initialization_tooltip(i))
        for n, i in enumerate(ts.initializations))
    if len(edges) <= TOOLTIPS_UP_TO:
        lines.extend(
            _edge(t.source, t.target, t.method, t.certainty,
                  transition_id(index[(t.source, t.method, t.target)]), "transition", transition_tooltip(t))
            for t in edges)
    else:
        lines.extend(_large_edges(edges, index))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _large_edges(edges: list[Transition], index: dict[tuple[str, str, str], int]) -> list[str]:
    """The lines `_edge` gives for `edges` with the short tooltip `S1 --m--> S2 (must)`, in
    one formatting step per edge (a graph this large is not drawn; its DOT text took
    seconds through `_edge`)."""
    out = []
    for t in edges:
        source, target, method, certainty = quote(t.source), quote(t.target), t.method, t.certainty
        tooltip = quote(f"{t.source} --{method}--> {t.target} ({certainty})")
        label, style = (quote(method + "?"), ', style="dashed"') if certainty == "may" else (quote(method), "")
        out.append(f'  {source} -> {target} [id="transition-{index[(t.source, method, t.target)]}", '
                   f'class="transition {certainty}", label={label}, tooltip={tooltip}, '
                   f"labeltooltip={tooltip}{style}];")
    return out


def _title(ts: Typestate) -> str:
    partial = " (PARTIAL)" if not ts.complete else ""
    title = f"{ts.class_name}: {len(ts.states)} states, {len(ts.transitions)} transitions{partial}"
    if ts.always_enabled:
        title += f"\nalways enabled (in {ts.always_where}, self-loops not drawn): {', '.join(ts.always_enabled)}"
    if ts.has_undecided:
        title += "\nm?: may be enabled (z3 could not decide it)"
    return title


__all__ = ["initialization_id", "node_id", "node_label", "quote", "to_dot", "transition_id", "wrap"]

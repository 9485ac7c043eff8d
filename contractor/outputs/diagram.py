"""The drawn diagram (`typestate.svg`, and the report's picture), kept readable at any size.

Up to DRAW_LIMIT transitions the whole typestate is drawn. Beyond, self-loops are folded
into their state's label and, if that is not enough, the transitions of methods enabled
in every state are left out (the title says which). A typestate still too large gets a
small SVG saying so instead of a layout nobody can read that takes minutes to compute:
its states and transitions are in `typestate.json` and the report's tables.
`typestate.dot` always holds the whole graph.
"""

from __future__ import annotations

from dataclasses import dataclass

from contractor.outputs.dot import to_dot
from contractor.typestate import Transition, Typestate

DRAW_LIMIT = 150  # edges beyond which a diagram is folded, or not drawn


@dataclass(frozen=True)
class Diagram:
    """What to draw: DOT text, or None with a note saying why nothing is drawn."""

    dot: str | None
    note: str


def diagram(ts: Typestate, full_dot: str | None = None) -> Diagram:
    """The diagram of `ts`: whole, folded, or (too large) none."""
    if len(ts.transitions) <= DRAW_LIMIT:
        return Diagram(full_dot if full_dot is not None else to_dot(ts), "")
    loops: dict[str, list[str]] = {}
    kept: list[Transition] = []
    for t in ts.transitions:
        if t.source == t.target:
            loops.setdefault(t.source, []).append(t.method + ("?" if t.certainty == "may" else ""))
        else:
            kept.append(t)
    notes = ["self-loops listed in their state"] if loops else []
    if len(kept) > DRAW_LIMIT and len(ts.states) > 1:
        always = sorted({t.method for t in kept} & set(ts.always_enabled))
        if always:
            kept = [t for t in kept if t.method not in always]
            notes.append(f"transitions of {', '.join(always)} (enabled everywhere) not drawn")
    if len(kept) > DRAW_LIMIT:
        return Diagram(None, f"{ts.class_name}: {len(ts.states)} states and {len(ts.transitions)} "
                             f"transitions are too many to draw readably (more than {DRAW_LIMIT} edges "
                             "even with self-loops folded); the tables of report.html and "
                             "typestate.json list them all, typestate.dot holds the whole graph.")
    note = f"drawn: {len(kept)} of {len(ts.transitions)} transitions; " + "; ".join(notes)
    folded = {sid: tuple(ms) for sid, ms in loops.items()}
    return Diagram(to_dot(ts, drawn=tuple(kept), loops=folded, note=note), note)


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def note_svg(text: str, width: int = 720) -> bytes:
    """A small SVG showing `text` (wrapped), for a typestate too large to draw."""
    import textwrap

    lines = textwrap.wrap(text, 90)
    height = 24 * len(lines) + 24
    rows = "".join(f'<text x="16" y="{28 + 24 * i}">{escape(line)}</text>' for i, line in enumerate(lines))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="Helvetica" font-size="14">'
            f'<rect x="1" y="1" width="{width - 2}" height="{height - 2}" fill="#fffbe6" stroke="#b8860b"/>'
            f"{rows}</svg>\n").encode()


def draw_svg(ts: Typestate, full_dot: str | None = None) -> bytes:
    """The SVG of `ts`'s diagram (the Graphviz engine starts only when something is drawn)."""
    d = diagram(ts, full_dot)
    if d.dot is None:
        return note_svg(d.note)
    from contractor.outputs.render import render_svg

    return render_svg(d.dot)


__all__ = ["DRAW_LIMIT", "Diagram", "diagram", "draw_svg", "note_svg"]

"""`report.html`: one self-contained page with the diagram inline (fitted to the page's
width, with a legend) and tables of states, transitions, initializations, findings,
unknowns and statistics (template `contractor/templates/report.html.j2`)."""

from __future__ import annotations

import re

from markupsafe import Markup

from contractor.outputs.tooltips import witness_text
from contractor.resources import jinja_env
from contractor.strict_json import dumps
from contractor.typestate import Typestate

TEMPLATE = "report.html.j2"
TRANSITION_ROWS = 1000  # rows of the transitions table; beyond, a note points to typestate.json
_PROLOGUE = re.compile(r"\A\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?(<!--.*?-->\s*)*", re.S)
_ROOT_SIZE = re.compile(r'(<svg\b[^>]*?)\s+width="([^"]*)"\s+height="[^"]*"', re.S)


def inline_svg(svg: bytes | str) -> str:
    """The `<svg>` element of an SVG document, without the XML prologue and doctype."""
    text = svg.decode("utf-8") if isinstance(svg, bytes) else svg
    return _PROLOGUE.sub("", text, count=1)


def fluid_svg(svg: bytes | str) -> str:
    """`inline_svg` without the root's fixed width and height: the viewBox stays, so the
    drawing scales to its container's width (CSS caps it at its natural size)."""
    return _ROOT_SIZE.sub(r'\1 class="typestate-diagram" width="100%" style="max-width: \2"',
                          inline_svg(svg), count=1)


def _compact(data) -> str:
    if not data:
        return ""
    return dumps(data, ensure_ascii=False, default=str, sort_keys=False)


def to_html(ts: Typestate, svg: bytes | str | None) -> str:
    """The HTML report of `ts`, with `svg` (the rendered DOT) inline when given."""
    template = jinja_env().get_template(TEMPLATE)
    return template.render(
        ts=ts,
        svg=Markup(fluid_svg(svg)) if svg else None,
        may_count=sum(t.certainty == "may" for t in ts.transitions),
        any_witnessed=any(s.witnessed for s in ts.states),
        compact=_compact,
        witness=witness_text,
        transition_rows=TRANSITION_ROWS,
    )


__all__ = ["fluid_svg", "inline_svg", "to_html"]

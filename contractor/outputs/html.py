"""`report.html`: one self-contained page with the diagram inline and tables of states,
transitions, initializations, findings, unknowns and statistics (template
`contractor/templates/report.html.j2`)."""

from __future__ import annotations

import json
import re

from markupsafe import Markup

from contractor.resources import jinja_env
from contractor.typestate import Typestate

TEMPLATE = "report.html.j2"
_PROLOGUE = re.compile(r"\A\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?(<!--.*?-->\s*)*", re.S)


def inline_svg(svg: bytes | str) -> str:
    """The `<svg>` element of an SVG document, without the XML prologue and doctype."""
    text = svg.decode("utf-8") if isinstance(svg, bytes) else svg
    return _PROLOGUE.sub("", text, count=1)


def _compact(data) -> str:
    if not data:
        return ""
    return json.dumps(data, ensure_ascii=False, default=str, sort_keys=False)


def to_html(ts: Typestate, svg: bytes | str | None) -> str:
    """The HTML report of `ts`, with `svg` (the rendered DOT) inline when given."""
    template = jinja_env().get_template(TEMPLATE)
    return template.render(
        ts=ts,
        svg=Markup(inline_svg(svg)) if svg else None,
        may_count=sum(t.certainty == "may" for t in ts.transitions),
        compact=_compact,
    )


__all__ = ["inline_svg", "to_html"]

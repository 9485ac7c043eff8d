"""The diagram's legend, one HTML fragment shared by `report.html` and `contractor view`
(plain Python: a run writing the report need not import a template engine)."""

from __future__ import annotations

from collections.abc import Sequence

from contractor.outputs.htmltext import html_text

_ITEMS = (
    '<span class="legend-item"><svg width="46" height="12" aria-hidden="true"><line x1="2" y1="6" x2="36" y2="6" '
    'stroke="#222" stroke-width="1.3"/><polygon points="36,2 44,6 36,10" fill="#222"/></svg> '
    "must: the solver found a witness</span>",
    '<span class="legend-item"><svg width="46" height="12" aria-hidden="true"><line x1="2" y1="6" x2="36" y2="6" '
    'stroke="#222" stroke-width="1.3" stroke-dasharray="5,2"/><polygon points="36,2 44,6 36,10" fill="#222"/></svg> '
    "may (<code>m?</code>): undecided, kept</span>",
    '<span class="legend-item"><svg width="46" height="12" aria-hidden="true"><circle cx="5" cy="6" r="4" '
    'fill="#222"/><line x1="9" y1="6" x2="36" y2="6" stroke="#222" stroke-width="1.3"/><polygon '
    'points="36,2 44,6 36,10" fill="#222"/></svg> initial: a constructor\'s arrow from the start dot '
    "(bold border)</span>",
    '<span class="legend-item"><svg width="30" height="14" aria-hidden="true"><ellipse cx="15" cy="7" rx="13" '
    'ry="6" fill="lightgrey" stroke="firebrick"/></svg> stuck: no method enabled</span>',
)


def legend_html(always: Sequence[str], where: str = "every state") -> str:
    """The legend; `always` lists the methods enabled in `where` (shown once here instead
    of in every node). No trailing newline."""
    listed = html_text(", ".join(always)) if always else "none"
    lines = ['<div class="legend" aria-label="legend">', *(f"  {item}" for item in _ITEMS),
             f'  <span class="legend-item legend-always">always enabled (in {where}; not repeated in the '
             'nodes, self-loops not drawn):', f'    <code class="always-list">{listed}</code></span>', "</div>"]
    return "\n".join(lines)


__all__ = ["legend_html"]

"""`report.html`: one self-contained page with the diagram inline (fitted to the page's
width, with a legend) and tables of states, transitions, initializations, findings,
unknowns and statistics.

Written by plain Python (every inserted value escaped), not a template engine: importing
jinja2 and loading a compiled template was a tenth of a small class's run. The page's style sheet is package data
(`contractor/templates/report.css`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

from contractor.outputs.htmltext import html_text as _e
from contractor.outputs.legend import legend_html
from contractor.outputs.tooltips import witness_text
from contractor.resources import templates_dir
from contractor.strict_json import dumps
from contractor.typestate import Typestate

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


def _compact(data: Any) -> str:
    if not data:
        return ""
    return dumps(data, ensure_ascii=False, default=str, sort_keys=False)


@cache
def _style() -> str:
    return (templates_dir() / "report.css").read_text(encoding="utf-8")


def _may(certainty: Any) -> str:
    return ' class="may"' if certainty == "may" else ""


def to_html(ts: Typestate, svg: bytes | str | None) -> str:
    """The HTML report of `ts`, with `svg` (the rendered DOT) inline when given."""
    return "".join(_page(ts, svg))


def _page(ts: Typestate, svg: bytes | str | None) -> Iterator[str]:
    may_count = sum(t.certainty == "may" for t in ts.transitions)
    yield ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
           f"<title>{_e(ts.class_name)} typestate</title>\n<style>\n{_style()}</style>\n</head>\n<body>\n")
    yield f"<h1>{_e(ts.class_name)}</h1>\n"
    yield (f'<p class="meta"><code>{_e(ts.source)}</code> &middot; {len(ts.states)} states &middot;\n'
           f"{len(ts.transitions)} transitions ({may_count} may) &middot;\n"
           f"backend {_e(ts.stats.backend)}")
    if ts.dialects:
        yield f" &middot; contracts: {_e(', '.join(ts.dialects))}"
    yield "</p>\n"
    if not ts.complete:
        yield ('<p class="partial"><strong>PARTIAL</strong>: the exploration did not finish; '
               "states and transitions may be missing.</p>\n")
    yield "\n"
    if svg:
        yield f'<div class="diagram">{fluid_svg(svg)}</div>\n{legend_html(ts.always_enabled, ts.always_where)}\n'
        yield ('<p class="meta">Hover a state or an arrow for its enabled methods, invariant, certainty '
               'and witness.</p>\n')
    yield from _states(ts)
    yield from _transitions(ts)
    yield from _initializations(ts)
    yield from _findings(ts)
    yield from _unknowns(ts)
    yield from _statistics(ts)


def _states(ts: Typestate) -> Iterator[str]:
    witnessed = any(s.witnessed for s in ts.states)
    yield ("\n<h2>States</h2>\n<table>\n<tr><th>id</th><th>enabled methods</th><th>invariant</th><th>initial</th>"
           + ("<th>witnessed</th>" if witnessed else "") + "</tr>\n")
    for s in ts.states:
        enabled = _e(", ".join(s.labels())) if s.enabled else '<span class="stuck">none (stuck)</span>'
        yield (f'<tr id="state-{_e(s.id)}"><td>{_e(s.id)}</td>\n<td>{enabled}</td>\n'
               f"<td><code>{_e(s.invariant)}</code></td><td>{'yes' if s.initial else ''}</td>"
               + (f"<td>{'yes' if s.witnessed else ''}</td>" if witnessed else "") + "</tr>\n")
    yield "</table>\n"
    if ts.has_undecided:
        yield ('<p class="meta"><code>m?</code>: may be enabled. z3 could not decide its enabledness; the '
               "state holds the objects where it can be enabled, perhaps not all of them.</p>\n")


def _transitions(ts: Typestate) -> Iterator[str]:
    yield ("\n<h2>Transitions</h2>\n<table>\n<tr><th>source</th><th>method</th><th>target</th>"
           "<th>certainty</th><th>witness</th><th>reason</th></tr>\n")
    for i, t in enumerate(ts.transitions[:TRANSITION_ROWS]):
        yield (f'<tr id="row-transition-{i}"><td>{_e(t.source)}</td><td>{_e(t.method)}</td><td>{_e(t.target)}</td>\n'
               f"<td{_may(t.certainty)}>{_e(t.certainty)}</td>\n"
               f'<td class="witness">{_e(witness_text(t.witness, t.method))}</td><td>{_e(t.reason or "")}</td></tr>\n')
    yield "</table>\n"
    if len(ts.transitions) > TRANSITION_ROWS:
        yield (f'<p class="meta">The first {TRANSITION_ROWS} of {len(ts.transitions)} transitions; '
               "<code>typestate.json</code> lists them all.</p>\n")


def _initializations(ts: Typestate) -> Iterator[str]:
    yield ("\n<h2>Initializations</h2>\n<table>\n<tr><th>constructor</th><th>target</th><th>certainty</th>"
           "<th>witness</th><th>reason</th></tr>\n")
    for i in ts.initializations:
        yield (f"<tr><td>{_e(i.constructor)}</td><td>{_e(i.target)}</td>\n"
               f"<td{_may(i.certainty)}>{_e(i.certainty)}</td>\n"
               f'<td class="witness">{_e(witness_text(i.witness, i.constructor))}</td>'
               f'<td>{_e(i.reason or "")}</td></tr>\n')
    yield "</table>\n"


def _findings(ts: Typestate) -> Iterator[str]:
    yield "\n<h2>Findings</h2>\n"
    if not ts.findings:
        yield "<p>None.</p>\n"
        return
    yield ("<table>\n<tr><th>kind</th><th>method</th><th>state</th><th>line</th><th>message</th>"
           "<th>counterexample</th></tr>\n")
    for f in ts.findings:
        line = "" if f.line is None else f.line
        yield (f'<tr><td>{_e(f.kind)}</td><td>{_e(f.method or "")}</td><td>{_e(f.state or "")}</td>'
               f"<td>{_e(line)}</td>\n<td>{_e(f.message)}</td><td><code>{_e(_compact(f.counterexample))}</code></td></tr>\n")
    yield "</table>\n"


def _unknowns(ts: Typestate) -> Iterator[str]:
    yield "\n<h2>Not translated</h2>\n"
    if not ts.unknowns:
        yield "<p>None: every construct was translated.</p>\n"
        return
    yield ("<p>Constructs the z3 backend could not translate; the answers that depend on them are may.</p>\n"
           "<table>\n<tr><th>method</th><th>line</th><th>construct</th><th>detail</th></tr>\n")
    for u in ts.unknowns:
        yield (f"<tr><td>{_e(u.method)}</td><td>{_e(u.line)}</td><td><code>{_e(u.construct)}</code></td>"
               f"<td>{_e(u.detail)}</td></tr>\n")
    yield "</table>\n"


def _statistics(ts: Typestate) -> Iterator[str]:
    st = ts.stats
    by_backend = sorted(st.queries_by_backend.items(), key=lambda kv: kv[0].lower())
    split = f" ({', '.join(f'{_e(name)}: {_e(n)}' for name, n in by_backend)})" if by_backend else ""
    yield (f"\n<h2>Statistics</h2>\n<table>\n<tr><th>states</th><td>{_e(st.states)}</td></tr>\n"
           f"<tr><th>transitions</th><td>{_e(st.transitions)}</td></tr>\n"
           f"<tr><th>solver queries</th><td>{_e(st.queries)}{split}</td></tr>\n"
           f"<tr><th>time</th><td>{st.seconds:.2f} s</td></tr>\n"
           f"<tr><th>backend</th><td>{_e(st.backend)}</td></tr>\n"
           f"<tr><th>complete</th><td>{'yes' if ts.complete else 'no (PARTIAL)'}</td></tr>\n"
           "</table>\n</body>\n</html>\n")


__all__ = ["fluid_svg", "inline_svg", "to_html"]

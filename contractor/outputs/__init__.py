"""Renderers of a `Typestate`: one module per format, each a pure function of the typestate.

`writer.write_artifacts` puts them all on disk at once (nothing half-written on error).
Names are imported on first use, so a run that writes no HTML never imports jinja2 and
one that draws nothing never starts Graphviz.
"""

from __future__ import annotations

import importlib

_WHERE = {
    "render_png": "contractor.outputs.render",
    "render_svg": "contractor.outputs.render",
    "to_dot": "contractor.outputs.dot",
    "to_html": "contractor.outputs.html",
    "to_json": "contractor.outputs.json_out",
    "to_mermaid": "contractor.outputs.mermaid",
    "to_text": "contractor.outputs.summary",
    "write_artifacts": "contractor.outputs.writer",
}


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'contractor.outputs' has no attribute {name!r}")


__all__ = sorted(_WHERE)

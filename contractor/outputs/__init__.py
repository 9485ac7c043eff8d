"""Renderers of a `Typestate`: one module per format, each a pure function of the typestate.

`writer.write_artifacts` puts them all on disk at once (nothing half-written on error).
"""

from contractor.outputs.dot import to_dot
from contractor.outputs.html import to_html
from contractor.outputs.json_out import to_json
from contractor.outputs.mermaid import to_mermaid
from contractor.outputs.render import render_png, render_svg
from contractor.outputs.summary import to_text
from contractor.outputs.writer import write_artifacts

__all__ = [
    "render_png",
    "render_svg",
    "to_dot",
    "to_html",
    "to_json",
    "to_mermaid",
    "to_text",
    "write_artifacts",
]

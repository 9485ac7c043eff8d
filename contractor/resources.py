"""Where contractor's data files live, and the one jinja2 environment every template user shares
(jinja2 is imported only when a template is rendered).

The templates are package data under `contractor/templates/`, loaded through the
package loader, so every install form (editable, wheel, pipx, zip) finds them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jinja2

# Templates whose names end so are rendered with HTML/XML autoescaping; all others
# (generated Python source, Markdown, text) are rendered verbatim.
AUTOESCAPED = ("html", "htm", "xml", "svg", "html.j2", "htm.j2", "xml.j2", "svg.j2")


def templates_dir() -> Path:
    """The `templates/` folder inside the installed package."""
    return Path(__file__).resolve().parent / "templates"


def jinja_env() -> jinja2.Environment:
    """A fresh jinja2 environment over `templates_dir()`.

    Undefined names are errors (StrictUndefined); `trim_blocks` and `lstrip_blocks` are
    on, so block tags on their own lines leave no blank lines behind; a template's
    final newline is kept. Autoescaping is on only for HTML/XML/SVG templates. Compiled
    templates are kept in the user cache (jinja2 checks each against its source).
    `legend_html(always)` gives the diagram's legend (shared with `report.html`).
    """
    import jinja2

    from contractor.outputs.legend import legend_html
    from contractor.usercache import user_cache_dir

    folder = user_cache_dir("jinja")
    env = jinja2.Environment(
        bytecode_cache=jinja2.FileSystemBytecodeCache(str(folder)) if folder else None,
        loader=jinja2.PackageLoader("contractor", "templates"),
        autoescape=jinja2.select_autoescape(
            enabled_extensions=AUTOESCAPED, default_for_string=False
        ),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals["legend_html"] = legend_html
    return env


__all__ = ["jinja_env", "templates_dir"]

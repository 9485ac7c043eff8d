"""Values as HTML text, escaped exactly as jinja2's autoescaping (markupsafe) escapes them,
without importing either."""

from __future__ import annotations

from typing import Any

_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"})


def html_text(value: Any) -> str:
    """`str(value)` with `& < > " '` escaped (as `&amp; &lt; &gt; &#34; &#39;`)."""
    return str(value).translate(_ESCAPES)


__all__ = ["html_text"]

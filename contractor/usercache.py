"""The per-user cache folder for things that are slow to build and never change for a
given input: Graphviz's compiled WebAssembly module and compiled report templates.

`$XDG_CACHE_HOME/contractor` (default `~/.cache/contractor`); `CONTRACTOR_USER_CACHE=0`
switches it off. A folder that cannot be created only costs time: callers get None.
(The CrossHair answer cache is separate: per project, see crosshair_backend.cache.)
"""

from __future__ import annotations

import os
from pathlib import Path


def user_cache_dir(*parts: str) -> Path | None:
    """The cache folder (with `parts` below it), created if needed; None when off or unusable."""
    if os.environ.get("CONTRACTOR_USER_CACHE", "1") == "0":
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base, "contractor", *parts)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder


__all__ = ["user_cache_dir"]

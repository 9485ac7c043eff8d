"""The CrossHair path: typestates for classes written in ordinary Python, by symbolic
execution of the real code (this path imports and runs the user's module).

`make_crosshair_backend` is the entry point contractor.api uses for the "crosshair" and
"auto" backends.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from contractor.backend import Backend
from contractor.crosshair_backend.auto import AutoBackend
from contractor.crosshair_backend.cache import DiskCache, fingerprint
from contractor.errors import InputError
from contractor.model import ClassModel

if TYPE_CHECKING:
    from contractor.crosshair_backend.backend import CrosshairBackend

KNOWN_OPTIONS = ("budget", "cache", "cache_dir")


def _crosshair(model: ClassModel, options) -> "CrosshairBackend":
    # imported here: CrossHair itself takes ~0.4 s to import, and `auto` on a class z3
    # translates fully never needs it
    from contractor.crosshair_backend.backend import CrosshairBackend

    extra = dict(options.crosshair_options or {})
    unknown = sorted(set(extra) - set(KNOWN_OPTIONS))
    if unknown:
        raise ValueError(f"unknown crosshair_options {unknown}; expected some of {list(KNOWN_OPTIONS)}")
    cache = None
    if extra.get("cache", True):
        from pathlib import Path

        setting = {"class": model.name, "source": model.source, "actions": list(model.actions),
                   "constructors": list(model.constructors), "timeout": options.timeout,
                   **fingerprint(model.module, Path(model.path))}
        directory = Path(extra["cache_dir"]) if extra.get("cache_dir") else None
        cache = DiskCache.for_setting(setting, directory)
    return CrosshairBackend(model, timeout=options.timeout, budget=_budget(extra.get("budget"), options), cache=cache)


def _budget(own: float | None, options) -> float | None:
    """CrossHair's budget from now: its own option, cut to what is left of the run's budget."""
    if options.run_deadline is None:
        return own
    import time

    left = max(0.0, options.run_deadline - time.monotonic())
    return left if own is None else min(own, left)


def make_crosshair_backend(model: ClassModel, options) -> Backend:
    """The backend for options.backend "crosshair" or "auto" (z3 first, CrossHair for the
    transitions z3 leaves undecided)."""
    asynchronous = frozenset(m for m in model.actions if isinstance(model.methods[m].node, ast.AsyncFunctionDef))
    if options.backend == "crosshair":
        if asynchronous:
            raise InputError(f"{model.name}: the CrossHair backend cannot run async methods "
                             f"({', '.join(sorted(asynchronous))}); use --backend z3 or auto, or --exclude them",
                             model.location, "async method")
        return _crosshair(model, options)
    from contractor.z3backend import Z3Backend

    z3 = Z3Backend(model, unroll=options.unroll, timeout=options.timeout)
    return AutoBackend(z3, lambda: _crosshair(model, options), asynchronous)


def __getattr__(name: str):
    if name == "CrosshairBackend":
        from contractor.crosshair_backend.backend import CrosshairBackend

        return CrosshairBackend
    raise AttributeError(name)


__all__ = ["AutoBackend", "CrosshairBackend", "DiskCache", "make_crosshair_backend"]

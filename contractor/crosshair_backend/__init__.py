"""The CrossHair path: typestates for classes written in ordinary Python, by symbolic
execution of the real code. This path imports and runs the user's module, but only in a
worker process behind CrossHair's side-effect wall (sandbox.py, worker.py).

`make_crosshair_backend` is the entry point contractor.api uses for the "crosshair" and
"auto" backends.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from contractor.backend import Backend
from contractor.crosshair_backend.auto import AutoBackend
from contractor.errors import InputError
from contractor.model import ClassModel

if TYPE_CHECKING:
    from contractor.crosshair_backend.sandbox import SandboxedCrosshair
    from contractor.z3backend import Z3Backend

KNOWN_OPTIONS = ("budget", "cache", "cache_dir")


def _crosshair(model: ClassModel, options, alone: bool) -> SandboxedCrosshair:
    """The sandboxed CrossHair backend (`alone`: not under auto, z3 is then its fallback)."""
    from contractor.crosshair_backend.sandbox import SandboxedCrosshair

    extra = dict(options.crosshair_options or {})
    unknown = sorted(set(extra) - set(KNOWN_OPTIONS))
    if unknown:
        raise ValueError(f"unknown crosshair_options {unknown}; expected some of {list(KNOWN_OPTIONS)}")
    cache = None
    if extra.get("cache", True):
        from pathlib import Path

        from contractor.crosshair_backend.cache import DiskCache, fingerprint

        setting = {"class": model.name, "source": model.source, "actions": list(model.actions),
                   "constructors": list(model.constructors), "timeout": options.timeout,
                   **fingerprint(model.module, Path(model.path))}
        directory = Path(extra["cache_dir"]) if extra.get("cache_dir") else None
        cache = DiskCache.for_setting(setting, directory)
    return SandboxedCrosshair(
        model, timeout=options.timeout, deadline=_deadline(extra.get("budget"), options), cache=cache,
        fallback=(lambda: _z3(model, options)) if alone else None, input_errors_fatal=alone,
        verbose=getattr(options, "verbose", False))


def _z3(model: ClassModel, options) -> Z3Backend:
    from contractor.z3backend import Z3Backend

    # split undecided bits: CrossHair's answers are real enabled sets, the same vocabulary
    return Z3Backend(model, unroll=options.unroll, timeout=options.timeout, deadline=options.run_deadline,
                     merged=False)


def _deadline(own: float | None, options) -> float | None:
    """When CrossHair must be done: its own budget from now, or the run's deadline if sooner."""
    import time

    mine = None if own is None else time.monotonic() + own
    run = getattr(options, "run_deadline", None)
    if mine is None or run is None:
        return mine if run is None else run
    return min(mine, run)


def make_crosshair_backend(model: ClassModel, options) -> Backend:
    """The backend for options.backend "crosshair" or "auto" (z3 first, CrossHair for the
    transitions z3 leaves undecided)."""
    asynchronous = frozenset(m for m in model.actions if isinstance(model.methods[m].node, ast.AsyncFunctionDef))
    if options.backend == "crosshair":
        if asynchronous:
            raise InputError(f"{model.name}: the CrossHair backend cannot run async methods "
                             f"({', '.join(sorted(asynchronous))}); use --backend z3 or auto, or --exclude them",
                             model.location, "async method")
        return _crosshair(model, options, alone=True)
    return AutoBackend(_z3(model, options), lambda: _crosshair(model, options, alone=False), asynchronous)


def __getattr__(name: str):
    if name == "CrosshairBackend":  # the in-process engine the worker runs
        from contractor.crosshair_backend.backend import CrosshairBackend

        return CrosshairBackend
    if name == "SandboxedCrosshair":
        from contractor.crosshair_backend.sandbox import SandboxedCrosshair

        return SandboxedCrosshair
    if name == "DiskCache":  # imported when used: hashlib is no part of a z3-only run
        from contractor.crosshair_backend.cache import DiskCache

        return DiskCache
    raise AttributeError(name)


__all__ = ["AutoBackend", "CrosshairBackend", "DiskCache", "SandboxedCrosshair", "make_crosshair_backend"]

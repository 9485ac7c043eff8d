"""The documented Python API: resolve a target, read its contracts, explore its typestate.

The CLI is a thin layer over these functions.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from contractor.backend import Backend, ProgressCallback
from contractor.events import EventCallback
from contractor.model import ClassModel, PreconditionMode
from contractor.target import ResolvedTarget
from contractor.typestate import Typestate


@dataclass(frozen=True)
class InferOptions:
    """How `infer` and `infer_model` run: the backend, the actions, the solver's bounds and budgets."""

    backend: str = "auto"  # "z3" | "crosshair" | "auto" (z3 first, CrossHair for what z3 leaves may)
    methods: tuple[str, ...] | None = None  # the actions; None: public methods
    exclude: tuple[str, ...] = ()
    unroll: int = 8  # loop iterations the z3 backend unrolls before answering unknown
    timeout: float = 10.0  # seconds per solver query
    max_states: int | None = None
    crosshair_options: dict[str, Any] = field(default_factory=dict)
    # which preconditions decide enabledness; None: declared if the class declares any
    # contract, else implicit (raise guards)
    preconditions: PreconditionMode | None = None
    # worker processes for large explorations (contractor.parallel); 0: one per CPU, used only
    # when many pairs wait and each costs the solver real time; 1: never
    jobs: int = 0
    budget: float | None = None  # seconds for the whole run's solving; then the result is partial
    verbose: bool = False  # copy the CrossHair worker's output (the user module's prints) to stderr
    run_deadline: float | None = None  # set by infer_model (time.monotonic() value); leave None


def load_model(target: str, options: InferOptions = InferOptions(), root: Path | None = None) -> ClassModel:
    """Resolve `target` (file.py:Class, package.module:Class or Class) and read its contracts."""
    from contractor.target import resolve

    return load_resolved(resolve(target, root or Path.cwd()), options, root)


def load_resolved(resolved: ResolvedTarget, options: InferOptions = InferOptions(),
                  root: Path | None = None) -> ClassModel:
    """Read the contracts of a class already found (by `load_model` or `contractor.discover`);
    its base classes are looked up under `root` (default: the working folder) and sys.path."""
    from contractor.contracts import read_class

    mode = options.preconditions
    if mode is None and options.backend == "crosshair":
        mode = PreconditionMode.DECLARED  # CrossHair reads declared contracts only
    return read_class(resolved, methods=options.methods, exclude=options.exclude, preconditions=mode,
                      root=root)


def make_backend(model: ClassModel, options: InferOptions) -> Backend:
    if model.preconditions.guards and options.backend != "z3":
        # CrossHair checks declared contracts only: raise guards are read by z3 alone
        if options.backend == "crosshair":
            from contractor.errors import InputError

            raise InputError(f"--backend crosshair reads declared contracts only, but {model.name} is "
                             f"analysed with {model.preconditions.value} preconditions (raise guards); "
                             "use --backend z3 or auto, or --preconditions declared", model.location)
        from contractor.z3backend import Z3Backend

        return Z3Backend(model, unroll=options.unroll, timeout=options.timeout, deadline=options.run_deadline)
    if options.backend == "z3":
        from contractor.z3backend import Z3Backend

        return Z3Backend(model, unroll=options.unroll, timeout=options.timeout, deadline=options.run_deadline)
    if options.backend in ("crosshair", "auto"):
        from contractor.crosshair_backend import make_crosshair_backend

        return make_crosshair_backend(model, options)
    raise ValueError(f"unknown backend {options.backend!r}; expected z3, crosshair or auto")


def infer_model(model: ClassModel, options: InferOptions = InferOptions(),
                on_progress: ProgressCallback | None = None,
                on_event: EventCallback | None = None) -> Typestate:
    """Explore `model`'s typestate; `on_event` hears of each state and transition as found.
    Within `options.budget` seconds (if given); after it the result is partial (`complete`
    False). Ctrl-C raises `contractor.explore.ExplorationInterrupted`, a KeyboardInterrupt
    carrying the partial typestate; a second Ctrl-C not acted on within a second ends the
    process (status 130). Run from a large frame-stack chunk (framestack.py), as the CLI runs."""
    from contractor.framestack import deep

    return deep(lambda: _infer_model(model, options, on_progress, on_event))


def _infer_model(model: ClassModel, options: InferOptions, on_progress: ProgressCallback | None,
                 on_event: EventCallback | None) -> Typestate:
    from contractor.explore import explore
    from contractor.runguard import guarded
    from contractor.state_tests import with_state_tests
    from contractor.z3backend.rawapi import unchecked_binding

    started = time.perf_counter()  # the reported time includes translating the class
    with guarded(options.budget) as guard, unchecked_binding():
        backend = make_backend(model, replace(options, run_deadline=guard.deadline))
        jobs = options.jobs or os.cpu_count() or 1
        explored = backend
        parallel = None
        if jobs != 1:
            from contractor.parallel import ParallelBackend

            explored = parallel = ParallelBackend(backend, jobs)
        try:
            typestate = explore(model, explored, on_progress=on_progress, max_states=options.max_states,
                                stop=guard.stop, on_event=on_event, started=started)
            return with_state_tests(model, typestate)
        finally:
            if parallel is not None:
                parallel.close()
            close = getattr(backend, "close", None)  # optional: backends holding a worker process
            if close is not None:
                close()


def infer(target: str, options: InferOptions = InferOptions(), *, root: Path | None = None,
          on_progress: ProgressCallback | None = None) -> Typestate:
    """Infer the enabledness-preserving typestate of the class named by `target`."""
    return infer_model(load_model(target, options, root), options, on_progress)


__all__ = ["InferOptions", "infer", "infer_model", "load_model", "load_resolved", "make_backend"]


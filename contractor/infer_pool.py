"""`contractor infer` over several classes in a process pool (`--jobs`).

Each class is analysed and written by `infer_run.analyse_class` in a worker process
(forked where the platform allows, so nothing is imported twice); the outcomes come back
in the order of the classes, so what is printed and written is the same as in the
sequential run. A worker explores its class alone (`jobs` 1 inside): the pool is the
parallelism. Ctrl-C stops the pool: the classes under way are written partial by their
workers (as the sequential run writes the class it was in), the others not at all.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from contractor.infer_run import ClassOutcome
    from contractor.settings import PartialSettings, ProjectConfig
    from contractor.target import ResolvedTarget


def class_pool_jobs(jobs: int, classes: int) -> int:
    """Worker processes for `classes` classes under `--jobs jobs` (0: one per CPU); 1: no pool."""
    return min(jobs or os.cpu_count() or 1, classes)


def _analyse(resolved: ResolvedTarget, project: ProjectConfig, command_line: PartialSettings,
             several: bool, verbose: bool) -> ClassOutcome:
    from contractor.infer_run import analyse_class

    return analyse_class(resolved, project, command_line, several, None, lambda: None, verbose)


def analyse_in_pool(classes: Sequence[ResolvedTarget], project: ProjectConfig,
                    command_line: PartialSettings, several: bool, jobs: int,
                    verbose: bool = False) -> Iterator[ClassOutcome]:
    """The outcome of each class, in the order of `classes`, computed by `jobs` workers."""
    import multiprocessing  # here, not at the top: a run of one class never needs it
    from concurrent.futures import ProcessPoolExecutor

    single = replace(command_line, jobs=1)
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context)
    try:
        futures = [pool.submit(_analyse, r, project, single, several, verbose) for r in classes]
        for future in futures:
            yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)

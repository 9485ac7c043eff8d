"""The `contractor` console script and `python -m contractor`: the click command line, then
a quick exit.

Tearing the interpreter down (freeing every module, z3 term and solver one by one) took
a tenth to a fifth of a small class's run (the door: 40-60 ms of 0.3-0.5 s) and has no
effect anyone can observe: every file is written and closed by then. So once the command
is done, the exit handlers run (atexit: temporary folders, process pools), the standard
streams are flushed, and the process ends with `os._exit`. Where anything might still be
running (a thread other than the main one), a stream cannot be flushed, or a profiler,
debugger or coverage tool watches the run (`python -m cProfile -m contractor`: it writes
its results after the command returns), the ordinary exit happens instead.

The cyclic garbage collector runs less often in this process (`GC_THRESHOLD`): with
Python's default of a young-generation collection every 700 net allocations, a small
class's run made about 60 collections that mostly scanned long-lived objects (modules,
classes, z3's wrappers), 8-12 ms of the door's 0.25 s CPU; the objects a run drops are
freed by reference counting alone. Larger runs still collect, every `GC_THRESHOLD[0]`
allocations. Library callers (`contractor.api`) keep their own settings.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
import threading


def exit_status(code: object) -> int:
    """The process status `sys.exit(code)` gives (printing a non-integer code, as Python does)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


GC_THRESHOLD = (50_000, 20, 10)  # gc.set_threshold's generations: young, middle, old


def run() -> None:
    """Run the command line (`contractor.cli.main`) and end the process quickly."""
    gc.set_threshold(*GC_THRESHOLD)
    from contractor import classcode

    classcode.install()  # this process is the command's: the modules a run imports later come cached too
    try:
        from contractor.cli import main
        from contractor.framestack import deep
    except KeyboardInterrupt:  # Ctrl-C while starting up: nothing was done
        print("interrupted; nothing written", file=sys.stderr)
        sys.exit(130)
    try:
        deep(lambda: main(prog_name="contractor"))  # no frame-stack chunk mapped per call (framestack.py)
    except SystemExit as done:
        code = done.code
    else:  # click's standalone mode always ends in SystemExit; keep the ordinary path otherwise
        return
    if threading.active_count() > 1 or sys.gettrace() is not None or sys.getprofile() is not None:
        sys.exit(code)  # a thread may be working; a profiler, tracer or coverage writes on the way out
    status = exit_status(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe or stream: let Python report it as usual
        sys.exit(status)
    os._exit(status)


__all__ = ["exit_status", "run"]

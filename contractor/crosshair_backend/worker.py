"""The CrossHair worker process: the only place contractor imports and runs the user's module.

Started by contractor.crosshair_backend.sandbox as `python -m
contractor.crosshair_backend.worker READ_FD WRITE_FD`, with stdout and stderr going to a
log file. It ignores SIGINT (the parent handles Ctrl-C and kills it), ends when its parent
goes away, and engages CrossHair's side-effect wall (an audit hook blocking file writes,
subprocesses, sockets, ...) *before* importing the user's module, so the module's top-level
code runs behind it too.

Messages are pickled tuples over a pipe; see `Request` / the reply shapes in sandbox.py.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection

PARENT_CHECK = 0.5  # seconds between two checks that the parent is still there


def _exit_with_parent(parent: int) -> None:
    while True:
        time.sleep(PARENT_CHECK)
        if os.getppid() != parent:
            os._exit(0)


def _error(exc: BaseException) -> tuple:
    from contractor.errors import InputError

    if isinstance(exc, InputError):
        kind = "import" if exc.construct == "module import" else "input"
        loc = exc.location
        return ("error", kind, exc.message, (loc.path, loc.line, loc.col) if loc else None, exc.construct)
    return ("error", "crash", f"{type(exc).__name__}: {exc}", None, None)


def serve(conn: Connection) -> None:
    """Load the class behind the wall, then answer requests until the pipe closes."""
    # CrossHair and contractor's own modules first: the wall is for the user's code
    from crosshair.auditwall import engage_auditwall

    from contractor.crosshair_backend import backend as engine

    kind, model, timeout = conn.recv()
    assert kind == "init"
    engage_auditwall()
    try:
        backend = engine.CrosshairBackend(model, timeout=timeout, budget=None, cache=None)
    except Exception as exc:  # noqa: BLE001  (reported to the parent, which falls back to z3)
        conn.send(_error(exc))
        return
    real_search = engine.search
    real_search({"n": int}, lambda v: v["n"] > 0, 1.0)  # CrossHair's own warm-up, before any timing

    def search(*args, **kwargs):
        conn.send(("search",))  # a heartbeat: the parent times each search
        return real_search(*args, **kwargs)

    engine.search = search
    conn.send(("ready",))
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        op, args, seen, budget = request
        backend._seen = {frozenset(s) for s in seen}
        backend.budget, backend._started = budget, time.monotonic()
        before, queries = len(backend._findings), backend._queries
        backend._budget_hit = False
        try:
            if op == "init":
                targets = backend.initial_targets(*args)
            else:
                targets = backend.targets(*args)
        except Exception as exc:  # noqa: BLE001  (a bug or a CrossHair failure: the parent falls back)
            conn.send(_error(exc))
            continue
        conn.send(("result", targets, backend.findings()[before:], backend._budget_hit,
                   backend._queries - queries))


def main(argv: list[str]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    conn = Connection(int(argv[1]), readable=True, writable=False)
    out = Connection(int(argv[2]), readable=False, writable=True)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()

    class Duplex:  # one object for both directions
        recv = conn.recv
        send = out.send

    serve(Duplex())  # type: ignore[arg-type]


if __name__ == "__main__":
    main(sys.argv)

"""Bounding a run: its time budget, and Ctrl-C, which must stop it even inside z3.

z3 catches SIGINT itself during a query (it cancels the query and returns "unknown", so
Python never sees the interrupt). While a guard is active, z3's own handler is off and a
watchdog thread, woken at once through Python's signal wake-up file descriptor, calls
`interrupt()` on z3's context, over and over, until the guard ends; Python's handler then
raises KeyboardInterrupt in the main thread as soon as z3 returns. The watchdog does the same
once the deadline has passed. A second Ctrl-C that the main thread does not act on within
SECOND_INTERRUPT_GRACE seconds ends the process with exit status 130.

Interrupting z3 only makes its current query answer "unknown", which every caller already
treats as undecided (a may-answer), so an interrupted query never removes a transition.

The watchdog is started without waiting for it to run (`_thread.start_new_thread`; the
guard waits for its end through a lock): `threading.Thread.start` blocks until the new
thread has run, which on a busy machine is often a scheduler tick, about 4 ms of wall time
per guarded run (a tenth of a small class's analysis). A Ctrl-C that comes before the
watchdog runs waits for it in the wake-up pipe.
"""

from __future__ import annotations

import _thread
import contextlib
import enum
import os
import select
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

EXIT_INTERRUPTED = 130
SECOND_INTERRUPT_GRACE = 1.0  # seconds the main thread gets to end after a second Ctrl-C
POLL = 0.02  # seconds between two z3 interrupts while stopping


class Stop(enum.Enum):
    """Why a guarded run should stop exploring."""

    INTERRUPT = "interrupt"
    BUDGET = "budget"


@dataclass
class Guard:
    """The state of one guarded run, shared by the main thread and the watchdog."""

    deadline: float | None = None  # time.monotonic() value, or None
    interrupts: int = 0  # Ctrl-C seen (counted by the watchdog, immediately)
    closed: threading.Event = field(default_factory=threading.Event)

    def stop(self) -> Stop | None:
        """Whether the exploration should stop now (checked between queries)."""
        if self.interrupts:
            return Stop.INTERRUPT
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return Stop.BUDGET
        return None

    def remaining(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())


class _Contexts:
    """The z3 contexts other than the main one that a query is running in right now (the
    scratch context of a quantifier-elimination tactic: z3util._apply): interrupting the
    run interrupts them too. Process-wide, as z3's main context is; the watchdog thread
    reads it while the main thread adds and removes, hence the lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active: dict[int, Any] = {}

    @contextlib.contextmanager
    def running(self, ctx: Any) -> Iterator[None]:
        with self._lock:
            self._active[id(ctx)] = ctx
        try:
            yield
        finally:
            with self._lock:
                self._active.pop(id(ctx), None)

    def all(self) -> list[Any]:
        with self._lock:
            return list(self._active.values())


OTHER_CONTEXTS = _Contexts()


def interruptible(ctx: Any) -> contextlib.AbstractContextManager[None]:
    """While the block runs, Ctrl-C and the budget's deadline interrupt z3's context `ctx`
    as they do the main context (a query in a context of its own would otherwise run to
    its own time limit, with the process deaf to Ctrl-C)."""
    return OTHER_CONTEXTS.running(ctx)


def _interrupt_z3() -> None:
    import z3

    for ctx in [z3.main_ctx(), *OTHER_CONTEXTS.all()]:
        try:
            ctx.interrupt()
        except z3.Z3Exception:  # z3 may report the cancellation itself ("canceled"): it is done
            pass


def _clear_z3_interrupt() -> None:
    """An interrupt that reached z3 after its last query stays pending in its context: the
    next run's first `push` would fail ("push canceled", an internal error in the next class
    of a sequential run or a library caller's next call). A trivial check consumes it."""
    import z3

    z3.Solver().check()


def _watch(guard: Guard, wake: int | None) -> None:
    """The watchdog thread: count Ctrl-C, interrupt z3 while the run should stop."""
    second_at: float | None = None
    while not guard.closed.is_set():
        stopping = guard.stop() is not None
        timeout = POLL if stopping else 0.25
        if guard.deadline is not None and not stopping:
            timeout = min(timeout, max(0.0, guard.deadline - time.monotonic()))
        if wake is not None:
            ready, _, _ = select.select([wake], [], [], timeout)
            if ready:
                try:
                    data = os.read(wake, 64)
                except OSError:
                    data = b""
                for signum in data:
                    if signum == signal.SIGINT:
                        guard.interrupts += 1
                        if guard.interrupts == 2:
                            second_at = time.monotonic()
        else:
            guard.closed.wait(timeout)
        if guard.stop() is not None and not guard.closed.is_set():
            _interrupt_z3()
        if second_at is not None and time.monotonic() - second_at > SECOND_INTERRUPT_GRACE \
                and not guard.closed.is_set():
            os._exit(EXIT_INTERRUPTED)


def _raise_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def guarded(budget: float | None = None) -> Iterator[Guard]:
    """Guard the block: `budget` seconds from now is the deadline (None: no deadline).

    Signal handling is installed only in the main thread and only when SIGINT has Python's
    default handler and no one else uses the wake-up descriptor; otherwise only the
    deadline is enforced (by the watchdog interrupting z3)."""
    guard = Guard(deadline=None if budget is None else time.monotonic() + budget)
    import z3

    wake_r = wake_w = None
    previous_handler = None
    in_main = threading.current_thread() is threading.main_thread()
    if in_main and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        if signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False) != -1:  # someone else's: keep it
            signal.set_wakeup_fd(-1)
            os.close(wake_r)
            os.close(wake_w)
            wake_r = wake_w = None
        else:
            previous_handler = signal.signal(signal.SIGINT, _raise_interrupt)
    z3.set_param("ctrl_c", wake_r is None)
    ended = _thread.allocate_lock()
    ended.acquire()  # released by the watchdog as it ends

    def watchdog() -> None:
        try:
            _watch(guard, wake_r)
        finally:
            ended.release()

    _thread.start_new_thread(watchdog, ())
    try:
        yield guard
    finally:
        guard.closed.set()
        if wake_w is not None:
            try:
                os.write(wake_w, b"\0")  # wake the watchdog now
            except OSError:
                pass
        ended.acquire()  # the watchdog has ended
        ended.release()
        if guard.stop() is not None:  # the watchdog may have interrupted z3
            _clear_z3_interrupt()
        z3.set_param("ctrl_c", True)
        if wake_r is not None and wake_w is not None:  # set together
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGINT, previous_handler)
            os.close(wake_r)
            os.close(wake_w)


__all__ = ["EXIT_INTERRUPTED", "Guard", "Stop", "guarded", "interruptible"]

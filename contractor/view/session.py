"""The view's state: the current analysis run, the log of events sent to the pages, and
the live diagram.

A run is one worker process (see `worker`) plus a pump thread that reads its messages,
keeps the `LiveTypestate`, appends page events to the session's `EventLog`; a drawing thread
redraws the diagram at most every `render_interval` seconds. Starting a run stops the previous
one; `stop` asks the worker to end at its next event (the partial typestate is kept)
and ends the process if it does not within `STOP_GRACE` seconds.
"""

from __future__ import annotations

import enum
import multiprocessing
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contractor import api
from contractor.outputs.diagram import draw_svg
from contractor.outputs.dot import initialization_id, node_id, transition_id
from contractor.outputs.html import inline_svg
from contractor.outputs.tooltips import initialization_tooltip, state_tooltip, transition_tooltip
from contractor.typestate import Initialization, Transition, Typestate
from contractor.view.discovery import ClassEntry, discover
from contractor.view.live import LiveTypestate, tooltips
from contractor.view.watch import SourceWatcher
from contractor.view.worker import Message, analyse

STOP_GRACE = 5.0  # seconds a stopped worker gets to send its partial typestate


class PageEvent(enum.Enum):
    """The `type` of an event in the log (what the page receives). The worker's messages
    (`worker.Message`) are passed on under the same names, with the page's extras."""

    RUN = "run"  # a run starts: run, target, reason
    MODEL = "model"
    STATE = "state"  # + element, tooltip
    INIT = "init"  # + index, element, tooltip
    TRANSITION = "transition"  # + index, element, tooltip
    PROGRESS = "progress"  # + seconds
    STOPPING = "stopping"
    DIAGRAM = "diagram"  # svg, final
    DONE = "done"  # status, typestate, tooltips, always_enabled, seconds
    ERROR = "error"  # message


class RunStatus(enum.Enum):
    RUNNING = "running"
    STOPPING = "stopping"
    DONE = "done"  # the exploration finished
    STOPPED = "stopped"  # stopped by the user or a newer run: the typestate is partial
    FAILED = "failed"


class EventLog:
    """The page events of a session, numbered from 0; readers wait for new ones."""

    def __init__(self) -> None:
        self._events: list[dict[str, Any]] = []
        self._cond = threading.Condition()

    def append(self, event: dict[str, Any]) -> int:
        with self._cond:
            event = {**event, "seq": len(self._events)}
            self._events.append(event)
            self._cond.notify_all()
            return event["seq"]

    def since(self, seq: int) -> list[dict[str, Any]]:
        with self._cond:
            return self._events[seq:]

    def __len__(self) -> int:
        with self._cond:
            return len(self._events)


@dataclass
class Run:
    id: int
    target: str
    first_seq: int  # the log index of this run's first event
    started: float = field(default_factory=time.monotonic)
    status: RunStatus = RunStatus.RUNNING
    live: LiveTypestate = field(default_factory=LiveTypestate)
    final: Typestate | None = None
    svg: str | None = None  # the latest diagram
    process: Any = None
    stop_event: Any = None
    finished: threading.Event = field(default_factory=threading.Event)
    drawing: threading.Lock = field(default_factory=threading.Lock)  # one diagram at a time

    def typestate(self) -> Typestate:
        return self.final if self.final is not None else self.live.typestate()


class Session:
    """Everything one `contractor view` server shows; created once per server."""

    def __init__(self, root: Path, options: api.InferOptions | None = None, *,
                 render_interval: float = 0.3, watch: bool = True,
                 worker: Callable[..., None] = analyse, stop_grace: float = STOP_GRACE) -> None:
        """`worker` is the child's entry point (`worker.analyse`'s signature); tests pass a
        slowed-down one to watch the live updates."""
        self.root = root
        self.worker = worker
        self.stop_grace = stop_grace
        self.options = options if options is not None else api.InferOptions()
        self.render_interval = render_interval
        self.log = EventLog()
        self._lock = threading.RLock()
        self._runs = 0
        self.current: Run | None = None
        self._mp = multiprocessing.get_context("spawn")
        self._watcher = SourceWatcher(self._source_changed) if watch else None
        self._processes: list[Any] = []  # every worker started, ended by `close` if still alive
        self._discovered: dict = {}  # file -> its classes, while unchanged (see `discover`)
        self._discovery_lock = threading.Lock()

    def classes(self) -> list[ClassEntry]:
        with self._discovery_lock:  # the cache is shared by concurrent requests
            return discover(self.root, self._discovered)

    def start(self, target: str, reason: str = "chosen") -> Run:
        """Stop the current run (if any) and analyse `target` in a new worker."""
        with self._lock:
            if self.current is not None:
                self._stop_run(self.current)
            self._runs += 1
            run = Run(self._runs, target, len(self.log))
            self.current = run
            self._emit(run, PageEvent.RUN, {"target": target, "reason": reason})
            parent, child = self._mp.Pipe(duplex=False)
            run.stop_event = self._mp.Event()
            root = str(Path.cwd())  # targets are read as `contractor infer` reads them
            run.process = self._mp.Process(
                target=self.worker, args=(target, root, self.options, child, run.stop_event),
                # not daemonic: the exploration may start worker processes of its own
                # (contractor.parallel), which a daemonic process may not; `close` ends them
                name=f"contractor-view-run-{run.id}", daemon=False)
            self._processes.append(run.process)
            run.process.start()
            child.close()
            threading.Thread(target=self._pump, args=(run, parent), daemon=True,
                             name=f"contractor-view-pump-{run.id}").start()
            return run

    def stop(self) -> None:
        with self._lock:
            if self.current is not None:
                self._stop_run(self.current)

    def close(self) -> None:
        """Stop the current run at once and the watcher (the server is shutting down)."""
        if self._watcher is not None:
            self._watcher.close()
        with self._lock:
            processes = list(self._processes)
        for process in processes:
            if process.is_alive():
                process.terminate()
                process.join(timeout=2)

    def _stop_run(self, run: Run) -> None:
        if run.status is not RunStatus.RUNNING:
            return
        run.status = RunStatus.STOPPING
        run.stop_event.set()
        self._emit(run, PageEvent.STOPPING, {})

        def enforce() -> None:
            if not run.finished.wait(self.stop_grace) and run.process.is_alive():
                run.process.terminate()

        threading.Thread(target=enforce, daemon=True).start()

    def _source_changed(self, path: Path) -> None:
        with self._lock:
            if self.current is not None:
                self.start(self.current.target, reason=f"{path.name} changed")

    def _emit(self, run: Run, kind: PageEvent, fields: dict[str, Any]) -> None:
        self.log.append({**fields, "type": kind.value, "run": run.id})

    # The pump: one thread per run, reading the worker's messages; a second thread draws.
    def _pump(self, run: Run, conn) -> None:
        changed = threading.Event()
        threading.Thread(target=self._draw_loop, args=(run, changed), daemon=True,
                         name=f"contractor-view-draw-{run.id}").start()
        try:
            while True:
                try:
                    message = conn.recv()
                except (EOFError, OSError):
                    break
                if self._handle(run, message):
                    changed.set()
                if run.status not in (RunStatus.RUNNING, RunStatus.STOPPING):
                    return
            # The worker ended without a last word: stopped by force, or crashed.
            run.process.join(timeout=5)
            if run.status is RunStatus.STOPPING:
                self._finish(run, run.live.typestate(), RunStatus.STOPPED)
            else:
                run.status = RunStatus.FAILED
                self._emit(run, PageEvent.ERROR, {"message":
                           f"the analysis process ended unexpectedly (exit code {run.process.exitcode})"})
        finally:
            conn.close()
            run.finished.set()

    def _handle(self, run: Run, message: dict[str, Any]) -> bool:
        """Apply one worker message; True when the diagram changed."""
        kind = Message(message["type"])
        live = run.live
        if kind is Message.MODEL:
            live.class_name, live.source = message["class"], message["source"]
            live.methods, live.constructors = tuple(message["methods"]), tuple(message["constructors"])
            self._emit(run, PageEvent.MODEL, message)
            if self._watcher is not None:
                self._watcher.watch(Path(live.source))
            return False
        if kind is Message.STATE:
            state = live.add_state(message["id"], message["enabled"])
            self._emit(run, PageEvent.STATE, {**message, "element": node_id(state.id),
                             "tooltip": state_tooltip(live.typestate(), state)})
            return True
        if kind is Message.INIT:
            init = Initialization(**{k: v for k, v in message.items() if k != "type"})
            n = live.add_initialization(init)
            self._emit(run, PageEvent.INIT, {**message, "index": n, "element": initialization_id(n),
                             "tooltip": initialization_tooltip(init)})
            return True
        if kind is Message.TRANSITION:
            t = Transition(**{k: v for k, v in message.items() if k != "type"})
            n = live.add_transition(t)
            self._emit(run, PageEvent.TRANSITION, {**message, "index": n, "element": transition_id(n),
                             "tooltip": transition_tooltip(t)})
            return True
        if kind is Message.PROGRESS:
            self._emit(run, PageEvent.PROGRESS, {**message, "seconds": round(time.monotonic() - run.started, 1)})
            return False
        if kind is Message.DONE:
            ts = Typestate.from_dict(message["typestate"])
            self._finish(run, ts, RunStatus.DONE if ts.complete else RunStatus.STOPPED)
            return False
        run.status = RunStatus.FAILED
        self._emit(run, PageEvent.ERROR, {"message": message["message"]})
        return False

    def _finish(self, run: Run, ts: Typestate, status: RunStatus) -> None:
        run.final = ts
        self._render(run, final=True)
        run.status = status
        self._emit(run, PageEvent.DONE, {"status": status.value, "typestate": ts.to_dict(),
                         "tooltips": tooltips(ts), "always_enabled": list(ts.always_enabled),
                         "seconds": round(time.monotonic() - run.started, 2)})

    def _draw_loop(self, run: Run, changed: threading.Event) -> None:
        """Redraw the partial typestate when it changed, at most every `render_interval`
        seconds (or twice the last drawing's time, so a big graph never floods the page),
        until the run finishes (its final diagram is drawn by `_finish`)."""
        pause = self.render_interval
        while not run.finished.is_set():
            if not changed.wait(0.1):
                continue
            changed.clear()
            began = time.monotonic()
            self._render(run, final=False)
            pause = max(self.render_interval, 2 * (time.monotonic() - began))
            run.finished.wait(pause)

    def _render(self, run: Run, *, final: bool) -> None:
        with run.drawing:
            if not final and run.final is not None:
                return  # the final diagram is drawn (or about to be): a partial one would be stale
            try:
                svg = inline_svg(draw_svg(run.typestate()))
            except Exception as exc:  # a drawing failure must not end the run: say so in the page
                self._emit(run, PageEvent.ERROR, {"message": f"cannot draw the diagram: {exc}"})
                return
            run.svg = svg
            self._emit(run, PageEvent.DIAGRAM, {"svg": svg, "final": final})


__all__ = ["EventLog", "PageEvent", "Run", "RunStatus", "STOP_GRACE", "Session"]

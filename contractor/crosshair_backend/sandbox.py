"""The CrossHair backend as the explorer sees it: every query answered by a worker process
(contractor.crosshair_backend.worker) that runs the user's code behind CrossHair's
side-effect wall, so nothing of it runs in contractor's own process.

The worker stays warm across the queries of a run (CrossHair and the module are imported
once); the answer cache is read and written here, never by the worker. Each search the
worker starts must end within twice its timeout plus SEARCH_GRACE, and nothing may outlast the run's
deadline: a worker past either is killed. When the worker cannot answer (the module does
not import, it died, it was killed), the answer is the fallback's: z3's targets as they are,
or, under `auto`, z3's undecided targets staying may. A finding names the cause.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Callable
from dataclasses import asdict
from multiprocessing.connection import Connection
from pathlib import Path
from typing import IO

from contractor.backend import Backend, Enabled, Target
from contractor.crosshair_backend.cache import DiskCache
from contractor.errors import InputError, Location
from contractor.model import ClassModel
from contractor.state_invariants import precondition_invariant
from contractor.typestate import Finding, FindingKind, StateInvariant, Unknown

NAME = "crosshair"
SEARCH_GRACE = 10.0  # a search may run twice its timeout and this long before the worker is killed
START_LIMIT = 120.0  # seconds the worker may take to import CrossHair and the module
DEADLINE_GRACE = 1.0  # seconds past the run's deadline before the worker is killed
MAX_STARTS = 2  # workers started per run; after that every answer is the fallback's
POLL = 0.1  # seconds between two looks at the worker (Ctrl-C is seen between them)


class WorkerFailed(Exception):
    """The worker could not answer; `permanent` when a new one would not do better."""

    def __init__(self, cause: str, permanent: bool = False):
        super().__init__(cause)
        self.cause = cause
        self.permanent = permanent


def _listed(states) -> list | None:
    return None if states is None else sorted(map(sorted, states))


def _package_root() -> str:
    import contractor

    return str(Path(contractor.__file__).resolve().parent.parent)


class Worker:
    """One worker process and its pipes."""

    def __init__(self, model: ClassModel, timeout: float, log: IO[bytes]):
        to_worker_r, to_worker_w = os.pipe()
        from_worker_r, from_worker_w = os.pipe()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_package_root(), env.get("PYTHONPATH")]))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "contractor.crosshair_backend.worker", str(to_worker_r), str(from_worker_w)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env, pass_fds=(to_worker_r, from_worker_w),
            start_new_session=True)  # a terminal's Ctrl-C goes to contractor, which ends the worker
        os.close(to_worker_r)
        os.close(from_worker_w)
        self.send_conn = Connection(to_worker_w, readable=False)
        self.recv_conn = Connection(from_worker_r, writable=False)
        self.finalizer = weakref.finalize(self, Worker._kill, self.process, self.send_conn, self.recv_conn)
        self.send_conn.send(("init", model, timeout))

    @staticmethod
    def _kill(process: subprocess.Popen, *conns: Connection) -> None:
        if process.poll() is None:
            process.kill()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for conn in conns:
            conn.close()

    def close(self) -> None:
        self.finalizer()

    def receive(self, limit: float | None, deadline: float | None, what: str) -> tuple:
        """The next message; WorkerFailed when it does not come within `limit` seconds (a
        search heartbeat restarts the clock), past the deadline, or when the worker died."""
        started = time.monotonic()
        while True:
            now = time.monotonic()
            if limit is not None and now - started > limit:
                raise WorkerFailed(f"the CrossHair worker was stopped after {limit:g} s on {what}")
            if deadline is not None and now > deadline + DEADLINE_GRACE:
                raise WorkerFailed(f"CrossHair's time budget (--crosshair-budget, or --budget) ran out during {what}")
            if self.recv_conn.poll(POLL):
                try:
                    message = self.recv_conn.recv()
                except (EOFError, OSError):
                    raise WorkerFailed(f"the CrossHair worker died (status {self.process.wait()}) on {what}") from None
                if message[0] == "search":
                    started = time.monotonic()
                    continue
                return message
            if self.process.poll() is not None:
                raise WorkerFailed(f"the CrossHair worker died (status {self.process.returncode}) on {what}")


class SandboxedCrosshair:
    """The Backend protocol (plus the candidates/restrict refinement auto uses), answered
    by a worker process."""

    name = NAME

    def __init__(self, model: ClassModel, *, timeout: float = 10.0, deadline: float | None = None,
                 cache: DiskCache | None = None, fallback: Callable[[], Backend] | None = None,
                 input_errors_fatal: bool = False, verbose: bool = False):
        self.model = model
        self.timeout = timeout
        self.deadline = deadline
        self.cache = cache
        self._make_fallback = fallback
        self._fallback: Backend | None = None
        self.input_errors_fatal = input_errors_fatal
        self.verbose = verbose
        self.log: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115  (closed by close())
        self._worker: Worker | None = None
        self._starts = 0
        self._broken: str | None = None  # why no worker is started any more
        self._seen: set[Enabled] = set()
        self._findings: list[Finding] = []
        self._causes: set[str] = set()
        self._queries = 0

    # -- the worker ----------------------------------------------------------------------
    def _ready_worker(self) -> Worker:
        if self._worker is not None:
            return self._worker
        if self._broken is not None:
            raise WorkerFailed(self._broken, permanent=True)
        if self._starts >= MAX_STARTS:
            self._broken = f"the CrossHair worker failed {MAX_STARTS} times; it was not started again"
            raise WorkerFailed(self._broken, permanent=True)
        self._starts += 1
        worker = Worker(self.model, self.timeout, self.log)
        try:
            message = worker.receive(START_LIMIT, self.deadline, f"importing {self.model.path}")
        except BaseException:
            worker.close()
            raise
        if message[0] == "error":
            worker.close()
            _, kind, text, where, construct = message
            if kind == "input" and self.input_errors_fatal:
                raise InputError(text, Location(*where) if where else None, construct)
            self._broken = f"CrossHair cannot run {self.model.path}: {text}"
            raise WorkerFailed(self._broken, permanent=True)
        self._worker = worker
        return worker

    def _ask(self, op: str, args: tuple, what: str) -> list[Target]:
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise WorkerFailed("CrossHair's time budget (--crosshair-budget, or --budget) was used up")
        worker = self._ready_worker()
        budget = None if self.deadline is None else max(0.0, self.deadline - time.monotonic())
        try:
            worker.send_conn.send((op, args, sorted(map(sorted, self._seen)), budget))
            message = worker.receive(2 * self.timeout + SEARCH_GRACE, self.deadline, what)
        except BaseException:  # failed, or Ctrl-C: this worker's state is unknown, end it
            self._drop_worker()
            raise
        if message[0] == "error":
            self._drop_worker()
            raise WorkerFailed(f"the CrossHair worker failed on {what}: {message[2]}")
        _, targets, findings, budget_hit, queries = message
        self._queries += queries
        self._findings.extend(findings)
        self._budget_hit = budget_hit
        return targets

    def _drop_worker(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def close(self) -> None:
        """End the worker; with `verbose`, copy what it printed to stderr."""
        self._drop_worker()
        if self.verbose:
            self.log.seek(0)
            text = self.log.read().decode(errors="replace")
            if text:
                sys.stderr.write(f"--- output of the CrossHair worker ({self.model.path}) ---\n{text}"
                                 f"{'' if text.endswith(chr(10)) else chr(10)}--- end of the worker's output ---\n")
        self.log.close()

    # -- answers, cached -----------------------------------------------------------------
    def _answer(self, query: list, op: str, args: tuple, what: str,
                fallback: Callable[[], list[Target]]) -> list[Target]:
        hit = self.cache.get(query) if self.cache else None
        if hit is not None:
            targets = [Target(frozenset(t.pop("enabled")), **t) for t in hit["targets"]]
            self._findings.extend(Finding(**f) for f in hit["findings"])
        else:
            before = len(self._findings)
            self._budget_hit = False
            try:
                targets = self._ask(op, args, what)
            except WorkerFailed as failed:
                self._note_failure(failed.cause)
                targets = fallback()
                self._budget_hit = True  # not an answer to keep
            if self.cache and not self._budget_hit:
                self._store(query, targets, self._findings[before:])
        self._seen.update(t.enabled for t in targets)
        return targets

    def _store(self, query: list, targets: list[Target], findings: list[Finding]) -> None:
        if self.cache is None:
            return
        try:
            self.cache.put(query, {"targets": [asdict(t) | {"enabled": sorted(t.enabled)} for t in targets],
                                   "findings": [asdict(f) for f in findings]})
        except OSError as exc:
            self._findings.append(Finding(
                FindingKind.CACHE_DISABLED, f"the CrossHair answer cache cannot be written ({exc}); "
                "the run goes on without it (--cache-dir or CONTRACTOR_CACHE_DIR choose another folder)"))
            self.cache = None

    def _note_failure(self, cause: str) -> None:
        if cause not in self._causes and len(self._causes) < 10:
            self._causes.add(cause)
            self._findings.append(Finding(
                FindingKind.CROSSHAIR_UNAVAILABLE, f"{cause}; z3's answers stand there (may where undecided)"))

    def _z3(self) -> Backend:
        if self._fallback is None:
            if self._make_fallback is None:
                raise RuntimeError("no fallback backend")
            self._fallback = self._make_fallback()
        return self._fallback

    @staticmethod
    def _undecided(candidates: frozenset[Enabled], why: str) -> list[Target]:
        return [Target(e, "may", None, NAME, why) for e in sorted(candidates, key=sorted)]

    # -- Backend protocol ----------------------------------------------------------------
    def note_states(self, states) -> None:
        self._seen.update(frozenset(s) for s in states)

    def initial_targets(self, constructor: str, candidates: frozenset[Enabled] | None = None,
                        restrict: bool = True) -> list[Target]:
        def fallback() -> list[Target]:
            if candidates is not None:
                return self._undecided(candidates, "the CrossHair worker could not answer")
            return self._z3().initial_targets(constructor)

        return self._answer(["init", constructor, _listed(candidates), restrict], "init",
                            (constructor, candidates, restrict), f"the constructor {constructor}", fallback)

    def targets(self, source: Enabled, method: str, candidates: frozenset[Enabled] | None = None,
                restrict: bool = True) -> list[Target]:
        self._seen.add(source)
        seen = None if candidates is not None and restrict else _listed(self._seen)

        def fallback() -> list[Target]:
            if candidates is not None:
                return self._undecided(candidates, "the CrossHair worker could not answer")
            return self._z3().targets(source, method)

        what = f"{method} from {{{', '.join(sorted(source))}}}"
        return self._answer(["step", sorted(source), method, seen, _listed(candidates), restrict], "step",
                            (source, method, candidates, restrict), what, fallback)

    def findings(self) -> list[Finding]:
        extra = list(self._fallback.findings()) if self._fallback is not None else []
        return list(self._findings) + extra

    def state_invariant(self, enabled: Enabled) -> StateInvariant:
        return precondition_invariant(self.model, enabled)

    def undecided(self, enabled: Enabled) -> tuple[str, ...]:
        return ()  # its states (and its z3 fallback's, split) are enabled sets of real objects

    def unknowns(self) -> list[Unknown]:
        return list(self._fallback.unknowns()) if self._fallback is not None else []

    def queries(self) -> dict[str, int]:
        counts = {NAME: self._queries}
        if self._fallback is not None:
            for name, n in self._fallback.queries().items():
                counts[name] = counts.get(name, 0) + n
        return counts


__all__ = ["SandboxedCrosshair", "WorkerFailed"]

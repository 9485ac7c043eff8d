"""Parallel exploration: the (state, method) pairs of the states waiting in the BFS queue
answered by worker processes, with the same result as one process.

Two ways, chosen at the first state explored:

- A class the z3 backend splits fully and decides exactly (`reuse.parallel_ready()`):
  when the exploration reaches a state whose pairs are not answered yet, it hands over
  every state then queued (`prefetch`); if they make at least `min_pairs` pairs and the
  last pairs answered here took `min_pair_seconds` or more (median), worker processes
  answer them, else the wrapped backend does, as before. Every answer is then a
  must-answer from reuse.py, with no CrossHair and no untranslated construct; parts whose
  models depend on history are solved in z3 contexts of their own, so witnesses too are
  one process's. A pair a worker cannot decide (a part the solver answers unknown) is
  asked again here.
- Any other class of the z3 backend alone (not auto's: its CrossHair runs the user's
  code) whose methods' bodies are large (`min_weight` syntax nodes, shares.weights:
  HTTPConnection 4,947, ZipFile 8,296, Wave_write 1,931, smtplib.SMTP 14,896; asyncio's
  Lock 293, every sample and Contractor.NET class under 200) goes to method shares
  (contractor.shares): `jobs` workers each own a fixed share of the methods, are told of
  each state as the explorer queues it (`announce`) and answer everything, with what the
  asking recorded (unknowns, findings, query counts); states, transitions, certainties,
  findings and unknowns are one process's, witnesses and counterexamples (and the may
  reasons and raise sites read off them) are those of a run with the same number of
  shares, every time.

Either way the explorer still takes the answers one pair at a time in its own order, so
state numbering, transitions and their order are the sequential run's; each worker owns a
fixed share of the methods and answers its pairs in BFS order, so a method's queries
happen in the same order as in one process; workers are forked after every method's
translation is built, so they start from the same z3 terms. A platform without fork, or
a daemonic process (a pool's worker), explores in one process. Workers count their own
queries; their caches are separate, so a parallel run may ask a few more queries than a
sequential one.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from contractor.backend import Backend, Enabled, Target
from contractor.errors import BudgetSpent

# a class not split fully (the rest): its methods go to shares (contractor.shares) where
# their sizes (shares.weights: syntax nodes) add up to this many; below, one process
MIN_WEIGHT = 1_500
MIN_PAIRS = 512  # fewer pending pairs than this: not worth a round trip to the workers
# Pairs answered faster than this (the median of the last RECENT) are not worth shipping to
# a worker: sending an answer back costs about as much as a cached answer (the flags
# family, whose first pairs do all the solving and the rest reuse it: hence the median).
MIN_PAIR_SECONDS = 0.002
RECENT = 256


def _z3_of(backend: Backend):
    """The z3 backend inside `backend` (itself, or auto's), or None."""
    from contractor.z3backend import Z3Backend

    if isinstance(backend, Z3Backend):
        return backend
    inner = getattr(backend, "z3", None)
    return inner if isinstance(inner, Z3Backend) else None


def _serve(z3b, methods: list[str], conn) -> None:
    """A worker: answer (method, sources) requests until told to stop (None)."""
    try:
        while True:
            request = conn.recv()
            if request is None:
                return
            method, sources = request
            before = z3b.n_queries
            answers = [z3b.reuse.targets(method, source, None) for source in sources]
            conn.send((answers, z3b.n_queries - before))
    except (EOFError, KeyboardInterrupt, BudgetSpent):
        return  # BudgetSpent: the parent sees the pipe close and, its budget spent too, ends partial
    finally:
        conn.close()


def _may_fork(jobs: int) -> bool:
    import multiprocessing  # here: most runs never get this far, and it costs start-up time

    return (jobs > 1 and "fork" in multiprocessing.get_all_start_methods()
            and not multiprocessing.current_process().daemon)  # a daemon may not have children


class ParallelBackend:
    """A backend answering the BFS queue's pairs in worker processes (see the module doc)."""

    def __init__(self, inner: Backend, jobs: int, min_pairs: int = MIN_PAIRS,
                 min_pair_seconds: float = MIN_PAIR_SECONDS, min_weight: int | None = None):
        self.inner = inner
        self.min_weight = MIN_WEIGHT if min_weight is None else min_weight
        self._shares: Any = None  # contractor.shares.Shares, once started
        self._chosen = False  # whether the shares were considered (at the first state explored)
        self.min_pair_seconds = min_pair_seconds
        self._recent: deque[float] = deque(maxlen=RECENT)  # seconds of the last pairs answered here
        self.name = inner.name
        self.jobs = jobs
        self.min_pairs = min_pairs
        self._answers: dict[tuple[Enabled, str], list[Target] | None] = {}
        self._asked: set[Enabled] = set()
        self._workers: list[tuple[Any, Any]] | None = None
        self._owner: dict[str, int] = {}
        self._worker_queries = 0
        self._eligible: bool | None = None
        self.parallel_pairs = 0  # pairs the workers answered (for tests and benchmarks)

    # -- the parallel part ------------------------------------------------------------

    def _can_fork(self) -> bool:
        if self._eligible is None:
            z3b = _z3_of(self.inner)
            self._eligible = (
                z3b is not None and z3b.reuse is not None and _may_fork(self.jobs)
                and z3b.reuse.parallel_ready())  # must-answers only
        return self._eligible

    def _start_shares(self, states: list[Enabled]) -> None:
        """Shares of the methods for a large class of the z3 backend alone (not auto's,
        whose CrossHair runs the user's code) not split fully (contractor.shares): chosen
        by the class alone, at its first state explored, so every run chooses alike."""
        from contractor.z3backend import Z3Backend

        z3b = self.inner
        if self.jobs < 2 or not isinstance(z3b, Z3Backend):
            return
        from contractor import shares

        sizes = shares.weights(z3b.model)
        # the size first: a small class never imports multiprocessing (8 ms of Lock's 0.3 s)
        if sum(sizes.values()) < self.min_weight or len(sizes) < 2 or not _may_fork(self.jobs):
            return
        if z3b.reuse is not None and z3b.reuse.parallel_ready():
            return  # the split pairs go to workers as they queue (prefetch)
        n = min(self.jobs, len(sizes))
        self._shares = shares.Shares(z3b, shares.owners(shares.costs(z3b), n), n)
        self._shares.add(states)

    def _start(self) -> None:
        import multiprocessing

        z3b = _z3_of(self.inner)
        actions = sorted(z3b.model.actions)
        self._owner = {m: i % self.jobs for i, m in enumerate(actions)}
        context = multiprocessing.get_context("fork")
        self._workers = []
        for k in range(self.jobs):
            parent, child = context.Pipe()
            mine = [m for m in actions if self._owner[m] == k]
            process = context.Process(target=_serve, args=(z3b, mine, child), daemon=True)
            process.start()
            child.close()
            self._workers.append((process, parent))

    def prefetch(self, source: Enabled, queued) -> None:
        """Called by the explorer before it asks about `source`; `queued` are the states
        waiting after it, in order."""
        if not self._chosen:
            self._chosen = True
            self._start_shares([source, *queued])
        if self._shares is not None or source in self._asked:
            return
        pending = [source, *(s for s in queued if s not in self._asked)]
        pairs = sum(len(s) for s in pending)
        if pairs < self.min_pairs or not self._can_fork():
            return
        import statistics  # here: a small class never gets this far

        if self._workers is None and self._recent and statistics.median(self._recent) < self.min_pair_seconds:
            return  # pairs are cheap now: shipping them costs more than answering them
        if self._workers is None:
            self._start()
        self._asked.update(pending)
        assert self._workers is not None  # started above
        by_worker: dict[int, dict[str, list[Enabled]]] = {}
        for s in pending:
            for m in sorted(s):
                by_worker.setdefault(self._owner[m], {}).setdefault(m, []).append(s)
        for k, requests in by_worker.items():  # one method at a time, in sorted order, per worker
            conn = self._workers[k][1]
            for m, sources in requests.items():
                conn.send((m, sources))
        deadline = getattr(_z3_of(self.inner), "deadline", None)
        for k, requests in by_worker.items():
            conn = self._workers[k][1]
            for m, sources in requests.items():
                self._wait(conn, deadline)
                answers, queries = conn.recv()
                self._worker_queries += queries
                for s, answer in zip(sources, answers):
                    self._answers[(s, m)] = answer
                    self.parallel_pairs += answer is not None

    def announce(self, enabled: Enabled) -> None:
        """Called by the explorer when it queues a state."""
        if self._shares is not None:
            self._shares.add([enabled])

    def _wait(self, conn, deadline: float | None) -> None:
        """Until the worker's answer is there, or the run's budget is spent: a worker has no
        watchdog to interrupt its z3 at the deadline (threads do not survive the fork), and
        between its queries it may compute for long; waiting on it overran SMTP's budget by
        15 s. Past the deadline the workers are stopped and the run ends partial."""
        if deadline is None:
            return
        if not conn.poll(max(0.0, deadline - time.monotonic())):
            for process, _ in self._workers or ():
                process.terminate()
                process.join(timeout=5)
            self._workers = None
            raise BudgetSpent("the run's budget was used up")

    def close(self) -> None:
        """Stop the workers (idempotent)."""
        if self._shares is not None:
            self._shares.close()
        for process, conn in self._workers or ():
            try:
                conn.send(None)
                conn.close()
            except OSError:
                pass
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
        self._workers = None

    # -- the Backend protocol --------------------------------------------------------

    def targets(self, source: Enabled, method: str) -> list[Target]:
        if self._shares is not None:
            return self._shares.take(source, method)
        answer = self._answers.pop((source, method), None)
        if answer is not None:
            return answer
        started = time.perf_counter()
        answer = self.inner.targets(source, method)
        self._recent.append(time.perf_counter() - started)
        return answer

    def initial_targets(self, constructor: str) -> list[Target]:
        return self.inner.initial_targets(constructor)

    def findings(self):
        return self.inner.findings()

    def state_invariant(self, enabled: Enabled):
        return self.inner.state_invariant(enabled)

    def undecided(self, enabled: Enabled) -> tuple[str, ...]:
        return self.inner.undecided(enabled)

    def unknowns(self):
        return self.inner.unknowns()

    def queries(self) -> dict[str, int]:
        counts = dict(self.inner.queries())
        if self._worker_queries:
            counts["z3"] = counts.get("z3", 0) + self._worker_queries
        return counts

    def __getattr__(self, name: str):  # anything else a caller asks of the wrapped backend
        return getattr(self.inner, name)


__all__ = ["MIN_PAIRS", "ParallelBackend"]

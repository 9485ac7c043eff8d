"""Method shares: the (state, method) pairs of a class explored by the z3 backend answered
by forked workers, each owning a fixed share of the methods.

A method's queries all run in the process owning it, in BFS order (each state, as the
explorer queues it, then its methods in sorted order), from the z3 terms every process
had at the fork: its incremental solver, what it learnt and the answers it gives are
those of one process asking in that order. The owners come from the methods' costs
(`costs`: raise sites, split greedily, costliest first), so what each process asks, and in which
order, depends on the class and the number of shares alone, never on timing: a run
gives the same typestate, witnesses included, every time with the same --jobs. (Its
witnesses may differ from a one-process run's: each process made other terms before.)

Each answer carries what asking it recorded on the backend (z3backend/answered.py); the
explorer takes the answers in its own order and the records are put on this process's
backend then, so findings, unknowns and the typestate are a sequential run's.
"""

from __future__ import annotations

import ast
import time
from typing import TYPE_CHECKING, Any

from contractor.backend import Enabled, Target
from contractor.errors import BudgetSpent
from contractor.model import ClassModel
from contractor.z3backend import answered

if TYPE_CHECKING:
    from contractor.z3backend.backend import Z3Backend


def weights(model: ClassModel) -> dict[str, int]:
    """Each action's size: the syntax nodes of its body and of the bodies of the methods
    of the class it calls on `self`, each counted once (what its translation inlines)."""
    own: dict[str, tuple[int, frozenset[str]]] = {}
    for name, method in model.methods.items():
        nodes = [n for stmt in method.body for n in ast.walk(stmt)]
        called = frozenset(n.func.attr for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                           and isinstance(n.func.value, ast.Name) and n.func.value.id == "self"
                           and n.func.attr in model.methods)
        own[name] = (len(nodes), called)
    out = {}
    for m in sorted(model.actions):
        seen, stack = {m}, [m]
        while stack:
            for c in own.get(stack.pop(), (0, frozenset()))[1]:
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        out[m] = 1 + sum(own[c][0] for c in seen if c in own)
    return out


# a method's cost beside its raise sites (costs): its solver's first check, its witnesses
BASE_COST = 30


def costs(z3b: Z3Backend) -> dict[str, int]:
    """Each action's expected share of the exploration's work: the raise sites of its
    translated run (the guards stage's, semantics.runs) plus BASE_COST; 1 for a method not
    translated (its answers are havoc_states', listed once). smtplib.SMTP's seconds of
    targets follow the raise sites (auth 635 sites 2.4 s, starttls 538 1.8 s, login 400
    1.8 s, data 317 0.6 s, most others 150 and 0.3 s) better than the syntax nodes
    (`weights`: sendmail and send_message are the largest and, translated past their share
    of the budget, cost nothing): the busiest of two workers had 6.8 s of its 13.3 s
    instead of 8.1 (HTTPConnection 1.7 of 3.1 instead of 2.0, ZipFile 1.36 of 2.4 instead
    of 1.27, Wave_write 0.91 of 1.6 instead of 0.93; the best split 6.7, 1.6, 1.2, 0.8)."""
    from contractor.z3backend.semantics import Outcome

    out = {}
    for m in sorted(z3b.model.actions):
        o = z3b.sem.runs.get(m)
        out[m] = len(o.raises) + BASE_COST if isinstance(o, Outcome) else BASE_COST if o is None else 1
    return out


def owners(sizes: dict[str, int], shares: int) -> dict[str, int]:
    """Each method's share (0 to shares - 1): the costliest first, each to the share with
    the least so far (the lowest index on a tie), so the shares' costs are about even."""
    load = [0] * shares
    out = {}
    for m in sorted(sizes, key=lambda m: (-sizes[m], m)):
        k = min(range(shares), key=lambda i: (load[i], i))
        out[m] = k
        load[k] += sizes[m]
    return out


def _serve(z3b: Z3Backend, mine: frozenset[str], conn: Any) -> None:
    """A worker: answer its methods' pairs of each state sent (None: stop), one message
    a pair, in order; after an answer ending the run (budget spent, an error), stop."""
    try:
        while True:
            states = conn.recv()
            if states is None:
                return
            for source in states:
                for m in sorted(source & mine):
                    a = answered.answer(z3b, source, m)
                    try:
                        conn.send(((source, m), a))
                    except Exception as exc:  # an unpicklable witness value or error
                        conn.send(((source, m), answered.Answer(error=RuntimeError(f"worker: {exc!r}"))))
                    if a.final:
                        return
    except (EOFError, OSError, KeyboardInterrupt):
        return
    finally:
        conn.close()


class Shares:
    """`shares` forked workers answering the pairs of the states `add`ed, taken back by
    `take` (see the module doc). This process only explores: a pair it computed itself
    while a worker's answer waited in the pipe would hold back the states that answer
    finds, and the workers with them (HTTPConnection: 4.5 s wall with a share here, 4.1
    with every share in a worker)."""

    def __init__(self, z3b: Z3Backend, owner: dict[str, int], shares: int):
        import multiprocessing

        self.z3b = z3b
        self.owner = owner
        self._answers: dict[tuple[Enabled, str], answered.Answer] = {}
        self._sent = [0] * shares  # pairs asked of each worker ...
        self._got = [0] * shares  # ... and answered
        self._mine = [frozenset(m for m, k in owner.items() if k == i) for i in range(shares)]
        self._ended: set[int] = set()  # workers stopped after an answer ending the run
        context = multiprocessing.get_context("fork")
        self._workers: list[tuple[Any, Any] | None] = []
        for k in range(shares):
            parent, child = context.Pipe()
            process = context.Process(target=_serve, args=(z3b, self._mine[k], child), daemon=True)
            process.start()
            child.close()
            self._workers.append((process, parent))

    def add(self, states: list[Enabled]) -> None:
        """States queued, in BFS order: their pairs are asked of their owners."""
        for k, worker in enumerate(self._workers):
            mine = [s for s in states if s & self._mine[k]]
            if worker is not None and mine and k not in self._ended:
                worker[1].send(mine)
                self._sent[k] += sum(len(s & self._mine[k]) for s in mine)

    def take(self, source: Enabled, method: str) -> list[Target]:
        """The targets of a pair of an added state, with its records put on the backend.
        Past the run's deadline the workers are stopped and the run ends partial (a worker
        has no watchdog to interrupt its z3 there: threads do not survive the fork)."""
        from multiprocessing.connection import wait

        key = (source, method)
        while key not in self._answers:
            owing = {w[1]: k for k, w in enumerate(self._workers) if w is not None and self._got[k] < self._sent[k]}
            if not owing:  # (never: the pair's owner was asked and answers in order)
                raise RuntimeError(f"no worker owes the answer of {method} from {sorted(source)}")
            deadline = self.z3b.deadline
            if not (ready := wait(list(owing), None if deadline is None else max(0.0, deadline - time.monotonic()))):
                self.close()
                raise BudgetSpent("the run's budget was used up")
            for conn in ready:
                self._store(owing[conn])
        return answered.give(self.z3b, self._answers.pop(key))

    def _store(self, k: int) -> None:
        worker = self._workers[k]
        assert worker is not None
        try:
            key, a = worker[1].recv()
        except EOFError:
            self.close()
            if self.z3b.past_deadline():
                raise BudgetSpent("the run's budget was used up") from None
            raise RuntimeError("a worker process of the exploration ended unexpectedly") from None
        self._got[k] += 1
        self._answers[key] = a
        if a.final:  # the worker stops there: nothing more to ask or wait for
            self._sent[k] = self._got[k]
            self._ended.add(k)

    def close(self) -> None:
        """Stop the workers (idempotent): at once where they still owe answers."""
        for k, worker in enumerate(self._workers):
            if worker is None:
                continue
            process, conn = worker
            if self._got[k] < self._sent[k]:
                process.terminate()
            else:
                try:
                    conn.send(None)
                except OSError:
                    pass
            conn.close()
            process.join(timeout=2)
            if process.is_alive():
                process.terminate()
                process.join(timeout=2)
            self._workers[k] = None


__all__ = ["Shares", "costs", "owners", "weights"]

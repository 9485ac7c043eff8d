"""Breadth-first exploration of abstract states, building the typestate from a backend's answers.

State ids are stable: states are numbered in BFS order, and the targets of one
(state, method) pair are visited in a canonical order (sorted enabled sets), so the
numbering never depends on the order in which a solver happens to return models.
"""

from __future__ import annotations

import ctypes
import time
from collections import deque
from collections.abc import Callable

from contractor.backend import Backend, Enabled, ProgressCallback, Target
from contractor.errors import BudgetSpent
from contractor.events import (
    EventCallback,
    InitializationFound,
    StateFound,
    TransitionFound,
)
from contractor.model import ClassModel
from contractor.runguard import Stop
from contractor.typestate import (
    Finding,
    FindingKind,
    Initialization,
    State,
    StateInvariant,
    Stats,
    Transition,
    Typestate,
    Unknown,
)
from contractor.unexplored import complete as complete_soundly


def _state(sid: str, enabled: Enabled, invariant: StateInvariant | str, initial: bool,
           undecided: tuple[str, ...]) -> State:
    """A state of the result; a backend giving its invariant as plain text gives no
    executable form of it (strengthening then refuses where it would need one)."""
    if isinstance(invariant, str):
        invariant = StateInvariant(invariant, None)
    return State(sid, tuple(sorted(enabled)), invariant.text, initial, executable=invariant.python,
                 undecided=tuple(sorted(undecided)))


def _so_far(ask: Callable[..., list[Target]], *args: object) -> tuple[list[Target], BudgetSpent | None]:
    """The backend's answer, or, when the budget ran out while it answered, the targets it
    had found by then (shown in the partial typestate) and the stop to raise after them."""
    try:
        return ask(*args), None
    except BudgetSpent as spent:
        return spent.found, spent


def _order(targets: list[Target]) -> list[Target]:
    return sorted(targets, key=lambda t: (len(t.enabled), sorted(t.enabled)))


class Interrupted(BaseException):
    """Raised by a progress callback to stop the exploration early (partial result kept)."""


class _StateLimit(Exception):
    """A new state would exceed --max-states."""


class _OutOfBudget(Exception):
    """The run's time budget is used up."""


class ExplorationInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped the exploration: a KeyboardInterrupt (library callers catch it as one)
    carrying the partial typestate found so far (`complete` is False)."""

    def __init__(self, typestate: Typestate):
        super().__init__("exploration interrupted; the typestate is partial")
        self.typestate = typestate


def carries_interrupt(exc: BaseException) -> bool:
    """Whether `exc` is a KeyboardInterrupt in disguise: ctypes turns one raised while it
    converts a z3 call's arguments into `ArgumentError("argument 2: KeyboardInterrupt: ")`."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, KeyboardInterrupt) or (isinstance(e, ctypes.ArgumentError) and "KeyboardInterrupt" in str(e)):
            return True
        e = e.__cause__ or e.__context__
    return False


def _stuck_finding(state: State, transitions: list[Transition], inits: list[Initialization]) -> Finding:
    """no_enabled_method, saying so when the state is reached only through may-transitions."""
    movers: list[Transition | Initialization] = [*transitions, *inits]
    arrivals = [t.certainty for t in movers if t.target == state.id]
    if arrivals and all(c == "may" for c in arrivals):
        return Finding(FindingKind.NO_ENABLED_METHOD,
                       f"state {state.id} enables no method, but it is reached only through "
                       "may-transitions: objects may get stuck in it, if it is reachable at all",
                       state=state.id)
    return Finding(FindingKind.NO_ENABLED_METHOD, f"state {state.id} enables no method: objects in it are stuck",
                   state=state.id)


def _maybe_stuck_finding(state: State) -> Finding:
    """no_enabled_method for a state whose every method is undecided (`m?`)."""
    return Finding(FindingKind.NO_ENABLED_METHOD,
                   f"state {state.id} enables only methods whose enabledness could not be decided "
                   f"({', '.join(state.labels())}): objects in it may be stuck", state=state.id)


def explore(
    model: ClassModel,
    backend: Backend,
    *,
    on_progress: ProgressCallback | None = None,
    max_states: int | None = None,
    on_event: EventCallback | None = None,
    stop: Callable[[], Stop | None] | None = None,
    started: float | None = None,
) -> Typestate:
    """The typestate of `model` by breadth-first exploration; `on_event` hears of each
    state, initialization and transition as it is found (see `contractor.events`).
    `stop` is asked before every query: Stop.BUDGET ends the exploration with a partial
    result, Stop.INTERRUPT as Ctrl-C does (ExplorationInterrupted carrying the partial result).
    `started` (a `time.perf_counter()` value) is when the run began, if before this call: the
    reported seconds then include building the backend (translating the class)."""
    start = time.perf_counter() if started is None else started
    ids: dict[Enabled, str] = {}
    queue: deque[Enabled] = deque()
    inits: list[Initialization] = []
    transitions: list[Transition] = []
    complete = True
    extra_findings: list[Finding] = []
    # a backend answering queued states ahead, in worker processes (contractor.parallel)
    prefetch = getattr(backend, "prefetch", None)
    announce = getattr(backend, "announce", None)  # ... told of each state as it is queued
    interrupted = False
    answered: set[tuple[str, str]] = set()  # (state id, method) pairs whose targets are all found
    built: set[str] = set()  # constructors whose initial states are all found
    why = ""  # why the exploration stopped

    def raise_stop(why: Stop | None) -> None:
        if why is Stop.INTERRUPT:
            raise KeyboardInterrupt
        if why is Stop.BUDGET:
            raise _OutOfBudget

    def check_stop() -> None:
        raise_stop(stop() if stop is not None else None)

    def visit(enabled: Enabled) -> str:
        if enabled not in ids:
            if max_states is not None and len(ids) >= max_states:
                raise _StateLimit
            ids[enabled] = f"S{len(ids) + 1}"
            queue.append(enabled)
            if announce is not None:
                announce(enabled)
            if on_event:
                on_event(StateFound(ids[enabled], tuple(sorted(enabled))))
        return ids[enabled]

    def run() -> None:
        try:
            search()
        except Exception as exc:
            # A solver cancelled by the run guard (the watchdog interrupts z3 once the budget is
            # spent or Ctrl-C came) may raise instead of answering "unknown": that is the stop.
            why = stop() if stop is not None else None
            if why is None and carries_interrupt(exc):
                why = Stop.INTERRUPT  # Ctrl-C landed in z3's ctypes glue before the watchdog counted it
            if why is None:
                raise
            raise_stop(why)

    def search() -> None:
        for ctor in model.constructors:
            check_stop()
            found, stopped = _so_far(backend.initial_targets, ctor)
            for t in _order(found):
                inits.append(Initialization(ctor, visit(t.enabled), t.certainty, t.witness, t.backend, t.reason))
                if on_event:
                    on_event(InitializationFound(inits[-1]))
            if stopped is not None:
                raise stopped
            built.add(ctor)
        while queue:
            source = queue.popleft()
            if prefetch is not None:
                prefetch(source, queue)
            for method in sorted(source):
                check_stop()
                found, stopped = _so_far(backend.targets, source, method)
                for t in _order(found):
                    transitions.append(Transition(
                        ids[source], method, visit(t.enabled), t.certainty, t.witness, t.backend, t.reason))
                    if on_event:
                        on_event(TransitionFound(transitions[-1]))
                if stopped is not None:
                    raise stopped
                answered.add((ids[source], method))
                if on_progress:
                    on_progress(len(ids), len(transitions))

    try:
        run()
    except _StateLimit:
        complete = False
        why = f"the exploration stopped at {max_states} states (--max-states)"
        extra_findings.append(Finding(
            FindingKind.INCOMPLETE, f"exploration stopped at {max_states} states (--max-states); transitions to "
            "further states go to the state `unexplored` (may)"))
    except _OutOfBudget:
        complete = False
        why = "the time budget (--budget) was used up"
        extra_findings.append(Finding(
            FindingKind.INCOMPLETE,
            "the time budget (--budget) was used up; exploration stopped, the typestate is partial "
            "(calls not explored may lead to the state `unexplored`)"))
    except (KeyboardInterrupt, Interrupted) as exc:
        complete = False
        interrupted = isinstance(exc, KeyboardInterrupt)
        why = "the exploration was interrupted"
        extra_findings.append(Finding(FindingKind.INCOMPLETE, "exploration interrupted; the typestate is partial"))

    exploration_queries = sum(backend.queries().values())
    initial_ids = {i.target for i in inits}
    states = tuple(
        _state(sid, enabled, backend.state_invariant(enabled), sid in initial_ids, backend.undecided(enabled))
        for enabled, sid in sorted(ids.items(), key=lambda kv: int(kv[1][1:]))
    )
    if not complete:
        rest = complete_soundly(model.actions, {sid: e for e, sid in ids.items()}, answered,
                                model.constructors, built, backend.name, why)
        if rest is not None:
            states += (rest.state,)
            transitions.extend(rest.transitions)
            inits.extend(rest.initializations)
    findings = list(backend.findings()) if complete else []
    findings.extend(_stuck_finding(s, transitions, inits) for s in states if not s.enabled)
    findings.extend(_maybe_stuck_finding(s) for s in states
                    if s.enabled and not s.surely_enabled and not s.unexplored)
    findings.extend(model.notes)
    findings.extend(extra_findings)
    queries = backend.queries()
    stats = Stats(
        states=len(states),
        transitions=len(transitions),
        queries=sum(queries.values()),
        seconds=round(time.perf_counter() - start, 4),
        backend=backend.name,
        queries_by_backend=dict(queries),
        exploration_queries=exploration_queries,
    )
    result = Typestate(
        class_name=model.name,
        source=model.path,
        methods=model.actions,
        constructors=model.constructors,
        states=states,
        transitions=tuple(transitions),
        initializations=tuple(inits),
        findings=tuple(findings),
        unknowns=tuple(unreadable_bases(model)) + tuple(backend.unknowns()),
        stats=stats,
        complete=complete,
        dialects=model.dialects,
        fields={name: str(f.type) for name, f in model.fields.items()},
        preconditions=model.preconditions.value,
    )
    if interrupted:
        raise ExplorationInterrupted(result)
    return result


def unreadable_bases(model: ClassModel) -> list[Unknown]:
    """Each base class whose source cannot be read, once: what it defines is unknown (the
    methods it may provide and the super() calls reaching it are opaque, their answers may)."""
    return [Unknown(model.name, b.line, f"base class {b.name} cannot be read", b.unreadable or "")
            for b in model.bases if not b.readable]

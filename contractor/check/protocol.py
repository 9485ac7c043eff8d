"""A typestate as the client checker uses it: transition tables, state tests, and the
shortest call sequences that enable a method.

A `Protocol` wraps one `Typestate` (from `typestate.json` or inferred on the fly) with
the facts about its class read from the class's source by `ast` (never imported), and
an optional `Oracle` that asks the z3 backend the questions a typestate alone cannot
answer (the targets of a call with constant arguments, what a state test returns).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from typing import Protocol as TypingProtocol

from contractor.state_tests import Truth
from contractor.typestate import Typestate
from contractor.unexplored import UNEXPLORED

MAX_SEQUENCE_SETS = 5000  # state sets the enabling-sequence search visits at most


@dataclass(frozen=True)
class MethodFacts:
    """What the checker needs to know of one method, read from the class's source."""

    params: tuple[str, ...]  # without self
    returns_bool: bool = False


@dataclass(frozen=True)
class ClassFacts:
    """Facts about the class read from its source (empty when the source is not found)."""

    methods: dict[str, MethodFacts] = field(default_factory=dict)
    has_exit: bool = False  # defines __exit__: a `with` block releases it
    enter_returns_self: bool = False  # `with C() as c` binds the same object
    constants: dict[str, Any] = field(default_factory=dict)  # module-level NAME = literal


class Oracle(TypingProtocol):
    """Solver questions beyond the typestate (see `contractor.check.oracle`)."""

    def targets_with_args(self, source: frozenset[str], method: str,
                          args: dict[str, Any]) -> list[frozenset[str]] | None:
        """The states (enabled sets) `method` can lead to from the state `source` with
        these argument values; None when the solver cannot tell."""

    def initial_with_args(self, constructor: str, args: dict[str, Any]) -> list[frozenset[str]] | None:
        """The states `constructor` can produce with these argument values, or None."""

    def truth(self, source: frozenset[str], method: str) -> Truth:
        """What the bool method returns when called in the state `source`."""


class Protocol:
    """One class's typestate, indexed for the checker. Caches its answers per instance."""

    def __init__(self, typestate: Typestate, facts: ClassFacts = ClassFacts(),
                 oracle: Oracle | None = None, must_call: frozenset[str] = frozenset(),
                 state_tests: dict[str, dict[str, Truth]] | None = None):
        self.typestate = typestate
        self.name = typestate.class_name
        self.facts = facts
        self.oracle = oracle
        self.must_call = must_call
        self.states: tuple[str, ...] = tuple(s.id for s in typestate.states)
        self.all_states = frozenset(self.states)
        self.enabled: dict[str, frozenset[str]] = {s.id: frozenset(s.enabled) for s in typestate.states}
        # without the undecided methods (`m?`: some objects of the state may not enable them)
        self.surely: dict[str, frozenset[str]] = {s.id: frozenset(s.surely_enabled) for s in typestate.states}
        self._labels = {s.id: ", ".join(sorted(s.labels())) for s in typestate.states}
        # the oracle names states by enabled set; `unexplored` is none of its answers
        self._by_enabled = {frozenset(s.enabled): s.id for s in typestate.states if not s.unexplored}
        self.methods = frozenset(typestate.methods)
        self.post: dict[tuple[str, str], frozenset[str]] = {}
        for t in typestate.transitions:
            key = (t.source, t.method)
            self.post[key] = self.post.get(key, frozenset()) | {t.target}
        self.initial: dict[str, frozenset[str]] = {}
        for i in typestate.initializations:
            self.initial[i.constructor] = self.initial.get(i.constructor, frozenset()) | {i.target}
        self.constructors = frozenset(typestate.constructors)
        self._tests = dict(state_tests or {})
        self._args_cache: dict[tuple, frozenset[str] | None] = {}
        self.released = self._released()

    def require(self, must_call: frozenset[str]) -> None:
        """Make calling one of `must_call` an obligation (--must-call); ValueError naming
        a method that is not an action."""
        unknown = sorted(m for m in must_call if m not in self.methods)
        if unknown:
            raise ValueError(f"{self.name} has no action {unknown[0]!r} (its actions: "
                             f"{', '.join(sorted(self.methods))})")
        self.must_call = frozenset(self.must_call | must_call)
        self.released = self._released()

    def _released(self) -> frozenset[str]:
        """States an object may be left in when its --must-call obligation is met: the
        targets of the must-call methods."""
        out: set[str] = set()
        for (_, method), targets in self.post.items():
            if method in self.must_call:
                out |= targets
        return frozenset(out)

    def label(self, state: str) -> str:
        return f"{state} {{{self._labels[state]}}}"

    # -- transitions -------------------------------------------------------------------

    def after(self, state: str, method: str, args: dict[str, Any] | None = None) -> frozenset[str]:
        """States a call of `method` in `state` can lead to (empty when it is not enabled)."""
        targets = self.post.get((state, method), frozenset())
        if args and self.oracle is not None and len(targets) > 1 and UNEXPLORED not in targets:
            key = (state, method, tuple(sorted(args.items())))
            if key not in self._args_cache:
                self._args_cache[key] = self._ids(self.oracle.targets_with_args(self.enabled[state], method, args))
            narrowed = self._args_cache[key]
            if narrowed is not None:
                return targets & narrowed  # narrowing only ever removes a target
        return targets

    def created(self, constructor: str, args: dict[str, Any] | None = None) -> frozenset[str]:
        targets = self.initial.get(constructor, frozenset())
        if args and len(targets) > 1 and self.oracle is not None and UNEXPLORED not in targets:
            key = ("", constructor, tuple(sorted(args.items())))
            if key not in self._args_cache:
                self._args_cache[key] = self._ids(self.oracle.initial_with_args(constructor, args))
            narrowed = self._args_cache[key]
            if narrowed is not None:
                return targets & narrowed
        return targets

    def is_state_test(self, method: str) -> bool:
        """A bool method whose every transition is a self-loop: calling it tells the state
        and changes nothing the typestate sees."""
        if method in self._tests:
            return True
        facts = self.facts.methods.get(method)
        if facts is None or not facts.returns_bool or self.oracle is None:
            return False
        return all(self.post.get((s, method), frozenset()) <= {s} for s in self.states)

    def truth(self, state: str, method: str) -> Truth:
        table = self._tests.setdefault(method, {})
        if state not in table:
            # `unexplored` holds any object: the oracle, asked by enabled set, cannot tell
            oracle = self.oracle if state != UNEXPLORED else None
            table[state] = oracle.truth(self.enabled[state], method) if oracle else Truth.EITHER
        return table[state]

    def _ids(self, enabled_sets: list[frozenset[str]] | None) -> frozenset[str] | None:
        """State ids of the oracle's enabled sets; None if one is not a state of the typestate."""
        if enabled_sets is None:
            return None
        ids = [self._by_enabled.get(frozenset(e)) for e in enabled_sets]
        return None if None in ids else frozenset(i for i in ids if i is not None)

    # -- messages ----------------------------------------------------------------------

    def enabling_sequence(self, states: frozenset[str], goal: Callable[[str], bool]) -> tuple[str, ...] | None:
        """The shortest call sequence that, from every state in `states`, is legal and
        ends in states meeting `goal` (say, enabling a method): breadth-first over sets
        of states. None if there is none."""
        start = frozenset(states)
        seen: dict[frozenset[str], tuple[str, ...]] = {start: ()}
        queue = deque([start])
        while queue and len(seen) < MAX_SEQUENCE_SETS:
            current = queue.popleft()
            path = seen[current]
            if current and all(goal(s) for s in current):
                return path
            common = set.intersection(*(set(self.enabled[s]) for s in current)) if current else set()
            for m in sorted(common):
                nxt = frozenset(t for s in current for t in self.post.get((s, m), ()))
                if nxt and nxt not in seen:
                    seen[nxt] = path + (m,)
                    queue.append(nxt)
        return None

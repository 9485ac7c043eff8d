"""The typestate model: states, transitions, findings and statistics of one analysis.

This is the one place that defines `typestate.json`: `Typestate.to_dict` writes it and
`Typestate.from_dict` reads it back (for `contractor strengthen --from`).
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any, Literal

Certainty = Literal["must", "may"]
SCHEMA_VERSION = 1
UNEXPLORED = "unexplored"  # the id of a partial typestate's state for what was not explored (contractor.unexplored)


@dataclass(frozen=True)
class StateInvariant:
    """What characterises the objects of one abstract state, for readers and for code.

    `text` is for people (Python syntax where possible); `python` is a Python expression
    over `self`, evaluable in the class's module, that holds (for objects meeting the
    class invariant) exactly in this state, or None when there is no such expression
    (say, a method whose precondition depends on its arguments is enabled in some states).
    """

    text: str
    python: str | None


def _legacy_executable(invariant: str) -> str | None:
    """The executable form of a state invariant read from a typestate.json written before the
    "executable" key existed: such files meant their invariants to be Python over `self`,
    except the display-only `enabled(m)` / `exists x:` forms."""
    import ast

    if not invariant.strip() or "enabled(" in invariant or "exists " in invariant:
        return None
    try:
        ast.parse(invariant, mode="eval")
    except SyntaxError:
        return None
    return invariant


@dataclass(frozen=True)
class State:
    """An abstract state: the set of methods it enables, with its invariant."""

    id: str
    enabled: tuple[str, ...]  # sorted
    invariant: str  # readable predicate over the fields (Python syntax where possible)
    initial: bool = False
    witnessed: bool = False  # reached by a concrete call sequence found by the solver
    executable: str | None = None  # the invariant as evaluable Python over self, if there is one
    # methods of `enabled` some objects of the state may not enable (sorted): their
    # enabledness is undecided (untranslated), the state stands for "can be enabled"
    undecided: tuple[str, ...] = ()
    # stands for every object a stopped exploration did not reach (`contractor.unexplored`)
    unexplored: bool = False

    @property
    def surely_enabled(self) -> tuple[str, ...]:
        return tuple(m for m in self.enabled if m not in self.undecided)

    def labels(self, methods: Iterable[str] | None = None) -> tuple[str, ...]:
        """`methods` (default: the enabled ones) as shown: an undecided one as `m?`."""
        return tuple(f"{m}?" if m in self.undecided else m for m in (self.enabled if methods is None else methods))


@dataclass(frozen=True)
class Transition:
    """A call of `method` that may (or must) take an object from `source` to `target`."""

    source: str  # a state id
    method: str
    target: str  # a state id
    certainty: Certainty
    witness: dict[str, Any] | None = None  # {"fields": {...}, "args": {...}, "after": {...}}
    backend: str = "z3"
    reason: str | None = None  # for "may": why the solver could not decide


@dataclass(frozen=True)
class Initialization:
    """A constructor (or factory) producing an object in an initial state."""

    constructor: str
    target: str
    certainty: Certainty
    witness: dict[str, Any] | None = None
    backend: str = "z3"
    reason: str | None = None


class FindingKind(enum.StrEnum):
    """What a finding is about (its code in diagnostics; the README's table of findings)."""

    NEVER_ENABLED = "never_enabled"
    BREAKS_INVARIANT = "breaks_invariant"
    BREAKS_POSTCONDITION = "breaks_postcondition"
    MAY_RAISE = "may_raise"
    NO_ENABLED_METHOD = "no_enabled_method"
    UNSATISFIABLE_INVARIANT = "unsatisfiable_invariant"
    UNSATISFIABLE_CONSTRUCTOR = "unsatisfiable_constructor"
    UNKNOWN = "unknown"
    INCOMPLETE = "incomplete"
    UNDEFINED_NAME = "undefined_name"
    BLOCKED_CALL = "blocked_call"
    CROSSHAIR_UNAVAILABLE = "crosshair_unavailable"
    CACHE_DISABLED = "cache_disabled"


@dataclass(frozen=True)
class Finding:
    """Something the analysis found wrong with the contracts or the code.

    `kind` may be given as its string value (as typestate.json and the CrossHair cache
    hold it); it is always stored as a FindingKind (ValueError for an unknown kind).
    """

    kind: FindingKind
    message: str
    method: str | None = None
    state: str | None = None
    counterexample: dict[str, Any] | None = None
    line: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", FindingKind(self.kind))


@dataclass(frozen=True)
class Unknown:
    """A construct the z3 backend could not translate (or a method the budget cut): the
    answers that depend on it are may (`detail` says where some stay exact)."""

    method: str
    line: int
    construct: str
    detail: str = ""


@dataclass
class Stats:
    """What a run cost: states, transitions, solver queries (by backend) and seconds."""

    states: int = 0
    transitions: int = 0
    queries: int = 0
    seconds: float = 0.0
    backend: str = "z3"
    queries_by_backend: dict[str, int] = field(default_factory=dict)
    exploration_queries: int = 0  # those asked by the exploration itself (the rest: findings, readable invariants)


def _shallow_all(items: tuple[Any, ...]) -> list[dict[str, Any]]:
    """Each item's (all of one dataclass) fields as a dict, its values shared (asdict
    deep-copies every witness, which took seconds on ten thousand transitions); the
    attribute reads are done in C."""
    if not items:
        return []
    keys = tuple(items[0].__dataclass_fields__)
    values = operator.attrgetter(*keys)
    return [dict(zip(keys, values(item))) for item in items]


@dataclass(frozen=True)
class Typestate:
    """The result of an exploration: the class's states, transitions, initializations and findings."""

    class_name: str
    source: str
    methods: tuple[str, ...]
    constructors: tuple[str, ...]
    states: tuple[State, ...]
    transitions: tuple[Transition, ...]
    initializations: tuple[Initialization, ...]
    findings: tuple[Finding, ...]
    unknowns: tuple[Unknown, ...]
    stats: Stats
    complete: bool = True
    dialects: tuple[str, ...] = ()
    fields: dict[str, str] = field(default_factory=dict)  # name -> type, for readers
    preconditions: str = "declared"  # declared | implicit | both (raise guards), see PreconditionMode
    # method -> state id -> "true" | "false" | "either": what a pure bool method returns there
    state_tests: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def initial(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.states if s.initial)

    @cached_property
    def always_enabled(self) -> tuple[str, ...]:
        """The methods surely enabled in every state the exploration found (sorted); empty
        when there is none.

        Renderers show them once instead of in every state, and leave out their self-loops
        (`hides`), so a big class's diagram shows only what changes. A method undecided in
        some state is not among them: it is shown, marked, in each state.
        """
        found = [s for s in self.states if not s.unexplored]  # `unexplored` is shown in full
        if not found:
            return ()
        common = set(found[0].surely_enabled)
        for s in found[1:]:
            common &= set(s.surely_enabled)
        return tuple(sorted(common))

    @property
    def always_where(self) -> str:
        """Where `always_enabled` holds, as renderers say it."""
        return "every explored state" if any(s.unexplored for s in self.states) else "every state"

    @property
    def merged(self) -> bool:
        """Whether the states bound undecided enabledness bits ("can be enabled", the z3
        backend alone) rather than split on them (auto, crosshair: real enabled sets).
        Questions asked of z3 about these states (state tests, the checker's oracle) must
        use the same vocabulary."""
        return self.stats.backend == "z3"

    def hides(self, t: Transition) -> bool:
        """Whether a renderer that lists `always_enabled` once leaves `t` out: a self-loop of
        an always-enabled method (its transitions to other states are still shown)."""
        return t.source == t.target and t.method in self.always_enabled and t.source != UNEXPLORED

    def shown_enabled(self, s: State) -> tuple[str, ...]:
        """The methods of `s` a renderer lists beside `always_enabled` (sorted)."""
        always = set(self.always_enabled) if not s.unexplored else set()
        return tuple(m for m in s.enabled if m not in always)

    def shown_labels(self, s: State) -> tuple[str, ...]:
        """`shown_enabled(s)` as renderers write them: an undecided method as `m?`."""
        return s.labels(self.shown_enabled(s))

    @property
    def has_undecided(self) -> bool:
        return any(s.undecided for s in self.states)

    def state(self, state_id: str) -> State:
        for s in self.states:
            if s.id == state_id:
                return s
        raise KeyError(state_id)

    def state_by_enabled(self, enabled: Iterable[str]) -> State | None:
        key = tuple(sorted(enabled))
        return next((s for s in self.states if s.enabled == key), None)

    def outgoing(self, state_id: str) -> list[Transition]:
        return [t for t in self.transitions if t.source == state_id]

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA_VERSION,
            "class": self.class_name,
            "source": self.source,
            "methods": list(self.methods),
            "constructors": list(self.constructors),
            "fields": dict(self.fields),
            "dialects": list(self.dialects),
            "preconditions": self.preconditions,
            "initial": list(self.initial),
            "states": [
                {"id": s.id, "enabled": list(s.enabled), "invariant": s.invariant,
                 "executable": s.executable, "initial": s.initial, "witnessed": s.witnessed,
                 "undecided": list(s.undecided), "unexplored": s.unexplored}
                for s in self.states
            ],
            "transitions": _shallow_all(self.transitions),
            "initializations": _shallow_all(self.initializations),
            "findings": [asdict(f) for f in self.findings],
            "unknowns": [asdict(u) for u in self.unknowns],
            "complete": self.complete,
            "stats": asdict(self.stats),
            "state_tests": {m: dict(per) for m, per in self.state_tests.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Typestate:
        return cls(
            class_name=data["class"],
            source=data["source"],
            methods=tuple(data["methods"]),
            constructors=tuple(data.get("constructors", ["__init__"])),
            states=tuple(
                State(s["id"], tuple(s["enabled"]), s.get("invariant", ""),
                      s.get("initial", s["id"] in data.get("initial", ())), s.get("witnessed", False),
                      s["executable"] if "executable" in s else _legacy_executable(s.get("invariant", "")),
                      tuple(s.get("undecided", ())), s.get("unexplored", False))
                for s in data["states"]
            ),
            transitions=tuple(Transition(**t) for t in data["transitions"]),
            initializations=tuple(Initialization(**i) for i in data.get("initializations", ())),
            findings=tuple(Finding(**f) for f in data.get("findings", ())),
            unknowns=tuple(Unknown(**u) for u in data.get("unknowns", ())),
            stats=Stats(**data.get("stats", {})),
            complete=data.get("complete", True),
            dialects=tuple(data.get("dialects", ())),
            fields=dict(data.get("fields", {})),
            preconditions=data.get("preconditions", "declared"),
            state_tests={m: dict(per) for m, per in data.get("state_tests", {}).items()},
        )

"""Brute-force enabledness-preserving typestates, by running the real class on every
object of a bounded domain: the oracle the differential and semantic tests compare with.

It follows BACKGROUND.md literally. An object is a valuation of the fields, valid iff
the invariant holds; its abstract state is the set of actions some argument tuple of
the (bounded) parameter domain enables; S1 --m--> S2 iff some valid object of S1 and
arguments meeting m's precondition make m terminate normally in a valid object of S2.
Source objects range over every valid object of the domain, not only reachable ones.
"""

from __future__ import annotations

import copy
import itertools
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from runtime_contracts import ClassContracts, read_contracts

Enabled = frozenset[str]
Triple = tuple[Enabled, str, Enabled]
Domains = Mapping[str, Sequence[Any]]
ParamDomains = Mapping[str, Mapping[str, Sequence[Any]]]


def attribute(cls: type, name: str) -> str:
    """The attribute a field name of the source stands for: `__x` in class C is `_C__x`."""
    if name.startswith("__") and not name.endswith("__"):
        return f"_{cls.__name__.lstrip('_')}{name}"
    return name


def show(enabled: Enabled) -> str:
    return "{" + ", ".join(sorted(enabled)) + "}"


def show_triple(t: Triple) -> str:
    return f"{show(t[0])} --{t[1]}--> {show(t[2])}"


def freeze(value: Any) -> Any:
    """A hashable stand-in for a field value (lists become tuples)."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(freeze(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((freeze(k), freeze(v)) for k, v in value.items())))
    if isinstance(value, set):
        return ("set", frozenset(freeze(v) for v in value))
    return (type(value).__name__, value)


@dataclass(frozen=True)
class BruteTypestate:
    actions: tuple[str, ...]
    initial: frozenset[Enabled]
    states: frozenset[Enabled]  # reached by BFS over abstract states from the initial ones
    transitions: frozenset[Triple]
    witnessed_states: frozenset[Enabled]  # reached by concrete call sequences (within the domain)
    witnessed_transitions: frozenset[Triple]
    examples: Mapping[Triple, dict] = field(repr=False)  # one {"fields", "args"} per transition
    all_states: frozenset[Enabled] = frozenset()  # states of every valid object of the domain
    never_enabled: frozenset[str] = frozenset()  # enabled in no valid object
    breaks_invariant: Mapping[str, list[tuple[Enabled, dict]]] = field(default_factory=dict, repr=False)
    may_raise: Mapping[str, list[tuple[Enabled, dict]]] = field(default_factory=dict, repr=False)
    objects: int = 0  # valid objects of the domain

    def describe(self) -> str:
        lines = [f"brute force over {self.objects} valid objects",
                 "initial: " + ", ".join(sorted(map(show, self.initial))),
                 "states:"]
        lines += [f"  {show(s)}" for s in sorted(self.states, key=sorted)]
        lines.append("transitions:")
        lines += [f"  {show_triple(t)}   e.g. {self.examples[t]}"
                  for t in sorted(self.transitions, key=lambda t: (sorted(t[0]), t[1], sorted(t[2])))]
        return "\n".join(lines)


class Runner:
    """Builds objects of the class, evaluates its contracts and runs its methods."""

    def __init__(self, contracts: ClassContracts, param_domains: ParamDomains):
        self.contracts = contracts
        self.param_domains = param_domains

    def make(self, fields: Mapping[str, Any]) -> Any:
        obj = self.contracts.cls.__new__(self.contracts.cls)  # a dict subclass needs its own __new__
        for name, value in fields.items():
            object.__setattr__(obj, attribute(self.contracts.cls, name), copy.deepcopy(value))
        return obj

    def arguments(self, method: str) -> list[dict[str, Any]]:
        params = self.contracts.methods[method].params if method in self.contracts.methods else ()
        domains = self.param_domains.get(method, {})
        missing = [p for p in params if p not in domains]
        if missing:
            raise KeyError(f"no parameter domain for {method}({', '.join(missing)})")
        return [dict(zip(params, values)) for values in itertools.product(*(domains[p] for p in params))]

    def enabled_args(self, method: str, obj: Any) -> Iterator[dict[str, Any]]:
        return (a for a in self.arguments(method) if self.contracts.precondition(method, obj, a))

    def state(self, obj: Any) -> Enabled:
        return frozenset(m for m in self.contracts.actions
                         if next(self.enabled_args(m, obj), None) is not None)

    def run(self, method: str, obj: Any, args: Mapping[str, Any]) -> Any | None:
        """The object after `method` on a copy of `obj`; None if it does not terminate normally."""
        after = copy.deepcopy(obj)
        try:
            self.contracts.methods[method].function(after, **args)
        except Exception:
            return None
        return after

    def construct(self, ctor: str, args: Mapping[str, Any]) -> Any | None:
        contract = self.contracts.methods.get(ctor)
        try:
            if contract is None:
                return self.contracts.cls()
            if contract.factory:
                return contract.function(self.contracts.cls, **args)
            obj = self.contracts.cls.__new__(self.contracts.cls)  # a dict subclass needs its own __new__
            contract.function(obj, **args)
            return obj
        except Exception:
            return None


def _fields(obj: Any, names: Sequence[str]) -> dict[str, Any]:
    return {n: copy.deepcopy(getattr(obj, n, None)) for n in names}


def brute_force_typestate(cls: type, domains: Domains, param_domains: ParamDomains | None = None,
                          *, actions: tuple[str, ...] | None = None,
                          max_objects: int = 50_000, preconditions: str = "declared") -> BruteTypestate:
    """The typestate of `cls` over the objects whose fields range over `domains`.

    `param_domains[method][param]` lists the argument values tried (constructors too,
    under "__init__" or the factory's name); they must cover every value the
    precondition allows, or enabledness is under-approximated.
    """
    contracts = read_contracts(cls, actions=actions, preconditions=preconditions)
    runner = Runner(contracts, param_domains or {})
    names = list(domains)
    size = 1
    for values in domains.values():
        size *= len(values)
    if size > max_objects:
        raise ValueError(f"domain of {size} objects exceeds max_objects={max_objects}")

    def key(obj: Any) -> Any:
        return tuple(freeze(getattr(obj, n, None)) for n in names)

    def in_domain(obj: Any) -> bool:
        return all(any(freeze(getattr(obj, n, None)) == freeze(v) for v in domains[n]) for n in names)

    states_of: dict[Any, Enabled] = {}
    moves: dict[Any, list[tuple[Triple, Any]]] = {}  # object key -> (transition, target object key)
    edges: dict[Enabled, set[tuple[str, Enabled]]] = {}
    examples: dict[Triple, dict] = {}
    breaks: dict[str, list[tuple[Enabled, dict]]] = {}
    raises: dict[str, list[tuple[Enabled, dict]]] = {}
    enabled_somewhere: set[str] = set()
    for values in itertools.product(*(domains[n] for n in names)):
        obj = runner.make(dict(zip(names, values)))
        if not contracts.invariant(obj):
            continue
        source = runner.state(obj)
        states_of[key(obj)] = source
        enabled_somewhere |= source
        moves[key(obj)] = []
        for method in sorted(source):
            for args in runner.enabled_args(method, obj):
                example = {"fields": _fields(obj, names), "args": dict(args)}
                after = runner.run(method, obj, args)
                if after is None:
                    raises.setdefault(method, []).append((source, example))
                    continue
                if not contracts.invariant(after):
                    breaks.setdefault(method, []).append((source, example))
                    continue
                triple = (source, method, runner.state(after))
                edges.setdefault(source, set()).add((method, triple[2]))
                examples.setdefault(triple, example)
                moves[key(obj)].append((triple, key(after) if in_domain(after) else None))

    initial: set[Enabled] = set()
    concrete: deque[Any] = deque()
    for ctor in contracts.constructors:
        for args in runner.arguments(ctor):
            if ctor in contracts.methods and not contracts.precondition(ctor, None, args):
                continue
            obj = runner.construct(ctor, args)
            if obj is None or not contracts.invariant(obj):
                continue
            initial.add(runner.state(obj))
            if in_domain(obj):
                concrete.append(key(obj))

    reached: set[Enabled] = set(initial)
    transitions: set[Triple] = set()
    queue = deque(sorted(initial, key=sorted))
    while queue:
        source = queue.popleft()
        for method, target in edges.get(source, ()):
            transitions.add((source, method, target))
            if target not in reached:
                reached.add(target)
                queue.append(target)

    seen = set(concrete)
    witnessed_states = {states_of[k] for k in concrete} | initial
    witnessed_transitions: set[Triple] = set()
    while concrete:
        for triple, target in moves[concrete.popleft()]:
            witnessed_transitions.add(triple)
            witnessed_states.add(triple[2])
            if target is not None and target not in seen:
                seen.add(target)
                concrete.append(target)

    return BruteTypestate(
        actions=contracts.actions,
        initial=frozenset(initial),
        states=frozenset(reached),
        transitions=frozenset(transitions),
        witnessed_states=frozenset(witnessed_states),
        witnessed_transitions=frozenset(witnessed_transitions),
        examples={t: examples[t] for t in transitions},
        all_states=frozenset(states_of.values()),
        never_enabled=frozenset(contracts.actions) - enabled_somewhere,
        breaks_invariant=breaks,
        may_raise=raises,
        objects=len(states_of),
    )

"""Compare contractor's typestate with a learned DFA, as automata over method names.

Both sides become labelled transition systems over method names (a constructor is the
letter `__init__` out of an initial pseudo-state; every state is accepting, the languages
being prefix-closed sets of call sequences that meet every precondition):
- contractor: the pseudo-state, one edge `__init__` to each initial state, and every
  transition (must and may) of typestate.json;
- the learned DFA: its accepting states, each letter (method, argument values) mapped to
  the method name, so it may become non-deterministic.

`language_difference` determinises both on the fly and returns a shortest call sequence
accepted by one and not the other (None: the languages are equal). `epa_edges` quotients
a system by enabled-method sets, the abstraction contractor computes, so the two can
also be compared edge by edge.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

INIT = "__init__"
PSEUDO = "<new>"


@dataclass
class LTS:
    """A labelled transition system: initial state and edges state -> method -> targets."""

    initial: str
    edges: dict[str, dict[str, set[str]]] = field(default_factory=dict)

    def add(self, source: str, method: str, target: str) -> None:
        self.edges.setdefault(source, {}).setdefault(method, set()).add(target)
        self.edges.setdefault(target, {})

    def enabled(self, state: str) -> frozenset[str]:
        return frozenset(self.edges.get(state, {}))

    def step(self, states: frozenset[str], method: str) -> frozenset[str]:
        return frozenset(t for s in states for t in self.edges.get(s, {}).get(method, ()))


def from_typestate(typestate: dict) -> LTS:
    lts = LTS(PSEUDO)
    lts.edges[PSEUDO] = {}
    for state in typestate["initial"]:
        lts.add(PSEUDO, INIT, state)
    for t in typestate["transitions"]:
        lts.add(t["source"], t["method"], t["target"])
    return lts


def from_learned(learned: dict) -> LTS:
    lts = LTS(str(learned["initial"]))
    lts.edges[lts.initial] = {}
    for source, method, _args, target in learned["transitions"]:
        lts.add(str(source), method, str(target))
    return lts


def language_difference(a: LTS, b: LTS) -> tuple[str, ...] | None:
    """A shortest call sequence in exactly one of the two languages, or None if equal."""
    start = (frozenset({a.initial}), frozenset({b.initial}))
    seen = {start}
    queue: deque[tuple[tuple[frozenset[str], frozenset[str]], tuple[str, ...]]] = deque([(start, ())])
    while queue:
        (sa, sb), word = queue.popleft()
        ea = frozenset().union(*(a.enabled(s) for s in sa))
        eb = frozenset().union(*(b.enabled(s) for s in sb))
        if ea != eb:
            return word + (min(ea ^ eb),)
        for method in sorted(ea):
            pair = (a.step(sa, method), b.step(sb, method))
            if pair not in seen:
                seen.add(pair)
                queue.append((pair, word + (method,)))
    return None


def epa_edges(lts: LTS) -> set[tuple[frozenset[str], str, frozenset[str]]]:
    """The edges between enabled-method sets of the states reachable from the initial one."""
    reach, queue = {lts.initial}, deque([lts.initial])
    while queue:
        for targets in lts.edges.get(queue.popleft(), {}).values():
            for t in targets - reach:
                reach.add(t)
                queue.append(t)
    return {(lts.enabled(s), m, lts.enabled(t)) for s in reach for m, ts in lts.edges.get(s, {}).items() for t in ts}

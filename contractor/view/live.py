"""The typestate as the view knows it while the exploration runs: the states and edges
announced so far, turned into a (partial) `Typestate` for drawing and exporting, and
the tooltip texts the page shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from contractor.outputs.dot import initialization_id, node_id, transition_id
from contractor.outputs.tooltips import initialization_tooltip, state_tooltip, transition_tooltip
from contractor.typestate import Initialization, State, Stats, Transition, Typestate


class PartialTypestate(Typestate):
    """A typestate still being explored: no method is known to be enabled in every state
    until the end (a state found later may disable it), so none is set apart."""

    @cached_property
    def always_enabled(self) -> tuple[str, ...]:
        return ()


@dataclass
class LiveTypestate:
    """What the worker has reported so far for one run."""

    class_name: str = ""
    source: str = ""
    methods: tuple[str, ...] = ()
    constructors: tuple[str, ...] = ()
    states: list[State] = field(default_factory=list)
    initializations: list[Initialization] = field(default_factory=list)
    transitions: list[Transition] = field(default_factory=list)

    def add_state(self, state_id: str, enabled: list[str]) -> State:
        state = State(state_id, tuple(enabled), "")
        self.states.append(state)
        return state

    def add_initialization(self, init: Initialization) -> int:
        self.initializations.append(init)
        initial = {i.target for i in self.initializations}
        self.states = [State(s.id, s.enabled, s.invariant, s.id in initial) for s in self.states]
        return len(self.initializations) - 1

    def add_transition(self, t: Transition) -> int:
        self.transitions.append(t)
        return len(self.transitions) - 1

    def typestate(self) -> Typestate:
        """The partial typestate (marked incomplete; invariants are computed only at the end)."""
        return PartialTypestate(
            class_name=self.class_name or "?",
            source=self.source,
            methods=self.methods,
            constructors=self.constructors,
            states=tuple(self.states),
            transitions=tuple(self.transitions),
            initializations=tuple(self.initializations),
            findings=(),
            unknowns=(),
            stats=Stats(states=len(self.states), transitions=len(self.transitions)),
            complete=False,
        )


def tooltips(ts: Typestate) -> dict[str, str]:
    """Element id (as in the DOT/SVG) -> tooltip text, for every state and edge of `ts`."""
    tips = {node_id(s.id): state_tooltip(ts, s) for s in ts.states}
    tips.update((initialization_id(n), initialization_tooltip(i)) for n, i in enumerate(ts.initializations))
    tips.update((transition_id(n), transition_tooltip(t)) for n, t in enumerate(ts.transitions))
    return tips


__all__ = ["LiveTypestate", "PartialTypestate", "tooltips"]

"""What the exploration reports while it runs: one event per state or transition found.

`explore(..., on_event=callback)` calls the callback with these frozen values in the
order the exploration finds them, so a live view can draw the typestate as it grows.
A callback may raise `contractor.explore.Interrupted` to stop the exploration (the
typestate found so far is kept, marked partial).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from contractor.typestate import Initialization, Transition


@dataclass(frozen=True)
class StateFound:
    """A new abstract state: its id (BFS order) and its enabled methods, sorted."""

    id: str
    enabled: tuple[str, ...]


@dataclass(frozen=True)
class InitializationFound:
    """A constructor leading to a state (that state was announced just before, if new)."""

    initialization: Initialization


@dataclass(frozen=True)
class TransitionFound:
    """A transition (its target state was announced just before, if new)."""

    transition: Transition


ExploreEvent = StateFound | InitializationFound | TransitionFound
EventCallback = Callable[[ExploreEvent], None]

__all__ = ["EventCallback", "ExploreEvent", "InitializationFound", "StateFound", "TransitionFound"]

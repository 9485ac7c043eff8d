"""The sound completion of a stopped exploration: one `unexplored` state for what was not looked at.

When the time budget, `--max-states` or Ctrl-C stops the exploration, some calls were not
asked about: (state, method) pairs whose targets were not (all) computed, constructors whose
initial states were not. Left out, a typestate would claim those calls lead nowhere, and a
client checker following it would lose the object. Instead each such call gets a
may-transition (or may-initialization) to one extra state, `unexplored`, which stands for
every object the exploration did not reach: every action may be enabled there (each one
undecided, `m?`) and may lead back to it. The partial typestate so over-approximates every
call sequence, as a complete one does, only with less precision.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from contractor.typestate import UNEXPLORED, Initialization, State, Transition


@dataclass(frozen=True)
class Completion:
    """What a stopped exploration gains: the `unexplored` state and the may-moves into it."""

    state: State
    transitions: tuple[Transition, ...]
    initializations: tuple[Initialization, ...]


def complete(
    actions: Iterable[str],
    states: Mapping[str, Iterable[str]],
    answered: set[tuple[str, str]],
    constructors: Iterable[str],
    built: set[str],
    backend: str,
    why: str,
) -> Completion | None:
    """The completion of an exploration stopped for `why`: `states` maps each found state's id
    to its enabled methods, `answered` holds the (state id, method) pairs whose targets were
    all found and `built` the constructors whose initial states were. None when nothing
    was left unasked."""
    reason = f"not explored: {why}"
    moves = [Transition(sid, m, UNEXPLORED, "may", None, backend, reason)
             for sid, enabled in states.items() for m in sorted(enabled) if (sid, m) not in answered]
    inits = [Initialization(c, UNEXPLORED, "may", None, backend, reason) for c in constructors if c not in built]
    if not moves and not inits:
        return None
    everything = tuple(sorted(actions))
    state = State(UNEXPLORED, everything, reason, initial=bool(inits),
                  undecided=everything, unexplored=True)
    loops = [Transition(UNEXPLORED, m, UNEXPLORED, "may", None, backend, reason) for m in everything]
    return Completion(state, tuple(moves + loops), tuple(inits))


__all__ = ["UNEXPLORED", "Completion", "complete"]

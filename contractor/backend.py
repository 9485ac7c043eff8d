"""The one interface between the explorer and the solvers (z3, CrossHair, or both).

A backend answers two questions about a class model: which abstract states a
constructor can produce, and which abstract states a method can lead to from a given
one. Abstract states are frozensets of enabled action names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from contractor.typestate import Certainty, Finding, StateInvariant, Unknown

Enabled = frozenset[str]


@dataclass(frozen=True)
class Target:
    """One abstract state a constructor or method can lead to."""

    enabled: Enabled
    certainty: Certainty
    witness: dict[str, Any] | None = None
    backend: str = "z3"
    reason: str | None = None  # why "may"


class Backend(Protocol):
    name: str

    def initial_targets(self, constructor: str) -> list[Target]:
        """States of objects the constructor produces from arguments meeting its precondition."""

    def targets(self, source: Enabled, method: str) -> list[Target]:
        """States method can lead to from an object in state `source` (method in source)."""

    def findings(self) -> list[Finding]:
        """Per-method and per-class findings (never enabled, breaks invariant, ...)."""

    def state_invariant(self, enabled: Enabled) -> StateInvariant:
        """A readable predicate characterising the objects of that abstract state, and its
        executable Python form if there is one."""

    def undecided(self, enabled: Enabled) -> tuple[str, ...]:
        """The methods of that abstract state some of its objects may not enable (sorted):
        the state stands for objects where they can be enabled, not surely are."""

    def unknowns(self) -> list[Unknown]:
        """Constructs that could not be translated (the answers depending on them are may)."""

    def queries(self) -> dict[str, int]:
        """Solver queries made so far, per backend name."""

    # Optional (test doubles may leave it out): `close()` ends the processes a backend
    # started (the CrossHair worker); contractor.api calls it when the run ends.


ProgressCallback = Callable[[int, int], None]  # (states found, transitions found)


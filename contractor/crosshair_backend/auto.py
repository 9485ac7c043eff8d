"""The `auto` backend: z3 for every query it can decide, CrossHair for the rest.

z3 answers every query first: its targets are a sound superset, and the ones it marks
must are decided (for a method it translates fully, that is all of them). CrossHair is
then asked only about z3's may-targets: an example makes one must, an exhausted search rules it out, and a timeout
leaves it may. Each backend is sound for what it rules out, so the answer is the
intersection, and never drops a transition neither of them ruled out. CrossHair is created
only when some answer needs it, so a class z3 decides is never imported.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from contractor.backend import Enabled, Target
from contractor.typestate import Finding, StateInvariant, Unknown

if TYPE_CHECKING:
    from contractor.crosshair_backend.sandbox import SandboxedCrosshair
    from contractor.z3backend import Z3Backend


class AutoBackend:
    """Composite backend: z3 first, CrossHair for what z3 leaves undecided."""

    name = "auto"

    def __init__(self, z3: Z3Backend, make_crosshair: Callable[[], SandboxedCrosshair],
                 async_methods: frozenset[str] = frozenset()):
        self.z3 = z3
        self.async_methods = async_methods  # left to z3: their rest after the first await is opaque
        self._make_crosshair = make_crosshair
        self._crosshair: SandboxedCrosshair | None = None
        self._states: set[Enabled] = set()

    def _crosshair_backend(self) -> SandboxedCrosshair:
        if self._crosshair is None:
            self._crosshair = self._make_crosshair()
            self._crosshair.note_states(self._states)
        return self._crosshair

    def _record(self, targets: list[Target]) -> list[Target]:
        self._states.update(t.enabled for t in targets)
        if self._crosshair is not None:
            self._crosshair.note_states(t.enabled for t in targets)
        return targets

    def _refine(self, z3_targets: list[Target],
                ask: Callable[[SandboxedCrosshair, frozenset[Enabled], bool], list[Target]]) -> list[Target]:
        """z3's must-targets, and CrossHair's verdict on each of z3's may-targets."""
        decided = {t.enabled: t for t in z3_targets if t.certainty == "must"}
        undecided = {t.enabled for t in z3_targets if t.certainty == "may"}
        if not undecided:
            return list(decided.values())
        # With z3's enabledness exact, CrossHair searches among z3's states only. Otherwise
        # many of them are combinations no object has, which CrossHair cannot cheaply rule
        # out: it searches on its own, and z3's states only bound its answer.
        answers = ask(self._crosshair_backend(), frozenset(undecided), self.z3.enabledness_exact())
        refined = dict(decided)
        for answer in answers:
            if answer.enabled not in decided and (answer.enabled in undecided or answer.certainty == "must"):
                refined[answer.enabled] = answer  # a replayed example is a fact either way
        return sorted(refined.values(), key=lambda t: sorted(t.enabled))

    def initial_targets(self, constructor: str) -> list[Target]:
        targets = self.z3.initial_targets(constructor)
        return self._record(self._refine(
            targets, lambda ch, cands, restrict: ch.initial_targets(constructor, candidates=cands, restrict=restrict)))

    def targets(self, source: Enabled, method: str) -> list[Target]:
        self._states.add(source)
        targets = self.z3.targets(source, method)
        if method in self.async_methods:  # CrossHair would only build the coroutine, not run it
            return self._record(targets)
        return self._record(self._refine(
            targets, lambda ch, cands, restrict: ch.targets(source, method, candidates=cands, restrict=restrict)))

    def close(self) -> None:
        """End CrossHair's worker process, if one was started."""
        if self._crosshair is not None:
            self._crosshair.close()

    def findings(self) -> list[Finding]:
        extra = self._crosshair.findings() if self._crosshair is not None else []
        return list(self.z3.findings()) + list(extra)

    def state_invariant(self, enabled: Enabled) -> StateInvariant:
        return self.z3.state_invariant(enabled)

    def undecided(self, enabled: Enabled) -> tuple[str, ...]:
        return self.z3.undecided(enabled)  # none: its z3 splits undecided bits, as CrossHair's states are

    def unknowns(self) -> list[Unknown]:
        return list(self.z3.unknowns())

    def queries(self) -> dict[str, int]:
        counts = dict(self.z3.queries())
        counts.setdefault("z3", 0)
        if self._crosshair is not None:
            for name, n in self._crosshair.queries().items():
                counts[name] = counts.get(name, 0) + n
        counts.setdefault("crosshair", 0)
        return counts

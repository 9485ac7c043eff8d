"""The `auto` backend: per method, z3 where it translates the method fully, CrossHair for
the rest (created only when some method needs it, so an all-z3 class is never imported)."""

from __future__ import annotations

from typing import Callable

from contractor.backend import Backend, Enabled, Target
from contractor.typestate import Finding, Unknown


class AutoBackend:
    """Composite backend: `z3` answers the methods in `z3.exact_methods()`, CrossHair the others."""

    name = "auto"

    def __init__(self, z3: Backend, exact: set[str], make_crosshair: Callable[[], Backend],
                 actions: tuple[str, ...] = ()):
        self.z3 = z3
        self.exact = set(exact)
        # z3 answers for constructors only when every action translates (enabledness is
        # then exact; a constructor body it cannot follow still gives sound may-answers)
        self.constructors_by_z3 = bool(actions) and set(actions) <= self.exact
        self._make_crosshair = make_crosshair
        self._crosshair: Backend | None = None
        self._states: set[Enabled] = set()

    def _crosshair_backend(self) -> Backend:
        if self._crosshair is None:
            self._crosshair = self._make_crosshair()
            self._crosshair.note_states(self._states)
        return self._crosshair

    def _record(self, targets: list[Target]) -> list[Target]:
        self._states.update(t.enabled for t in targets)
        if self._crosshair is not None:
            self._crosshair.note_states(t.enabled for t in targets)
        return targets

    def backend_for(self, method: str) -> Backend:
        return self.z3 if method in self.exact else self._crosshair_backend()

    def initial_targets(self, constructor: str) -> list[Target]:
        backend = self.z3 if self.constructors_by_z3 else self._crosshair_backend()
        return self._record(backend.initial_targets(constructor))

    def targets(self, source: Enabled, method: str) -> list[Target]:
        self._states.add(source)
        return self._record(self.backend_for(method).targets(source, method))

    def findings(self) -> list[Finding]:
        extra = self._crosshair.findings() if self._crosshair is not None else []
        return list(self.z3.findings()) + list(extra)

    def state_invariant(self, enabled: Enabled) -> str:
        return self.z3.state_invariant(enabled)

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

"""The CrossHair backend: the Backend protocol answered by searching real Python.

For a state S1 and method m it enumerates targets all-SAT style: ask for an object in S1
and arguments whose result is in a state not found yet; each replayed example is a must
target with its witness; "no more" (every path explored) ends the enumeration. When the
search is incomplete (timeout, budget, examples that do not replay), every known state
not ruled out by its own query stays as a may target, with the reason.
"""

from __future__ import annotations

import time
from dataclasses import asdict

from contractor.backend import Enabled, Target
from contractor.crosshair_backend.cache import DiskCache
from contractor.crosshair_backend.concrete import (
    Replay,
    replay_initial,
    replay_transition,
)
from contractor.crosshair_backend.harness import Outcome, search
from contractor.crosshair_backend.program import Program
from contractor.crosshair_backend.queries import (
    Goal,
    Probes,
    initial_goal,
    transition_goal,
)
from contractor.model import ClassModel
from contractor.state_invariants import precondition_invariant
from contractor.typestate import Finding, FindingKind, StateInvariant, Unknown

NAME = "crosshair"
MAX_UNUSABLE = 2  # examples that do not replay as a new target before the search counts as incomplete


def _show(enabled: Enabled) -> str:
    return "{" + ", ".join(sorted(enabled)) + "}"


def _listed(states) -> list | None:
    return None if states is None else sorted(map(sorted, states))


class CrosshairBackend:
    """Backend protocol over CrossHair (imports and runs the user's module)."""

    name = NAME

    def __init__(self, model: ClassModel, *, timeout: float = 10.0, budget: float | None = None,
                 cache: DiskCache | None = None):
        self.model = model
        self.program = Program.load(model)
        self.timeout = timeout
        self.budget = budget
        self.cache = cache
        self._started = time.monotonic()
        self._queries = 0
        self._budget_hit = False
        self._seen: set[Enabled] = set()
        self._findings: list[Finding] = []
        self._probes = Probes()
        self._blocked_noted: set[str] = set()

    # -- queries -------------------------------------------------------------------------
    def _search(self, goal: Goal) -> Outcome:
        if self.budget is not None and time.monotonic() - self._started > self.budget:
            self._budget_hit = True
            return Outcome("unknown", detail=f"the CrossHair budget of {self.budget:g} s was used up")
        self._queries += 1
        return search(goal.inputs, goal.predicate, self.timeout)

    def note_states(self, states) -> None:
        """States found by another backend (auto): candidates when a search is incomplete."""
        self._seen.update(frozenset(s) for s in states)

    def _cached(self, query: list, compute) -> list[Target]:
        hit = self.cache.get(query) if self.cache else None
        if hit is not None:
            targets = [Target(frozenset(t.pop("enabled")), **t) for t in hit["targets"]]
            self._findings.extend(Finding(**f) for f in hit["findings"])
        else:
            before_budget, before_findings = self._budget_hit, len(self._findings)
            targets = compute()
            self._note_blocked()
            if self.cache and self._budget_hit == before_budget:
                self.cache.put(query, {
                    "targets": [asdict(t) | {"enabled": sorted(t.enabled)} for t in targets],
                    "findings": [asdict(f) for f in self._findings[before_findings:]]})
        self._seen.update(t.enabled for t in targets)
        return targets

    def _note_blocked(self) -> None:
        """A finding for each precondition that tried a side effect the wall blocks."""
        for method, what in sorted(self.program.blocked.items()):
            if method not in self._blocked_noted:
                self._blocked_noted.add(method)
                self._findings.append(Finding(
                    FindingKind.BLOCKED_CALL, f"the precondition of {method} tried a side effect the sandbox "
                    f"blocks ({what}); CrossHair counted it as false there", method=method))

    # -- Backend protocol ----------------------------------------------------------------
    def initial_targets(self, constructor: str, candidates: frozenset[Enabled] | None = None,
                        restrict: bool = True) -> list[Target]:
        """The constructor's target states. `candidates`: a superset another backend proved;
        with `restrict` only those are searched for, otherwise they only bound the answer
        when the search cannot finish."""
        def goal(exclude=frozenset(), wanted=None, among=None):
            return initial_goal(self.program, self._probes, constructor, exclude=exclude, wanted=wanted,
                                among=among)

        def replay(example):
            return replay_initial(self.program, constructor, example, self._search)

        return self._cached(["init", constructor, _listed(candidates), restrict],
                            lambda: self._enumerate(goal, replay, None, constructor, candidates, restrict))

    def targets(self, source: Enabled, method: str, candidates: frozenset[Enabled] | None = None,
                restrict: bool = True) -> list[Target]:
        """The targets of `method` from `source` (`candidates`, `restrict`: as for initial_targets)."""
        self._seen.add(source)

        def goal(exclude=frozenset(), wanted=None, among=None):
            return transition_goal(self.program, self._probes, source, method, exclude=exclude, wanted=wanted,
                                   among=among)

        def replay(example):
            return replay_transition(self.program, method, example, self._search)

        seen = None if candidates is not None and restrict else _listed(self._seen)
        return self._cached(["step", sorted(source), method, seen, _listed(candidates), restrict],
                            lambda: self._enumerate(goal, replay, source, method, candidates, restrict))

    def _enumerate(self, goal, replay, source: Enabled | None, method: str,
                   candidates: frozenset[Enabled] | None, restrict: bool) -> list[Target]:
        among = candidates if restrict else None
        found: dict[Enabled, Target] = {}
        unusable, incomplete = 0, ""
        while not incomplete:
            if among is None:
                outcome = self._search(goal(exclude=frozenset(found)))
            else:
                if not among - set(found):
                    break
                outcome = self._search(goal(among=among - set(found)))
            if outcome.status == "none":
                break
            if outcome.status == "unknown":
                incomplete = outcome.detail
                break
            new = self._add_example(found, replay(outcome.example), source)
            if not new:
                unusable += 1
                if unusable >= MAX_UNUSABLE:
                    incomplete = "CrossHair's examples did not replay as new states"
        if incomplete:
            self._undecided(found, goal, replay, source, method, incomplete, candidates, restrict)
        return list(found.values())

    def _undecided(self, found, goal, replay, source, method, why: str, candidates, restrict) -> None:
        """An unfinished enumeration: each state that may still be a target is searched for
        on its own; those not ruled out stay may-targets."""
        if candidates is None:
            self._per_target(found, goal, replay, source, why, self._seen)
            missing = "states not found by any backend may be missing"
        elif restrict:
            self._per_target(found, goal, replay, source, why, candidates)
            missing = "the undecided ones stay may-transitions"
        else:  # search only the states known to be real; the rest of the bound stays may
            self._per_target(found, goal, replay, source, why, candidates & self._seen)
            for enabled in candidates - set(found) - self._seen:
                found[enabled] = Target(enabled, "may", None, NAME, f"{why}; not searched for on its own")
            missing = "the undecided ones stay may-transitions"
        if candidates is not None and all(t.certainty == "must" for t in found.values()):
            return  # every state in the bound was decided one by one: nothing stays may
        where = f"from {_show(source)} " if source is not None else ""
        self._findings.append(Finding(
            FindingKind.UNKNOWN, f"CrossHair could not finish the search for the targets of {method} {where}"
            f"({why}); {missing}", method=method))

    def _add_example(self, found: dict[Enabled, Target], rep: Replay, source: Enabled | None) -> bool:
        """Record the targets a replayed example shows; True if it added one."""
        for seen in (rep.source, rep.target):
            for action, args in (seen.args.items() if seen else ()):
                self._probes.learn(action, args)
        if not rep.ok or rep.target is None:
            return False
        if source is not None and rep.source is not None and not rep.source.may_be(source):
            return False
        sure = (source is None or (rep.source is not None and rep.source.enabled == source
                                   and not rep.source.unknown)) \
            and not rep.target.unknown
        reason = None if sure else "an enabledness query on the witness object was not decided"
        added = False
        for enabled in rep.target.completions():
            if enabled not in found or (sure and found[enabled].certainty == "may"):
                found[enabled] = Target(enabled, "must" if sure else "may", rep.witness, NAME, reason)
                added = True
        return added

    def _per_target(self, found, goal, replay, source, why: str, pool) -> None:
        for enabled in sorted(set(pool) - set(found), key=lambda s: (len(s), sorted(s))):
            outcome = self._search(goal(wanted=enabled))
            if outcome.status == "none":
                continue
            if outcome.status == "found":
                rep = replay(outcome.example)
                self._add_example(found, rep, source)
                if enabled in found:
                    continue
                why_here = f"{why}; its example did not replay ({rep.problem or 'other states'})"
            else:
                why_here = f"{why}; {outcome.detail}"
            found[enabled] = Target(enabled, "may", None, NAME, why_here)

    def findings(self) -> list[Finding]:
        return list(self._findings)

    def state_invariant(self, enabled: Enabled) -> StateInvariant:
        return precondition_invariant(self.model, enabled)

    def undecided(self, enabled: Enabled) -> tuple[str, ...]:
        return ()  # its states are enabled sets of real objects

    def unknowns(self) -> list[Unknown]:
        return []

    def queries(self) -> dict[str, int]:
        return {NAME: self._queries}

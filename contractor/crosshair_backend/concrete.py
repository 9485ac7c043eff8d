"""Concrete checks of what CrossHair found: the exact enabled set of a real object (a
nested search for actions with parameters) and the replay of a found example on the real
class, giving the witness recorded with a must-transition."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from crosshair.auditwall import enabled_auditwall

from contractor.backend import Enabled
from contractor.crosshair_backend.eager import holds
from contractor.crosshair_backend.harness import Outcome
from contractor.crosshair_backend.isolation import crosshair_settings
from contractor.crosshair_backend.objects import build, fields_of, snapshot
from contractor.crosshair_backend.program import Program
from contractor.crosshair_backend.queries import Goal, arg_key, field_key, precondition_goal, witness_key

Searcher = Callable[[Goal], Outcome]


@dataclass(frozen=True)
class EnabledSet:
    """The enabled actions of a concrete object; `unknown` ones could not be decided."""

    enabled: Enabled
    unknown: frozenset[str] = frozenset()
    args: dict[str, tuple] = field(default_factory=dict, compare=False)  # arguments meeting pre

    def completions(self) -> list[Enabled]:
        """Every enabled set consistent with what is known."""
        sets = [self.enabled]
        for q in sorted(self.unknown):
            sets = sets + [s | {q} for s in sets]
        return sets

    def may_be(self, other: Enabled) -> bool:
        return self.enabled <= other <= self.enabled | self.unknown


def enabled_set(program: Program, obj: Any, search: Searcher, hints: dict[str, list[Any]] | None = None) -> EnabledSet:
    """Which actions the concrete object enables: direct evaluation for actions without
    parameters (or with a hinted argument list that works), a nested search otherwise."""
    enabled, unknown, found = set(), set(), {}
    for q in program.model.actions:
        if not program.params[q]:
            if holds(program.pre[q], obj):
                enabled.add(q)
            continue
        if hints and q in hints and holds(program.pre[q], obj, *hints[q]):
            enabled.add(q)
            found[q] = tuple(hints[q])
            continue
        outcome = search(precondition_goal(program, obj, q))
        if outcome.status == "found":
            assert outcome.example is not None  # a found search carries its example
            enabled.add(q)
            found[q] = tuple(outcome.example[arg_key(p)] for p in program.params[q])
        elif outcome.status == "unknown":
            unknown.add(q)
    return EnabledSet(frozenset(enabled), frozenset(unknown), found)


@dataclass
class Replay:
    """An example replayed on the real class."""

    ok: bool
    source: EnabledSet | None = None
    target: EnabledSet | None = None
    witness: dict[str, Any] = field(default_factory=dict)
    problem: str = ""


def _hints(program: Program, example: dict[str, Any], prefix: str) -> dict[str, list[Any]]:
    return {q: [copy.deepcopy(example[witness_key(prefix, q, p)]) for p in program.params[q]]
            for q in program.model.actions if program.params[q]}


def replay_transition(program: Program, method: str, example: dict[str, Any], search: Searcher) -> Replay:
    names = list(program.fields)
    values = {f: copy.deepcopy(example[field_key(f)]) for f in names}
    args = {p: copy.deepcopy(example[arg_key(p)]) for p in program.params[method]}
    before, shown_args = snapshot(values), snapshot(args)
    with crosshair_settings(), enabled_auditwall():
        obj = build(program.cls, values)
        if not holds(program.inv, obj):
            return Replay(False, problem="the object does not meet the invariant when replayed")
        source = enabled_set(program, obj, search, _hints(program, example, "w"))
        if not holds(program.pre[method], obj, *args.values()):
            return Replay(False, source, problem="the precondition does not hold when replayed")
        try:
            program.call(obj, method, args)
        except Exception as exc:
            return Replay(False, source, problem=f"{method} raised {exc!r} when replayed")
        if not holds(program.inv, obj):
            return Replay(False, source, problem=f"{method} breaks the invariant when replayed")
        target = enabled_set(program, obj, search, _hints(program, example, "u"))
        after = snapshot(fields_of(obj, names))
    return Replay(True, source, target, {"fields": before, "args": shown_args, "after": after})


def replay_initial(program: Program, ctor: str, example: dict[str, Any], search: Searcher) -> Replay:
    args = {p: copy.deepcopy(example[arg_key(p)]) for p in program.params[ctor]}
    shown_args = snapshot(args)
    with crosshair_settings(), enabled_auditwall():
        try:
            obj = program.construct(ctor, args)
        except Exception as exc:
            return Replay(False, problem=f"{ctor} raised {exc!r} when replayed")
        if not holds(program.inv, obj):
            return Replay(False, problem=f"{ctor} breaks the invariant when replayed")
        target = enabled_set(program, obj, search, _hints(program, example, "u"))
        after = snapshot(fields_of(obj, list(program.fields)))
    return Replay(True, None, target, {"args": shown_args, "after": after})

"""The symbolic questions asked of CrossHair, as goal functions over typed inputs.

Inputs are the object's fields (`f__<field>`), the method's arguments (`a__<param>`) and,
for every action with parameters, witness arguments for its precondition in the source
object (`w__<action>__<param>`) and in the resulting object (`u__<action>__<param>`).
With a free witness, "enabled" (exists args with pre) is exact, while "disabled" (for all
args, not pre) is relaxed to "not pre for this witness, nor for the probe arguments"
(arguments learned from replays, and the first key or element of a field of the
parameter's type). So a search that finds nothing soundly rules a transition out; a found
example is replayed on concrete objects (contractor.crosshair_backend.concrete) before it
counts as a must-transition.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from contractor.backend import Enabled
from contractor.crosshair_backend.eager import holds
from contractor.crosshair_backend.harness import assume
from contractor.crosshair_backend.objects import build
from contractor.crosshair_backend.program import Program


def _fixed(args: typing.Iterable[Any]) -> Callable[[], list[Any]]:
    return lambda: list(args)


def _first_element(obj: Any, name: str) -> Callable[[], list[Any]]:
    """A probe: the first element of the object's container field `name`."""
    return lambda: [next(iter(getattr(obj, name)))]


def _whole(obj: Any, name: str) -> Callable[[], list[Any]]:
    return lambda: [getattr(obj, name)]

MAX_LEARNED = 4  # learned probe argument lists kept per action


def field_key(name: str) -> str:
    return f"f__{name}"


def arg_key(param: str) -> str:
    return f"a__{param}"


def witness_key(prefix: str, action: str, param: str) -> str:
    return f"{prefix}__{action}__{param}"


@dataclass
class Probes:
    """Argument lists tried, besides the free witness, before calling an action disabled."""

    learned: dict[str, list[tuple]] = field(default_factory=dict)

    def learn(self, action: str, args: tuple) -> None:
        known = self.learned.setdefault(action, [])
        if len(known) < MAX_LEARNED and repr(args) not in map(repr, known):
            known.append(args)


@dataclass(frozen=True)
class Goal:
    """A search: the typed inputs and the predicate CrossHair should make true."""

    inputs: dict[str, Any]
    predicate: Callable[[dict[str, Any]], Any]


def _content_fields(program: Program, typ: Any) -> list[tuple[str, bool]]:
    """Fields whose first key/element (True) or whose value (False) has type `typ`."""
    found = []
    for name, ftype in program.fields.items():
        origin, args = typing.get_origin(ftype), typing.get_args(ftype)
        if origin in (dict, list, set) and args and args[0] == typ:
            found.append((name, True))
        elif ftype == typ:
            found.append((name, False))
    return found


class Enabledness:
    """Symbolic enabledness of the actions in an object, with witnesses and probes."""

    def __init__(self, program: Program, probes: Probes):
        self.program = program
        self.probes = probes
        self.content = {q: _content_fields(program, next(iter(ps.values())))
                        for q, ps in program.params.items() if len(ps) == 1}

    def _candidates(self, obj: Any, action: str) -> Iterator[Callable[[], list]]:
        content = self.content.get(action, ())
        # concrete probes against symbolic containers of the same type slow CrossHair
        # down a lot; there the containers' own keys/elements are the better probes
        if not any(first for _, first in content):
            for args in self.probes.learned.get(action, ()):
                yield _fixed(args)
        for name, first in content:
            yield _first_element(obj, name) if first else _whole(obj, name)

    def enabled(self, obj: Any, action: str, witness: list) -> Any:
        """Symbolic: the precondition holds for the witness or for a probe argument list."""
        pre = self.program.sym_pre[action]
        result = holds(pre, obj, *witness)
        if self.program.params[action]:
            for candidate in self._candidates(obj, action):
                result = result | holds(lambda c=candidate: pre(obj, *c()))
        return result

    def witness(self, v: dict[str, Any], prefix: str, action: str) -> list:
        return [v[witness_key(prefix, action, p)] for p in self.program.params[action]]

    def inputs(self, prefix: str) -> dict[str, Any]:
        return {witness_key(prefix, q, p): typ
                for q in self.program.model.actions for p, typ in self.program.params[q].items()}

    def matches(self, obj: Any, v: dict[str, Any], prefix: str, state: Enabled) -> Any:
        """Symbolic: the object's enabled set is `state` (with these witnesses)."""
        result: Any = True
        for q in self.program.model.actions:
            result = result & (self.enabled(obj, q, self.witness(v, prefix, q)) == (q in state))
        return result


def _result_matches(en: Enabledness, obj: Any, v: dict[str, Any], exclude: frozenset[Enabled],
                    wanted: Enabled | None, among: frozenset[Enabled] | None) -> Any:
    assume(holds(en.program.sym_inv, obj))
    if wanted is not None:
        return en.matches(obj, v, "u", wanted)
    if among is not None:
        found: Any = False
        for state in sorted(among - exclude, key=sorted):
            found = found | en.matches(obj, v, "u", state)
        return found
    result: Any = True
    for state in exclude:
        result = result & (en.matches(obj, v, "u", state) == False)  # noqa: E712 (symbolic not)
    return result


def transition_goal(program: Program, probes: Probes, source: Enabled, method: str, *,
                    exclude: frozenset[Enabled] = frozenset(), wanted: Enabled | None = None,
                    among: frozenset[Enabled] | None = None) -> Goal:
    """An object in `source` and arguments meeting method's precondition such that the
    object after the call is in a state not in `exclude` (and, given `among`, in one of
    those; given `wanted`, in that state)."""
    en = Enabledness(program, probes)
    inputs = {field_key(f): t for f, t in program.fields.items()}
    inputs |= {arg_key(p): t for p, t in program.params[method].items()}
    inputs |= en.inputs("w") | en.inputs("u")

    def predicate(v: dict[str, Any]) -> bool:
        obj = build(program.cls, {f: v[field_key(f)] for f in program.fields})
        args = {p: v[arg_key(p)] for p in program.params[method]}
        assume(holds(program.sym_inv, obj) & en.matches(obj, v, "w", source)
               & holds(program.sym_pre[method], obj, *args.values()))
        program.call(obj, method, args)
        return _result_matches(en, obj, v, exclude, wanted, among)

    return Goal(inputs, predicate)


def initial_goal(program: Program, probes: Probes, ctor: str, *, exclude: frozenset[Enabled] = frozenset(),
                 wanted: Enabled | None = None, among: frozenset[Enabled] | None = None) -> Goal:
    """Constructor arguments meeting its precondition whose object is in a new state (among
    `among` if given; or in the wanted one)."""
    en = Enabledness(program, probes)
    inputs = {arg_key(p): t for p, t in program.params[ctor].items()} | en.inputs("u")
    factory = program.model.methods[ctor].kind == "factory"

    def predicate(v: dict[str, Any]) -> bool:
        args = {p: v[arg_key(p)] for p in program.params[ctor]}
        assume(holds(program.sym_pre[ctor], *args.values()) if factory
               else holds(program.sym_pre[ctor], None, *args.values()))
        obj = program.construct(ctor, args)
        return _result_matches(en, obj, v, exclude, wanted, among)

    return Goal(inputs, predicate)


def precondition_goal(program: Program, obj: Any, action: str) -> Goal:
    """Arguments meeting action's precondition in the concrete object `obj` (enabledness)."""
    inputs = {arg_key(p): t for p, t in program.params[action].items()}

    def predicate(v: dict[str, Any]) -> bool:
        return holds(program.sym_pre[action], obj, *(v[arg_key(p)] for p in program.params[action]))

    return Goal(inputs, predicate)

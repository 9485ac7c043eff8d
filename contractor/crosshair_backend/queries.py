"""The symbolic questions asked of CrossHair, as goal functions over typed inputs.

Inputs are the object's fields (`f__<field>`), the method's arguments (`a__<param>`) and,
for every action with parameters, witness arguments for its precondition in the source
object (`w__<action>__<param>`) and in the resulting object (`u__<action>__<param>`).
With a free witness, "enabled" (exists args with pre) is exact, while "disabled" (for all
args, not pre) is relaxed to "not pre for this witness". So a search that finds nothing
soundly rules a transition out; a found example is replayed on concrete objects
(contractor.crosshair_backend.concrete) before it counts as a must-transition.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from contractor.backend import Enabled
from contractor.crosshair_backend.harness import assume
from contractor.crosshair_backend.objects import build
from contractor.crosshair_backend.program import Program


def field_key(name: str) -> str:
    return f"f__{name}"


def arg_key(param: str) -> str:
    return f"a__{param}"


def witness_key(prefix: str, action: str, param: str) -> str:
    return f"{prefix}__{action}__{param}"


@dataclass(frozen=True)
class Goal:
    """A search: the typed inputs and the predicate CrossHair should make true."""

    inputs: dict[str, Any]
    predicate: Callable[[dict[str, Any]], Any]


def _witness_inputs(program: Program, prefix: str) -> dict[str, Any]:
    return {witness_key(prefix, q, p): typ
            for q in program.model.actions for p, typ in program.params[q].items()}


def _enabled(program: Program, obj: Any, v: dict[str, Any], prefix: str) -> Iterable[str]:
    for q in program.model.actions:
        args = [v[witness_key(prefix, q, p)] for p in program.params[q]]
        if program.pre[q](obj, *args):
            yield q


def _source_object(program: Program, v: dict[str, Any], source: Enabled) -> Any:
    obj = build(program.cls, {f: v[field_key(f)] for f in program.fields})
    assume(program.inv(obj))
    for q in program.model.actions:
        args = [v[witness_key("w", q, p)] for p in program.params[q]]
        assume(bool(program.pre[q](obj, *args)) == (q in source))
    return obj


def _result_matches(program: Program, obj: Any, v: dict[str, Any], exclude: frozenset[Enabled],
                    wanted: Enabled | None) -> bool:
    assume(program.inv(obj))
    after = frozenset(_enabled(program, obj, v, "u"))
    return after == wanted if wanted is not None else after not in exclude


def transition_goal(program: Program, source: Enabled, method: str, *,
                    exclude: frozenset[Enabled] = frozenset(), wanted: Enabled | None = None) -> Goal:
    """An object in `source` and arguments meeting method's precondition such that the
    object after the call is in a state not in `exclude` (or, given `wanted`, in that state)."""
    inputs = {field_key(f): t for f, t in program.fields.items()}
    inputs |= {arg_key(p): t for p, t in program.params[method].items()}
    inputs |= _witness_inputs(program, "w") | _witness_inputs(program, "u")

    def predicate(v: dict[str, Any]) -> bool:
        obj = _source_object(program, v, source)
        args = {p: v[arg_key(p)] for p in program.params[method]}
        assume(program.pre[method](obj, *args.values()))
        program.call(obj, method, args)
        return _result_matches(program, obj, v, exclude, wanted)

    return Goal(inputs, predicate)


def initial_goal(program: Program, ctor: str, *, exclude: frozenset[Enabled] = frozenset(),
                 wanted: Enabled | None = None) -> Goal:
    """Constructor arguments meeting its precondition whose object is in a new (or the wanted) state."""
    inputs = {arg_key(p): t for p, t in program.params[ctor].items()} | _witness_inputs(program, "u")
    factory = program.model.methods[ctor].kind == "factory"

    def predicate(v: dict[str, Any]) -> bool:
        args = {p: v[arg_key(p)] for p in program.params[ctor]}
        assume(program.pre[ctor](*args.values()) if factory else program.pre[ctor](None, *args.values()))
        obj = program.construct(ctor, args)
        return _result_matches(program, obj, v, exclude, wanted)

    return Goal(inputs, predicate)


def precondition_goal(program: Program, obj: Any, action: str) -> Goal:
    """Arguments meeting action's precondition in the concrete object `obj` (enabledness)."""
    inputs = {arg_key(p): t for p, t in program.params[action].items()}

    def predicate(v: dict[str, Any]) -> bool:
        return bool(program.pre[action](obj, *(v[arg_key(p)] for p in program.params[action])))

    return Goal(inputs, predicate)

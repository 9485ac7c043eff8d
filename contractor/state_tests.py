"""State tests: what a pure bool method (one whose every call leaves the object in the state it
was in, like `is_open()` or `has_next()`) returns in each state that enables it: always True,
always False, or either. Asked of z3 from the class's source (the module is never run).

`typestate.json` keeps them under `state_tests` (method -> state id -> "true" | "false" |
"either"), so `contractor check --typestate` narrows an object's state on
`if f.is_open():` without the class's source at hand (Plural's dynamic state tests).
"""

from __future__ import annotations

import enum
from dataclasses import replace

from contractor.errors import ContractorError, UnsupportedConstruct
from contractor.model import ClassModel
from contractor.typestate import Typestate


class Truth(enum.Enum):
    """What a state test returns in one state."""

    TRUE = "true"
    FALSE = "false"
    EITHER = "either"

    def allows(self, value: bool) -> bool:
        return self is Truth.EITHER or (self is Truth.TRUE) == value


def candidates(model: ClassModel, ts: Typestate) -> list[str]:
    """The actions declared to return bool whose every transition is a self-loop."""
    found = []
    for name in ts.methods:
        method = model.methods.get(name)
        if method is None or method.returns is None or method.returns.kind != "bool":
            continue
        if all(t.source == t.target for t in ts.transitions if t.method == name):
            found.append(name)
    return found


def truth(backend: object, enabled: frozenset[str], method: str) -> Truth:
    """What `method` returns on the objects whose enabled set is `enabled`, by two z3 checks
    on `backend` (a `contractor.z3backend.Z3Backend`); EITHER when z3 cannot tell."""
    import z3

    from contractor.z3backend import values as V

    try:
        built = backend.base(method)  # type: ignore[attr-defined]
        if built is None:
            return Truth.EITHER
        parts, o = built
        if o.result.kind != "bool":
            return Truth.EITHER
        solver, _, _ = backend.setup(parts, enabled, o.after)  # type: ignore[attr-defined]
        can_true = backend.check(solver, V.truthy(o.result)) != z3.unsat  # type: ignore[attr-defined]
        can_false = backend.check(solver, z3.Not(V.truthy(o.result))) != z3.unsat  # type: ignore[attr-defined]
    except (z3.Z3Exception, UnsupportedConstruct, ContractorError, ValueError, TypeError, KeyError):
        return Truth.EITHER
    if can_true == can_false:
        return Truth.EITHER
    return Truth.TRUE if can_true else Truth.FALSE


def with_state_tests(model: ClassModel, ts: Typestate, timeout: float = 5.0) -> Typestate:
    """`ts` with `state_tests` filled in for its candidate methods (a complete typestate only)."""
    names = candidates(model, ts) if ts.complete else []
    if not names:
        return ts
    from contractor.z3backend import Z3Backend

    try:
        backend = Z3Backend(model, timeout=timeout, merged=ts.merged)  # the states' own vocabulary
    except (UnsupportedConstruct, ContractorError):
        return ts
    tests = {m: {s.id: truth(backend, frozenset(s.enabled), m).value for s in ts.states if m in s.enabled}
             for m in names}
    return replace(ts, state_tests=tests)


__all__ = ["Truth", "candidates", "truth", "with_state_tests"]

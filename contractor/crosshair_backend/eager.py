"""Boolean combinators for conditions run on CrossHair's symbolic values.

Python's `and`/`or`/`not` ask each operand for its truth value, and CrossHair forks a
path at each such question; a method with k conjuncts in each of n preconditions then
multiplies paths. These combinators keep symbolic booleans symbolic (z3's and/or/not via
`&`, `|`, `==`), so one query forks only where the user's code does. An operand that
raises counts as in `holds`: the condition does not hold.

Never compare a possibly symbolic bool with `is`: CrossHair realizes a SymbolicBool on
either side of `is` (a fork per operand, the very cost these combinators avoid).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

from crosshair.libimpl.builtinslib import SymbolicBool
from crosshair.util import NotDeterministic


def truth(value: Any) -> Any:
    """A bool or a symbolic bool, without forking when it already is one."""
    return value if isinstance(value, (bool, SymbolicBool)) else bool(value)


def _value(thunk: Callable[[], Any]) -> tuple[bool, Any]:
    try:
        return True, truth(thunk())
    except NotDeterministic:
        raise
    except Exception:
        return False, False


def ch_all(*thunks: Callable[[], Any]) -> Any:
    """`a and b and ...`; an operand that raises makes it false (it is false anyway, or raises)."""
    values = []
    for thunk in thunks:
        ok, value = _value(thunk)
        if not ok:
            return False
        values.append(value)
    return functools.reduce(operator.and_, values) if values else True


def ch_any(*thunks: Callable[[], Any]) -> Any:
    """`a or b or ...`; an operand that raises ends it with the operands before it."""
    values = []
    for thunk in thunks:
        ok, value = _value(thunk)
        if not ok:
            break
        values.append(value)
    return functools.reduce(operator.or_, values) if values else False


def ch_not(thunk: Callable[[], Any]) -> Any:
    ok, value = _value(thunk)
    if not ok:
        raise ValueError("operand of not raised")
    return value == False  # noqa: E712  (symbolic: z3's not)


def holds(condition: Callable[..., Any], *args: Any) -> Any:
    """The truth of a compiled condition (symbolic or concrete); raising means false."""
    try:
        return truth(condition(*args))
    except NotDeterministic:
        raise
    except Exception:
        return False


COMBINATORS = {"__ch_all": ch_all, "__ch_any": ch_any, "__ch_not": ch_not}

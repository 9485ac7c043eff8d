"""What an expression can evaluate to besides a value: an Enum class, `__old__`, a bound
method of the class, a list or str method not yet called (the expression translator's
intermediate results, consumed by calls and attribute reads)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from contractor.model import TypeRef
from contractor.z3backend.values import Val


@dataclass(frozen=True)
class EnumClass:
    """An Enum class named in an expression (its members are read off it)."""

    type: TypeRef


@dataclass(frozen=True)
class OldNamespace:
    """`__old__` in a postcondition: the fields as they were before the call."""


@dataclass(frozen=True)
class BoundMethod:
    """A method of the class looked up on object `obj`, not yet called."""

    obj: int
    name: str


@dataclass(frozen=True)
class ListMethod:
    """A list method looked up on `value`, not yet called."""

    target: ast.expr  # the list expression (a field or local) the method mutates or reads
    value: Val
    name: str


@dataclass(frozen=True)
class StrMethod:
    """A str method looked up on `value`, not yet called."""

    value: Val
    name: str

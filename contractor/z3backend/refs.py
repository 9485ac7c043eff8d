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
    type: TypeRef


@dataclass(frozen=True)
class OldNamespace:
    pass


@dataclass(frozen=True)
class BoundMethod:
    obj: int
    name: str


@dataclass(frozen=True)
class ListMethod:
    target: ast.expr  # the list expression (a field or local) the method mutates or reads
    value: Val
    name: str


@dataclass(frozen=True)
class StrMethod:
    value: Val
    name: str

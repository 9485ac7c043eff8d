"""The order in which the actions' enabledness is read under a time budget: cheapest first.

Each action's raise guard is read by translating its body with every method of the class
it calls inlined (guards.py). Under a budget, an action whose guard is not read in time is
an unknown predicate of the object (its answers are may, semantics.out_of_budget). Read
alphabetically, one expensive action early (smtplib.SMTP's `auth`, which inlines most of
the class) used the whole budget and left every other action unknown; read cheapest
first, the budget reads as many guards as it can and leaves the expensive ones unknown.
The order changes only which answers are may, never an answer itself.

The cost of an action is estimated from its source: the syntax nodes of its body and,
at each call of a method of the class, those of the callee inlined there (recursively,
each call path once), loop bodies counted twice (they are unrolled).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from contractor.model import ClassModel

LOOP_WEIGHT = 2  # a loop body is translated at least twice (loops.py unrolls it)


def inlined_size(model: ClassModel, name: str) -> int:
    """The estimated number of syntax nodes translating `name` visits (see the module docstring)."""
    memo: dict[str, int] = {}

    def size(method: str, stack: frozenset[str]) -> int:
        if method in memo:
            return memo[method]
        total = sum(_weighted(model, stmt, stack | {method}, size) for stmt in model.methods[method].body)
        memo[method] = total
        return total

    return size(name, frozenset())


def _weighted(model: ClassModel, node: ast.AST, stack: frozenset[str], size) -> int:  # type: ignore[no-untyped-def]
    weight = LOOP_WEIGHT if isinstance(node, (ast.For, ast.While, ast.AsyncFor)) else 1
    total = 1
    callee = _own_call(node)
    if callee is not None and callee in model.methods and callee not in stack:
        total += size(callee, stack)
    for child in ast.iter_child_nodes(node):
        total += _weighted(model, child, stack, size)
    return total * weight


def _own_call(node: ast.AST) -> str | None:
    """The method name of a call `self.name(...)`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "self":
        return node.func.attr
    return None


def cheapest_first(model: ClassModel, actions: Iterable[str]) -> list[str]:
    """`actions` by their estimated translation cost, the cheapest first (ties by name)."""
    return sorted(actions, key=lambda m: (inlined_size(model, m), m))


__all__ = ["LOOP_WEIGHT", "cheapest_first", "inlined_size"]

"""A state's invariant read off the actions' preconditions, for when no solver can say more.

A state is the set of enabled actions, so "these actions' preconditions hold and those
do not" characterises it. The text says so in Python where it can; it is executable
only when every action's enabledness is its declared precondition over `self` alone (a
method with parameters is enabled when *some* arguments satisfy it, which is no
expression a strengthened class could evaluate).
"""

from __future__ import annotations

import ast
from collections.abc import Collection

from contractor.model import ClassModel, Method
from contractor.typestate import StateInvariant


def _uses_old(expr: ast.expr) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "__old__" for n in ast.walk(expr))


def _guarded(model: ClassModel) -> bool:
    """Whether raise guards (implicit preconditions) decide enabledness as well."""
    mode = getattr(model, "preconditions", None)
    return bool(getattr(mode, "guards", False))


def _mentions_parameters(method: Method) -> bool:
    """Whether some precondition reads a parameter (then enabledness is "for some arguments")."""
    params = {p.name for p in method.params}
    return any(isinstance(n, ast.Name) and n.id in params
               for c in method.preconditions for n in ast.walk(c.expr))


def _operand(expr: ast.expr) -> str:
    """`expr` as an operand of `and` (parenthesised unless it binds at least as tightly)."""
    text = ast.unparse(expr)
    tight = (ast.Compare, ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.UnaryOp)
    return text if isinstance(expr, tight) else f"({text})"


def _precondition(method: Method) -> str:
    """The method's preconditions as one `and` of operands ("True" if it has none)."""
    return " and ".join(_operand(c.expr) for c in method.preconditions) or "True"


def _literal(expr: ast.expr, on: bool) -> str:
    """`expr` (or its negation), `not x` negated read as `x`."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        expr, on = expr.operand, not on
    return _operand(expr) if on else f"not {_operand(expr)}"


def precondition_invariant(model: ClassModel, enabled: Collection[str]) -> StateInvariant:
    """The invariant of the state enabling exactly `enabled` among `model`'s actions (each
    fact once: `not self.on` enabling one action and disabling another is said once)."""
    texts: list[str] = []
    executable = not _guarded(model)
    for name in sorted(model.actions):
        method = model.methods[name]
        on = name in enabled
        if _guarded(model):  # raise guards decide: no expression of the source says it
            texts.append(f"{name}() {'enabled' if on else 'disabled'}")
            continue
        pre = _precondition(method)
        if _mentions_parameters(method):
            executable = False
            params = ", ".join(p.name for p in method.params)
            texts.append(f"({'some' if on else 'no'} {params}: {pre})")
            continue
        if any(_uses_old(c.expr) for c in method.preconditions):
            executable = False
        if pre == "True":
            if not on:
                texts.append("False")
            continue
        if on or len(method.preconditions) == 1:  # each precondition a fact of its own
            texts += [_literal(c.expr, on) for c in method.preconditions]
        else:
            texts.append(f"not ({pre})")
    unique = list(dict.fromkeys(texts))
    text = " and ".join(unique) or "True"
    return StateInvariant(text, text if executable else None)


__all__ = ["precondition_invariant"]

"""A state's invariant read off the actions' preconditions, for when no solver can say more.

A state is the set of enabled actions, so "these actions' preconditions hold and those
do not" characterises it. The text says so in Python where it can; it is executable
when every action's enabledness is an expression over `self`: its declared precondition,
or, for a method with parameters (enabled when *some* arguments satisfy it), the
precondition with the parameters eliminated exactly (`contractor.argument_elimination`).
"""

from __future__ import annotations

import ast
from collections.abc import Collection

from contractor.argument_elimination import enabled_python
from contractor.model import ClassModel, Method
from contractor.typestate import StateInvariant

_KINDS = {bool: "bool", int: "int", float: "float", str: "str", list: "list", tuple: "tuple", set: "set",
          frozenset: "set", dict: "dict"}


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


def _kinds(model: ClassModel) -> dict[str, str]:
    """Type kinds of the expressions a precondition can name: fields and constants."""
    kinds: dict[str, str] = {f"self.{name}": f.type.kind for name, f in model.fields.items()}
    for name, value in model.class_constants.items():
        kind = _KINDS.get(type(value))
        if kind:
            kinds[f"self.{name}"] = kinds[f"{model.name}.{name}"] = kind
    for name, value in model.module_constants.items():
        kind = _KINDS.get(type(value))
        if kind:
            kinds[name] = kind
    return kinds


def _enabled_python(model: ClassModel, method: Method) -> str | None:
    kinds = _kinds(model)
    return enabled_python(method, kinds, frozenset(k for k, v in kinds.items() if v == "int"))


def precondition_invariant(model: ClassModel, enabled: Collection[str]) -> StateInvariant:
    """The invariant of the state enabling exactly `enabled` among `model`'s actions (each
    fact once: `not self.on` enabling one action and disabling another is said once)."""
    if _guarded(model):  # raise guards decide: no expression of the source says it
        off = [f"{name}()" for name in sorted(model.actions) if name not in enabled]
        text = f"raise guards stop {', '.join(off)}" if off else "no raise guard stops a method"
        return StateInvariant(text, None)
    texts: list[str] = []
    python: list[str] = []
    executable = True
    for name in sorted(model.actions):
        method = model.methods[name]
        on = name in enabled
        pre = _precondition(method)
        if _mentions_parameters(method):
            params = ", ".join(p.name for p in method.params)
            texts.append(f"({'some' if on else 'no'} {params}: {pre})")
            form = _enabled_python(model, method)
            if form is None:
                executable = False
            elif form != "True" or not on:
                python.append(f"({form})" if on else f"not ({form})")
            continue
        if any(_uses_old(c.expr) for c in method.preconditions):
            executable = False
        if pre == "True":
            if not on:
                texts.append("False")
                python.append("False")
            continue
        if on or len(method.preconditions) == 1:  # each precondition a fact of its own
            facts = [_literal(c.expr, on) for c in method.preconditions]
        else:
            facts = [f"not ({pre})"]
        texts += facts
        python += facts
    unique = list(dict.fromkeys(texts))
    text = " and ".join(unique) or "True"
    return StateInvariant(text, " and ".join(dict.fromkeys(python)) or "True" if executable else None)


__all__ = ["precondition_invariant"]

"""Overrides for inherited actions: a strengthened class keeps its typestate on a method it
inherits by overriding it with one that calls the base's through `super()`, since the base
class (which other classes may use) must stay as it is."""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from typing import cast

from contractor.model import FunctionNode, Method
from contractor.strengthen import source as src


@dataclass(frozen=True)
class Override:
    """The source of an override (its own small text) and its parsed def in that text."""

    text: str
    node: FunctionNode


def override(method: Method) -> Override:
    """`def m(self, <the base's parameters>): return super().m(<them>)`, at indentation zero.

    Annotations are left out (their names may not be imported by the subclass's module);
    defaults are kept, so calls that omit an argument still work.
    """
    fn = copy.deepcopy(method.node)
    fn.decorator_list, fn.returns = [], None
    a = fn.args
    for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
        if arg is not None:
            arg.annotation = None
    call = f"return super().{fn.name}({src.call_arguments(method.node)})"
    fn.body = [ast.parse(call).body[0]]
    text = ast.unparse(fn) + "\n"
    node = cast(ast.FunctionDef, ast.parse(text).body[0])  # the method just unparsed (typed as its base)
    return Override(text, node)


__all__ = ["Override", "override"]

"""The asserts dialect (CrossHair's AssertsParser): the `assert` statements at the start of
a method body, after its docstring, are its preconditions. They stay in the body too."""

from __future__ import annotations

import ast
import copy

from contractor.contracts.clauses import Clauses
from contractor.contracts.context import FileContext, is_docstring, string_value
from contractor.model import Condition, FunctionNode


def leading_asserts(fn: FunctionNode) -> list[ast.Assert]:
    found: list[ast.Assert] = []
    for stmt in fn.body:
        if isinstance(stmt, ast.Assert):
            found.append(stmt)
        elif not is_docstring(stmt):
            break
    return found


def read_method(fn: FunctionNode, ctx: FileContext) -> Clauses:
    found = Clauses()
    for stmt in leading_asserts(fn):
        found.pre.append(Condition(copy.deepcopy(stmt.test), ctx.text(stmt.test), "pre", "asserts",
                                   ctx.loc(stmt.test), string_value(stmt.msg)))
    return found

"""The statements that enter and leave blocks in their own ways, for `flow.Analysis`:
`try`/`except`/`else`/`finally` (handlers get the states explicit raises bring; the
`finally` block runs on the normal path and, when no handler catches everything, on the
exceptional one), `with` (an object whose class defines `__exit__` is released at the
end of the block) and `match` (every case, or none, may run)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from contractor.check.domain import Env, Key, join

if TYPE_CHECKING:
    from contractor.check.flow import Analysis

BROAD = frozenset({"Exception", "BaseException"})


def try_statement(a: Analysis, node: ast.Try, env: Env) -> Env | None:
    caught: list[Env] = []  # the states explicit raises (and assert) bring to the handlers
    if node.finalbody:
        a.finally_stack.append(node.finalbody)
    a.exc_stack.append(caught)
    try:
        body_out = a.block(node.body, env)
    finally:
        a.exc_stack.pop()
    raised: Env | None = None
    for e in caught:
        raised = join(raised, e)
    outs = [a.block(node.orelse, body_out) if body_out is not None else None]
    catches_all = False
    for handler in node.handlers:
        entry = raised.copy() if raised is not None else None
        if entry is not None and handler.name:
            a.exprs.bind(ast.Name(handler.name, ast.Store()), None, entry, None)
        outs.append(a.block(handler.body, entry))
        catches_all |= handler.type is None or (isinstance(handler.type, ast.Name) and handler.type.id in BROAD)
    if node.finalbody:
        a.finally_stack.pop()
    normal: Env | None = None
    for o in outs:
        normal = join(normal, o)
    if node.finalbody:
        if raised is not None and not catches_all:
            escaping = a.block(node.finalbody, raised.copy())
            if escaping is not None:
                a.throw(escaping)
        normal = a.block(node.finalbody, normal) if normal is not None else None
    return normal


def with_statement(a: Analysis, node: ast.With, env: Env) -> Env | None:
    released: list[Key] = []
    for item in node.items:
        key = a.exprs.eval(item.context_expr, env)
        obj = env.objs.get(key) if key is not None else None
        if key is not None and obj is not None and obj.protocol.facts.has_exit:
            released.append(key)
            bound = key if obj.protocol.facts.enter_returns_self else None
        else:
            if key is not None:
                a.exprs.escape(key, env)
            bound = None
        if item.optional_vars is not None:
            a.exprs.bind(item.optional_vars, bound, env, None)
    out = a.block(node.body, env)
    if out is not None:
        for key in released:  # __exit__ ran: the obligation is met, the state is unknown
            a.exprs.escape(key, out)
    return out


def match_statement(a: Analysis, node: ast.Match, env: Env) -> Env | None:
    a.exprs.escape_all(node.subject, env)
    out: Env | None = env.copy()  # no case may match
    for case in node.cases:
        entry = env.copy()
        for n in ast.walk(case.pattern):
            name = getattr(n, "name", None)
            if isinstance(name, str):
                a.exprs.bind(ast.Name(name, ast.Store()), None, entry, None)
        if case.guard is not None:
            a.exprs.escape_all(case.guard, entry)
        out = join(out, a.block(case.body, entry))
    return out

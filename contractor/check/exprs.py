"""Expressions in the client checker: which tracked object an expression denotes,
assignment (aliasing), state tests narrowing states on branches, and what loses an
object. Calls are `calls.Calls`' job:

- `C(...)`, `mod.C(...)`, `C.factory(...)` create an object in the constructor's initial
  states (narrowed by constant arguments);
- `x.m(...)` on a tracked object records the call and moves the object along m's
  transitions from the states enabling m (narrowed by constant arguments);
- `f(x)` for a client function uses f's summary for the state x is in;
- anything else that could reach a tracked object (an unknown call, a container, a
  closure, a bound method) loses it: it is no longer followed and never reported.
"""

from __future__ import annotations

import ast

from contractor.check.domain import Env, Key, Obj, join

HARMLESS = frozenset({"isinstance", "issubclass", "id", "type", "print", "repr", "str", "hash", "callable"})


class Unreachable(Exception):
    """No execution continues past this point (every possible state fails the call)."""


def text_of(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return ast.unparse(node)


def replace_env(env: Env, new: Env | None) -> None:
    if new is None:
        raise Unreachable
    env.vars, env.objs = new.vars, new.objs


class Expressions:
    """Evaluates expressions for one `flow.Analysis`: returns the key of the tracked object
    an expression denotes (or None), updating the environment in place."""

    def __init__(self, analysis):
        from contractor.check.calls import Calls

        self.a = analysis
        self.index = analysis.checker.index
        self.calls = Calls(self)

    def eval(self, node: ast.expr, env: Env) -> Key | None:
        handler = getattr(self, "ex_" + type(node).__name__, None)
        if handler is None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.escape_all(child, env)
            return None
        return handler(node, env)

    def escape_all(self, node: ast.expr, env: Env) -> None:
        """Evaluate `node`; the object it denotes, if any, goes where we cannot follow."""
        key = self.eval(node, env)
        if key is not None:
            self.escape(key, env)

    def escape(self, key: Key, env: Env) -> None:
        self.a.escaped.update(key)
        env.forget(key)

    # -- plain expressions -------------------------------------------------------------

    def ex_Name(self, node: ast.Name, env: Env) -> Key | None:
        return env.vars.get(node.id)

    def ex_Constant(self, node: ast.Constant, env: Env) -> None:
        return None

    def ex_Attribute(self, node: ast.Attribute, env: Env) -> Key | None:
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            return env.vars.get(f"self.{node.attr}")
        key = self.eval(node.value, env)
        if key is not None:
            obj = env.objs[key]
            if node.attr in obj.protocol.methods or node.attr in obj.protocol.facts.methods:
                self.escape(key, env)  # a bound method: it may be called anywhere
        return None

    def ex_Compare(self, node: ast.Compare, env: Env) -> None:
        for part in [node.left, *node.comparators]:
            self.eval(part, env)

    def ex_JoinedStr(self, node: ast.JoinedStr, env: Env) -> None:
        for part in node.values:
            self.eval(part, env)

    def ex_FormattedValue(self, node: ast.FormattedValue, env: Env) -> None:
        self.eval(node.value, env)

    def ex_Subscript(self, node: ast.Subscript, env: Env) -> None:
        self.eval(node.value, env)
        self.escape_all(node.slice, env)

    def ex_NamedExpr(self, node: ast.NamedExpr, env: Env) -> Key | None:
        key = self.eval(node.value, env)
        self.bind(node.target, key, env, node.value)
        return key

    def ex_Lambda(self, node: ast.expr, env: Env) -> None:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id in env.vars:
                self.escape(env.vars[n.id], env)
            elif isinstance(n, ast.Name) and n.id == "self":
                self.drop_fields(env)

    ex_ListComp = ex_SetComp = ex_DictComp = ex_GeneratorExp = ex_Lambda

    def ex_BoolOp(self, node: ast.BoolOp, env: Env) -> None:
        is_and = isinstance(node.op, ast.And)
        stopped: Env | None = None
        current: Env | None = env
        for i, value in enumerate(node.values):
            if current is None:
                break
            try:
                self.escape_all(value, current)
            except Unreachable:
                current = None
                break
            if i < len(node.values) - 1:
                stopped = join(stopped, self.refine(current.copy(), value, not is_and))
                current = self.refine(current, value, is_and)
        replace_env(env, join(stopped, current))

    def ex_IfExp(self, node: ast.IfExp, env: Env) -> None:
        self.eval(node.test, env)
        outs = []
        for branch, truth in ((node.body, True), (node.orelse, False)):
            part = self.refine(env.copy(), node.test, truth)
            try:
                if part is not None:
                    self.escape_all(branch, part)
            except Unreachable:
                part = None
            outs.append(part)
        replace_env(env, join(outs[0], outs[1]))

    # -- assignment --------------------------------------------------------------------

    def bind(self, target: ast.expr, key: Key | None, env: Env, value: ast.expr | None) -> None:
        """`target = <the object key>` (None: a value that is not tracked)."""
        if isinstance(target, ast.Name):
            self.set_var(target.id, key, env, getattr(target, "lineno", 0))
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
            if key is not None:
                env.objs[key] = _handed_on(env.objs[key])  # a field hands the obligation on
            self.set_var(f"self.{target.attr}", key, env, target.lineno)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if key is not None:
                self.escape(key, env)
            for element in target.elts:
                self.bind(element, None, env, None)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, None, env, None)
        elif isinstance(target, (ast.Attribute, ast.Subscript)):
            # x.attr = ..., x[i] = ...: the value (and a tracked x) go where we cannot follow
            if key is not None:
                self.escape(key, env)
            self.escape_all(target.value, env)
            if isinstance(target, ast.Subscript):
                self.escape_all(target.slice, env)

    def set_var(self, name: str, key: Key | None, env: Env, line: int) -> None:
        if key is not None and self.a.untrackable(name):
            self.escape(key, env)
            key = None
        old = env.vars.pop(name, None)
        if old is not None and old != key and old not in env.vars.values():
            obj = env.objs.pop(old, None)
            if obj is not None:
                self.a.out_of_scope(obj, line, dropped=True)
        if key is not None:
            env.vars[name] = key
            obj = env.objs[key]
            if not obj.name:
                env.objs[key] = Obj(obj.protocol, obj.states, obj.known, obj.owned, obj.site, name)

    def drop_fields(self, env: Env) -> None:
        """`self` went somewhere (a call of one of its methods): its fields may change."""
        for var in [v for v in env.vars if v.startswith("self.")]:
            del env.vars[var]
        env.collect()

    # -- state tests -------------------------------------------------------------------

    def refine(self, env: Env | None, test: ast.expr, truth: bool) -> Env | None:
        """`env` where `test` evaluated to `truth` (None: impossible). Only state tests on
        tracked objects narrow anything; `test` has been evaluated already."""
        if env is None:
            return None
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return self.refine(env, test.operand, not truth)
        if isinstance(test, ast.BoolOp):
            if isinstance(test.op, ast.And) == truth:
                for value in test.values:
                    env = self.refine(env, value, truth)
            return env
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.comparators[0], ast.Constant):
            constant, op = test.comparators[0].value, test.ops[0]
            if constant is None and isinstance(op, (ast.Is, ast.IsNot)):  # a tracked variable is never None
                held = self.peek(test.left, env) is not None
                return None if held and truth == isinstance(op, ast.Is) else env
            if isinstance(constant, bool) and isinstance(op, (ast.Is, ast.Eq)):
                return self.refine(env, test.left, truth == constant)
            return env
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and not test.args:
            key = self.peek(test.func.value, env)
            obj = env.objs.get(key) if key is not None else None
            if key is not None and obj is not None and obj.protocol.is_state_test(test.func.attr):
                keep = {s: e for s, e in obj.states.items()
                        if obj.protocol.truth(s, test.func.attr).allows(truth)}
                if not keep:
                    return None
                env.objs[key] = obj.with_states(keep)
        return env

    @staticmethod
    def peek(node: ast.expr, env: Env) -> Key | None:
        if isinstance(node, ast.Name):
            return env.vars.get(node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return env.vars.get(f"self.{node.attr}")
        return None

    def ex_Call(self, node: ast.Call, env: Env) -> Key | None:
        return self.calls.call(node, env)


def _handed_on(obj: Obj) -> Obj:
    return obj if not obj.owned else Obj(obj.protocol, obj.states, obj.known, False, obj.site, obj.name)

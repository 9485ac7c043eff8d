"""Expressions and calls in the client checker: what each call does to tracked objects.

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
from typing import Any

from contractor.check.domain import Env, Event, Key, Obj, join, join_states
from contractor.check.records import HelperRecord

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
        self.a = analysis
        self.index = analysis.checker.index

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
        else:  # x.attr = ..., x[i] = ...: the value (and a tracked x) go where we cannot follow
            if key is not None:
                self.escape(key, env)
            self.escape_all(target.value, env)
            if isinstance(target, ast.Subscript):
                self.escape_all(target.slice, env)

    def set_var(self, name: str, key: Key | None, env: Env, line: int) -> None:
        if name in self.a.untrackable and key is not None:
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
        if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.Eq))
                and isinstance(test.comparators[0], ast.Constant) and isinstance(test.comparators[0].value, bool)):
            return self.refine(env, test.left, truth == test.comparators[0].value)
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and not test.args:
            key = self.peek(test.func.value, env)
            obj = env.objs.get(key) if key is not None else None
            if obj is not None and obj.protocol.is_state_test(test.func.attr):
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

    # -- calls -------------------------------------------------------------------------

    def ex_Call(self, node: ast.Call, env: Env) -> Key | None:
        func, module = node.func, self.a.module
        protocol = self.index.class_of(module, func)
        if protocol is not None:
            return self.construct(node, protocol, "__init__", env)
        function = self.index.function(module, func)
        if function is not None:
            return self.helper(node, function, env)
        if isinstance(func, ast.Attribute):
            owner = self.index.class_of(module, func.value)
            if owner is not None and func.attr in owner.constructors:
                return self.construct(node, owner, func.attr, env)
            if isinstance(func.value, ast.Name) and func.value.id == "self":
                self.drop_fields(env)
            else:
                key = self.eval(func.value, env)
                if key is not None:
                    return self.method_call(node, key, func.attr, env)
        elif isinstance(func, ast.Name) and func.id in HARMLESS:
            for arg in node.args:
                self.eval(arg, env)
            return None
        else:
            self.escape_all(func, env)
        self.unknown_args(node, env)
        return None

    def unknown_args(self, node: ast.Call, env: Env) -> None:
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            if isinstance(arg, ast.Name) and arg.id == "self":
                self.drop_fields(env)
            self.escape_all(arg, env)

    def arguments(self, node: ast.Call, params: tuple[str, ...] | None, env: Env) -> dict[str, Any]:
        """Evaluate the arguments of a call on a tracked object or class: the constant ones
        by parameter name; tracked objects among them are lost."""
        constants: dict[str, Any] = {}
        positional_ok = True
        for i, arg in enumerate(node.args):
            if isinstance(arg, ast.Starred):
                positional_ok = False
            ok, value = self.index.constant(self.a.module, arg)
            if ok and positional_ok and params is not None and i < len(params):
                constants[params[i]] = value
            elif not ok:
                self.unknown_args(ast.Call(node.func, [arg], []), env)
        for kw in node.keywords:
            ok, value = self.index.constant(self.a.module, kw.value)
            if ok and kw.arg is not None and params is not None and kw.arg in params:
                constants[kw.arg] = value
            elif not ok:
                self.unknown_args(ast.Call(node.func, [kw.value], []), env)
        return constants

    def construct(self, node: ast.Call, protocol, constructor: str, env: Env) -> Key | None:
        facts = protocol.facts.methods.get(constructor)
        args = self.arguments(node, facts.params if facts else None, env)
        states = protocol.created(constructor, args)
        if not states:
            return None
        key = frozenset({f"new:{node.lineno}:{node.col_offset}"})
        if key in env.objs:  # the same line made an object before (a loop): that one is lost
            self.escape(key, env)
        event = Event(node.lineno, self.a.path, f"{protocol.name}()")
        env.objs[key] = Obj(protocol, {s: event for s in sorted(states)}, True, bool(protocol.must_call),
                            self.a.site(node))
        return key

    def method_call(self, node: ast.Call, key: Key, method: str, env: Env) -> None:
        obj = env.objs[key]
        protocol = obj.protocol
        facts = protocol.facts.methods.get(method)
        args = self.arguments(node, facts.params if facts else None, env)
        obj = env.objs.get(key)
        if obj is None:
            return
        if method not in protocol.methods:
            self.escape(key, env)  # a method outside the typestate: its effect is unknown
            return
        text = text_of(node.func.value)
        if obj.known:
            self.a.records.call(self.a.site(node), text, method, protocol, obj.states, key)
        event = Event(node.lineno, self.a.path, f"{text}.{method}()")
        new: dict[str, Event | None] = {}
        for s in obj.states:
            if method in protocol.enabled[s]:
                for t in protocol.after(s, method, args):
                    new[t] = event
        if not new:
            raise Unreachable
        env.objs[key] = obj.with_states(new)
        self.a.note_seen(key, new)
        return

    def helper(self, node: ast.Call, function, env: Env) -> Key | None:
        """A call of a client function: each tracked argument follows its summary."""
        params = [a.arg for a in function.args.posonlyargs + function.args.args]
        passed: dict[int, tuple[Key, ast.expr]] = {}
        starred = False
        pairs = [(i, a) for i, a in enumerate(node.args)] + [
            (params.index(k.arg) if k.arg in params else -1, k.value) for k in node.keywords]
        for i, arg in pairs:
            starred |= isinstance(arg, ast.Starred)
            key = self.eval(arg, env)
            if key is None:
                continue
            if starred or i < 0 or i >= len(params) or any(k == key for k, _ in passed.values()):
                self.escape(key, env)
            else:
                passed[i] = (key, arg)
        result: Key | None = None
        for i, (key, arg) in passed.items():
            obj = env.objs.get(key)
            if obj is None:
                continue
            if obj.known:
                self.a.records.helper(HelperRecord(self.a.site(node), function, function.name, i, text_of(arg),
                                                   obj.protocol, dict(obj.states), key))
            exits: dict[str, Event | None] = {}
            seen: set[str] = set()
            returned = False
            for s in obj.states:
                summary = self.a.checker.summary(function, i, s, obj.protocol)
                if summary is None or summary.exits is None:
                    break
                exits = join_states(exits, summary.exits)
                seen |= summary.seen
                returned |= summary.returns_param
            else:
                if self.a.exc_stack and self.a.checker.raises(function):
                    self.a.exc_stack[-1].append(env.copy())
                    env.objs[key] = obj.with_states(join_states(obj.states, {s: None for s in seen}))
                    self.a.exc_stack[-1].append(env.copy())
                if not exits:
                    raise Unreachable
                env.objs[key] = obj.with_states(exits)
                self.a.note_seen(key, exits)
                result = key if returned else result
                continue
            self.escape(key, env)
        if result is not None:
            return result
        made = self.a.checker.returned(function)
        if made is None:
            return None
        key = frozenset({f"ret:{node.lineno}:{node.col_offset}"})
        if key in env.objs:
            self.escape(key, env)
        env.objs[key] = Obj(made.protocol, made.states, made.known, made.owned, self.a.site(node))
        return key


def _handed_on(obj: Obj) -> Obj:
    return obj if not obj.owned else Obj(obj.protocol, obj.states, obj.known, False, obj.site, obj.name)

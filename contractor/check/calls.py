"""Calls in the client checker: what each call does to the tracked objects it touches.

- `C(...)`, `mod.C(...)`, `C.factory(...)` create an object in the constructor's initial
  states (narrowed by constant arguments);
- `x.m(...)` on a tracked object records the call and moves the object along m's
  transitions from the states enabling m (narrowed by constant arguments);
- `f(x)` for a client function follows f's summary for each state x may be in;
- an unknown callee loses the tracked objects passed to it; `self.m()` loses the fields.
"""

from __future__ import annotations

import ast
from typing import Any

from contractor.check.domain import Env, Event, Key, Obj, join_states
from contractor.check.exprs import HARMLESS, Unreachable, text_of
from contractor.check.records import HelperRecord


class Calls:
    """The calls of one `exprs.Expressions` (and its analysis)."""

    def __init__(self, expressions):
        self.x = expressions
        self.a = expressions.a
        self.index = expressions.index

    def call(self, node: ast.Call, env: Env) -> Key | None:
        func, module = node.func, self.a.module
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in env.vars:
            self.method_call(node, env.vars[func.value.id], func.attr, env)  # the common case
            return None
        protocol = self.index.class_of(module, func)
        if protocol is not None:
            return self.construct(node, protocol, "__init__", env)
        function = self.index.function(module, func)
        if function is not None:
            return self.helper(node, function, env)
        if isinstance(func, ast.Attribute):
            owner = self.index.class_of(module, func.value)
            if owner is not None and func.attr in owner.constructors and func.attr != "__init__":
                return self.construct(node, owner, func.attr, env)
            if isinstance(func.value, ast.Name) and func.value.id == "self":
                method = self.a.checker.sibling(self.a.function, func.attr)
                result = self.helper(node, method, env, offset=1) if method is not None else None
                self.x.drop_fields(env)  # the method may change the fields
                if method is not None:
                    return result
            else:
                key = self.x.eval(func.value, env)
                if key is not None:
                    self.method_call(node, key, func.attr, env)
                    return None
        elif isinstance(func, ast.Name) and func.id in HARMLESS:
            for arg in node.args:
                self.x.eval(arg, env)
            return None
        else:
            self.x.escape_all(func, env)
        self.unknown_args(node, env)
        return None

    def unknown_args(self, node: ast.Call, env: Env) -> None:
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            if isinstance(arg, ast.Name) and arg.id == "self":
                self.x.drop_fields(env)
            self.x.escape_all(arg, env)

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
            self.x.escape(key, env)
        event = Event(node.lineno, self.a.path, f"{protocol.name}()")
        env.objs[key] = Obj(protocol, {s: event for s in sorted(states)}, True, bool(protocol.must_call),
                            self.a.site(node))
        return key

    def method_call(self, node: ast.Call, key: Key, method: str, env: Env) -> None:
        protocol = env.objs[key].protocol
        facts = protocol.facts.methods.get(method)
        args = self.arguments(node, facts.params if facts else None, env)
        obj = env.objs.get(key)
        if obj is None:
            return
        if method not in protocol.methods:
            self.x.escape(key, env)  # a method outside the typestate: its effect is unknown
            return
        assert isinstance(node.func, ast.Attribute)  # a call of obj.method(...)
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

    def helper(self, node: ast.Call, function, env: Env, offset: int = 0) -> Key | None:
        """A call of a client function (or, with `offset` 1, of a method of the class the
        caller is a method of, through `self`): each tracked argument follows its summary."""
        params = [a.arg for a in function.args.posonlyargs + function.args.args]
        passed: dict[int, tuple[Key, ast.expr]] = {}
        starred = False
        pairs = [(i + offset, a) for i, a in enumerate(node.args)] + [
            (params.index(k.arg) if k.arg in params else -1, k.value) for k in node.keywords]
        for i, arg in pairs:
            starred |= isinstance(arg, ast.Starred)
            key = self.x.eval(arg, env)
            if key is None:
                continue
            if starred or i < 0 or i >= len(params) or any(k == key for k, _ in passed.values()):
                self.x.escape(key, env)
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
            for s, incoming in obj.states.items():
                summary = self.a.checker.summary(function, i, s, obj.protocol)
                if summary is None or summary.exits is None:
                    break
                exits = join_states(exits, {t: incoming if e is None else e for t, e in summary.exits.items()})
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
            self.x.escape(key, env)
        if result is not None:
            return result
        made = self.a.checker.returned(function)
        if made is None:
            return None
        key = frozenset({f"ret:{node.lineno}:{node.col_offset}"})
        if key in env.objs:
            self.x.escape(key, env)
        env.objs[key] = Obj(made.protocol, made.states, made.known, made.owned, self.a.site(node))
        return key

"""Executor mixin: set and dict operations (their z3 terms are in mappings.py): literals,
lookups, item assignment, and the methods add, discard, remove, get, pop,
setdefault, clear, update, keys, values, items."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import TypeKind, TypeRef
from contractor.z3backend import fastterms as F
from contractor.z3backend import mappings as M
from contractor.z3backend import valops as P
from contractor.z3backend import values as V
from contractor.z3backend.state import TRUE
from contractor.z3backend.values import Val

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
else:
    _Host = object


@dataclass(frozen=True)
class MapMethod:
    """A set or dict method looked up on `value`, not yet called."""

    target: ast.expr  # the set or dict expression the method mutates or reads
    value: Val
    name: str


@dataclass(frozen=True)
class DictView:
    """d.keys(), d.values() or d.items(): only iterated or searched with `in`."""

    value: Val
    kind: str


class MapCalls(_Host):
    """Mixin of Executor: needs eval, raise_if, store, unsupported."""

    def e_Set(self, node: ast.Set) -> Val:
        items = [self.eval(e) for e in node.elts]
        t = items[0].type
        for v in items[1:]:
            t = V.join_type(t, v.type)
        st = TypeRef(TypeKind.SET, (t,))
        try:
            seq = z3.Empty(V.sort_of(st))
        except UnsupportedConstruct as e:
            raise self.unsupported(node, e.construct) from None
        for v in items:
            seq = M.add(seq, V.coerce(v, t).z)
        return Val(st, seq)

    def e_Dict(self, node: ast.Dict) -> Val:
        if not node.keys:
            return Val(TypeRef(TypeKind.DICT), None)
        keys = [k for k in node.keys if k is not None]  # None: a **-unpacking
        if len(keys) != len(node.keys):
            raise self.unsupported(node, "**-unpacking in a dict literal")
        pairs = [(self.eval(k), self.eval(v)) for k, v in zip(keys, node.values)]
        kt, vt = pairs[0][0].type, pairs[0][1].type
        for k, v in pairs[1:]:
            kt, vt = V.join_type(kt, k.type), V.join_type(vt, v.type)
        dt = TypeRef(TypeKind.DICT, (kt, vt))
        try:
            d = Val(dt, M.empty_dict(V.sort_of(dt)))
        except UnsupportedConstruct as e:
            raise self.unsupported(node, e.construct) from None
        for k, v in pairs:
            d = put(d, k, v)
        return d

    def dict_item(self, d: Val, node: ast.Subscript) -> Val:
        k = self.eval(node.slice)
        if d.z is None:
            self.raise_if(TRUE, "KeyError", node)
            return V.const(0)
        self.raise_if(F.not_(P.contains(k, d)), "KeyError", node)
        return Val(d.type.args[1], M.vals(d.z)[key(d, k)])

    def store_dict_item(self, target: ast.Subscript, v: Val) -> None:
        d = self.eval(target.value)
        k = self.eval(target.slice)
        if d.z is None:
            d = V.coerce(d, TypeRef(TypeKind.DICT, (k.type, v.type)))
        self.store(target.value, put(d, k, v))

    def call_map_method(self, m: MapMethod, node: ast.Call) -> Val | DictView:
        if node.keywords:
            raise self.unsupported(node, f"keyword arguments to {m.value.type.kind}.{m.name}()")
        args = [self.eval(a) for a in node.args]
        c = self.eval(m.target)  # read after the arguments: they may change it
        name = m.name
        if c.z is None and c.kind == "set" and args and name in ("add", "discard", "remove"):
            c = V.coerce(c, TypeRef(TypeKind.SET, (args[0].type,)))
        if c.z is None and name in ("get", "pop", "setdefault", "keys", "values", "items", "clear", "copy"):
            if name in ("keys", "values", "items"):
                return DictView(c, name)
            if name == "clear":
                return V.NONE_VAL
            if name == "copy":
                return c
            if len(args) == 2:  # nothing to find: the default
                if name == "setdefault":
                    self.store(m.target, put(V.coerce(c, TypeRef(TypeKind.DICT, (args[0].type, args[1].type))), *args))
                return args[1]
            if name == "get":
                return V.NONE_VAL
            self.raise_if(TRUE, "KeyError", node)
            return V.const(0)
        if c.z is None:
            raise self.unsupported(node, f"{c.type.kind}.{name}() on an empty literal of unknown type")
        if c.kind == "set":
            return self.call_set_method(m, c, args, node)
        return self.call_dict_method(m, c, args, node)

    def call_set_method(self, m: MapMethod, s: Val, args: list[Val], node: ast.Call) -> Val:
        name, elem = m.name, s.type.args[0]
        if name in ("add", "discard", "remove") and len(args) == 1:
            if name == "remove":
                self.raise_if(F.not_(P.contains(args[0], s)), "KeyError", node)
            x = V.coerce(args[0], elem).z
            self.store(m.target, Val(s.type, M.add(s.z, x) if name == "add" else self.set_without(s, x, node)))
            return V.NONE_VAL
        if name == "clear" and not args:
            self.store(m.target, Val(s.type, z3.Empty(s.z.sort())))
            return V.NONE_VAL
        if name == "copy" and not args:
            return s
        return self.call_set_algebra(m, s, args, node)  # setalgebra.py

    def call_dict_method(self, m: MapMethod, d: Val, args: list[Val], node: ast.Call) -> Val | DictView:
        name, vt = m.name, d.type.args[1]
        if name in ("keys", "values", "items") and not args:
            return DictView(d, name)
        if name in ("get", "pop", "setdefault") and 1 <= len(args) <= 2:
            k = args[0]
            present = P.contains(k, d)
            found = Val(vt, M.vals(d.z)[key(d, k)])
            result: Val | None
            if len(args) == 2:
                result = V.ite(present, found, args[1])
            elif name == "get":
                optional = vt.kind in V.SCALARS or vt.kind == "tuple"
                result = Val(TypeRef(TypeKind.OPTIONAL, (vt,)), found.z, F.not_(present)) if optional else None
                if result is None:
                    raise self.unsupported(node, f"dict.get() without a default on a {d.type}")
            else:
                if name == "pop":
                    self.raise_if(F.not_(present), "KeyError", node)
                result = found
            if name == "pop":
                self.store(m.target, drop(d, k))
            elif name == "setdefault":
                if len(args) == 1:
                    raise self.unsupported(node, "dict.setdefault() without a default (a None value)")
                self.store(m.target, V.ite(present, d, put(d, k, args[1])))
            return result
        if name == "clear" and not args:
            self.store(m.target, V.coerce(Val(TypeRef(TypeKind.DICT), None), d.type))
            return V.NONE_VAL
        if name == "copy" and not args:
            return d
        if name == "update" and len(args) == 1 and isinstance(node.args[0], ast.Dict):
            other = args[0]
            for kn, vn in zip(node.args[0].keys, node.args[0].values):
                if kn is None:  # {**x}: a mapping z3 does not model
                    raise self.unsupported(node, "**-unpacking in a dict literal")
                d = put(d, self.eval(kn), self.eval(vn))  # the literal's pairs, in order
            del other
            self.store(m.target, d)
            return V.NONE_VAL
        raise self.unsupported(node, f"dict.{name}()")

    def view_contains(self, item: Val, view: DictView, node: ast.AST) -> z3.BoolRef:
        d = view.value
        if d.z is None:
            return z3.BoolVal(False)
        if view.kind == "keys":
            return P.contains(item, d)
        if view.kind == "values":
            return M.value_present(d.z, V.coerce(item, d.type.args[1]).z)
        if item.kind != "tuple" or len(item.type.args) != 2:
            return z3.BoolVal(False)
        k, v = V.tuple_items(item)
        return F.and_(P.contains(k, d), P.equal(Val(d.type.args[1], M.vals(d.z)[key(d, k)]), v))


def key(d: Val, k: Val) -> z3.ExprRef:
    return V.coerce(k, d.type.args[0]).z


def put(d: Val, k: Val, v: Val) -> Val:
    """d with d[k] = v (k appended to the keys if new)."""
    kz, vz = key(d, k), V.coerce(v, d.type.args[1]).z
    sort = V.sort_of(d.type)
    return Val(d.type, M.make(sort, M.add(M.keys(d.z), kz), z3.Store(M.vals(d.z), kz, vz)))


def drop(d: Val, k: Val) -> Val:
    """d without key k (values stay: they are read only at present keys)."""
    sort = V.sort_of(d.type)
    return Val(d.type, M.make(sort, M.remove(M.keys(d.z), key(d, k)), M.vals(d.z)))

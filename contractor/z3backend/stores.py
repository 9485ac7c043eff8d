"""Executor mixin: storing a value into a place (a local, a field, a list or dict item, a
tuple of targets), with the guard of the current paths, and the aliasing rule: a mutable
value reached by two names is not followed (the mutation would change both)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import TypeKind, TypeRef
from contractor.z3backend import fastterms as F
from contractor.z3backend import values as V
from contractor.z3backend.dag import constant_names
from contractor.z3backend.fieldtypes import z3_field_type
from contractor.z3backend.reach import holds_container
from contractor.z3backend.refs import OldNamespace
from contractor.z3backend.state import TRUE
from contractor.z3backend.values import Val

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
else:
    _Host = object

FRESH_LIST_NODES = (ast.List, ast.BinOp, ast.Call, ast.ListComp, ast.Set, ast.Dict, ast.SetComp, ast.DictComp)
MUTABLE = ("list", "set", "dict")


def literal(v: Val) -> bool:
    """Whether `v` is a dict literal (`{'r': 'rb'}`): a dict naming no symbol but its values
    of no key (`empty!...`, never read). Where such a value is a local's first assignment on
    some paths, it is the local's value on the others too: reading it there raises
    UnboundLocalError first, so any value would do. A fresh dict was a free sequence of
    keys, on which z3's sequence theory is incomplete: zipfile.ZipFile's constructor binds
    `modeDict = {...}` in one branch and reads it with `in`; 3 of its 7 loop checks ran out
    of their units (0.1-1 s each) and its all-SAT answered unknown (incomplete (theory
    seq)) in some runs. Other values keep their fresh placeholder: with scalars too the
    rule changed HTTPConnection's formulas (1.14x its CPU), with lists smtplib.SMTP's
    (`preferred_auths`: 31-33 s CPU -> 40-45 s, a may_raise finding fewer)."""
    if v.kind != "dict" or not isinstance(v.z, z3.ExprRef):
        return False
    return all(n.startswith("empty!") for n in constant_names(v.z))


def _fresh(node: ast.expr) -> bool:
    """Whether the value is a new list, set or dict (`[1] if c else []` is; `xs or []` is not)."""
    if isinstance(node, ast.IfExp):
        return _fresh(node.body) and _fresh(node.orelse)
    if isinstance(node, ast.BoolOp):
        return all(_fresh(v) for v in node.values)
    return isinstance(node, FRESH_LIST_NODES)


class StoreExecutor(_Host):
    """Mixin of Executor: needs frame, state, active, eval, eval_any, fresh, raise_if, loc,
    fresh_choice, tolerant, none_raises, hand_out and store_dict_item."""

    def assign_name(self, name: str, v: Val) -> None:
        f = self.frame
        act = self.active()
        chosen = v.kind == "opaque" and self.caller_chosen(v)
        known = self.known_type(v)  # pytypes.py: kept where every value the local may hold has it
        if name in f.locals and not isinstance(f.locals[name], Val):
            # a parameter bound to a method of the class or a str method (inline.bind): a
            # value on some paths and the method on others is not modelled
            raise UnsupportedConstruct(f"assignment to `{name}`, which holds a method")
        if name in f.locals:
            chosen = chosen and self.caller_chosen(f.locals[name])
            known = known if z3.is_true(act) or self.known_type(f.locals[name]) is known else None
            f.locals[name] = V.ite(act, v, f.locals[name]) if not z3.is_true(act) else v
            if name in f.defined:
                f.defined[name] = F.or_(f.defined[name], act)
        else:
            if z3.is_true(act) or v.kind in ("class", "none") or (v.kind in MUTABLE and v.z is None):
                f.locals[name] = v
            else:
                # where it is not defined, reading it raises: the placeholder is never used
                f.locals[name] = v if literal(v) else V.ite(act, v, self.fresh(v.type, name))
                f.defined[name] = act
        if chosen:  # the caller's object on every path that can read it
            self.choose_by_caller(f.locals[name])
        if known is not None:
            self.note_type(f.locals[name], known)

    def store(self, target: ast.expr, v: Val) -> None:
        if isinstance(target, ast.Name):
            if target.id in self.frame.aliases and v.kind in MUTABLE:
                raise UnsupportedConstruct(f"mutation of a {v.kind} through an alias", self.loc(target))
            self.assign_name(target.id, v)
            return
        if isinstance(target, ast.Attribute):
            base = self.eval_any(target.value)
            if isinstance(base, Val) and base.kind == "class" and not isinstance(base, OldNamespace):
                fields = self.state.objects[base.z]
                if target.attr not in fields:
                    raise UnsupportedConstruct(f"assignment to `{target.attr}`, which is not a field",
                                               self.loc(target))
                old = fields[target.attr]
                if old.kind == "any":  # an opaque field: only its stand-in changes
                    if "__opaque__" in fields:
                        act = self.active()
                        fields["__opaque__"] = V.ite(act, self.fresh(TypeRef(TypeKind.INT), "__opaque__"),
                                                     fields["__opaque__"])
                    return
                declared = z3_field_type(self.model, target.attr) if target.attr in self.model.fields else v.type
                if declared.kind == "opaque" and v.kind in MUTABLE and v.z is None:  # `[]`: a new object
                    v = Val(declared, self.new_object(z3.BoolVal(False)))
                new = V.coerce(v, declared)
                act = self.active()
                if old.kind == "undefined":
                    fields[target.attr] = new if z3.is_true(act) else V.ite(act, new, self.fresh(declared, target.attr))
                else:
                    fields[target.attr] = new if z3.is_true(act) else V.ite(act, new, old)
                return
            if isinstance(base, Val) and base.kind == "opaque":
                self.set_opaque_attribute(target, base, v)
                return
        if isinstance(target, ast.Subscript) and not isinstance(target.slice, ast.Slice):
            seq = self.eval(target.value)
            if seq.kind == "dict":
                self.store_dict_item(target, v)
                return
            if seq.kind == "opaque":  # outside code (__setitem__): it may change the object
                self.tolerant(target.slice)
                self.none_raises(seq, "TypeError", target)
                self.hand_out(target.value, seq)
                if not self.caller_chosen(seq):  # what it does to the object: outside code's choice
                    self.note_outside("__setitem__ of an untyped object", target)
                return
            if seq.kind != "list" or seq.z is None:
                raise UnsupportedConstruct("item assignment", self.loc(target))
            i = V.to_int(self.eval(target.slice))
            n = z3.Length(seq.z)
            self.raise_if(F.or_(i < -n, i >= n), "IndexError", target)
            j = F.ite(i < 0, i + n, i)
            unit = z3.Unit(V.coerce(v, seq.type.args[0]).z)
            self.store(target.value, Val(seq.type, z3.Concat(z3.SubSeq(seq.z, 0, j), unit,
                                                             z3.SubSeq(seq.z, j + 1, n - j - 1))))
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            self.unpack(target, v)
            return
        raise UnsupportedConstruct(f"assignment to {type(target).__name__}", self.loc(target))

    def set_opaque_attribute(self, target: ast.Attribute, base: Val, v: Val) -> None:
        """`obj.attr = v` on an untyped object: outside code (its `__setattr__`) that may
        change the object (its truth), never `self`'s fields; it is assumed to store `v`, not
        change it (README, "What is assumed"). Storing the analysed object, or a list, set or
        dict (which the object could change later through the attribute), is not followed:
        it would escape."""
        if v.kind in ("class", "any") or holds_container(v.type):
            raise UnsupportedConstruct(f"a {v.type} stored into an untyped object", self.loc(target))
        self.none_raises(base, "AttributeError", target)
        self.hand_out(target.value, base)

    def unpack(self, target: ast.Tuple | ast.List, v: Val) -> None:
        """`a, b = v` for a tuple or list v: ValueError where the lengths differ."""
        if any(isinstance(e, ast.Starred) for e in target.elts):
            raise UnsupportedConstruct("starred unpacking", self.loc(target))
        n = len(target.elts)
        if v.kind == "optional" and v.type.args[0].kind in ("tuple", "list", "str"):
            # None on some paths (a helper that returns on some paths only): a TypeError
            # there, as Python's "cannot unpack non-iterable NoneType object"
            self.raise_if(v.is_none, "TypeError", target)
            v = Val(v.type.args[0], v.z)
        if v.kind == "opaque":  # an untyped value: n items of it, or a ValueError
            self.outside_raise_if(self.fresh_choice("unpack"), "ValueError", target)
            for t in target.elts:
                item = self.fresh(TypeRef(TypeKind.OPAQUE), "item")
                if self.caller_chosen(v):  # the caller's iterable gives the caller's items
                    self.choose_by_caller(item)
                self.store(t, item)
            return
        if v.kind == "tuple":
            items = V.tuple_items(v)
            if len(items) != n:
                self.raise_if(TRUE, "ValueError", target)
                return
        elif v.kind in ("list", "str") and v.z is not None:
            self.raise_if(z3.Length(v.z) != n, "ValueError", target)
            elem = v.type.args[0] if v.kind == "list" else v.type
            items = [Val(elem, v.z[i] if v.kind == "list" else z3.SubString(v.z, i, 1)) for i in range(n)]
        else:
            raise UnsupportedConstruct(f"unpacking a {v.type}", self.loc(target))
        for t, x in zip(target.elts, items):
            self.store(t, x)

    def note_alias(self, targets: list[ast.expr], value_node: ast.expr, v: Val) -> None:
        if v.kind not in MUTABLE or _fresh(value_node):
            return
        for t in targets:
            if isinstance(t, ast.Name):
                self.frame.aliases.add(t.id)
            else:
                raise UnsupportedConstruct("a field made to share another list (aliasing)", self.loc(t))

"""Expression translator mixin: calls. A call goes to a method of the class (inlined), a
builtin, a list/str/dict/set method, a quantifier, or code outside the class (outside.py)."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import BOOL, INT, OPAQUE, TypeKind, TypeRef
from contractor.z3backend import fastterms as F
from contractor.z3backend import opaque as O
from contractor.z3backend import valops as P
from contractor.z3backend import values as V
from contractor.z3backend.mapcalls import MapMethod
from contractor.z3backend.outside import External, Member, escapes_self
from contractor.z3backend.quantifiers import QUANTIFIERS
from contractor.z3backend.refs import BoundMethod, ListMethod, StrMethod
from contractor.z3backend.selfattrs import static_hasattr
from contractor.z3backend.state import SELF
from contractor.z3backend.values import Val

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
    from contractor.z3backend.seqcalls import Reversed
else:
    _Host = object


class NoBuiltinRule(UnsupportedConstruct):
    """No rule of the translation applies to a builtin's evaluated arguments: the call is
    then one to outside code, with the same argument values (not evaluated twice)."""

    def __init__(self, err: UnsupportedConstruct, call: ast.Call, args_values: list[Val]):
        super().__init__(err.construct, err.location, err.detail)
        self.call = call
        self.args_values = args_values


class CallEvaluator(_Host):
    """Mixin of ExprEvaluator: needs eval, eval_any, as_value, unwrap, call_method, construct,
    store, raise_if, tolerant, outside_call, call_quantifier, call_str_method,
    call_map_method, call_builtin_extra and call_list_extra."""

    def e_Call(self, node: ast.Call) -> Any:
        func = node.func
        starred = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        if isinstance(func, ast.Name) and func.id not in self.frame.locals:
            if func.id not in ("cls", self.model.name):
                evaluated = None
                try:
                    if not starred:
                        return self.call_builtin(func.id, node)
                except NoBuiltinRule as err:
                    if escapes_self(node):
                        raise
                    evaluated = err.args_values if err.call is node else None  # not a nested call's
                except UnsupportedConstruct:
                    if escapes_self(node):
                        raise
                # the arguments are evaluated once: evaluating them again here made nested
                # calls (`f(g(h(x)))`) cost 2^depth translations
                return self.outside_call(External(func.id), node, evaluated)
            return self.call_builtin(func.id, node)
        if starred:
            target = self.eval_any(func)
            if isinstance(target, (External, Member)) or (isinstance(target, Val) and target.kind == "opaque"):
                return self.outside_call(target, node)
            if isinstance(target, BoundMethod):  # f(a, *rest, **kw): what they supply is unknown
                args = [self.as_value(self.eval_any(a), a) for a in node.args if not isinstance(a, ast.Starred)]
                kwargs = {k.arg: self.as_value(self.eval_any(k.value), k.value) for k in node.keywords if k.arg}
                for extra in [a.value for a in node.args if isinstance(a, ast.Starred)] + \
                        [k.value for k in node.keywords if k.arg is None]:
                    self.tolerant(extra)
                return self.call_method(target.obj, target.name, args, kwargs, node, unknown_rest=True)
            raise self.unsupported(node, "*args/**kwargs in a call")
        target = self.eval_any(func)
        if isinstance(target, BoundMethod):
            args = [self.as_value(self.eval_any(a), a) for a in node.args]
            kwargs = {k.arg: self.as_value(self.eval_any(k.value), k.value) for k in node.keywords
                      if k.arg is not None}  # None: **kw, rejected above (starred)
            return self.call_method(target.obj, target.name, args, kwargs, node)
        if isinstance(target, ListMethod):
            return self.call_list_method(target, node)
        if isinstance(target, StrMethod):
            try:
                return self.call_str_method(target, node)
            except UnsupportedConstruct:  # a str is immutable: another method only gives a result
                return self.outside_call(External(f"str.{target.name}"), node)
        if isinstance(target, MapMethod):
            return self.call_map_method(target, node)
        if isinstance(target, (External, Member)) or (isinstance(target, Val) and target.kind == "opaque"):
            return self.outside_call(target, node)
        raise self.unsupported(node, "call")

    def call_builtin(self, name: str, node: ast.Call) -> Val | Reversed:
        if name in ("cls", self.model.name):
            args = [self.eval_any(a) for a in node.args]
            kwargs = {k.arg: self.eval_any(k.value) for k in node.keywords}  # None: a **kw (bind refuses it)
            return self.construct(args, kwargs, node)
        if name == "hasattr" and len(node.args) == 2 and not node.keywords \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            obj = self.eval_any(node.args[0])
            known = static_hasattr(self.model, node.args[1].value) \
                if isinstance(obj, Val) and obj.kind == "class" and obj.z == SELF else None
            if known is not None:  # the analysed object itself: its class's source says (selfattrs.py)
                return Val(BOOL, z3.BoolVal(known))
        if name in ("hasattr", "isinstance") and len(node.args) == 2 and not node.keywords \
                and isinstance(node.args[0], ast.Name) and node.args[0].id in self.frame.locals:
            # a local of a type known exactly (pytypes.py): its class answers
            obj = self.frame.locals[node.args[0].id]
            decided = self.decided_isinstance(obj, node.args[1]) if name == "isinstance" else (
                self.decided_hasattr(obj, node.args[1].value)
                if isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str) else None)
            if decided is not None:
                self.eval_any(node.args[0])  # as Python reads it (an unbound local raises)
                return Val(BOOL, z3.BoolVal(decided))
        if name in QUANTIFIERS:
            return self.call_quantifier(name, node)
        consumed = self.call_aggregate(name, node)  # sum/min/max/sorted/list/set/dict of an iterable
        if consumed is not None:
            return consumed
        if node.keywords:
            raise self.unsupported(node, f"keyword arguments to {name}()")
        args = [self.eval(a) for a in node.args]
        try:
            return self.builtin_of_values(name, args, node)
        except UnsupportedConstruct as err:
            raise NoBuiltinRule(err, node, args) from err

    def builtin_of_values(self, name: str, args: list[Val], node: ast.Call) -> Val | Reversed:
        """The builtin `name` applied to evaluated arguments (UnsupportedConstruct: no rule)."""
        if name == "len" and len(args) == 1 and args[0].kind == "tuple":
            return Val(INT, z3.IntVal(len(args[0].type.args)))
        if name == "len" and len(args) == 1 and args[0].kind in ("set", "dict"):
            return Val(INT, z3.Length(V.seq_of(args[0])) if args[0].z is not None else z3.IntVal(0))
        if name == "len" and len(args) == 1 and args[0].kind in ("str", "list"):
            return Val(INT, z3.Length(args[0].z) if args[0].z is not None else z3.IntVal(0))
        if name == "abs" and len(args) == 1:
            return P.absolute(self.unwrap(args[0], node))
        if name in ("min", "max") and len(args) >= 2:
            op = "<" if name == "min" else ">"
            result = self.unwrap(args[0], node)
            for v in args[1:]:
                v = self.unwrap(v, node)
                result = V.ite(P.order(op, v, result), v, result)  # ties keep the first, as Python
            return result
        if name == "bool" and len(args) == 1:
            return Val(BOOL, self.truth(args[0], node))
        if name == "int" and len(args) == 1 and args[0].kind in ("bool", "int"):
            return Val(INT, V.to_int(args[0]))
        if name == "float" and len(args) == 1 and args[0].kind in ("bool", "int", "float"):
            return Val(TypeRef(TypeKind.FLOAT), V.to_float(args[0]))
        return self.call_builtin_extra(name, args, node)

    def call_list_method(self, m: ListMethod, node: ast.Call) -> Val:
        name = m.name
        args = [self.eval(a) for a in node.args]
        lst = self.eval(m.target)  # read after the arguments: they may change the list
        if lst.z is None and name in ("append", "insert") and isinstance(m.target, ast.Name) \
                and m.target.id in self.frame.locals and args[-1:] \
                and args[-1].kind not in (*V.SCALARS, "tuple", "none", "class", "any"):
            # a local `[]` given an item z3 has no list of (an untyped value, a list): from
            # here on an untyped object (opaque.py), the same one on every path, holding an
            # item (so true) where this call ran
            new = self.new_object(z3.BoolVal(True))
            self.note_holds(new, args[-1:])
            self.frame.locals[m.target.id] = Val(OPAQUE, O.make(O.oid(new), z3.BoolVal(False), self.active()))
            return V.NONE_VAL
        if lst.z is None:
            lst = V.coerce(lst, TypeRef(TypeKind.LIST, (args[0].type,))) if args else lst
        if lst.z is None:
            raise self.unsupported(node, f"list.{name}() on an empty list of unknown type")
        elem = lst.type.args[0]
        n = z3.Length(lst.z)
        if name == "append" and len(args) == 1:
            self.store(m.target, Val(lst.type, z3.Concat(lst.z, z3.Unit(V.coerce(args[0], elem).z))))
            return V.NONE_VAL
        if name == "pop" and len(args) <= 1:
            i = V.to_int(args[0]) if args else n - 1
            self.raise_if(F.or_(n == 0, i < -n, i >= n), "IndexError", node)
            j = F.ite(i < 0, i + n, i)
            item = lst.z[j]
            rest = z3.Concat(z3.SubSeq(lst.z, 0, j), z3.SubSeq(lst.z, j + 1, n - j - 1))
            self.store(m.target, Val(lst.type, rest))
            return Val(elem, item)
        if name == "insert" and len(args) == 2:
            i = V.to_int(args[0])
            j = F.ite(i < 0, F.ite(i + n < 0, 0, i + n), F.ite(i > n, n, i))
            unit = z3.Unit(V.coerce(args[1], elem).z)
            self.store(m.target, Val(lst.type, z3.Concat(z3.SubSeq(lst.z, 0, j), unit, z3.SubSeq(lst.z, j, n - j))))
            return V.NONE_VAL
        if name == "clear" and not args:
            self.store(m.target, Val(lst.type, z3.Empty(lst.z.sort())))
            return V.NONE_VAL
        return self.call_list_extra(m, lst, args, node)

"""Translation of Python expressions to z3 values (the expression half of the executor).

Every construct not listed here raises UnsupportedConstruct, which the statement
executor turns into an "unknown" path rather than a guess.
"""

from __future__ import annotations

import ast
import zlib
from dataclasses import dataclass
from typing import Any

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import BOOL, INT, STR, TypeRef
from contractor.z3backend import opaque as O
from contractor.z3backend import tuples as T
from contractor.z3backend import values as V
from contractor.z3backend.mapcalls import DictView, MapMethod
from contractor.z3backend.outside import External, Member, escapes_self
from contractor.z3backend.quantifiers import QUANTIFIERS
from contractor.z3backend.state import TRUE
from contractor.z3backend.values import Val

CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%", ast.Div: "/"}


@dataclass(frozen=True)
class EnumClass:
    type: TypeRef


@dataclass(frozen=True)
class OldNamespace:
    pass


@dataclass(frozen=True)
class BoundMethod:
    obj: int
    name: str


@dataclass(frozen=True)
class ListMethod:
    target: ast.expr  # the list expression (a field or local) the method mutates or reads
    value: Val
    name: str


@dataclass(frozen=True)
class StrMethod:
    value: Val
    name: str


class ExprEvaluator:
    """Mixin: needs self.state, self.frame, self.guard, self.model, self.constants and
    the statement executor's `raise_if`, `active`, `call_method`, `construct`, `store`."""

    def unsupported(self, node: ast.AST, what: str | None = None) -> UnsupportedConstruct:
        return UnsupportedConstruct(what or type(node).__name__, self.loc(node))

    def eval(self, node: ast.expr) -> Val:
        r = self.as_value(self.eval_any(node), node)  # outside.py: a global or member read
        if not isinstance(r, Val):
            raise self.unsupported(node, f"{type(r).__name__} used as a value")
        if r.kind == "any":
            raise self.unsupported(node, "a value of a type the z3 backend does not model")
        return r

    def eval_any(self, node: ast.expr) -> Any:
        method = getattr(self, "e_" + type(node).__name__, None)
        if method is None:
            raise self.unsupported(node)
        return method(node)

    def condition(self, node: ast.expr) -> z3.BoolRef:
        """bool(node), where only its truth matters (if/while tests, asserts, contracts):
        `and`/`or`/`not` are taken on truth values, so operands of different types
        (`0 <= k and self.items`) need no common type. Short-circuit is kept: a later
        operand's errors count only where the earlier ones did not decide."""
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return z3.Not(self.condition(node.operand))
        if not isinstance(node, ast.BoolOp):
            return V.truthy(self.eval(node))
        is_and = isinstance(node.op, ast.And)
        saved = self.guard
        parts = []
        try:
            for operand in node.values:
                c = self.condition(operand)
                parts.append(c)
                self.guard = z3.And(self.guard, c if is_and else z3.Not(c))
        finally:
            self.guard = saved
        return z3.And(*parts) if is_and else z3.Or(*parts)

    # -- atoms ---------------------------------------------------------------------

    def e_Constant(self, node: ast.Constant) -> Val:
        try:
            return V.const(node.value)
        except UnsupportedConstruct as e:
            if isinstance(node.value, (bytes, complex, type(...))):  # an untyped constant
                ident = zlib.crc32(repr(node.value).encode()) + 1  # deterministic, never None's
                return Val(TypeRef("opaque"), O.make(z3.IntVal(ident), z3.BoolVal(False),
                                                     z3.BoolVal(bool(node.value))))
            raise self.unsupported(node, e.construct) from None

    def e_Name(self, node: ast.Name) -> Any:
        name = node.id
        if name in self.frame.locals:
            defined = self.frame.defined.get(name, TRUE)
            if not z3.is_true(defined):
                self.raise_if(z3.Not(defined), "UnboundLocalError", node)
            return self.frame.locals[name]
        if name == "__old__":
            return OldNamespace()
        if name in self.model.enums:
            return EnumClass(self.model.enums[name])
        if name in self.constants:
            return self.constant(self.constants[name], node)
        if name in ("cls", self.model.name):
            return name
        return External(name)  # code outside the analysed class (outside.py)

    def constant(self, value: Any, node: ast.AST) -> Val:
        try:
            return V.const(value)
        except UnsupportedConstruct as e:
            raise self.unsupported(node, e.construct) from None

    def e_Attribute(self, node: ast.Attribute) -> Any:
        base = self.eval_any(node.value)
        if isinstance(base, External):
            return External(f"{base.name}.{node.attr}")
        if isinstance(base, Member):
            base = self.as_value(base, node.value)
        if isinstance(base, Val) and base.kind == "opaque":
            return Member(base, node.value, node.attr)
        if isinstance(base, str) and node.attr in self.model.class_constants:  # cls.X, ClassName.X
            return self.constant(self.model.class_constants[node.attr], node)
        if isinstance(base, EnumClass):
            if node.attr not in base.type.members:
                raise self.unsupported(node, f"{base.type.name}.{node.attr}")
            return Val(base.type, z3.IntVal(base.type.members.index(node.attr)))
        if isinstance(base, OldNamespace):
            if node.attr == "self":
                return Val(TypeRef("class", name=self.model.name), self.old_object())
            if node.attr in self.frame.old:
                return self.frame.old[node.attr]
            raise self.unsupported(node, f"__old__.{node.attr}")
        if isinstance(base, Val) and base.kind == "class":
            return self.get_attribute(base.z, node)
        if isinstance(base, Val) and base.kind == "list" and isinstance(node.ctx, ast.Load):
            return ListMethod(node.value, base, node.attr)
        if isinstance(base, Val) and base.kind == "str":
            return StrMethod(base, node.attr)
        if isinstance(base, Val) and base.kind in ("set", "dict") and isinstance(node.ctx, ast.Load):
            return MapMethod(node.value, base, node.attr)
        raise self.unsupported(node, f"attribute `.{node.attr}`")

    def get_attribute(self, oid: int, node: ast.Attribute) -> Any:
        fields = self.state.objects[oid]
        if node.attr in fields:
            v = fields[node.attr]
            if v.kind == "undefined":  # never set on any path so far: AttributeError
                self.raise_if(z3.BoolVal(True), "AttributeError", node)
                return self.fresh(v.type.args[0], node.attr)
            return v
        if node.attr in self.model.class_constants and node.attr not in self.model.methods:
            return self.constant(self.model.class_constants[node.attr], node)
        m = self.model.methods.get(node.attr)
        if m is not None and m.kind == "property":
            return self.call_method(oid, node.attr, [], {}, node)
        if m is not None:
            return BoundMethod(oid, node.attr)
        if isinstance(node.ctx, ast.Load):  # a class attribute that is not a literal, or set elsewhere
            return External(f"self.{node.attr}")
        raise self.unsupported(node, f"attribute `self.{node.attr}` (not a field)")

    def e_List(self, node: ast.List) -> Val:
        items = [self.eval(e) for e in node.elts]
        if not items:
            return Val(TypeRef("list"), None)
        t = items[0].type
        for v in items[1:]:
            t = V.join_type(t, v.type)
        if t.kind not in V.SCALARS:
            raise self.unsupported(node, f"a list of {t}")
        lt = TypeRef("list", (t,))
        return Val(lt, z3.Concat(*[z3.Unit(V.coerce(v, t).z) for v in items]) if len(items) > 1
                   else z3.Unit(V.coerce(items[0], t).z))

    def e_Tuple(self, node: ast.Tuple) -> Val:
        try:
            return V.make_tuple([self.eval(e) for e in node.elts])
        except UnsupportedConstruct as e:
            raise self.unsupported(node, e.construct) from None

    def e_Subscript(self, node: ast.Subscript) -> Val:
        base = self.eval(node.value)
        if base.kind == "opaque":
            self.none_raises(base, "TypeError", node)
            if isinstance(node.slice, ast.Slice):
                for part in (node.slice.lower, node.slice.upper, node.slice.step):
                    if part is not None:
                        self.tolerant(part)
            else:
                self.tolerant(node.slice)
            return self.opaque_operation("item", node)
        if base.kind == "tuple" and not isinstance(node.slice, ast.Slice):
            return self.tuple_item(base, node)
        if base.kind == "dict":
            return self.dict_item(base, node)
        if isinstance(node.slice, ast.Slice):
            return self.slice_value(base, node)
        idx = V.to_int(self.eval(node.slice))
        if base.kind not in ("list", "str"):
            raise self.unsupported(node, f"indexing a {base.type}")
        if base.z is None:
            self.raise_if(TRUE, "IndexError", node)
            return V.const(0)
        n = z3.Length(base.z)
        self.raise_if(z3.Or(idx < -n, idx >= n), "IndexError", node)
        j = z3.If(idx < 0, idx + n, idx)
        if base.kind == "str":
            return Val(STR, z3.SubString(base.z, j, 1))
        return Val(base.type.args[0], base.z[j])

    def tuple_item(self, base: Val, node: ast.Subscript) -> Val:
        """t[i]: a constant index picks the position; another index needs one item type."""
        items = V.tuple_items(base)
        n = len(items)
        k = self.eval(node.slice)
        idx = V.to_int(k)
        if z3.is_int_value(z3.simplify(idx)):
            j = T.normalise_index(z3.simplify(idx).as_long(), n)
            if j is None:
                self.raise_if(TRUE, "IndexError", node)
                return items[0] if items else V.const(0)
            return items[j]
        if n == 0:
            self.raise_if(TRUE, "IndexError", node)
            return V.const(0)
        try:
            elem = T.check_homogeneous(base.type)
        except UnsupportedConstruct as e:
            raise self.unsupported(node, e.construct) from None
        self.raise_if(z3.Or(idx < -n, idx >= n), "IndexError", node)
        j = z3.If(idx < 0, idx + n, idx)
        result = items[-1].z
        for i in range(n - 2, -1, -1):
            result = z3.If(j == i, items[i].z, result)
        return Val(elem, result)

    # -- operators -----------------------------------------------------------------

    def e_BoolOp(self, node: ast.BoolOp) -> Val:
        is_and = isinstance(node.op, ast.And)
        saved = self.guard
        vals: list[Val] = []
        conds: list[z3.BoolRef] = []
        try:
            for operand in node.values:
                v = self.eval(operand)
                vals.append(v)
                t = V.truthy(v)
                conds.append(t)
                self.guard = z3.And(self.guard, t if is_and else z3.Not(t))
        finally:
            self.guard = saved
        if all(v.kind == "bool" for v in vals):
            return Val(BOOL, z3.And(*conds) if is_and else z3.Or(*conds))
        # Python returns the first operand that decides: fold from the right.
        result = vals[-1]
        for v, t in zip(reversed(vals[:-1]), reversed(conds[:-1])):
            result = V.ite(t, result, v) if is_and else V.ite(t, v, result)
        return result

    def e_UnaryOp(self, node: ast.UnaryOp) -> Val:
        v = self.eval(node.operand)
        if isinstance(node.op, ast.Not):
            return Val(BOOL, z3.Not(V.truthy(v)))
        if v.kind == "opaque":
            return self.opaque_operation("unary", node)
        v = self.unwrap(v, node)
        if isinstance(node.op, ast.USub):
            return V.negate(v)
        if isinstance(node.op, ast.UAdd):
            return V.coerce(v, INT) if v.kind == "bool" else v
        raise self.unsupported(node, "operator ~")

    def unwrap(self, v: Val, node: ast.AST) -> Val:
        inner, is_none = V.unwrap(v) if v.kind != "none" else (None, None)
        if inner is None:
            raise self.unsupported(node, "an operation on None")
        self.raise_if(is_none, "TypeError", node)
        return inner

    def e_BinOp(self, node: ast.BinOp) -> Val:
        op = BINOPS.get(type(node.op))
        if op is None:
            left, right = self.eval(node.left), self.eval(node.right)
            if {left.kind, right.kind} <= {"int", "bool"}:
                return self.fresh_typed(INT, "bitwise", node)  # & | ^ << >> on ints: some int
            if "opaque" in (left.kind, right.kind):
                return self.opaque_operation("binop", node)
            raise self.unsupported(node, f"operator {type(node.op).__name__}")
        left, right = self.eval(node.left), self.eval(node.right)
        if "opaque" in (left.kind, right.kind) or (op == "%" and left.kind == "str"):
            return self.fresh_typed(STR, "format", node) if left.kind == "str" else self.opaque_operation("binop", node)
        a = self.unwrap(left, node)
        b = self.unwrap(right, node)
        try:
            result, fails = V.binop(op, a, b)
        except UnsupportedConstruct as e:
            raise self.unsupported(node, e.construct) from None
        self.raise_if(fails, "ZeroDivisionError", node)
        return result

    def e_Compare(self, node: ast.Compare) -> Val:
        left = self.eval(node.left)
        parts = []
        saved = self.guard
        try:
            for op, right_node in zip(node.ops, node.comparators):
                right = self.eval_any(right_node) if isinstance(op, (ast.In, ast.NotIn)) else self.eval(right_node)
                if isinstance(right, DictView):
                    c = self.view_contains(left, right, node)
                    parts.append(c if isinstance(op, ast.In) else z3.Not(c))
                    self.guard = z3.And(self.guard, parts[-1])
                    left = right
                    continue
                if not isinstance(right, Val) or right.kind == "any":
                    raise self.unsupported(right_node, "a value the z3 backend does not model after `in`")
                c = self.compare(op, left, right, node)
                parts.append(c)
                self.guard = z3.And(self.guard, c)  # chained: later operands only if earlier hold
                left = right
        finally:
            self.guard = saved
        return Val(BOOL, z3.And(*parts) if len(parts) > 1 else parts[0])

    def compare(self, op: ast.cmpop, a: Val, b: Val, node: ast.AST) -> z3.BoolRef:
        if a.kind == "opaque" or b.kind == "opaque":
            return self.opaque_compare(op, a, b)
        try:
            if isinstance(op, (ast.Eq, ast.Is)):
                return V.equal(a, b)
            if isinstance(op, (ast.NotEq, ast.IsNot)):
                return z3.Not(V.equal(a, b))
            if isinstance(op, ast.In):
                return V.contains(a, b)
            if isinstance(op, ast.NotIn):
                return z3.Not(V.contains(a, b))
            return V.order(CMP[type(op)], self.unwrap(a, node), self.unwrap(b, node))
        except UnsupportedConstruct as e:
            raise self.unsupported(node, e.construct) from None

    def e_IfExp(self, node: ast.IfExp) -> Val:
        c = self.condition(node.test)
        saved = self.guard
        try:
            self.guard = z3.And(saved, c)
            a = self.eval(node.body)
            self.guard = z3.And(saved, z3.Not(c))
            b = self.eval(node.orelse)
        finally:
            self.guard = saved
        try:
            return V.ite(c, a, b)
        except UnsupportedConstruct as e:
            raise self.unsupported(node, e.construct) from None

    # -- calls ---------------------------------------------------------------------

    def e_Call(self, node: ast.Call) -> Any:
        func = node.func
        starred = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        if isinstance(func, ast.Name) and func.id not in self.frame.locals:
            if func.id not in ("cls", self.model.name):
                try:
                    if not starred:
                        return self.call_builtin(func.id, node)
                except UnsupportedConstruct:
                    if escapes_self(node):
                        raise
                return self.outside_call(External(func.id), node)
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
            kwargs = {k.arg: self.as_value(self.eval_any(k.value), k.value) for k in node.keywords}
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

    def call_builtin(self, name: str, node: ast.Call) -> Val:
        if name in ("cls", self.model.name):
            args = [self.eval_any(a) for a in node.args]
            kwargs = {k.arg: self.eval_any(k.value) for k in node.keywords}
            return self.construct(args, kwargs, node)
        if name in QUANTIFIERS:
            return self.call_quantifier(name, node)
        if node.keywords:
            raise self.unsupported(node, f"keyword arguments to {name}()")
        args = [self.eval(a) for a in node.args]
        if name == "len" and len(args) == 1 and args[0].kind == "tuple":
            return Val(INT, z3.IntVal(len(args[0].type.args)))
        if name == "len" and len(args) == 1 and args[0].kind in ("set", "dict"):
            return Val(INT, z3.Length(V.seq_of(args[0])) if args[0].z is not None else z3.IntVal(0))
        if name == "len" and len(args) == 1 and args[0].kind in ("str", "list"):
            return Val(INT, z3.Length(args[0].z) if args[0].z is not None else z3.IntVal(0))
        if name == "abs" and len(args) == 1:
            return V.absolute(self.unwrap(args[0], node))
        if name in ("min", "max") and len(args) >= 2:
            op = "<" if name == "min" else ">"
            result = self.unwrap(args[0], node)
            for v in args[1:]:
                v = self.unwrap(v, node)
                result = V.ite(V.order(op, v, result), v, result)  # ties keep the first, as Python
            return result
        if name == "bool" and len(args) == 1:
            return Val(BOOL, V.truthy(args[0]))
        if name == "int" and len(args) == 1 and args[0].kind in ("bool", "int"):
            return Val(INT, V.to_int(args[0]))
        if name == "float" and len(args) == 1 and args[0].kind in ("bool", "int", "float"):
            return Val(TypeRef("float"), V.to_float(args[0]))
        return self.call_builtin_extra(name, args, node)

    def call_list_method(self, m: ListMethod, node: ast.Call) -> Val:
        name = m.name
        args = [self.eval(a) for a in node.args]
        lst = self.eval(m.target)  # read after the arguments: they may change the list
        if lst.z is None:
            lst = V.coerce(lst, TypeRef("list", (args[0].type,))) if args else lst
        if lst.z is None:
            raise self.unsupported(node, f"list.{name}() on an empty list of unknown type")
        elem = lst.type.args[0]
        n = z3.Length(lst.z)
        if name == "append" and len(args) == 1:
            self.store(m.target, Val(lst.type, z3.Concat(lst.z, z3.Unit(V.coerce(args[0], elem).z))))
            return V.NONE_VAL
        if name == "pop" and len(args) <= 1:
            i = V.to_int(args[0]) if args else n - 1
            self.raise_if(z3.Or(n == 0, i < -n, i >= n), "IndexError", node)
            j = z3.If(i < 0, i + n, i)
            item = lst.z[j]
            rest = z3.Concat(z3.SubSeq(lst.z, 0, j), z3.SubSeq(lst.z, j + 1, n - j - 1))
            self.store(m.target, Val(lst.type, rest))
            return Val(elem, item)
        if name == "insert" and len(args) == 2:
            i = V.to_int(args[0])
            j = z3.If(i < 0, z3.If(i + n < 0, 0, i + n), z3.If(i > n, n, i))
            unit = z3.Unit(V.coerce(args[1], elem).z)
            self.store(m.target, Val(lst.type, z3.Concat(z3.SubSeq(lst.z, 0, j), unit, z3.SubSeq(lst.z, j, n - j))))
            return V.NONE_VAL
        if name == "clear" and not args:
            self.store(m.target, Val(lst.type, z3.Empty(lst.z.sort())))
            return V.NONE_VAL
        return self.call_list_extra(m, lst, args, node)

"""Translation of Python expressions to z3 values (the expression half of the executor):
names, constants, attributes, literals and subscripts here; operators in opexprs.py,
calls in callexprs.py.

Every construct not listed here raises UnsupportedConstruct, which the statement
executor turns into an "unknown" path rather than a guess.
"""

from __future__ import annotations

import ast
import zlib
from typing import Any

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import STR, TypeKind, TypeRef
from contractor.z3backend import fastterms as F
from contractor.z3backend import opaque as O
from contractor.z3backend import tuples as T
from contractor.z3backend import values as V
from contractor.z3backend.callexprs import CallEvaluator
from contractor.z3backend.classlevel import class_bindings
from contractor.z3backend.fileclasses import Truth
from contractor.z3backend.mapcalls import MapMethod
from contractor.z3backend.opexprs import OperatorEvaluator
from contractor.z3backend.outside import External, Member
from contractor.z3backend.reach import holdable
from contractor.z3backend.refs import BoundMethod, EnumClass, ListMethod, OldNamespace, StrMethod
from contractor.z3backend.state import TRUE
from contractor.z3backend.values import Val


class ExprEvaluator(OperatorEvaluator, CallEvaluator):
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
        self.check_time(node)  # an expression can take long (a call inlining a method)
        method = getattr(self, "e_" + type(node).__name__, None)
        if method is None:
            raise self.unsupported(node)
        return method(node)

    def truth(self, v: Val, node: ast.AST) -> z3.BoolRef:
        """bool(v): an object of the class whose __bool__ or __len__ decides it is untranslated
        (ClassFacts.instance_truth); other values as values.truthy reads them."""
        if v.kind == "class" and self.facts.instance_truth is Truth.DECIDED_BY_IT:
            raise self.unsupported(node, f"truth value of an object of {self.model.name}, "
                                         "which __bool__ or __len__ decides")
        return V.truthy(v)

    def condition(self, node: ast.expr) -> z3.BoolRef:
        """bool(node), where only its truth matters (if/while tests, asserts, contracts):
        `and`/`or`/`not` are taken on truth values, so operands of different types
        (`0 <= k and self.items`) need no common type. Short-circuit is kept: a later
        operand's errors count only where the earlier ones did not decide."""
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return F.not_(self.condition(node.operand))
        if not isinstance(node, ast.BoolOp):
            return self.truth(self.eval(node), node)
        is_and = isinstance(node.op, ast.And)
        saved = self.guard
        parts = []
        try:
            for operand in node.values:
                c = self.condition(operand)
                parts.append(c)
                self.guard = F.and_(self.guard, c if is_and else F.not_(c))
        finally:
            self.guard = saved
        return F.and_(*parts) if is_and else F.or_(*parts)

    # -- atoms ---------------------------------------------------------------------

    def e_Constant(self, node: ast.Constant) -> Val:
        try:
            return V.const(node.value)
        except UnsupportedConstruct as e:
            if isinstance(node.value, (bytes, complex, type(...))):  # an untyped constant
                ident = zlib.crc32(repr(node.value).encode()) + 1  # deterministic, never None's
                v = Val(TypeRef(TypeKind.OPAQUE), O.make(z3.IntVal(ident), z3.BoolVal(False),
                                                  z3.BoolVal(bool(node.value))))
                return self.note_type(v, type(node.value))  # exactly bytes (pytypes.py)
            raise self.unsupported(node, e.construct) from None

    def e_Name(self, node: ast.Name) -> Any:
        name = node.id
        if name in self.frame.locals:
            defined = self.frame.defined.get(name, TRUE)
            if not z3.is_true(defined):
                self.raise_if(F.not_(defined), "UnboundLocalError", node)
            return self.frame.locals[name]
        if name == "__old__":
            return OldNamespace()
        if name in self.model.enums:
            return EnumClass(self.model.enums[name])
        constants = self.constants
        method = self.model.methods.get(self.frame.method)
        if method is not None and method.constants is not None:  # a base's method of another module
            constants = method.constants
        if name in constants:
            return self.constant(constants[name], node)
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
                return Val(TypeRef(TypeKind.CLASS, name=self.model.name), self.old_object())
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
            if v.kind == "undefined":  # never set on any path so far: AttributeError ...
                if node.attr in class_bindings(self.model):  # ... unless the class has it
                    raise self.unsupported(node, f"class-level value of `self.{node.attr}`")
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
            return Val(TypeRef(TypeKind.LIST), None)
        if any(v.kind not in V.SCALARS for v in items):
            # a list of untyped values (or of mixed types): z3 has no sequence of them, so
            # it is a new untyped object holding its items (outside code handed it may
            # change them: reach.py), true as it is not empty
            if not all(holdable(v, e) for v, e in zip(items, node.elts)):
                raise self.unsupported(node, f"a list of {items[0].type}")
            new = self.new_object(z3.BoolVal(True))
            self.note_holds(new, items)
            return Val(TypeRef(TypeKind.OPAQUE), new)
        t = items[0].type
        for v in items[1:]:
            t = V.join_type(t, v.type)
        if t.kind not in V.SCALARS:
            raise self.unsupported(node, f"a list of {t}")
        lt = TypeRef(TypeKind.LIST, (t,))
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
            parts = [p for p in (node.slice.lower, node.slice.upper, node.slice.step) if p is not None] \
                if isinstance(node.slice, ast.Slice) else [node.slice]
            # its __getitem__: outside code handed the key (a slice holds its parts)
            self.operator_call([(node.value, base)] + [(p, self.tolerant(p)) for p in parts], "__getitem__", node)
            return self.opaque_operation("item", node)
        if base.kind == "optional" and base.type.args[0].kind in ("tuple", "list", "str"):
            # None on some paths (a helper that returns on some paths only): a TypeError
            # there ('NoneType' object is not subscriptable), the value elsewhere
            self.raise_if(base.is_none, "TypeError", node)
            base = Val(base.type.args[0], base.z)
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
        self.raise_if(F.or_(idx < -n, idx >= n), "IndexError", node)
        j = F.ite(idx < 0, idx + n, idx)
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
        self.raise_if(F.or_(idx < -n, idx >= n), "IndexError", node)
        j = F.ite(idx < 0, idx + n, idx)
        result = items[-1].z
        for i in range(n - 2, -1, -1):
            result = F.ite(j == i, items[i].z, result)
        return Val(elem, result)

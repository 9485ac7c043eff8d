"""Expression translator mixin: Python's operators (`and`/`or`/`not`, unary and binary
arithmetic, comparisons and `in`, conditional expressions) on z3 values; the operations
themselves are valops.py's, this adds evaluation order, guards and the exceptions raised."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import BOOL, INT, OPAQUE, STR
from contractor.z3backend import valops as P
from contractor.z3backend import values as V
from contractor.z3backend.mapcalls import DictView
from contractor.z3backend.values import Val

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
else:
    _Host = object

CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%", ast.Div: "/"}


BOOL_BITWISE = {ast.BitAnd: z3.And, ast.BitOr: z3.Or, ast.BitXor: z3.Xor}


class OperatorEvaluator(_Host):
    """Mixin of ExprEvaluator: needs eval, eval_any, condition, guard, raise_if, unsupported,
    fresh_typed, opaque_operation, opaque_compare and view_contains."""

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
        # Python returns the first operand that decides: fold from the right. An Optional
        # operand of `or` is taken only when truthy, so never as None: use the value inside.
        if not is_and:
            vals = [V.unwrap(v)[0] if v.kind == "optional" else v for v in vals[:-1]] + vals[-1:]
        vals = self.new_empties(vals)  # `x or []` with x untyped
        result = vals[-1]
        for v, t in zip(reversed(vals[:-1]), reversed(conds[:-1])):
            result = V.ite(t, result, v) if is_and else V.ite(t, v, result)
        return result

    def new_empties(self, vals: list[Val]) -> list[Val]:
        """Values merged into one: where one is untyped, a `[]`, `set()` or `{}` literal
        among them (not yet typed) is a new, falsy object."""
        if not any(v.kind == "opaque" for v in vals):
            return vals
        out = []
        for v in vals:
            if v.kind in ("list", "set", "dict") and v.z is None:
                v = Val(OPAQUE, self.new_object(z3.BoolVal(False)))
            out.append(v)
        return out

    def e_UnaryOp(self, node: ast.UnaryOp) -> Val:
        v = self.eval(node.operand)
        if isinstance(node.op, ast.Not):
            return Val(BOOL, z3.Not(V.truthy(v)))
        if v.kind == "opaque":
            return self.opaque_operation("unary", node)
        v = self.unwrap(v, node)
        if isinstance(node.op, ast.USub):
            return P.negate(v)
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
            if {left.kind, right.kind} & {"set", "dict"}:
                return self.set_binop(node, left, right)  # setalgebra.py
            if left.kind == right.kind == "bool" and type(node.op) in BOOL_BITWISE:
                return Val(BOOL, BOOL_BITWISE[type(node.op)](left.z, right.z))  # bool & | ^ bool: a bool
            if {left.kind, right.kind} <= {"int", "bool"}:
                return self.fresh_typed(INT, "bitwise", node)  # & | ^ << >> on ints: some int
            if "opaque" in (left.kind, right.kind):
                return self.opaque_operation("binop", node)
            raise self.unsupported(node, f"operator {type(node.op).__name__}")
        left, right = self.eval(node.left), self.eval(node.right)
        if left.kind == right.kind == "set":
            return self.set_binop(node, left, right)
        if "opaque" in (left.kind, right.kind) or (op == "%" and left.kind == "str"):
            if left.kind == "str":
                return self.fresh_typed(STR, "format", node)
            result = self.opaque_operation("binop", node)
            if self.known_type(left) is bytes and (
                    (op == "%" and (right.kind in V.SCALARS or right.kind in ("tuple", "none")))
                    or (op == "+" and self.known_type(right) is bytes)):
                # bytes % a tuple (or a str, int, ...: not a bytes subclass with __rmod__),
                # bytes + bytes: a bytes object (pytypes.py)
                self.note_type(result, bytes)
            return result
        a = self.unwrap(left, node)
        b = self.unwrap(right, node)
        try:
            result, fails = P.binop(op, a, b)
        except UnsupportedConstruct as e:
            raise self.unsupported(node, e.construct) from None
        self.raise_if(fails, "ZeroDivisionError", node)
        return result

    def contains_unmodelled(self, left: Val, node: ast.Compare) -> z3.BoolRef:
        """`left in x` where z3 does not model x (a Mapping[ast.AST, Any] field, an untyped
        object): its __contains__ is code outside the analysed source, answering either way (the
        answers using it are may) and possibly raising (a finding, never a guard)."""
        fails = self.fresh(BOOL, "raises!in")
        self.outside_raise_if(fails.z, "an exception from `in`", node)
        return self.fresh_typed(BOOL, "`in` on a value z3 does not model", node).z

    def e_Compare(self, node: ast.Compare) -> Val:
        left: Any = self.eval(node.left)  # a Val; a DictView after `x in d.keys()` in a chain
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
                if isinstance(right, Val) and isinstance(op, (ast.In, ast.NotIn)) and left.kind != "class" and (
                        right.kind == "any" or (right.kind == "opaque" and not self.caller_chosen(right))):
                    # its __contains__ (hashing the key) is outside code; the caller's own
                    # object answers as the caller likes (compare, below)
                    c = self.contains_unmodelled(left, node)
                    c = c if isinstance(op, ast.In) else z3.Not(c)
                elif not isinstance(right, Val) or right.kind == "any":
                    raise self.unsupported(right_node, "a value the z3 backend does not model after `in`")
                else:
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
                return P.equal(a, b)
            if isinstance(op, (ast.NotEq, ast.IsNot)):
                return z3.Not(P.equal(a, b))
            if isinstance(op, ast.In):
                return P.contains(a, b)
            if isinstance(op, ast.NotIn):
                return z3.Not(P.contains(a, b))
            if a.kind == "set" or b.kind == "set":
                return self.set_order(op, a, b, node)  # setalgebra.py
            return P.order(CMP[type(op)], self.unwrap(a, node), self.unwrap(b, node))
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
        a, b = self.new_empties([a, b])
        try:
            return V.ite(c, a, b)
        except UnsupportedConstruct as e:
            raise self.unsupported(node, e.construct) from None

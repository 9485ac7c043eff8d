"""Expression translator mixin: Python's operators (`and`/`or`/`not`, unary and binary
arithmetic, comparisons and `in`, conditional expressions) on z3 values; the operations
themselves are valops.py's, this adds evaluation order, guards and the exceptions raised."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import BOOL, INT, OPAQUE, STR
from contractor.z3backend import fastterms as F
from contractor.z3backend import valops as P
from contractor.z3backend import values as V
from contractor.z3backend.mapcalls import DictView
from contractor.z3backend.reach import CONTAINERS
from contractor.z3backend.values import Val

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
else:
    _Host = object

CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%", ast.Div: "/"}
# the method of the left operand each operator calls (the right one's reflected `__r...__` else)
DUNDERS = {ast.Add: "__add__", ast.Sub: "__sub__", ast.Mult: "__mul__", ast.MatMult: "__matmul__",
           ast.Div: "__truediv__", ast.FloorDiv: "__floordiv__", ast.Mod: "__mod__", ast.Pow: "__pow__",
           ast.LShift: "__lshift__", ast.RShift: "__rshift__", ast.BitOr: "__or__", ast.BitXor: "__xor__",
           ast.BitAnd: "__and__", ast.USub: "__neg__", ast.UAdd: "__pos__", ast.Invert: "__invert__",
           ast.Lt: "__lt__", ast.LtE: "__le__", ast.Gt: "__gt__", ast.GtE: "__ge__", ast.Eq: "__eq__",
           ast.NotEq: "__ne__", ast.In: "__contains__", ast.NotIn: "__contains__"}


BOOL_BITWISE = {ast.BitAnd: z3.And, ast.BitOr: z3.Or, ast.BitXor: z3.Xor}


class OperatorEvaluator(_Host):
    """Mixin of ExprEvaluator: needs eval, eval_any, condition, guard, raise_if, unsupported,
    fresh_typed, opaque_operation, opaque_compare, operator_call and view_contains."""

    def e_BoolOp(self, node: ast.BoolOp) -> Val:
        is_and = isinstance(node.op, ast.And)
        saved = self.guard
        vals: list[Val] = []
        conds: list[z3.BoolRef] = []
        try:
            for operand in node.values:
                v = self.eval(operand)
                vals.append(v)
                t = self.truth(v, operand)
                conds.append(t)
                self.guard = F.and_(self.guard, t if is_and else F.not_(t))
        finally:
            self.guard = saved
        if all(v.kind == "bool" for v in vals):
            return Val(BOOL, F.and_(*conds) if is_and else F.or_(*conds))
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
            return Val(BOOL, F.not_(self.truth(v, node)))
        if v.kind == "opaque":
            self.operator_call([(node.operand, v)], DUNDERS[type(node.op)], node)  # outside code
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
                self.operator_call([(node.left, left), (node.right, right)], DUNDERS[type(node.op)], node)
                return self.opaque_operation("binop", node)
            raise self.unsupported(node, f"operator {type(node.op).__name__}")
        left, right = self.eval(node.left), self.eval(node.right)
        if left.kind == right.kind == "set":
            return self.set_binop(node, left, right)
        if "opaque" in (left.kind, right.kind) or (op == "%" and left.kind == "str"):
            if left.kind == "str" and op == "%":  # formatting: it only looks (as f-strings do)
                return self.fresh_typed(STR, "format", node)
            self.operator_call([(node.left, left), (node.right, right)], DUNDERS[type(node.op)], node)
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

    def contains_unmodelled(self, left: Val, right: Val, operands: tuple[ast.expr, ast.expr],
                            node: ast.Compare) -> z3.BoolRef:
        """`left in x` where z3 does not model x (a Mapping[ast.AST, Any] field, an untyped
        object): its __contains__ is code outside the analysed source, answering either way (the
        answers using it are may) and possibly raising (a finding, never a guard). It is handed
        `left`, and an untyped x may change itself (operator_call); a value z3 does not model
        is not followed (README, "What is assumed")."""
        handed = [(operands[0], left)] + ([(operands[1], right)] if right.kind == "opaque" else [])
        self.operator_call(handed, "__contains__", node)  # and it may raise
        return self.fresh_typed(BOOL, "`in` on a value z3 does not model", node).z

    def e_Compare(self, node: ast.Compare) -> Val:
        left: Any = self.eval(node.left)  # a Val; a DictView after `x in d.keys()` in a chain
        left_node = node.left
        parts = []
        saved = self.guard
        try:
            for op, right_node in zip(node.ops, node.comparators):
                right = self.eval_any(right_node) if isinstance(op, (ast.In, ast.NotIn)) else self.eval(right_node)
                if isinstance(right, DictView):
                    c = self.view_contains(left, right, node)
                    parts.append(c if isinstance(op, ast.In) else F.not_(c))
                    self.guard = F.and_(self.guard, parts[-1])
                    left, left_node = right, right_node
                    continue
                if isinstance(right, Val) and isinstance(op, (ast.In, ast.NotIn)) and left.kind != "class" and (
                        right.kind == "any" or (right.kind == "opaque" and not self.caller_chosen(right))):
                    # its __contains__ (hashing the key) is outside code; the caller's own
                    # object answers as the caller likes (compare, below)
                    c = self.contains_unmodelled(left, right, (left_node, right_node), node)
                    c = c if isinstance(op, ast.In) else F.not_(c)
                elif not isinstance(right, Val) or right.kind == "any":
                    raise self.unsupported(right_node, "a value the z3 backend does not model after `in`")
                else:
                    c = self.compare(op, left, right, node, (left_node, right_node))
                parts.append(c)
                self.guard = F.and_(self.guard, c)  # chained: later operands only if earlier hold
                left, left_node = right, right_node
        finally:
            self.guard = saved
        return Val(BOOL, F.and_(*parts) if len(parts) > 1 else parts[0])

    def compare(self, op: ast.cmpop, a: Val, b: Val, node: ast.AST,
                operands: tuple[ast.expr, ast.expr] | None = None) -> z3.BoolRef:
        if a.kind == "opaque" or b.kind == "opaque":
            result = self.opaque_compare(op, a, b)
            by_identity = isinstance(op, (ast.Is, ast.IsNot)) or (
                isinstance(op, (ast.Eq, ast.NotEq)) and "none" in (a.kind, b.kind))
            if operands is not None and not by_identity:
                # `x == y`, `x < y`, `x in y`: the untyped side's __eq__, __lt__, __contains__
                # (or the reflected one) runs, handed the other side; `== None` is taken to
                # be `is None` (README, "What is assumed")
                # `x in (1, 2)`, `x in self.items`: the container's own __contains__ asks x's __eq__
                dunder = "__eq__" if isinstance(op, (ast.In, ast.NotIn)) and b.kind != "opaque" else DUNDERS[type(op)]
                self.operator_call([(operands[0], a), (operands[1], b)], dunder, node)
            return result
        try:
            if isinstance(op, (ast.Is, ast.IsNot)) and a.kind in CONTAINERS and b.kind in CONTAINERS:
                # identity, not contents: two lists with the same items are two objects (the
                # values z3 models carry no identity)
                raise self.unsupported(node, f"`is` between {a.type} and {b.type} values (their identity)")
            if isinstance(op, (ast.Eq, ast.Is)):
                return P.equal(a, b)
            if isinstance(op, (ast.NotEq, ast.IsNot)):
                return F.not_(P.equal(a, b))
            if isinstance(op, (ast.In, ast.NotIn)) and b.kind == "none":
                # Python's TypeError ("argument of type 'NoneType' is not iterable"): on the
                # paths that get here (none, where the code tests `x is not None` first)
                self.raise_if(z3.BoolVal(True), "TypeError", node)
                return z3.BoolVal(False)
            if isinstance(op, (ast.In, ast.NotIn)) and b.kind == "optional":
                b = self.unwrap(b, node)  # a TypeError where it is None
            if isinstance(op, ast.In):
                return P.contains(a, b)
            if isinstance(op, ast.NotIn):
                return F.not_(P.contains(a, b))
            if a.kind == "set" or b.kind == "set":
                return self.set_order(op, a, b, node)  # setalgebra.py
            return P.order(CMP[type(op)], self.unwrap(a, node), self.unwrap(b, node))
        except UnsupportedConstruct as e:
            raise self.unsupported(node, e.construct) from None

    def e_IfExp(self, node: ast.IfExp) -> Val:
        c = self.condition(node.test)
        saved = self.guard
        try:
            self.guard = F.and_(saved, c)
            a = self.eval(node.body)
            self.guard = F.and_(saved, F.not_(c))
            b = self.eval(node.orelse)
        finally:
            self.guard = saved
        a, b = self.new_empties([a, b])
        try:
            return V.ite(c, a, b)
        except UnsupportedConstruct as e:
            raise self.unsupported(node, e.construct) from None

"""Executor mixin: set algebra on set values (distinct sequences, mappings.py): the operators
`|`, `&`, `-`, `^` (and their augmented forms), the comparisons `<=`, `<`, `>=`, `>`, and
the methods union, intersection, difference, symmetric_difference (of any iterables),
their `_update` forms, update, issubset, issuperset and isdisjoint; and `d1 | d2` on dicts.

Comparisons are quantifiers over positions (exact, unbounded). The operations that build
a set walk the other operand position by position: exact up to --unroll elements, an
unknown past them. The result lists the left operand's elements first, then the new ones
in the right operand's order (as CPython's insertion; its hash order may differ).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import BOOL, TypeKind, TypeRef
from contractor.z3backend import fastterms as F
from contractor.z3backend import mappings as M
from contractor.z3backend import values as V
from contractor.z3backend.mapcalls import put
from contractor.z3backend.values import Val

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
    from contractor.z3backend.mapcalls import MapMethod
else:
    _Host = object

SET_OPS = {ast.BitOr: "|", ast.BitAnd: "&", ast.Sub: "-", ast.BitXor: "^"}
METHODS = {"union": "|", "intersection": "&", "difference": "-", "symmetric_difference": "^",
           "update": "|", "intersection_update": "&", "difference_update": "-",
           "symmetric_difference_update": "^"}
ORDERS = {ast.LtE: "<=", ast.Lt: "<", ast.GtE: ">=", ast.Gt: ">"}


class SetAlgebra(_Host):
    """Mixin of Executor: needs eval, store, past_bound, unroll, unsupported."""

    def set_binop(self, node: ast.BinOp, left: Val, right: Val) -> Val:
        op = SET_OPS.get(type(node.op))
        if left.kind == right.kind == "dict" and op == "|":
            return self.dict_merge(left, right, node)
        if op is None or left.kind != "set" or right.kind != "set":
            raise self.unsupported(node, f"operator {type(node.op).__name__} on {left.type} and {right.type}")
        return self.set_combine(op, left, right, node)

    def set_combine(self, op: str, a: Val, b: Val, node: ast.AST) -> Val:
        """a <op> b for a set a and a set or list b."""
        if a.z is None and b.z is None:
            return a
        t = a.type if a.z is not None else TypeRef(TypeKind.SET, b.type.args)
        a = V.coerce(a, t) if a.z is not None else Val(t, z3.Empty(V.sort_of(t)))
        other = b.z if b.z is not None else z3.Empty(V.sort_of(TypeRef(b.kind, t.args)))
        if b.z is not None and b.type.args and b.type.args != t.args:
            raise self.unsupported(node, f"set operation on {a.type} and {b.type}")
        # a set's elements are distinct: appending them needs no membership test (a list's may repeat)
        def put_a(acc: z3.SeqRef, x: z3.ExprRef) -> z3.SeqRef:
            return z3.Concat(acc, z3.Unit(x))
        put_b: Callable[[z3.SeqRef, z3.ExprRef], z3.SeqRef] = put_a if b.kind == "set" else M.add
        if op == "|":
            return Val(t, self.walk(other, a.z, lambda acc, x: F.ite(M.has(a.z, x), acc, put_b(acc, x)), node))
        if op == "&":
            return Val(t, self.walk(a.z, empty(a), lambda acc, x: F.ite(M.has(other, x), put_a(acc, x), acc), node))
        if op == "-":
            return Val(t, self.walk(a.z, empty(a), lambda acc, x: F.ite(M.has(other, x), acc, put_a(acc, x)), node))
        left_only = self.walk(a.z, empty(a), lambda acc, x: F.ite(M.has(other, x), acc, put_a(acc, x)), node)
        return Val(t, self.walk(other, left_only, lambda acc, x: F.ite(M.has(a.z, x), acc, put_b(acc, x)), node))

    def walk(self, seq: z3.SeqRef, acc: z3.SeqRef, step: Callable[[z3.SeqRef, z3.ExprRef], z3.SeqRef],
             node: ast.AST) -> z3.SeqRef:
        """acc folded with step over seq's first --unroll elements; longer: unknown."""
        n = z3.Length(seq)
        for k in range(self.unroll):
            if not self.feasible(F.and_(self.active(), k < n)):
                break  # the assumptions rule out a k-th element
            acc = F.ite(k < n, step(acc, seq[k]), acc)
        self.past_bound(n > self.unroll, node)
        return acc

    def set_without(self, s: Val, x: z3.ExprRef, node: ast.AST) -> z3.SeqRef:
        """s without x (discard, remove): where s's size is bounded, a filter over its
        positions, which z3 decides far faster than the IndexOf/Extract of mappings.remove."""
        n = z3.Length(s.z)
        if not self.bounded(n):
            return M.remove(s.z, x)
        acc = empty(s)
        for k in range(self.unroll):
            if not self.feasible(F.and_(self.active(), k < n)):
                break
            acc = F.ite(F.and_(k < n, s.z[k] != x), z3.Concat(acc, z3.Unit(s.z[k])), acc)
        return acc

    def dict_merge(self, a: Val, b: Val, node: ast.AST) -> Val:
        if b.z is None:
            return a
        if a.z is None:
            return b
        if a.type != b.type:
            raise self.unsupported(node, f"`|` of {a.type} and {b.type}")
        ks, vs, n = M.keys(b.z), M.vals(b.z), z3.Length(M.keys(b.z))
        d = a
        for k in range(self.unroll):
            merged = put(d, Val(a.type.args[0], ks[k]), Val(a.type.args[1], vs[ks[k]]))
            d = Val(a.type, F.ite(k < n, merged.z, d.z))
        self.past_bound(n > self.unroll, node)
        return d

    def set_order(self, op: ast.cmpop, a: Val, b: Val, node: ast.AST) -> z3.BoolRef:
        """a <= b (subset), a < b (proper subset), >=, >; sets only (Python raises otherwise)."""
        if a.kind != "set" or b.kind != "set":
            raise self.unsupported(node, f"ordering {a.type} and {b.type}")
        name = ORDERS[type(op)]
        if name in (">=", ">"):
            a, b, name = b, a, "<=" if name == ">=" else "<"
        sub = self.subset(a, b)
        if name == "<":
            return F.and_(sub, size(a) < size(b))  # distinct elements: a proper subset is smaller
        return sub

    def call_set_algebra(self, m: MapMethod, s: Val, args: list[Val], node: ast.Call) -> Val:
        name = m.name
        if name in ("issubset", "issuperset", "isdisjoint") and len(args) == 1:
            other = self.as_set(args[0], s, node)
            if name == "issubset":
                return Val(BOOL, self.subset(s, other))
            if name == "issuperset":
                return Val(BOOL, self.subset(other, s))
            return Val(BOOL, self.subset(s, other, disjoint=True))
        if name in METHODS and (args or name.endswith("update")):
            result = s
            for a in args:
                if a.kind not in ("set", "list", "dict", "str"):
                    raise self.unsupported(node, f"set.{name}() of a {a.type}")
                result = self.set_combine(METHODS[name], result, self.as_set(a, s, node), node)
            if name.endswith("update"):
                self.store(m.target, result)
                return V.NONE_VAL
            return result
        raise self.unsupported(node, f"set.{name}()")

    def subset(self, a: Val, b: Val, disjoint: bool = False) -> z3.BoolRef:
        """a <= b (no element of a outside b), or with `disjoint` no element of a in b: one
        test per element where a's size is bounded (quantifier-free), else a quantifier."""
        if a.z is None or b.z is None:
            return z3.BoolVal(True) if a.z is None or disjoint else z3.Length(a.z) == 0
        if a.type.args != b.type.args:
            raise UnsupportedConstruct(f"comparison of {a.type} and {b.type}")

        def test(x: z3.ExprRef) -> z3.BoolRef:
            return F.not_(M.has(b.z, x)) if disjoint else M.has(b.z, x)
        n = z3.Length(a.z)
        if self.bounded(n):
            return F.and_(*[z3.Implies(k < n, test(a.z[k])) for k in range(self.unroll)])
        i = z3.Int("sub!i")
        return z3.ForAll([i], z3.Implies(F.and_(0 <= i, i < n), test(a.z[i])))

    def as_set(self, v: Val, like: Val, node: ast.AST) -> Val:
        """A method's iterable argument as a set of like's element type (a list keeps its
        duplicates: the operations only test membership and add without duplicates)."""
        if v.kind == "set" or v.z is None:
            return v
        if v.kind == "list":
            return Val(TypeRef(TypeKind.SET, v.type.args), v.z)
        if v.kind == "dict":
            return Val(TypeRef(TypeKind.SET, v.type.args[:1]), M.keys(v.z))
        raise self.unsupported(node, f"a set operation with a {v.type}")


def empty(s: Val) -> z3.SeqRef:
    return z3.Empty(V.sort_of(s.type))


def size(s: Val) -> z3.ArithRef:
    return z3.Length(s.z) if s.z is not None else z3.IntVal(0)

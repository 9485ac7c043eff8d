"""Printing z3 formulas over an object's field constants as Python expressions on `self`.

Used for the readable state invariants in typestate.json, which the strengthened
classes also evaluate at run time. Formulas it cannot print raise `NotPrintable`.
"""

from __future__ import annotations

import z3

from contractor.model import TypeKind, TypeRef
from contractor.z3backend.values import Val


class NotPrintable(Exception):
    pass


class PyPrinter:
    """Prints formulas over the given fields; keep one to print many formulas sharing
    subterms (each subterm is printed once: z3's own printer is slow)."""

    def __init__(self, fields: dict[str, Val]):
        self._memo: dict[tuple[int, int], tuple[z3.ExprRef, str]] = {}
        self._texts: dict[tuple[int, int], tuple[object, str]] = {}  # a field term's key -> (the term, its text)
        self.names: dict[str, tuple[str, TypeRef]] = {}
        for name, v in fields.items():
            if v.kind == "any":
                continue
            self.names[self._remember(v.z)] = (f"self.{name}", v.type if v.kind != "optional" else v.type.args[0])
            if v.kind == "optional":
                self.names[self._remember(v.is_none)] = (f"self.{name} is None", TypeRef(TypeKind.BOOL))

    def _remember(self, e: object) -> str:
        text = str(e)
        if isinstance(e, z3.AstRef):  # the fields' terms, alive as long as the class's semantics
            self._texts[(id(e.ctx), e.get_id())] = (e, text)
        return text

    def _text(self, e: z3.ExprRef) -> str:
        """str(e): a field's term's text as printed once (z3's printer takes ~0.1 ms a
        call; the same term has the same text), anything else printed now."""
        hit = self._texts.get((id(e.ctx), e.get_id()))
        return hit[1] if hit is not None else str(e)

    def __call__(self, e: z3.ExprRef) -> str:
        return self.p(e, 0)

    def p(self, e: z3.ExprRef, prec: int) -> str:
        key = (e.get_id(), prec)
        hit = self._memo.get(key)
        if hit is None:
            text, own = self.render(e)
            hit = self._memo[key] = (e, f"({text})" if own < prec else text)  # e kept: ids stay unique
        return hit[1]

    def enum_member(self, other: z3.ExprRef, k: z3.ExprRef) -> str | None:
        if z3.is_int_value(k) and z3.is_const(other) and self._text(other) in self.names:
            t = self.names[self._text(other)][1]
            if t.kind == "enum" and 0 <= k.as_long() < len(t.members):
                return f"{t.name}.{t.members[k.as_long()]}"
        return None

    def render(self, e: z3.ExprRef) -> tuple[str, int]:
        # precedence: 1 or, 2 and, 3 not, 4 comparison, 5 +-, 6 */, 7 unary, 9 atom
        if z3.is_true(e):
            return "True", 9
        if z3.is_false(e):
            return "False", 9
        if z3.is_int_value(e):
            v = e.as_long()
            return (str(v), 9) if v >= 0 else (str(v), 7)
        if z3.is_string_value(e):
            return repr(e.as_string()), 9
        if z3.is_const(e) and self._text(e) in self.names:
            text = self.names[self._text(e)][0]
            return text, 4 if text.endswith("is None") else 9
        if z3.is_app(e) and e.num_args() == 1 and e.decl().name() in ("none", "truth") \
                and z3.is_const(e.arg(0)) and self._text(e.arg(0)) in self.names:  # an opaque field
            text = self.names[self._text(e.arg(0))][0]
            return (f"{text} is None", 4) if e.decl().name() == "none" else (f"bool({text})", 9)
        k = e.decl().kind() if z3.is_app(e) else None
        args = e.children()
        if k == z3.Z3_OP_AND:
            return " and ".join(self.p(a, 3) for a in args), 2
        if k == z3.Z3_OP_OR:
            return " or ".join(self.p(a, 2) for a in args), 1
        if k == z3.Z3_OP_NOT:
            inner = args[0]
            flip = {z3.Z3_OP_LE: ">", z3.Z3_OP_LT: ">=", z3.Z3_OP_GE: "<", z3.Z3_OP_GT: "<="}
            ik = inner.decl().kind() if z3.is_app(inner) else None
            if ik in flip and z3.is_int(inner.arg(0)):  # not (a <= b) is a > b on ints
                a, b = inner.children()
                mirror = {"<=": ">=", "<": ">", ">=": "<=", ">": "<"}
                if z3.is_int_value(a) and not z3.is_int_value(b):
                    return f"{self.p(b, 5)} {mirror[flip[ik]]} {self.p(a, 5)}", 4
                return f"{self.p(a, 5)} {flip[ik]} {self.p(b, 5)}", 4
            if ik == z3.Z3_OP_EQ and not z3.is_bool(inner.arg(0)):
                a, b = inner.children()
                text, _ = self.render(inner)
                return text.replace(" == ", " != ", 1), 4
            if ik == z3.Z3_OP_SEQ_CONTAINS:
                text, _ = self.render(inner)
                return text.replace(" in ", " not in ", 1), 4
            text, precedence = self.render(inner)
            if precedence == 4 and text.endswith(" is None"):  # `x is not None`, not `not x is None`
                return text.removesuffix(" is None") + " is not None", 4
            return "not " + self.p(inner, 3), 3
        if k in (z3.Z3_OP_EQ, z3.Z3_OP_DISTINCT) and len(args) == 2:
            a, b = args
            if (z3.is_int_value(a) or z3.is_string_value(a)) and not (z3.is_int_value(b) or z3.is_string_value(b)):
                a, b = b, a  # `len(x) == 0` reads better than `0 == len(x)`
            op = "==" if k == z3.Z3_OP_EQ else "!="
            if a.sort() == z3.BoolSort():
                if k == z3.Z3_OP_EQ:
                    return f"{self.p(a, 5)} == {self.p(b, 5)}", 4
            member = self.enum_member(a, b) or self.enum_member(b, a)
            if member:
                field = a if z3.is_const(a) and self._text(a) in self.names else b
                return f"{self.p(field, 5)} {op} {member}", 4
            return f"{self.p(a, 5)} {op} {self.p(b, 5)}", 4
        cmp = {z3.Z3_OP_LE: "<=", z3.Z3_OP_LT: "<", z3.Z3_OP_GE: ">=", z3.Z3_OP_GT: ">"}
        if k in cmp:
            a, b = args
            if z3.is_int_value(a) and not z3.is_int_value(b):  # `3 > x` reads better as `x < 3`
                mirror = {"<=": ">=", "<": ">", ">=": "<=", ">": "<"}
                return f"{self.p(b, 5)} {mirror[cmp[k]]} {self.p(a, 5)}", 4
            return f"{self.p(a, 5)} {cmp[k]} {self.p(b, 5)}", 4
        if k == z3.Z3_OP_ADD:
            return " + ".join(self.p(a, 5) for a in args), 5
        if k == z3.Z3_OP_SUB:
            return " - ".join([self.p(args[0], 5)] + [self.p(a, 6) for a in args[1:]]), 5
        if k == z3.Z3_OP_MUL:
            return " * ".join(self.p(a, 6) for a in args), 6
        if k == z3.Z3_OP_UMINUS:
            return "-" + self.p(args[0], 7), 7
        if k == z3.Z3_OP_ITE:
            return f"{self.p(args[1], 2)} if {self.p(args[0], 2)} else {self.p(args[2], 1)}", 0
        if k == z3.Z3_OP_SEQ_LENGTH:
            inner, _ = self.render(args[0])
            return f"len({inner})", 9
        if k == z3.Z3_OP_SEQ_CONTAINS and z3.is_app(args[1]) and args[1].decl().kind() == z3.Z3_OP_SEQ_UNIT:
            return f"{self.p(args[1].arg(0), 5)} in {self.p(args[0], 5)}", 4
        if k == z3.Z3_OP_SEQ_CONTAINS:
            return f"{self.p(args[1], 5)} in {self.p(args[0], 5)}", 4
        if k == z3.Z3_OP_SEQ_PREFIX:
            return f"{self.p(args[1], 9)}.startswith({self.p(args[0], 0)})", 9
        if k == z3.Z3_OP_SEQ_SUFFIX:
            return f"{self.p(args[1], 9)}.endswith({self.p(args[0], 0)})", 9
        if k == z3.Z3_OP_DT_ACCESSOR and e.decl().name().endswith(".keys") and z3.is_const(args[0]) \
                and self._text(args[0]) in self.names:  # a dict's keys: the dict itself, for len and in
            return self.names[self._text(args[0])][0], 9
        if k == z3.Z3_OP_SEQ_UNIT and z3.is_int_value(args[0]):
            return f"[{args[0].as_long()}]", 9
        raise NotPrintable(e.decl().name() if z3.is_app(e) else "a quantifier")  # not str(e): slow on big terms

"""Executor mixin: the str and list operations beyond indexing (see strings.py for their z3
terms): slicing, str methods, the extra list methods, str(), f-strings and reversed().

A str method z3 cannot express (lower, upper, strip, split, join, replace, ...) stays an
unknown naming the method, never an approximation.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import BOOL, INT, STR, TypeKind, TypeRef
from contractor.z3backend import fastterms as F
from contractor.z3backend import strings as S
from contractor.z3backend import values as V
from contractor.z3backend.values import Val

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
    from contractor.z3backend.refs import ListMethod, StrMethod
else:
    _Host = object


@dataclass(frozen=True)
class Reversed:
    """reversed(seq): only iterated (a for loop, a comprehension, all/any/sum/min/max)."""

    value: Val


class SeqCalls(_Host):
    """Mixin of Executor: needs eval, raise_if, store, feasible, active, mark_unknown, loc,
    unsupported and unroll."""

    def unknown_if(self, cond: z3.BoolRef, what: str, node: ast.AST) -> None:
        """Paths where `cond` holds are not followed: they become unknown (as a loop past its bound)."""
        if not self.feasible(F.and_(self.active(), cond)):
            return
        saved = self.guard
        self.guard = F.and_(saved, cond)
        try:
            self.mark_unknown(UnsupportedConstruct(what, self.loc(node)), node, None)
        finally:
            self.guard = saved

    def slice_value(self, base: Val, node: ast.Subscript) -> Val:
        sl = node.slice
        assert isinstance(sl, ast.Slice)
        if sl.step is not None:
            step = self.eval(sl.step)
            if not (step.kind == "int" and z3.is_int_value(z3.simplify(step.z)) and z3.simplify(step.z).as_long() == 1):
                raise self.unsupported(node, "a slice with a step other than 1")
        if base.kind not in ("str", "list"):
            raise self.unsupported(node, f"slicing a {base.type}")
        lower = V.to_int(self.eval(sl.lower)) if sl.lower is not None else None
        upper = V.to_int(self.eval(sl.upper)) if sl.upper is not None else None
        if base.z is None:  # [] of unknown type
            return base
        return Val(base.type, S.slice_of(base.z, lower, upper))

    def call_str_method(self, m: StrMethod, node: ast.Call) -> Val:
        name, s = m.name, m.value.z
        args = [self.eval(a) for a in node.args]
        if node.keywords:
            raise self.unsupported(node, f"keyword arguments to str.{name}()")
        if name in ("startswith", "endswith") and len(args) == 1:
            f = z3.PrefixOf if name == "startswith" else z3.SuffixOf
            if args[0].kind == "str":
                return Val(BOOL, f(args[0].z, s))
            if args[0].kind == "tuple" and all(t.kind == "str" for t in args[0].type.args):
                return Val(BOOL, F.or_(*[f(x.z, s) for x in V.tuple_items(args[0])]))
        if name in ("find", "index") and 1 <= len(args) <= 3 and args[0].kind == "str":
            bounds = [V.to_int(a) if a.kind != "none" else None for a in args[1:]]
            if len(bounds) == 2 and bounds[0] is None:
                bounds[0] = z3.IntVal(0)
            r = S.find(s, args[0].z, *bounds)
            if name == "index":
                self.raise_if(r < 0, "ValueError", node)
            return Val(INT, r)
        if name in ("rfind", "rindex") and len(args) == 1 and args[0].kind == "str":
            r = z3.LastIndexOf(s, args[0].z)
            if name == "rindex":
                self.raise_if(r < 0, "ValueError", node)
            return Val(INT, r)
        if name == "count" and len(args) == 1 and args[0].kind == "str":
            return self.count_substrings(s, args[0].z, node)
        raise self.unsupported(node, f"str.{name}()")

    def count_substrings(self, s: z3.SeqRef, sub: z3.SeqRef, node: ast.AST) -> Val:
        total, more = S.count_steps(s, sub, self.unroll)
        empty = z3.Length(sub) == 0
        self.unknown_if(F.and_(F.not_(empty), more), f"str.count() finding more than {self.unroll} "
                        "occurrences (--unroll)", node)
        return Val(INT, F.ite(empty, z3.Length(s) + 1, total))

    def call_list_extra(self, m: ListMethod, lst: Val, args: list[Val], node: ast.Call) -> Val:
        name, seq = m.name, lst.z
        elem = lst.type.args[0]
        n = z3.Length(seq)
        if name in ("index", "count", "remove") and len(args) == 1:
            if "float" in str(elem) or args[0].kind == "float":
                raise self.unsupported(node, f"list.{name}() on floats")  # == is not IEEE in Seq
            unit = z3.Unit(V.coerce(args[0], elem).z)
            at = z3.IndexOf(seq, unit, 0)
            if name == "index":
                self.raise_if(at < 0, "ValueError", node)
                return Val(INT, at)
            if name == "remove":
                self.raise_if(at < 0, "ValueError", node)
                self.store(m.target, Val(lst.type, z3.Concat(z3.SubSeq(seq, 0, at),
                                                             z3.SubSeq(seq, at + 1, n - at - 1))))
                return V.NONE_VAL
            x = V.coerce(args[0], elem).z
            total: z3.ArithRef = z3.IntVal(0)
            for k in range(self.unroll):
                total = total + F.ite(F.and_(k < n, seq[k] == x), 1, 0)
            self.unknown_if(n > self.unroll, f"list.count() on more than {self.unroll} items (--unroll)", node)
            return Val(INT, total)
        if name == "extend" and len(args) == 1 and args[0].kind == "list":
            other = V.coerce(args[0], lst.type)
            self.store(m.target, Val(lst.type, z3.Concat(seq, other.z)))
            return V.NONE_VAL
        if name == "copy" and not args:
            return lst
        raise self.unsupported(node, f"list.{name}()")

    def call_builtin_extra(self, name: str, args: list[Val], node: ast.Call) -> Val | Reversed:
        if name == "str" and len(args) == 1:
            return Val(STR, self.text_of(args[0], node))
        if name == "reversed" and len(args) == 1 and args[0].kind in ("str", "list", "tuple"):
            return Reversed(args[0])
        if name == "list" and len(args) == 1 and args[0].kind == "list":
            return args[0]
        if name in ("set", "dict") and not args:
            return Val(TypeRef(TypeKind(name)), None)
        raise self.unsupported(node, f"call to {name}()")

    def text_of(self, x: Val, node: ast.AST) -> z3.SeqRef:
        """str(x): built by z3 for str, int and bool; for other values (an untyped object,
        a float, a container) some text their own __str__ chose, as from outside code."""
        try:
            return S.str_of(x.kind, x.z)
        except UnsupportedConstruct as e:
            if x.kind in ("class", "undefined"):  # the class's own __str__: not followed
                raise self.unsupported(node, e.construct) from None
        return self.fresh_typed(STR, f"str() of a {x.kind}", node).z

    def e_JoinedStr(self, node: ast.JoinedStr) -> Val:
        """f-strings of str, int and bool values, without format specs or !r."""
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                parts.append(z3.StringVal(v.value))
                continue
            if not isinstance(v, ast.FormattedValue):
                raise self.unsupported(node, "an f-string part")
            x = self.eval(v.value)
            if (v.format_spec is not None or v.conversion not in (-1, ord("s"))) \
                    and x.kind not in ("class", "undefined"):
                parts.append(self.fresh_typed(STR, "formatted text", node).z)  # some text
                continue
            parts.append(self.text_of(x, node))
        if not parts:
            return V.const("")
        return Val(STR, z3.Concat(*parts) if len(parts) > 1 else parts[0])

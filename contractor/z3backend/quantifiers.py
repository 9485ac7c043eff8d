"""Executor mixin: all() and any() over a generator or comprehension as z3 quantifiers over
positions, `all(p(x) for x in s if c(x))` = `forall i. 0 <= i < len(s) and c(s[i]) -> p(s[i])`:
exact, with no unrolling bound, for str, list, set and dict iterables (tuples are expanded).

The element expression must not raise and must not call untranslated code (an exception
inside a quantifier would escape it): otherwise the call is an unknown.
"""

from __future__ import annotations

import ast

import z3

from contractor.z3backend import values as V
from contractor.z3backend.iteration import items_of, keys_of
from contractor.z3backend.values import Val

QUANTIFIERS = ("all", "any")


class Quantifiers:
    """Mixin of Executor: needs eval_any, condition, frame, state, unsupported."""

    def call_quantifier(self, name: str, node: ast.Call) -> Val:
        if len(node.args) != 1 or node.keywords:
            raise self.unsupported(node, f"{name}() with other than one argument")
        gen = node.args[0]
        if not isinstance(gen, (ast.GeneratorExp, ast.ListComp, ast.SetComp)) or len(gen.generators) != 1:
            return self.quantify_items(name, node)
        comp = gen.generators[0]
        if comp.is_async or not isinstance(comp.target, ast.Name):
            raise self.unsupported(node, f"{name}() over a comprehension with a tuple target")
        seq = self.eval_any(comp.iter)
        if isinstance(seq, Val) and seq.kind == "tuple":  # finite: one instance per item
            parts = [self.instance(comp, gen.elt, x, node) for x in V.tuple_items(seq)]
            conds = [z3.Implies(c, p) if name == "all" else z3.And(c, p) for c, p in parts]
            return Val(V.BOOL, z3.And(*conds) if name == "all" else z3.Or(*conds))
        z = keys_of(seq) if isinstance(seq, Val) else None
        if z is None:
            raise self.unsupported(node, f"{name}() over something other than a str, list, tuple, set or dict")
        self.counter += 1
        i = z3.Int(f"{name}!{self.counter}")
        if seq.kind == "str":
            item = Val(V.STR, z3.SubString(z, i, 1))
        elif seq.kind == "dict":
            item = Val(seq.type.args[0], z[i])
        else:
            item = Val(seq.type.args[0], z[i])
        cond, pred = self.instance(comp, gen.elt, item, node)
        in_range = z3.And(0 <= i, i < z3.Length(z), cond)
        if name == "all":
            return Val(V.BOOL, z3.ForAll([i], z3.Implies(in_range, pred)))
        return Val(V.BOOL, z3.Exists([i], z3.And(in_range, pred)))

    def instance(self, comp: ast.comprehension, elt: ast.expr, item: Val, node: ast.AST):
        """(the filter conditions, the element's truth) with the target bound to `item`."""
        name = comp.target.id
        saved = self.frame.locals.get(name)
        raises, unknowns = len(self.state.raises), len(self.state.unknowns)
        self.frame.locals[name] = item
        try:
            cond = z3.And(*[self.condition(c) for c in comp.ifs]) if comp.ifs else z3.BoolVal(True)
            pred = self.condition(elt)
        finally:
            if saved is None:
                del self.frame.locals[name]
            else:
                self.frame.locals[name] = saved
        if len(self.state.raises) != raises or len(self.state.unknowns) != unknowns:
            raise self.unsupported(node, "an all()/any() element that can raise")
        return cond, pred

    def quantify_items(self, name: str, node: ast.Call) -> Val:
        """all(xs) / any(xs): the truth of each item."""
        seq = self.eval_any(node.args[0])
        z = keys_of(seq) if isinstance(seq, Val) else None
        if isinstance(seq, Val) and seq.kind == "tuple":
            truths = [V.truthy(x) for x in V.tuple_items(seq)]
            return Val(V.BOOL, z3.And(*truths) if name == "all" else z3.Or(*truths))
        if z is None or seq.kind == "str" or items_of(seq) is None:
            raise self.unsupported(node, f"{name}() of this value")
        self.counter += 1
        i = z3.Int(f"{name}!{self.counter}")
        t = V.truthy(Val(seq.type.args[0], z[i]))
        in_range = z3.And(0 <= i, i < z3.Length(z))
        if name == "all":
            return Val(V.BOOL, z3.ForAll([i], z3.Implies(in_range, t)))
        return Val(V.BOOL, z3.Exists([i], z3.And(in_range, t)))

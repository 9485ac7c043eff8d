"""Executor mixin: all() and any() over a generator or comprehension as z3 quantifiers over
positions, `all(p(x) for x in s if c(x))` = `forall i. 0 <= i < len(s) and c(s[i]) -> p(s[i])`:
exact, with no unrolling bound, for str, list, set and dict iterables, dict views
(`for k, v in d.items()`) and range(a, b) (tuples are expanded).

The element must not raise, call untranslated code or change the state (an exception
inside a quantifier would escape it): otherwise the call is read item by item instead
(aggregates.py: exact up to --unroll items, an unknown past them).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import z3

from contractor.model import BOOL, INT, STR
from contractor.z3backend import fastterms as F
from contractor.z3backend import mappings as M
from contractor.z3backend import values as V
from contractor.z3backend.iteration import items_of, keys_of
from contractor.z3backend.mapcalls import DictView
from contractor.z3backend.values import Val

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
    from contractor.z3backend.host import Snapshot
else:
    _Host = object

QUANTIFIERS = ("all", "any")


class NotQuantifiable(Exception):
    """The call is read item by item instead."""


class Quantifiers(_Host):
    """Mixin of Executor: needs eval_any, condition, frame, state, unsupported, bind_target
    and unrolled_quantifier (aggregates.py)."""

    def call_quantifier(self, name: str, node: ast.Call) -> Val:
        if len(node.args) != 1 or node.keywords:
            raise self.unsupported(node, f"{name}() with other than one argument")
        saved = self.snapshot()
        try:
            return self.quantified(name, node)
        except NotQuantifiable:
            self.restore(saved)
        return self.unrolled_quantifier(name, node.args[0], node)

    def quantified(self, name: str, node: ast.Call) -> Val:
        gen = node.args[0]
        if not isinstance(gen, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            return self.quantify_items(name, node)
        if len(gen.generators) != 1 or gen.generators[0].is_async:
            raise NotQuantifiable
        comp = gen.generators[0]
        seq = self.range_of(comp.iter) or self.eval_any(comp.iter)
        if isinstance(seq, Val) and seq.kind == "tuple":  # finite: one instance per item
            parts = [self.instance(comp, gen.elt, x, node) for x in V.tuple_items(seq)]
            conds = [z3.Implies(c, p) if name == "all" else F.and_(c, p) for c, p in parts]
            return Val(BOOL, F.and_(*conds) if name == "all" else F.or_(*conds))
        self.counter += 1
        i = z3.Int(f"{name}!{self.counter}")
        found = position(seq, i)
        if found is None:
            raise NotQuantifiable
        size, item = found
        if self.bounded(size):  # unrolled: exact, and quantifier-free
            raise NotQuantifiable
        cond, pred = self.instance(comp, gen.elt, item, node)
        in_range = F.and_(0 <= i, i < size, cond)
        if name == "all":
            return Val(BOOL, z3.ForAll([i], z3.Implies(in_range, pred)))
        return Val(BOOL, z3.Exists([i], F.and_(in_range, pred)))

    def range_of(self, it: ast.expr) -> tuple[z3.ArithRef, z3.ArithRef] | None:
        """range(stop) or range(start, stop) as (start, stop)."""
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                and it.func.id not in self.frame.locals and not it.keywords and 1 <= len(it.args) <= 2):
            return None
        bounds = [V.to_int(self.eval(a)) for a in it.args]
        return (z3.IntVal(0), bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])

    def instance(self, comp: ast.comprehension, elt: ast.expr, item: Val,
                 node: ast.AST) -> tuple[z3.BoolRef, z3.BoolRef]:
        """(the filter conditions, the element's truth) with the target bound to `item`."""
        names = [n.id for n in ast.walk(comp.target) if isinstance(n, ast.Name)]
        saved = {n: (self.frame.locals.get(n), self.frame.defined.pop(n, None)) for n in names}
        before = self.snapshot()
        try:
            self.bind_target(comp.target, item, node)
            cond = F.and_(*[self.condition(c) for c in comp.ifs]) if comp.ifs else z3.BoolVal(True)
            pred = self.condition(elt)
        finally:
            for n, (value, defined) in saved.items():
                if value is None:
                    self.frame.locals.pop(n, None)
                else:
                    self.frame.locals[n] = value
                if defined is not None:
                    self.frame.defined[n] = defined
        if self.changed_since(before):
            raise NotQuantifiable
        return cond, pred

    def quantify_items(self, name: str, node: ast.Call) -> Val:
        """all(xs) / any(xs): the truth of each item."""
        seq = self.eval_any(node.args[0])
        if isinstance(seq, Val) and seq.kind == "tuple":
            truths = [self.truth(x, node) for x in V.tuple_items(seq)]
            return Val(BOOL, F.and_(*truths) if name == "all" else F.or_(*truths))
        self.counter += 1
        i = z3.Int(f"{name}!{self.counter}")
        found = position(seq, i)
        if found is None or (isinstance(seq, Val) and seq.kind == "str") or items_of(seq) is None:
            raise NotQuantifiable
        size, item = found
        if self.bounded(size):
            raise NotQuantifiable
        t = V.truthy(item)
        in_range = F.and_(0 <= i, i < size)
        if name == "all":
            return Val(BOOL, z3.ForAll([i], z3.Implies(in_range, t)))
        return Val(BOOL, z3.Exists([i], F.and_(in_range, t)))

    # -- trying a translation and taking it back -------------------------------------

    def snapshot(self) -> Snapshot:
        s = self.state
        return (s.raised, s.explicit, s.unknown, s.outside, len(s.raises), len(s.unknowns),
                len(s.outside_sites), {oid: dict(f) for oid, f in s.objects.items()})

    def restore(self, saved: Snapshot) -> None:
        s = self.state
        s.raised, s.explicit, s.unknown, s.outside = saved[:4]
        del s.raises[saved[4]:], s.unknowns[saved[5]:], s.outside_sites[saved[6]:]
        s.objects.clear()
        s.objects.update({oid: dict(f) for oid, f in saved[7].items()})

    def changed_since(self, saved: Snapshot) -> bool:
        s = self.state
        if (len(s.raises), len(s.unknowns), len(s.outside_sites)) != saved[4:7]:
            return True
        if any(a is not b for a, b in zip((s.raised, s.explicit, s.unknown, s.outside), saved[:4])):
            return True
        if s.objects.keys() != saved[7].keys():
            return True
        return any(f.keys() != saved[7][oid].keys() or any(f[k] is not saved[7][oid][k] for k in f)
                   for oid, f in s.objects.items())


def position(seq: object, i: z3.ArithRef) -> tuple[z3.ArithRef, Val] | None:
    """(the number of items, the i-th item) of an iterable, or None."""
    if isinstance(seq, tuple):  # range(start, stop)
        start, stop = seq
        return stop - start, Val(INT, start + i)
    if isinstance(seq, DictView):
        d = seq.value
        if d.z is None:
            return z3.IntVal(0), V.const(0)
        ks = M.keys(d.z)
        kt, vt = d.type.args
        key, value = Val(kt, ks[i]), Val(vt, M.vals(d.z)[ks[i]])
        item = {"keys": key, "values": value}.get(seq.kind) or V.make_tuple([key, value])
        return z3.Length(ks), item
    if not isinstance(seq, Val):
        return None
    z = keys_of(seq)
    if z is None:
        return None
    if seq.kind == "str":
        return z3.Length(z), Val(STR, z3.SubString(z, i, 1))
    return z3.Length(z), Val(seq.type.args[0], z[i])

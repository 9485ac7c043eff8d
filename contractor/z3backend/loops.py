"""Loops for the symbolic executor: `for` over range(), a list or a str, and `while`,
unrolled up to the bound; iterations the assumptions (invariant, precondition) rule out
are not unrolled, and a path still looping after the bound becomes unknown."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import TypeKind, TypeRef
from contractor.z3backend import fastterms as F
from contractor.z3backend import values as V
from contractor.z3backend.iteration import ItemAt, items_of
from contractor.z3backend.state import FALSE, Loop
from contractor.z3backend.values import Val
from contractor.z3backend.z3util import Effort

OUTSIDE_ROUNDS = 2  # iterations unrolled of a loop whose continuing outside code decides
# asking whether another iteration can run: undecided within this effort, it is unrolled
# (its paths, if there are none, are under a false condition). Counted in z3's resource
# units, not in wall-clock time: under a wall-clock limit the same check was answered on an
# idle machine and undecided on a busy one, which unrolled the loop further and changed the
# formulas, the may-answers and the run time. The answered checks need up to 1.14 M units
# (zipfile.ZipFile's; http.client.HTTPConnection's up to 0.1 M, the samples' under 0.01 M),
# 0.2 s at most; the undecided ones (ZipFile's 3) stay undecided past 40 M units (30 s).
# The wall-clock cap is a safety net only, far past what the units take (2 M: about 0.8 s)
ITERATION = Effort(rlimit=2_000_000, cap_ms=20_000)

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
else:
    _Host = object


class LoopExecutor(_Host):
    """Mixin of Executor: needs its guard, loops, unroll, active(), feasible(), eval(),
    condition(), store(), run_block() and mark_unknown()."""

    def run_loop(self, node: ast.For | ast.While, writes: set[str] | None) -> None:
        if node.orelse:
            raise UnsupportedConstruct("loop with an else clause", self.loc(node))
        items = self.loop_items(node) if isinstance(node, ast.For) else None
        if isinstance(node, ast.For) and items == "opaque":  # over an untyped value (handlers.py)
            self.run_opaque_for(node, writes)
            return
        loop = Loop()
        self.loops.append(loop)
        saved_guard = self.guard
        bound = self.unroll
        try:
            for k in range(self.unroll + 1):
                loop.continued = FALSE
                if isinstance(node, ast.While):
                    more = self.condition(node.test)
                else:
                    assert callable(items)  # a For loop's items: "opaque" returned above
                    more, item = items(k)
                if k == self.unroll:  # still running after `unroll` iterations: unknown
                    break
                if k >= OUTSIDE_ROUNDS and self.outside_driven(F.and_(self.active_with(loop), more)):
                    bound = k  # further iterations only choose outside values again: unknown
                    break
                if (k > 0 or not z3.is_true(z3.simplify(more))) \
                        and not self.feasible(F.and_(self.active_with(loop), saved_guard, more), effort=ITERATION):
                    # no object meeting the assumptions runs this iteration (the first of a
                    # `while True` runs where the loop is reached: not asked)
                    break
                self.guard = F.and_(saved_guard, more)
                if isinstance(node, ast.For):
                    self.store(node.target, item)
                self.run_block(node.body, writes)
                self.guard = saved_guard
                loop.broke = F.or_(loop.broke, F.and_(self.active(), F.not_(more)))
        finally:
            self.guard = saved_guard
            self.loops.pop()
        remaining = F.and_(self.active_with(loop), more)
        # cut by outside code's rounds: the remaining paths are unknown, not asked whether
        # there are any (if none, the unknown is false wherever it is read)
        if bound != self.unroll or self.feasible(remaining):
            saved = self.guard
            self.guard = F.and_(saved, more)
            err = UnsupportedConstruct(f"loop running more than {self.unroll} iterations (--unroll)"
                                       if bound == self.unroll else
                                       f"loop running more than {bound} iterations, each decided by "
                                       "code outside the analysed source", self.loc(node))
            self.loops.append(loop)
            try:
                self.mark_unknown(err, node, writes)
            finally:
                self.loops.pop()
                self.guard = saved

    def outside_driven(self, going_on: z3.BoolRef) -> bool:
        """Whether running another iteration is decided by values outside code chose (a
        `while True` reading lines until the peer says stop), in a method whose answers
        are all may already for using such values (backend.method_outside_reason): more
        iterations would only choose those values again, so the loop stops being unrolled
        after OUTSIDE_ROUNDS; its remaining paths are unknown, as past --unroll. Every
        field they may write becomes arbitrary there, as it did past --unroll, so no
        target state is lost; a raise guard stays exact where an earlier iteration leaves
        the loop (guards.py)."""
        if F.shown_false(self.state.outside):  # and/or left nested: a disjunction of active()s
            return False
        return self._made_up(going_on)

    def active_with(self, loop: Loop) -> z3.BoolRef:
        self.loops.append(loop)
        try:
            return self.active()
        finally:
            self.loops.pop()

    def set_loop_items(self, s: Val, node: ast.AST, any_order: bool = False) -> ItemAt:
        """A for loop over a set: CPython iterates in hash order, which the set's sequence
        (insertion order) does not give. The items are read at positions chosen freely among
        the permutations of the set (an assumption of every query), so whatever order CPython
        takes is followed; the paths iterating two or more items depend on that order, a value
        chosen outside the analysed source: their answers are may. Where the reader's result
        does not depend on the order (`any_order`, comprehensions.py's order_free), the
        sequence's own order is as good as any: exact."""
        n = z3.Length(s.z)
        elem = s.type.args[0]
        if any_order:
            return lambda k: (n > k, Val(elem, s.z[k]))
        picks = [self.fresh(TypeRef(TypeKind.INT), "order").z for _ in range(self.unroll + 1)]
        for k, p in enumerate(picks):
            self.state.assumed.append(z3.Implies(n > k, F.and_(0 <= p, p < n, *[q != p for q in picks[:k]])))
        saved = self.guard
        self.guard = F.and_(saved, n >= 2)
        try:
            self.note_outside("the iteration order of a set (CPython's hash order)", node)
        finally:
            self.guard = saved

        def at(k: int) -> tuple[z3.BoolRef, Val]:
            return n > k, Val(elem, s.z[picks[k]])
        return at

    def loop_items(self, node: ast.For | ast.comprehension, any_order: bool = False) -> ItemAt | str:
        it = node.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
                and not it.keywords and 1 <= len(it.args) <= 3:
            args = [V.to_int(self.eval(a)) for a in it.args]
            start, stop = (z3.IntVal(0), args[0]) if len(args) == 1 else (args[0], args[1])
            step = 1
            if len(it.args) == 3:
                if not (isinstance(it.args[2], ast.Constant) and isinstance(it.args[2].value, int)
                        and it.args[2].value != 0):
                    raise UnsupportedConstruct("range() with a non-constant step", self.loc(it))
                step = it.args[2].value

            def at(k: int) -> tuple[z3.BoolRef, Val]:
                i = start + k * step
                return (i < stop if step > 0 else i > stop), Val(TypeRef(TypeKind.INT), i)
            return at
        seq = self.eval_any(it)
        if isinstance(seq, Val) and seq.kind == "set" and seq.z is not None:
            return self.set_loop_items(seq, it, any_order)
        if getattr(seq, "kind", None) == "opaque" or type(seq).__name__ in ("External", "Member"):
            return "opaque"
        found = items_of(seq)
        if found is not None:
            return found
        raise UnsupportedConstruct("for-loop over something other than range(), a str, list, tuple, "
                                   "set or dict", self.loc(it))

    # -- calls -----------------------------------------------------------------------

"""All-SAT checks answered by changing only the after-state of the enumeration's last model.

A method's all-SAT (backend.py) asks its solver, again and again, for a model whose
post-object is in another abstract state than those found. Where the method hands its
object to outside code or follows a path it cannot translate, the after-state's fields
are fresh values (what outside code may have set), chosen independently of the path that
led there: the next model is usually the last one with other values for those fields.
z3 does not know that, and searches the whole method again (HTTPConnection's `request`:
0.1 to 2.4 s a check, some past its units and asked afresh, 5-10 s of a 10 s run).

So before each check, the last model is kept except on the *free* constants (those the
after-state's values are made of, through the branches of if-then-else but not their
conditions, other than the pre-object's own fields; and the post-object's enabledness
bits), and what is left of the solver's assertions and the check's assumptions under
it, a small formula over the free constants, is solved on its own. A model of that,
with the rest of the last model, is a model of the check: it is satisfiable (the answer
the solver would give), and that model is used as the solver's would be. It is checked
so before it is used: every assertion and assumption evaluates to true in it. Where what
is left is unsatisfiable or not solved within its units, the solver is asked as before
(the path itself must change). The targets found are the same (the enumeration still
ends on the solver's `unsat`); models, and so witnesses, may differ.

All of it is done in a z3 context of its own (as satmodels.py does): the terms it makes
take no term ids in the main context, whose term order z3's answers depend on.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import z3
from z3 import z3 as _z3py
from z3 import z3core as C

from contractor.z3backend import dag
from contractor.z3backend import rawapi as R
from contractor.z3backend.isolated import IsolatedModel
from contractor.z3backend.values import Val
from contractor.z3backend.z3util import make_solver

# z3 resource units for solving what is left under the last model (HTTPConnection's need
# at most 40 K); counted, not timed, so whether a check is answered here does not depend
# on the load
NEXT_RLIMIT = 300_000
NEXT_CAP_MS = 10_000  # a safety net only, far past what the units take


class _Cached:
    """One solver's assertions translated into the context: as they are (to check a model
    against) and with the free constants renamed (to evaluate under the last model)."""

    def __init__(self, solver: z3.Solver) -> None:
        self.solver = solver  # kept alive: its id stays its own
        self.plain: list[z3.BoolRef] = []
        self.renamed: list[z3.BoolRef] = []


class _Free:
    """A method's free constants in the context, with their stand-ins (fresh constants the
    rest of the last model does not give a value)."""

    def __init__(self, ctx: z3.Context, free: list[z3.ExprRef]) -> None:
        self.ctx = ctx
        self.constants = [c.translate(ctx) for c in free]
        self.stand_ins = [z3.Const(f"contractor!next!{i}", c.sort()) for i, c in enumerate(self.constants)]
        self.names = {c.decl().name() for c in self.constants}
        self.by_stand_in = {s.decl().name(): c for c, s in zip(self.constants, self.stand_ins)}
        n = len(free)
        self._from = (z3.Ast * n)(*[c.as_ast() for c in self.constants])
        self._to = (z3.Ast * n)(*[s.as_ast() for s in self.stand_ins])

    def rename(self, e: z3.ExprRef) -> z3.ExprRef:
        """`e` (of the context) with each free constant replaced by its stand-in."""
        made = C.Z3_substitute(self.ctx.ref(), e.as_ast(), len(self.constants), self._from, self._to)
        return _z3py._to_expr_ref(made, self.ctx)


class NextModels:
    """The free constants of each method's after-state, and its solvers' assertions in
    the context of its own (one per backend)."""

    def __init__(self) -> None:
        self._ctx: z3.Context | None = None
        self._free: dict[str, _Free | None] = {}
        self._cached: dict[int, _Cached] = {}

    def context(self) -> z3.Context:
        if self._ctx is None:
            self._ctx = z3.Context()
        return self._ctx

    def prepare(self, name: str, fields: dict[str, Val], after: dict[str, Val], bits: Iterable[z3.BoolRef]) -> None:
        """Note the free constants of `name`'s queries (once per method)."""
        if name in self._free:
            return
        fixed = {str(c) for v in fields.values() for t in _terms(v) for c in dag.free_constants(t)}
        free = {str(c): c for c in value_leaves([t for v in after.values() for t in _terms(v)])}
        free.update({str(b): b for b in bits})
        chosen = [free[k] for k in sorted(free) if k not in fixed]
        self._free[name] = _Free(self.context(), chosen) if chosen else None

    def next_model(self, name: str, solver: z3.Solver, assumptions: list[z3.BoolRef],
                   last: Any) -> NextModel | None:
        """A model of `solver`'s assertions and `assumptions` that differs from `last` (a
        model of an earlier check of the same enumeration) only on `name`'s free constants,
        or None where none was found within NEXT_RLIMIT units."""
        free = self._free.get(name)
        if free is None:
            return None
        ctx = self.context()
        if isinstance(last, NextModel):
            base = last.base
        else:  # a ModelRef, or an IsolatedModel (a model of another context)
            base = (last.model if isinstance(last, IsolatedModel) else last).translate(ctx)
        cached = self._assertions(solver, free)
        extra = [a.translate(ctx) for a in assumptions]
        rest = []
        for f in [*cached.renamed, *[free.rename(a) for a in extra]]:
            r = base.eval(f, model_completion=False)
            if z3.is_false(r):
                return None
            if not z3.is_true(r):
                rest.append(r)
        small = make_solver(NEXT_CAP_MS, ctx, core=True, rlimit=NEXT_RLIMIT)
        small.add(*rest)
        if small.check() != z3.sat:
            return None
        made = NextModel(base, small.model(), free)
        if not all(z3.is_true(made.here(f, True)) for f in [*cached.plain, *extra]):
            return None  # (never seen) not a model after all: the solver decides
        return made

    def _assertions(self, solver: z3.Solver, free: _Free) -> _Cached:
        """The solver's assertions in the context; those added since the last call translated now."""
        cached = self._cached.get(id(solver))
        if cached is None or cached.solver is not solver:
            cached = self._cached[id(solver)] = _Cached(solver)
        now = solver.assertions()
        ctx = self.context()
        for i in range(len(cached.plain), len(now)):
            a = now[i].translate(ctx)
            cached.plain.append(a)
            cached.renamed.append(free.rename(a))
        return cached


def _terms(v: Val) -> list[z3.ExprRef]:
    return [t for t in (v.z, v.is_none) if isinstance(t, z3.ExprRef)]


def value_leaves(terms: list[z3.ExprRef]) -> list[z3.ExprRef]:
    """The uninterpreted constants of `terms` outside the conditions of their if-then-else
    terms (the values they may take, not what chooses among them), each once. Walked on
    bare pointers (rawapi.py), never into a condition (most of an after-state's nodes)."""
    if not terms:
        return []
    ctx = terms[0].ctx
    c = R.pointer(terms[0].ctx_ref())
    ast_id, arg = R.ptr_ast_id, R.ptr_app_arg
    seen: set[int] = set()
    found: list[z3.ExprRef] = []
    todo = [R.pointer(t.as_ast()) for t in terms]
    while todo:
        a = todo.pop()
        key = ast_id(c, a)
        if key in seen:
            continue
        seen.add(key)
        if R.ptr_ast_kind(c, a) != z3.Z3_APP_AST:
            continue
        app = R.ptr_to_app(c, a)
        kind = R.ptr_decl_kind(c, R.ptr_app_decl(c, app))
        n = R.ptr_app_num_args(c, app)
        if n == 0:
            if kind == z3.Z3_OP_UNINTERPRETED:
                found.append(_z3py._to_expr_ref(R.boxed(a), ctx))
            continue
        todo.extend(arg(c, app, j) for j in range(1 if kind == z3.Z3_OP_ITE else 0, n))
    return found


class NextModel:
    """A model of a check: the last model (`base`, in the context) with the free
    constants' values from `small` (their stand-ins'), and what base left open from small
    too; read with terms of the main context, as a ModelRef is."""

    def __init__(self, base: z3.ModelRef, small: z3.ModelRef, free: _Free) -> None:
        self.base, self.small, self.free = base, small, free

    def here(self, term: z3.ExprRef, model_completion: bool) -> z3.ExprRef:
        """The value of a term of the context."""
        return self.small.eval(self.base.eval(self.free.rename(term), model_completion=False),
                               model_completion=model_completion)

    def eval(self, term: Any, model_completion: bool = False) -> Any:
        return self.here(term.translate(self.free.ctx), model_completion).translate(z3.main_ctx())


__all__ = ["NEXT_RLIMIT", "NextModel", "NextModels", "value_leaves"]

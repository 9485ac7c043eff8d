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
it, a small formula over the free constants, is solved on its own. The last model with
those values (and any the small solver gave to constants the last model left open) is
checked to be a model of the check (every assertion and assumption true in it), and
then used as the solver's would be. Where what is left is unsatisfiable or not solved
within its units, the solver is asked as before (the path itself must change). The
first check from another source state starts from the method's last model of an earlier
one, with the pre-object's fields and enabledness bits free too (`wide`; the earlier
enumerations' guard literals, asserted false since, set so). The targets found are the
same (an enumeration still ends on the solver's `unsat`); models, and so witnesses, may
differ.

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
from contractor.z3backend import fastterms as F
from contractor.z3backend import rawapi as R
from contractor.z3backend.isolated import IsolatedModel, Translations
from contractor.z3backend.values import Val
from contractor.z3backend.z3util import make_solver

# z3 resource units for solving what is left under the last model (HTTPConnection's need
# at most 40 K); counted, not timed, so whether a check is answered here does not depend
# on the load
NEXT_RLIMIT = 300_000
NEXT_CAP_MS = 10_000  # a safety net only, far past what the units take


class _Cached:
    """One solver's assertions translated into the context: as they are (to check a model
    against; one list for the narrow and the wide free constants, each assertion translated
    once) and with the free constants renamed (to evaluate under the last model)."""

    def __init__(self, solver: z3.Solver, plain: list[z3.BoolRef]) -> None:
        self.solver = solver  # kept alive: its id stays its own
        self.plain = plain
        self.renamed: list[z3.BoolRef] = []


class _Chain:
    """A run of next models of one method from one model (`base`, its first), each check
    the next of the last: what is left of the check under `base` is asked of one small
    solver, told each blocking clause as the run goes on, instead of being evaluated and
    solved afresh from each model of the run (HTTPConnection's request: 15 next models of
    20-30 ms, a formula of 3-4 K nodes each). `key`: the solver and the assumptions of
    the checks it answers (one phase of one enumeration)."""

    def __init__(self, key: tuple[int, tuple[int, ...]], base: z3.ModelRef, small: z3.Solver, free: _Free,
                 wide: bool, told: int, extra: list[z3.BoolRef]) -> None:
        self.key, self.base, self.small, self.extra = key, base, small, extra
        self.free, self.wide = free, wide  # the constants the run's models change
        self.told = told  # the solver's assertions (renamed) the small solver holds
        self.latest: NextModel | None = None  # the run's last model


class _Free:
    """A method's free constants in the context, with their stand-ins (fresh constants the
    rest of the last model does not give a value)."""

    def __init__(self, ctx: z3.Context, free: list[z3.ExprRef], serial: int) -> None:
        self.ctx = ctx
        self.constants = [c.translate(ctx) for c in free]
        ref = ctx.ref()
        # made and read through z3's C API: the constants z3.Const makes, in the same order
        # (HTTPConnection's methods: 2,800 free constants, 0.1 s in the binding's wrappers)
        self.stand_ins = [z3.ExprRef(C.Z3_mk_const(ref, C.Z3_mk_string_symbol(ref, f"contractor!next!{serial}!{i}"),
                                                   C.Z3_get_sort(ref, c.as_ast())), ctx)
                          for i, c in enumerate(self.constants)]
        # a stand-in's declaration (its address) -> the free constant's (both kept alive by the terms)
        self.by_stand_in = {R.pointer(C.Z3_get_app_decl(ref, s.as_ast())): C.Z3_get_app_decl(ref, c.as_ast())
                            for c, s in zip(self.constants, self.stand_ins)}
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
        self._terms: Translations | None = None  # the main context's terms in it, and back
        self._free: dict[tuple[str, bool], _Free | None] = {}  # (method, wide?) -> its free constants
        self._cached: dict[tuple[int, bool], _Cached] = {}
        self._chains: dict[str, _Chain] = {}  # method -> its run of next models going on

    def context(self) -> z3.Context:
        if self._ctx is None:
            self._ctx = z3.Context()
        return self._ctx

    def terms(self) -> Translations:
        """Translations into the context (and its values back): a method's next models are
        read on the same terms, its fields and bits, each translated once (HTTPConnection's
        request: 11 ms a witness, each field's path condition translated again)."""
        if self._terms is None:
            self._terms = Translations(self.context())
        return self._terms

    def prepare(self, name: str, fields: dict[str, Val], after: dict[str, Val], bits: Iterable[z3.BoolRef],
                pre_bits: Iterable[z3.BoolRef]) -> None:
        """Note the free constants of `name`'s queries (once per method): the after-state's
        and the post bits (narrow); those and the pre-object's fields and bits (wide)."""
        if (name, False) in self._free:
            return
        own = {_name(c): c for v in fields.values() for t in _terms(v) for c in dag.free_constants(t)}
        free = {_name(c): c for c in value_leaves([t for v in after.values() for t in _terms(v)])}
        free.update({_name(b): b for b in bits})
        narrow = [free[k] for k in sorted(free) if k not in own]
        free.update(own)
        free.update({_name(b): b for b in pre_bits})
        wide = [free[k] for k in sorted(free)]
        self._free[(name, False)] = _Free(self.context(), narrow, len(self._free)) if narrow else None
        self._free[(name, True)] = _Free(self.context(), wide, len(self._free)) if wide else None

    def next_model(self, name: str, solver: z3.Solver, assumptions: list[z3.BoolRef],
                   last: Any, wide: bool = False, retired: Iterable[z3.BoolRef] = ()) -> NextModel | None:
        """A model of `solver`'s assertions and `assumptions` that differs from `last` (a
        model of an earlier check) only on `name`'s free constants (`wide`: the pre-object's
        too, for the first check from another source state; `retired`: the guards of
        earlier enumerations, asserted false since), or None where none was found within
        NEXT_RLIMIT units."""
        free = self._free.get((name, wide))
        if free is None:
            return None
        chain = self._chains.pop(name, None)
        key = (id(solver), tuple(F.node_id(a) for a in assumptions))
        if chain is not None and not wide and last is chain.latest and chain.key == key:
            return self._continued(name, chain, solver)
        ctx = self.context()
        # a copy of the last model (in the context), to be changed into the next one
        model = (last.model if isinstance(last, (NextModel, IsolatedModel)) else last).translate(ctx)
        for g in retired:
            model.update_value(self.terms().into(g), z3.BoolVal(False, ctx))
        cached = self._assertions(solver, free, wide)
        extra = [self.terms().into(a) for a in assumptions]
        # evaluated at once: the assertions share most of their nodes (the method's raise
        # conditions), evaluated once so (one by one, the verification below took 8 ms)
        rest = model.eval(F.and_(*cached.renamed, *[free.rename(a) for a in extra]), model_completion=False)
        if z3.is_false(rest):
            return None
        small = make_solver(NEXT_CAP_MS, ctx, core=True, rlimit=NEXT_RLIMIT)
        small.add(rest)
        chain = _Chain(key, model.translate(ctx), small, free, wide, len(cached.renamed), extra)
        return self._found(name, chain, model, cached)

    def _continued(self, name: str, chain: _Chain, solver: z3.Solver) -> NextModel | None:
        """The next model of a run: the run's small solver, told what the solver was told
        since (the blocking clause of the last model's state) under the run's first model,
        with the run's free constants (a run begun wide goes on wide)."""
        cached = self._assertions(solver, chain.free, chain.wide)
        told = cached.renamed[chain.told:]
        chain.told = len(cached.renamed)
        if told:
            more = chain.base.eval(F.and_(*told), model_completion=False)
            if z3.is_false(more):
                return None
            chain.small.add(more)
        return self._found(name, chain, chain.base.translate(self.context()), cached)

    def _found(self, name: str, chain: _Chain, model: z3.ModelRef, cached: _Cached) -> NextModel | None:
        """`model` (a copy of the run's first model) with the values of the run's small
        solver's next model, if it has one and it makes a model of the check (the run then
        goes on from it)."""
        if chain.small.check() != z3.sat:
            return None
        if not _copy_values(chain.small.model(), model, chain.free):
            return None  # a function the last model left open: the solver decides
        if not z3.is_true(model.eval(F.and_(*cached.plain, *chain.extra), model_completion=True)):
            return None  # (never seen) not a model after all: the solver decides
        chain.latest = NextModel(model, self.context(), self.terms())
        self._chains[name] = chain
        return chain.latest

    def _assertions(self, solver: z3.Solver, free: _Free, wide: bool) -> _Cached:
        """The solver's assertions in the context; those added since the last call translated now."""
        cached = self._cached.get((id(solver), wide))
        if cached is None or cached.solver is not solver:
            other = self._cached.get((id(solver), not wide))
            shared = other.plain if other is not None and other.solver is solver else []
            cached = self._cached[(id(solver), wide)] = _Cached(solver, shared)
        now = solver.assertions()
        ctx = self.context()
        for i in range(len(cached.plain), len(now)):
            cached.plain.append(now[i].translate(ctx))
        for i in range(len(cached.renamed), len(cached.plain)):
            cached.renamed.append(free.rename(cached.plain[i]))
        return cached


def _copy_values(found: z3.ModelRef, model: z3.ModelRef, free: _Free) -> bool:
    """Give `model` the small solver's values (`found`): a free constant's (through its
    stand-in), or one the last model left open; False (nothing copied) where `found`
    interprets a function (one the last model left open: the solver decides). Read and
    written through z3's C API, the same calls z3's `found[d]` and `update_value` end in
    (without their checks and wrappers: ZipFile's 326 next models spent 0.2 s in them), a
    stand-in known by its declaration's address (no declaration object, no name read)."""
    ctx = free.ctx
    ref, source, target = ctx.ref(), found.model, model.model
    if C.Z3_model_get_num_funcs(ref, source):
        return False
    by_stand_in = free.by_stand_in
    for i in range(C.Z3_model_get_num_consts(ref, source)):
        d = C.Z3_model_get_const_decl(ref, source, i)  # alive while the model is
        value = C.Z3_model_get_const_interp(ref, source, d)
        C.Z3_add_const_interp(ref, target, by_stand_in.get(R.pointer(d), d), value)
    return True


def _name(c: z3.ExprRef) -> str:
    """A constant's name, as `str(c)` prints it (without the printer: HTTPConnection's
    methods printed 0.06 s of constants here)."""
    return str(c.decl().name())


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


class NextModel(IsolatedModel):
    """The next model: a model of the context (the last one with the free constants, and
    what it left open, changed), read with terms of the main context."""


__all__ = ["NEXT_RLIMIT", "NextModel", "NextModels", "value_leaves"]

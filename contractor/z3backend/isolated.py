"""Solving a part in a fresh z3 context, so that its witness does not depend on history.

z3's models over sequences and strings depend on what the context has seen before (the
terms and internal names earlier queries created), not only on the query: a worker of a
parallel exploration, which has asked other queries than one process would, then picks
other list elements or other strings for the same answer. A part whose terms hold such
sorts, in a class that may be explored in parallel, is therefore solved in a context of
its own (see `Reuse._isolation`): the same query gives the same witness in one process
and in a worker. Parts over bools, ints and
the like stay in the main context (their models do not move; a fresh context costs a
few milliseconds).
"""

from __future__ import annotations

from typing import Any

import z3
from z3 import z3core as C

from contractor.z3backend import dag
from contractor.z3backend import fastterms as F
from contractor.z3backend.seqnames import SeqConditions
from contractor.z3backend.z3util import make_solver, units_counted

HISTORY_SENSITIVE = (z3.Z3_SEQ_SORT, z3.Z3_RE_SORT, z3.Z3_ARRAY_SORT, z3.Z3_CHAR_SORT)


def history_sensitive(terms: list[z3.ExprRef]) -> bool:
    """Whether any subterm of `terms` is of a sort whose models depend on the context's history
    (one walk through z3's C API: the walk through Python objects took 2-3 ms of the door's run)."""
    return dag.has_sort(terms, HISTORY_SENSITIVE)


class Translations:
    """Terms of the main context translated into one other context, and values of that
    context translated back, each once: a model is evaluated on the same terms again and
    again (a method's after-state fields and enabledness bits, for each of its models),
    and translating a field's term copies its whole path condition into the context
    (zipfile.ZipFile: 30 K translations, 0.4 s of a 5.8 s run, before). Both sides of
    each pair are kept alive, so that an id is never reused for another term while it is
    a key."""

    def __init__(self, ctx: z3.Context) -> None:
        self.ctx = ctx
        self._into: dict[int, tuple[Any, Any]] = {}  # main term id -> (main term, its translation)
        self._back: dict[int, tuple[Any, Any]] = {}  # context term id -> (it, its main-context copy)

    def into(self, term: Any) -> Any:
        """`term` (of the main context) in the context."""
        key = F.node_id(term)
        hit = self._into.get(key)
        if hit is None:
            hit = self._into[key] = (term, term.translate(self.ctx))
        return hit[1]

    def into_all(self, terms: list[Any]) -> list[Any]:
        """`into` of each term, those not translated yet in one translation (z3's
        ast_translation, whose cache then spans them all): a solver's assertions share most
        of their nodes (a method's raise conditions, its after-state in every enabledness
        bit), which one by one were walked again for each. z3 gives a node made again its
        existing id, so the same nodes get the same ids, in the same order."""
        fresh: dict[int, Any] = {}
        for t in terms:
            key = F.node_id(t)
            if key not in self._into:
                fresh.setdefault(key, t)
        if len(fresh) > 1:
            batch = z3.AstVector()
            for t in fresh.values():
                batch.push(t)
            made = batch.translate(self.ctx)
            for i, (key, t) in enumerate(fresh.items()):
                self._into[key] = (t, made[i])
        return [self.into(t) for t in terms]

    def back(self, value: Any) -> Any:
        """`value` (of the context) in the main context."""
        key = F.node_id(value)
        hit = self._back.get(key)
        if hit is None:
            hit = self._back[key] = (value, value.translate(z3.main_ctx()))
        return hit[1]

    def has_back(self, key: int) -> bool:
        """Whether the value of the context with this id was translated back (and is kept)."""
        return key in self._back


class IsolatedModel:
    """A model of a fresh context, read with terms of the main context (as `witness.value`
    and the post bits do): each term is translated there, evaluated, and translated back
    (through `terms`, where given: each term translated once for every model of the context)."""

    def __init__(self, model: z3.ModelRef, ctx: z3.Context, terms: Translations | None = None) -> None:
        self.model, self.ctx = model, ctx
        self.terms = terms

    def eval(self, term: Any, model_completion: bool = False) -> Any:
        if self.terms is None:
            value = self.model.eval(term.translate(self.ctx), model_completion=model_completion)
            return value.translate(z3.main_ctx())
        return self.terms.back(self.model.eval(self.terms.into(term), model_completion=model_completion))


class IsolatedSolver:
    """A solver of a fresh context, told and asked with terms of the main context (what a
    method's shared all-SAT solver is, backend.py): each term is translated there, and its
    models are read back through IsolatedModel. Only the calls the all-SAT makes.

    z3's search depends on its terms' ids, and in the main context those depend on every
    term made before (the translation of other methods, earlier queries' witnesses): the
    same `request` query of HTTPConnection ran out of its 2.5 M units on the shared solver
    in one run and took 0.14 M in a context of its own. Translated into a fresh context,
    the query's terms are numbered by the query alone: its search, and the time it takes,
    no longer depend on what the run did before it. Answers are the same (sat and unsat
    are facts about the formula); models, and so witnesses, may differ."""

    def __init__(self, assertions: list[z3.BoolRef], timeout_ms: int, *, named: bool = False) -> None:
        """`named`: the conditions of sequence-valued if-then-else terms named (seqnames.py)."""
        self.ctx = z3.Context()
        self.solver = make_solver(timeout_ms, self.ctx, core=True)
        self.terms = Translations(self.ctx)
        self._conditions = SeqConditions(self.ctx) if named else None
        self._told: list[z3.BoolRef] = []
        self._spent = 0  # the context's resource units counted so far
        self.last_units = 0  # of the last check
        self.add(*assertions)

    def add(self, *terms: z3.BoolRef) -> None:
        self._told.extend(terms)
        told = self.terms.into_all(list(terms))
        self.solver.add(*(told if self._conditions is None else self._conditions.named(told)))

    def check(self, *assumptions: z3.BoolRef) -> z3.CheckSatResult:
        """The check; `last_units` is then the z3 resource units it took (the context's count,
        of this solver alone: the same in every run)."""
        # Solver.check's C call, without its cast of each assumption to the Boolean sort
        # (Boolean terms already: the same call on the same terms)
        told = [self.terms.into(a).as_ast() for a in assumptions]
        answer = z3.CheckSatResult(C.Z3_solver_check_assumptions(self.ctx.ref(), self.solver.solver, len(told),
                                                                 (z3.Ast * len(told))(*told)))
        spent = units_counted(self.solver)
        self.last_units, self._spent = spent - self._spent, spent
        return answer

    def model(self) -> IsolatedModel:
        return IsolatedModel(self.solver.model(), self.ctx, self.terms)

    def assertions(self) -> list[z3.BoolRef]:
        """What the solver was told, as told (terms of the main context)."""
        return list(self._told)

    def set(self, key: str, value: Any) -> None:
        self.solver.set(key, value)

    def reason_unknown(self) -> str:
        return str(self.solver.reason_unknown())


def solver_in(ctx: z3.Context, timeout_ms: int, *, core: bool = False) -> z3.Solver:
    """A solver of `ctx`, with make_solver's settings."""
    return make_solver(timeout_ms, ctx, core=core)


__all__ = ["IsolatedModel", "IsolatedSolver", "Translations", "history_sensitive", "solver_in"]

"""Answers reused across states: the z3 backend's queries asked per independent part.

`split.py` cuts the query about (state, method) into parts sharing no symbol. Each part
is answered once per pattern of the source bits it reads (all-SAT over the post bits it
decides, with a witness per answer) and the answer is cached; a part the method does
not touch copies its bits from the source, and its witness is shared by every method
leaving it alone. The targets of a pair are the products of its parts' answers: the
same set the whole query's all-SAT gives, in a number of queries that grows with the
number of distinct part patterns, not with the number of states (2^N for N independent
flags, against about 2N part patterns).

Only exact translations are split (no quantified enabledness, no untranslated path in
the method); a part the solver cannot decide makes the caller ask the whole query.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import z3

from contractor.backend import Enabled, Target
from contractor.typestate import Certainty
from contractor.z3backend import fastterms as F
from contractor.z3backend.isolated import IsolatedModel, history_sensitive, solver_in
from contractor.z3backend.readable import Budget, TruthTable, conjunction_of_literals, truth_table
from contractor.z3backend.split import Group, SymbolIndex, method_groups, state_groups
from contractor.z3backend.z3util import make_solver, truth

if TYPE_CHECKING:  # the backend imports this module
    from contractor.z3backend.backend import Z3Backend

USE_TABLES = True  # readable invariants of small groups from truth tables (tests compare with the solver's)
Answer = tuple[Enabled, dict[tuple[str, str], Any]]  # the post bits set in one part, its witness values


@dataclass
class MethodSplit:
    """The parts of one method's queries, with the cache key of each part."""

    name: str
    parts: list[tuple[Group, object, frozenset[str], bool]]  # group, cache key, actions read, copied?
    order: dict[str, list[str]]  # witness layout: part -> names, in Z3Backend.witness's order


class Reuse:
    """Cached per-part answers for one backend (one class)."""

    def __init__(self, backend: Z3Backend) -> None:
        self.b = backend
        self.index = SymbolIndex()
        self.splits: dict[str, MethodSplit | None] = {}
        self.answers: dict[tuple[object, Enabled], list[Answer] | None] = {}
        self._state_groups: list[Group] | None = None
        self._literals: dict[tuple[int, Enabled], list[z3.BoolRef] | None] = {}
        self._solvers: dict[int, z3.Solver] = {}
        self._tables: dict[int, TruthTable | None] = {}  # group index -> its truth table
        self._canonical: dict[object, Group] = {}
        self._sensitive: dict[int, bool] = {}  # id(group) -> do its models depend on history?
        self._contexts: dict[int, z3.Context] = {}  # id(group) -> its own context
        self._ready: bool | None = None  # a copied part's key -> the group that answers it

    # -- transitions -------------------------------------------------------------------

    def split(self, name: str) -> MethodSplit | None:
        if not self.splits:  # all at once, in a fixed order: the same z3 terms in every run
            for action in sorted(self.b.model.actions):
                if self.b.past_deadline():
                    # each split translates its method and rewrites its formulas, no query
                    # checks the deadline there: smtplib.SMTP's 28 went 15 s past its budget
                    self.splits.clear()
                    self.b.end_if_spent()
                self.splits[action] = self._make_split(action)
            # A copied part shared by several methods is always answered from the first
            # one's group, whichever method asks first (a worker of a parallel run asks in
            # another order than one process): the same constraints, so the same witness.
            for split in self.splits.values():
                for g, key, _, copy in split.parts if split is not None else ():
                    if copy:
                        self._canonical.setdefault(key, g)
        if name not in self.splits:
            self.splits[name] = self._make_split(name)
        return self.splits[name]

    def _make_split(self, name: str) -> MethodSplit | None:
        b, sem = self.b, self.b.sem
        if sem.quantified or sem.distinct_seqs:
            return None  # enabledness bits or set/dict distinctness need lazy refinement: whole queries
        if sem.past_invariant:
            return None  # an invariant exact within the bound only: whole queries ask where (invregion.py)
        built = b.base(name)
        if built is None:
            return None
        parts, o = built
        if not z3.is_false(o.unknown):
            return None
        try:
            inv_after = sem.invariant_after(o.after)
            after_enabled = sem.at_all(sem.enabled, o.after)
        except Exception:  # an after-state the substitution cannot express: whole queries
            return None
        groups = method_groups(self.index, parts, sem.invariant, inv_after, sem.enabled, after_enabled,
                               sem.fields, o.args, o.after)
        copies = [not g.touched for g in groups]
        keys = [("copy", g.signature()) if c else (name, i) for i, (g, c) in enumerate(zip(groups, copies))]
        order = {"fields": list(sem.fields), "args": list(o.args), "after": list(o.after)}
        return MethodSplit(name, [(g, k, frozenset(g.pre), c) for g, k, c in zip(groups, keys, copies)], order)

    def targets(self, name: str, source: Enabled, reason: str | None) -> list[Target] | None:
        """The targets of (source, name), or None: not splittable, or a part undecided."""
        s = self.split(name)
        if s is None:
            return None
        per_group = []
        for g, key, pre, copy in s.parts:
            cache_key = (key, source & pre)
            answer = self.answers.get(cache_key, ())
            if answer == ():
                answer = self.answers[cache_key] = self._answer(self._canonical.get(key, g), cache_key[1], copy)
            if answer is None:
                return None
            if not answer:
                return []
            per_group.append(answer)
        certainty: Certainty = "may" if reason else "must"
        combos: Iterable[tuple[tuple[frozenset[str], dict[Any, Any]], ...]]
        if all(len(a) == 1 for a in per_group):  # one target (the common case): no product
            combos = [tuple(a[0] for a in per_group)]
        else:
            combos = itertools.product(*per_group)
        out = []
        for combo in combos:
            enabled = frozenset().union(*(bits for bits, _ in combo))
            values: dict[tuple[str, str], Any] = {}
            for _, w in combo:
                values.update(w)
            out.append(Target(enabled, certainty, self._witness(s.order, values), "z3", reason))
        return out

    def _answer(self, g: Group, pattern: Enabled, copy: bool) -> list[Answer] | None:
        """All-SAT over the part's post bits, the source bits it reads fixed by `pattern`.
        A part over lists or strings of a class that may be explored in parallel is solved
        in a context of its own (see isolated.py)."""
        ctx = self._isolation(g, copy)
        timeout = self.b.timeout_ms
        solver = make_solver(timeout, core=True) if ctx is None else solver_in(ctx, timeout, core=True)

        def here(e: z3.BoolRef) -> z3.BoolRef:
            return e if ctx is None else e.translate(ctx)

        F.add(solver, *[here(c) for c in g.constraints])
        F.add(solver, *[here(e if a in pattern else F.not_(e)) for a, e in g.pre.items()])
        out: list[Answer] = []
        while True:
            r = self.b.check(solver)
            if r == z3.unknown:
                return None
            if r == z3.unsat:
                return out
            m = solver.model() if ctx is None else IsolatedModel(solver.model(), ctx)
            values = {a: truth(m, e) for a, e in g.post.items()}
            if not copy and None in values.values():
                return None  # the model leaves a bit undecided: the whole query decides
            bits = frozenset(pattern) if copy else frozenset(a for a, v in values.items() if v)
            out.append((bits, {(part, k): self.b.value(m, v) for part, k, v in g.terms}))
            if copy or not g.post:
                return out  # a copied part, or one deciding no bit, has exactly one answer
            F.add(solver, here(F.or_(*[F.not_(e) if a in bits else e for a, e in g.post.items()])))

    def parallel_ready(self) -> bool:
        """Every method split and decided exactly: its pairs may go to worker processes."""
        if self._ready is None:
            b = self.b
            self._ready = all(self.split(m) is not None and b.inexact_reason(m) is None
                              and b.method_outside_reason(m) is None for m in sorted(b.model.actions))
        return self._ready

    def _isolation(self, g: Group, copy: bool) -> z3.Context | None:
        """The context to solve `g` in: None (the main one), or, for a part whose models
        depend on history in a class that may go parallel, its own: one per part, which
        sees the part's answers in the same order in one process and in the worker owning
        the method; one per answer for a copied part, which several methods ask in an
        order that depends on the run."""
        if not self.parallel_ready():
            return None
        key = id(g)
        if key not in self._sensitive:
            terms = [*g.constraints, *(v.z for _, _, v in g.terms if isinstance(v.z, z3.ExprRef))]
            self._sensitive[key] = history_sensitive(terms)
        if not self._sensitive[key]:
            return None
        return z3.Context() if copy else self._contexts.setdefault(key, z3.Context())

    @staticmethod
    def _witness(order: dict[str, list[str]], values: dict[tuple[str, str], Any]) -> dict[str, Any]:
        return {"fields": {k: values[("fields", k)] for k in order["fields"] if ("fields", k) in values},
                "args": {k: values[("args", k)] for k in order["args"] if ("args", k) in values},
                "after": {k: values[("after", k)] for k in order["after"] if ("after", k) in values}}

    # -- readable state invariants ---------------------------------------------------------

    def state_literals(self, enabled: Enabled, budget: Budget | None = None) -> list[z3.BoolRef] | None:
        """conjunction_of_literals of the state's whole pattern, computed part by part: the
        greedy choice of each part is independent of the others' literals, so the union,
        in the whole pattern's atom order, is the same list. None: some part had none."""
        if self._state_groups is None:
            self._state_groups = state_groups(self.index, self.b.sem.invariant, self.b.sem.enabled)
        lits: list[z3.BoolRef] = []
        for i, g in enumerate(self._state_groups):
            pattern = enabled.intersection(g.pre)
            key = (i, pattern)
            if key not in self._literals:
                table = self._table(i, g, budget) if USE_TABLES else None
                if table is not None:  # read off the group's truth table: no query per state
                    self._literals[key] = table.literals(tuple(a in pattern for a in g.pre))
                else:
                    if i not in self._solvers:
                        self._solvers[i] = make_solver(2000)
                        self._solvers[i].add(*g.constraints)
                    formula = [e if a in pattern else z3.Not(e) for a, e in g.pre.items()]
                    self._literals[key] = conjunction_of_literals(formula, self._solvers[i], self.b._count, budget,
                                                                  self.b.atom_order) if formula else []
            part = self._literals[key]
            if part is None:
                return None
            lits.extend(part)
        return sorted(lits, key=self._literal_order)

    def _table(self, i: int, g: Group, budget: Budget | None) -> TruthTable | None:
        """Group i's truth table (readable.truth_table), built once; None where it has no
        enabledness bits or more atoms than a table is built over."""
        if i not in self._tables:
            try:
                self._tables[i] = truth_table(g.constraints, list(g.pre.values()), self.b._count, budget,
                                              self.b.atom_order) if g.pre else None
            except ValueError:  # more than MAX_TABLE_ATOMS atoms
                self._tables[i] = None
        return self._tables[i]

    def _literal_order(self, lit: z3.BoolRef) -> tuple[int, str]:
        """The order conjunction_of_literals keeps: by atom, as `atoms` sorts them (an atom
        is never a negation, so a negated literal's atom is its argument)."""
        return self.b.atom_order.key(lit.arg(0) if z3.is_not(lit) else lit)


__all__ = ["MethodSplit", "Reuse"]

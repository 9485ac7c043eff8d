"""The z3 backend: answers the explorer's queries by all-SAT enumeration of target states.

For a source state S and method m it asks one incremental solver (per method, S asked
as assumptions: incremental.py) for a pre-object in S
(invariant plus S's enabledness pattern), arguments meeting m's precondition, and normal
termination; the post-object's enabledness bits are the projection. Each model gives a
target; a blocking clause excludes it; the final unsatisfiable answer proves there are no
others. So a (state, method) pair costs (number of targets + 1) queries, plus one more
when the method has paths the translation could not follow (their targets are may).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import z3

from contractor.backend import Enabled, Target
from contractor.errors import BudgetSpent, UnsupportedConstruct
from contractor.model import ClassModel
from contractor.typestate import Finding, FindingKind, StateInvariant, Unknown
from contractor.z3backend import fastterms as F
from contractor.z3backend import phases as P
from contractor.z3backend import values as V
from contractor.z3backend import witness as W
from contractor.z3backend.encoding import MAX_REFINEMENTS, OK, REFINED, Encoder
from contractor.z3backend.guards import IN_GUARDS
from contractor.z3backend.incremental import Guards
from contractor.z3backend.invregion import past_region
from contractor.z3backend.invtext import InvariantText
from contractor.z3backend.isolated import IsolatedSolver
from contractor.z3backend.nextmodel import NextModel, NextModels
from contractor.z3backend.readable import AtomOrder
from contractor.z3backend.reuse import Reuse
from contractor.z3backend.semantics import ClassSemantics, Outcome
from contractor.z3backend.state import Site
from contractor.z3backend.values import Val
from contractor.z3backend.z3util import Effort, make_solver, truth

MAX_FALLBACK_CANDIDATES = 4096
Bits = dict[str, z3.BoolRef]  # an enabledness bit per action, of one object
Prepared = tuple[z3.Solver, Encoder, Bits | None, Bits]  # solver, encoder, pre bits (with a source), post bits
# a query on a method's shared incremental solver, in z3's resource units (z3util.Effort:
# the same at every load, so whether the rest of an enumeration's phase is asked afresh,
# and the witnesses that follow, no longer depend on how busy the machine is). The most
# any of HTTPConnection's, smtplib.SMTP's or zipfile.ZipFile's shared checks took in a
# run that answered: 1.7 M units (about 1.2 s idle); the 2 s wall-clock limit this
# replaces was 2 to 5 M units, so a `request` check of HTTPConnection past it under load
# sent the rest of its enumeration to fresh solvers (0.7 to 2.8 s a check): runs of 16 s
# or 20-27 s. Where the shared solver does lose its way (ZipFile's constructor in some
# runs, 5 checks in a row past 3 M units) it is given up after 2.5 M. The wall-clock cap
# must differ from the solver's own timeout: z3 searched otherwise (ZipFile's constructor:
# with the timeout set again to the same 10 s and an rlimit, its 5th and 6th checks took
# 1.2 and 2.5+ M units, with any other value 0.4 and 0.1 M, as without an rlimit).
INCREMENTAL = Effort(rlimit=2_500_000, cap_ms=5_000)
# the z3 resource units a method's last check took from which the next is first tried
# from the last model (nextmodel.py): below it (about 3 ms), asking the solver costs less
# than the attempt (about 1.8 ms, failing or not; zipfile.ZipFile's extract, testzip,
# extractall: 1 ms, 10-16 K units a check). HTTPConnection's send and connect (20-400 K
# units a check, 2-60 ms) were asked 133 times with 100 K, 58 with 30 K (bench_trees
# --runs 3: 5.72 -> 5.39 s CPU; ZipFile and Wave_write the same): 20 K and 40 K about
# the same as 30 K, trying every check (0) ZipFile 4.8 -> 5.2 s
NEXT_FROM = 30_000
RELEVANCY_FREE_EXPRS = 30_000  # a method's shared solver this large (num-exprs) or more: no relevancy (simplified)
COVER_FROM = 4  # targets of one enumeration before covers lists the states
COVER_STATES = 16  # the most states covers lists
CONSTRUCTOR_RELEVANCY = 0  # z3's smt.relevancy for a constructor's queries (prepare)
SURELY_MS = 1000  # proving a method surely enabled in a state (else it is listed undecided)
SURELY_SECONDS = 5.0  # for all those proofs of a run; past it, the methods left are listed undecided


class Z3Backend:
    name = "z3"

    def __init__(self, model: ClassModel, unroll: int = 8, timeout: float = 10.0, reuse: bool = True,
                 deadline: float | None = None, merged: bool = True):
        """`reuse`: answer each independent part of a query once per source pattern
        (reuse.py); off, every (state, method) pair is one whole query (the reference).
        `deadline` (time.monotonic()): the run's budget ends then; enabledness not read by
        then is unknown (may-answers). `merged`: an enabledness bit z3 cannot decide is
        "can be enabled", listed as undecided in the states where it is not surely enabled
        (undecided.py); off (the auto backend, whose CrossHair answers give real enabled
        sets), it is a free bit splitting states."""
        self.model = model
        self.timeout_ms = int(timeout * 1000)
        self.deadline = deadline
        self.sem = ClassSemantics(model, unroll, deadline=deadline, merged=merged)
        self._undecided: dict[Enabled, tuple[str, ...]] = {}
        self._surely_spent = 0.0  # seconds of SURELY_SECONDS spent
        self.n_queries = 0
        self._unknowns: dict[tuple[str, int, str], Unknown] = {(u.method, u.line, u.construct): u
                                                               for u in self.sem.unknowns}
        self._outcomes: dict[str, Outcome | UnsupportedConstruct] = {}
        # (id(outcome), breakable?) -> (the outcome, its invariant after): invariant_after, breakable_after
        self._invariants_after: dict[tuple[int, bool], tuple[Outcome, z3.BoolRef]] = {}
        self._breakable: z3.BoolRef | None = None  # see breakable_after
        self._extra_findings: list[Finding] = []
        self._solvers: dict[str, Prepared] = {}
        self._havoc: tuple[list[Enabled], str | None] | None = None  # havoc_states
        self._every: frozenset[Enabled] | None = None  # covers' listing (empty: stopped short)
        self._guards = Guards()  # incremental.py: assumption literals of the shared solvers
        self._next = NextModels()  # nextmodel.py: all-SAT models from the last one's
        # (method, phase) -> the last model of that phase of the method's enumerations
        self._last_models: dict[tuple[str, int], z3.ModelRef | NextModel] = {}
        self._simplifications: dict[int, tuple[z3.BoolRef, z3.BoolRef]] = {}  # _simplified: id -> (term, it simplified)
        self._retired: dict[str, list[z3.BoolRef]] = {}  # method -> its enumerations' guards, retired
        self._costly: dict[str, bool] = {}  # method -> whether its last check took NEXT_FROM units
        self._heavy: bool | None = None  # whether the class's enabledness is heavy (phases.heavy)
        self.atom_order = AtomOrder()  # readable.py: shared by the invariant text and the reuse split
        self.reuse = Reuse(self) if reuse else None
        self._invariants = InvariantText(self)
        # what the exploration's witnesses showed (must answers: an object meeting the
        # invariant, enabling these methods), so the findings need not ask it again
        self.shown_enabled: set[str] = set()
        self.invariant_shown = False
        # constructors some model of the exploration showed building an object meeting the
        # invariant (a may-answer too: it rests on what outside code returned, which the
        # findings' query about the constructor assumes just the same)
        self.constructed: set[str] = set()

    # -- Backend protocol ------------------------------------------------------------

    def queries(self) -> dict[str, int]:
        return {"z3": self.n_queries}

    def unknowns(self) -> list[Unknown]:
        # conditions read while running a method (its postconditions, translated with its
        # outcome, after this backend was made) note their unknowns on the semantics
        for u in self.sem.unknowns:
            self._unknowns.setdefault((u.method, u.line, u.construct), u)
        return sorted(budget_once(self._unknowns.values()), key=lambda u: (u.line, u.method, u.construct))

    def enabledness_exact(self) -> bool:
        """Whether the invariant and every action's precondition translate (the enabled
        sets z3 reasons about are then those of real objects)."""
        return not self.sem.global_inexact and not self.sem.past_invariant

    def initial_targets(self, constructor: str) -> list[Target]:
        return self._shown(self.enumerate(constructor, None))

    def targets(self, source: Enabled, method: str) -> list[Target]:
        if self.reuse is not None:
            # per-part answers do not follow paths: where the method uses values outside code
            # chose on some path, all its answers are may
            reason = self.inexact_reason(method) or self.method_outside_reason(method)
            found = self.reuse.targets(method, source, reason)
            if found is not None:
                return self._shown(found)
        return self._shown(self.enumerate(method, source))

    def _shown(self, targets: list[Target]) -> list[Target]:
        for t in targets:
            if t.certainty == "must" and t.backend == self.name:
                self.invariant_shown = True
                self.shown_enabled.update(t.enabled)
        return targets

    def state_invariant(self, enabled: Enabled) -> StateInvariant:
        """A Python predicate on `self` that holds exactly in this state (invtext.py)."""
        return self._invariants(enabled)

    def undecided(self, enabled: Enabled) -> tuple[str, ...]:
        """The methods of the state that some of its objects may not enable (sorted): those
        whose enabledness has unknowns, unless z3 proves them surely enabled in it."""
        if enabled not in self._undecided:
            self._undecided[enabled] = tuple(m for m in sorted(enabled & self.sem.surely.keys())
                                             if not self._surely_enabled(enabled, self.sem.surely[m]))
        return self._undecided[enabled]

    def _surely_enabled(self, enabled: Enabled, lo: z3.BoolRef) -> bool:
        if z3.is_true(lo):
            return True
        left = SURELY_SECONDS - self._surely_spent
        if z3.is_false(lo) or left <= 0 or self.past_deadline():
            return False
        started = time.monotonic()
        solver = make_solver(max(1, min(self.timeout_ms, SURELY_MS, int(left * 1000))))
        solver.add(self.sem.invariant, self.pattern(enabled), z3.Not(lo))
        self.n_queries += 1
        try:
            return bool(solver.check() == z3.unsat)  # unknown: undecided
        finally:
            self._surely_spent += time.monotonic() - started

    def _count(self) -> None:
        self.n_queries += 1

    def findings(self) -> list[Finding]:
        from contractor.z3backend.checks import method_findings

        try:
            return method_findings(self) + self._extra_findings
        except z3.Z3Exception:
            # the run's budget ran out between two queries: the watchdog's interrupt stays
            # pending in z3 and fails the next call on a model ("canceled"), where a query
            # would have answered unknown. The findings not checked yet may be missing
            if not self.past_deadline():
                raise
            return [*self._extra_findings, Finding(
                FindingKind.UNKNOWN, "the run's budget (--budget) ran out while the methods were checked "
                "for findings: findings may be missing")]

    # -- the queries ---------------------------------------------------------------------

    def pattern(self, enabled: Enabled) -> z3.BoolRef:
        return z3.And(*[e if m in enabled else z3.Not(e) for m, e in self.sem.enabled.items()])

    def outcome(self, name: str) -> Outcome | UnsupportedConstruct:
        if name not in self._outcomes:
            method = self.model.methods[name]
            try:
                if name in self.model.constructors:
                    o = self.sem.construct(method, f"{name}@")
                else:
                    o = self.sem.run_once(method, guards=False)
                for site in o.unknowns:
                    self.note_unknown(site)
                self._outcomes[name] = o
            except UnsupportedConstruct as err:
                line = err.location.line if err.location else method.location.line
                self._unknowns[(name, line, err.construct)] = Unknown(name, line, err.construct, err.detail)
                self._outcomes[name] = err
        return self._outcomes[name]

    def invariant_after(self, o: Outcome) -> z3.BoolRef:
        """The class invariant of the object `o` produced (`sem.invariant_after`), rewritten
        once per outcome: the exploration's split and the findings both ask for it. Raises
        UnsupportedConstruct, uncached, where the substitution cannot express it."""
        return self._after(o, False)

    def breakable_after(self, o: Outcome) -> z3.BoolRef:
        """The part of the invariant after `o` a run can break (checks.breakable_invariant,
        what the findings check), rewritten once per outcome; `invariant_after` where no
        field is untyped."""
        if self._breakable is None:  # made when the findings first ask (checks.breakable_invariant)
            from contractor.z3backend.checks import breakable_invariant

            self._breakable = breakable_invariant(self.sem)
        return self._after(o, self._breakable is not self.sem.post_invariant)

    def _after(self, o: Outcome, breakable: bool) -> z3.BoolRef:
        key = (id(o), breakable)
        hit = self._invariants_after.get(key)
        if hit is not None and hit[0] is o:
            return hit[1]
        whole = self._breakable if breakable and self._breakable is not None else self.sem.post_invariant
        formula = self.sem.at(whole, o.after)
        self._invariants_after[key] = (o, formula)  # the outcome kept alive: its id stays its own
        return formula

    def note_unknown(self, site: Site) -> None:
        """A construct the translation of a method's transitions did not follow; noted once,
        saying where it cost exactness when its raise guards met it too."""
        key = (site.method, site.line, site.what)
        known = self._unknowns.get(key)
        if known is None:
            self._unknowns[key] = Unknown(site.method, site.line, site.what, site.detail)
        elif known.detail == IN_GUARDS:
            self._unknowns[key] = replace(known, detail=f"{IN_GUARDS} and its transitions")

    def past_deadline(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def end_if_spent(self) -> None:
        """Past the run's budget, end it (the explorer makes the typestate partial)."""
        if self.past_deadline():
            raise BudgetSpent("the run's budget was used up")

    def check(self, solver: z3.Solver, *extra: z3.BoolRef) -> z3.CheckSatResult:
        # past the run's budget every query would answer unknown at once, and the loops
        # asking them (all-SAT, the fallback's candidates) would run on, keeping each
        # unanswered one as a may-state: the explorer ends the run partial instead
        self.end_if_spent()
        self.n_queries += 1
        return solver.check(*extra)

    def base(self, name: str) -> tuple[list[z3.BoolRef], Outcome] | None:
        """Constraints of a query about `name` (arguments, precondition, normal termination)."""
        o = self.outcome(name)
        if isinstance(o, UnsupportedConstruct):
            return None
        parts = [V.well_formed(v, asserted=True) for v in o.args.values()]
        parts.append(o.pre)
        parts.append(z3.Not(o.raised))
        return parts, o

    def setup(self, parts: list[z3.BoolRef], source: Enabled | None,
              after: dict[str, Val]) -> tuple[z3.Solver, Encoder, Bits]:
        """A fresh solver holding the query with the source state's pattern asserted."""
        solver, enc, pre_bits, post_bits = self.prepare(parts, source is not None, after)
        if source is not None:
            solver.add(*self.source_pattern(pre_bits, source))
        return solver, enc, post_bits

    def prepare(self, parts: list[z3.BoolRef], with_source: bool, after: dict[str, Val]) -> Prepared:
        """A solver for a method's queries, and the enabledness bits of the pre- and post-object."""
        solver = make_solver(self.timeout_ms)
        enc = Encoder(self.sem, solver, self.timeout_ms, self._count)
        solver.add(*[self.sem.push(p) for p in parts])  # membership through the method's updates
        pre_bits = None
        if with_source:
            solver.add(self.sem.post_invariant)  # distinct set items: refined per model
            enc.distinct = list(self.sem.distinct_seqs)
            pre_bits = enc.bits(self.sem.fields, "pre")
        solver.add(self.sem.invariant_after(after) if after is not self.sem.fields else self.sem.invariant)
        post_bits = enc.bits(after, "post")
        if with_source:
            solver = enc.solver = simplified(solver, self.timeout_ms, bool(self.sem.quantified))
        else:
            # a constructor's queries (and havoc_states' listing) in a context of their own
            # too, as written: in the main context, z3's search for zipfile.ZipFile's
            # constructor took 1.0 or 1.7 s by the ids its blocking clauses got (the terms
            # covers' listing made and freed between its checks, when Python collected
            # them); on its own, 0.9 s in every run. Simplified, 1.2 s.
            solver = enc.solver = IsolatedSolver(solver.assertions(), self.timeout_ms, named=True)
            if not self.sem.quantified:
                # without relevancy filtering: zipfile.ZipFile's constructor, 10 checks of a
                # 3.5 MB formula, 0.93 -> 0.57 s (one check 0.37 -> 0.13 s); for the methods'
                # solvers it costs more than it saves (HTTPConnection 6.2 -> 6.5 s)
                solver.set("smt.relevancy", CONSTRUCTOR_RELEVANCY)
        return solver, enc, pre_bits, post_bits

    @staticmethod
    def source_pattern(pre_bits: Bits | None, source: Enabled) -> list[z3.BoolRef]:
        assert pre_bits is not None  # a solver prepared with_source
        return [b if m in source else z3.Not(b) for m, b in pre_bits.items()]

    def method_solver(self, name: str, parts: list[z3.BoolRef], o: Outcome) -> Prepared:
        """One incremental solver per method, reused for every source state (incremental.py)."""
        if name not in self._solvers:
            self._solvers[name] = self.prepare(parts, True, o.after)
        return self._solvers[name]

    def enumerate(self, name: str, source: Enabled | None) -> list[Target]:
        built = self.base(name)
        if built is None:
            return self.havoc_targets(name, source)
        parts, o = built
        try:
            if source is None:
                solver, enc, _, bits = self.prepare(parts, False, o.after)
                pattern = []
            else:
                solver, enc, pre_bits, bits = self.method_solver(name, parts, o)
                pattern = self.source_pattern(pre_bits, source)
        except UnsupportedConstruct as err:
            line = self.model.methods[name].location.line
            self._unknowns[(name, line, err.construct)] = Unknown(name, line, err.construct)
            return self.havoc_targets(name, source)
        return self.all_sat(name, source, solver, enc, bits, parts, o, pattern)

    def all_sat(self, name: str, source: Enabled | None, solver: z3.Solver, enc: Encoder, bits: Bits,
                parts: list[z3.BoolRef], o: Outcome, assume: list[z3.BoolRef] | None = None) -> list[Target]:
        """All-SAT over the post bits; `assume`: the source pattern, asked as assumptions
        of each check (the solver keeps its assertions, and what it learnt, for the next
        source: incremental.py)."""
        found: dict[Enabled, Target] = {}
        try:
            return self._all_sat(name, source, solver, enc, bits, parts, o, found, assume or [])
        except BudgetSpent as err:  # the targets found so far are shown in the partial typestate
            raise BudgetSpent(str(err), [*err.found, *found.values()]) from None

    def _all_sat(self, name: str, source: Enabled | None, solver: z3.Solver, enc: Encoder, bits: Bits,
                 parts: list[z3.BoolRef], o: Outcome, found: dict[Enabled, Target],
                 assume: list[z3.BoolRef]) -> list[Target]:
        inexact_reason = self.inexact_reason(name)
        past = self.past_invariant(o, source is not None)  # invregion.py
        # where no path ends normally on translated code alone (deadends.py), the phases of
        # followed paths have no model: not asked (smtplib.SMTP's send_message spent 2-9 M
        # resource units a source state proving it, unknown under load: its enumeration
        # then fell back to undecided candidates)
        followed = not o.no_followed_end
        phases = [(z3.Not(o.unknown) if past is None else z3.Not(z3.Or(o.unknown, past)), True)] if followed else []
        if not z3.is_false(o.unknown):
            # where the body could not be followed, its postconditions are assumed (when
            # they translate): the contract is all that is known of those paths
            assumed = o.post_ok if o.post_exact else z3.BoolVal(True)
            phases.append((self.sem.push(z3.And(o.unknown, assumed)), False))
        if past is not None and followed:  # objects where the invariant is not followed: may
            phases.append((self.sem.push(z3.And(z3.Not(o.unknown), past)), False))
        if source is not None:  # on the method's simplified solver (prepare), simplified too
            phases = [(self._simplified(cond), exact) for cond, exact in phases]
        # where every target is may whatever the phase, the phases only choose the reasons:
        # asked as one where the enabledness is heavy (phases.py)
        heavy = self.heavy_enabledness()
        asked = P.phases(phases, heavy and source is not None
                         and (inexact_reason is not None or self.method_outside_reason(name) is not None))
        refinements = 0
        shared, lemmas_to = solver, enc.solver
        shared.set("timeout", min(self.timeout_ms, INCREMENTAL.cap_ms))
        shared.set("rlimit", INCREMENTAL.rlimit)  # counted from each check's start
        # each phase's condition and this enumeration's blocking clauses are guarded by a
        # literal asked as an assumption: the shared solver keeps them (and its lemmas) at
        # its base level instead of taking them in and out for every source state
        guard = self._guards.fresh()
        # later models from the last one's after-state changed (nextmodel.py): where each
        # model is a model of the query as it stands (no lazily refined bits or items)
        # (not where the enabledness is heavy: a next model's fresh solver learns it again
        # each time, the shared solver keeps it; phases.heavy)
        nexts = source is not None and not enc.lazy and not enc.distinct and not heavy
        if nexts:
            pre_bits = self._solvers[name][2] if name in self._solvers else None
            self._next.prepare(name, self.sem.fields, o.after, bits.values(), (pre_bits or {}).values())
        try:
            for part in asked.asked:
                i, cond = part.key, part.cond
                solver = shared
                phase = self._guards.phase(shared, name, i, cond)
                if self._guards.is_empty(phase):
                    continue
                on, before = [*assume, phase, guard], len(found)
                # a phase's models are on its paths alone (the phases' conditions exclude each
                # other): the next is tried from this phase's last model, and first from the
                # last of this phase in an earlier enumeration (an earlier source state's),
                # never from another phase's (HTTPConnection's send and connect: the first
                # check from each source state, 0.1-0.3 M units, followed the last model of
                # the may phase into the exact one and failed every time)
                last: z3.ModelRef | NextModel | None = None
                earlier = self._last_models.get((name, i)) if nexts else None
                while True:
                    m = self.next_model(name, solver, on if solver is shared else [], last, earlier) \
                        if self._costly.get(name, False) else None
                    earlier = None  # (tried for the first check only)
                    if m is not None:
                        r = z3.sat
                    else:
                        r = self.check(solver, *on) if solver is shared else self.check(solver)
                        # worth a next model where the solver's checks are not cheap (a
                        # solver afresh, past the shared one's units, never is); judged by
                        # the checks a next model could have answered (sat): a phase's
                        # closing unsat (HTTPConnection's send: 8-30 K units, its models'
                        # 30-400 K) left the next phase's first check to the solver
                        if r != z3.unsat:
                            self._costly[name] = not isinstance(solver, IsolatedSolver) \
                                or solver.last_units >= NEXT_FROM
                    if r == z3.unknown and solver is shared and len(found) == before and source is not None \
                            and self._guards.worth_asking(phase) and self._empty_phase(shared, phase):
                        break
                    if r == z3.unknown and solver is shared:
                        # z3's incremental mode (one solver per method) sometimes loses its
                        # way on sequences: the same assertions, solved afresh
                        solver = make_solver(self.timeout_ms)
                        solver.add(*shared.assertions(), *on)
                        enc.solver = solver  # refinement lemmas go where the search goes on
                        r = self.check(solver)
                    if r == z3.unsat:
                        if source is not None and len(found) == before:
                            self._guards.barren(phase)
                        break
                    if r == z3.unknown:
                        return self.fallback(name, source, parts, o, found, solver.reason_unknown())
                    if m is None:
                        m = solver.model()
                    status = enc.refine(m)
                    if status == REFINED:
                        refinements += 1
                        if refinements > MAX_REFINEMENTS:
                            return self.fallback(name, source, parts, o, found,
                                                 "quantifier instantiation did not converge")
                        continue
                    if source is None:  # an object this constructor built, meeting the invariant
                        self.constructed.add(name)
                    enabled = enabled_in(m, bits)
                    if enabled is None:
                        return self.fallback(name, source, parts, o, found,
                                             "the model left an enabledness bit undecided")
                    witness = self.witness(m, o, source is not None)
                    outside = self.method_outside_reason(name)  # per method, as reuse.py answers
                    exact = asked.exact_in(part, m)
                    if exact and not inexact_reason and status == OK and outside is None:
                        found[enabled] = Target(enabled, "must", witness, "z3")
                    else:
                        reason = inexact_reason or (self.past_reason(m, o, source is not None) if not exact else None) \
                            or (self.unknown_reason(m, o.unknowns) if not exact else
                                                    outside if outside is not None else
                                                    "the enabledness of a method with parameters was undecided")
                        found[enabled] = Target(enabled, "may", witness, "z3", reason)
                    if self.covers(found.keys()):  # no other state left: every further check is unsat
                        return list(found.values())
                    if nexts:
                        last = self._last_models[(name, i)] = m
                    block = blocking(bits, enabled)
                    shared.add(z3.Implies(guard, block))
                    if solver is not shared:
                        solver.add(block)
                enc.solver = lemmas_to
        finally:
            enc.solver = lemmas_to
            shared.add(z3.Not(guard))  # this enumeration's blocking clauses are off for good
            self._retired.setdefault(name, []).append(guard)
        return list(found.values())

    def _simplified(self, cond: z3.BoolRef) -> z3.BoolRef:
        """z3.simplify(cond), once per term: a method's phases are the same terms for every
        source state (HTTPConnection: 40 simplifications of 16 terms). The term is kept
        alive with its simplification, so its id stays its own."""
        key = cond.get_id()
        hit = self._simplifications.get(key)
        if hit is None:
            hit = self._simplifications[key] = (cond, z3.simplify(cond))
        return hit[1]

    def next_model(self, name: str, solver: z3.Solver, assumptions: list[z3.BoolRef],
                   last: z3.ModelRef | NextModel | None,
                   earlier: z3.ModelRef | NextModel | None) -> NextModel | None:
        """A model of the check from this enumeration's last model, its after-state changed,
        or else from an earlier enumeration's, its pre-object changed too (nextmodel.py);
        None where neither gives one (or there is neither)."""
        if last is None and earlier is None:
            return None
        self.end_if_spent()
        self.n_queries += 1
        if last is not None:
            return self._next.next_model(name, solver, assumptions, last)
        return self._next.next_model(name, solver, assumptions, earlier, True, self._retired.get(name, []))

    def _empty_phase(self, shared: z3.Solver, phase: z3.BoolRef) -> bool:
        """Whether a phase of a method's enumeration has no model from any source state,
        asked of a fresh solver without the source pattern (incremental.Guards.empty)."""
        solver = make_solver(self.timeout_ms)
        solver.add(*shared.assertions(), phase)
        if self.check(solver) != z3.unsat:
            return False
        self._guards.empty(phase)
        return True

    def heavy_enabledness(self) -> bool:
        """Whether the class's enabledness formulas are heavy (phases.heavy), read once."""
        if self._heavy is None:
            self._heavy = P.heavy(list(self.sem.enabled.values()))
        return self._heavy

    def covers(self, found: Iterable[Enabled]) -> bool:
        """Whether `found` holds every state an object meeting the invariant can be in
        (havoc_states, listed completely, with exact bits: no lazily refined
        enabledness), so that no query can find another target. smtplib.SMTP's
        send_message reaches all 6 from 4 states, and proving there is no 7th took 1-1.6 M
        resource units each. Where no method's effect was unknown (havoc_states not
        listed), the states are listed (at most COVER_STATES of them) once an enumeration
        has found COVER_FROM targets: HTTPConnection's request, endheaders, connect and
        send reach all 8 from each source, and proving there is no 9th took request 0.6
        to 1.2 s."""
        if self.sem.quantified:
            return False
        found = set(found)
        if self._havoc is not None:
            every = set(self._havoc[0]) if self._havoc[1] is None else None
        elif len(found) < COVER_FROM:
            return False
        else:
            if self._every is None:
                states, stopped = self._list_states(COVER_STATES)
                self._every = frozenset(states) if stopped is None else frozenset()
                if stopped is None:  # the whole listing: havoc_states' too
                    self._havoc = (states, None)
            every = set(self._every) or None
        return every is not None and found >= every

    def past_invariant(self, o: Outcome, method: bool) -> z3.BoolRef | None:
        """Where the objects before (a method's) or after the call are past the bound within
        which the invariant is followed (invregion.py), or None: the invariant is exact."""
        past = past_region(self.sem.past_invariant)
        if past is None:
            return None
        after = self.sem.at(past, o.after)
        return self.sem.push(z3.Or(past, after)) if method else after

    def past_reason(self, m: z3.ModelRef, o: Outcome, method: bool) -> str | None:
        """Why a model of the may phase is not a must: the invariant past its bound, if so."""
        past = self.past_invariant(o, method)
        if past is None or not z3.is_true(m.eval(past, model_completion=True)):
            return None
        return f"the invariant is followed within --unroll only ({self.sem.past_invariant[0][1]})"

    def inexact_reason(self, name: str) -> str | None:
        """An untranslated condition the answers about `name` depend on: the invariant, an
        action's precondition (enabledness) or name's own precondition (another method's
        postcondition does not count)."""
        relevant = dict(self.sem.global_inexact)
        relevant.update({k: v for k, v in self.sem.inexact.items() if k.startswith(f"{name}:pre:")})
        if not relevant:
            return None
        k, v = min(relevant.items())
        return f"untranslated condition ({k}: {v})"

    def method_outside_reason(self, name: str) -> str | None:
        o = self.outcome(name)
        if isinstance(o, UnsupportedConstruct) or z3.is_false(o.outside):
            return None
        site = o.outside_sites[0] if o.outside_sites else None
        where = f" ({site.what}, line {site.line})" if site else ""
        return f"depends on code outside the analysed source{where}"

    def unknown_reason(self, m: z3.ModelRef, sites: list[Site]) -> str:
        for s in sites:
            if z3.is_true(m.eval(s.cond, model_completion=True)):
                return f"{s.what} (line {s.line})"
        return "untranslated construct"

    def fallback(self, name: str, source: Enabled | None, parts: list[z3.BoolRef], o: Outcome,
                 found: dict[Enabled, Target], why: str) -> list[Target]:
        """z3 could not enumerate (a timeout, a hard theory): decide candidates one by one.

        Bits that some model can make true and some false stay open; every combination of
        open bits is then asked for separately, and kept as a may-target unless refuted.
        """
        solver, enc, bits = self.setup(parts, source, o.after)
        forced: dict[str, bool | None] = {}
        for m, b in bits.items():
            can_true = self.check(solver, b) != z3.unsat
            can_false = self.check(solver, z3.Not(b)) != z3.unsat
            forced[m] = None if (can_true and can_false) else can_true
        free = [m for m, v in forced.items() if v is None]
        out = dict(found)
        if 2 ** len(free) > MAX_FALLBACK_CANDIDATES:
            self._extra_findings.append(Finding(
                FindingKind.INCOMPLETE, f"{name}: the solver answered unknown ({why}) and {len(free)} "
                f"enabledness bits stayed open; its transitions are incomplete", method=name))
            return list(out.values())
        for values in itertools.product([False, True], repeat=len(free)):
            enabled = frozenset([m for m, v in forced.items() if v] + [m for m, v in zip(free, values) if v])
            if enabled in out or not self.state_exists(enabled):
                continue
            r = self.check(solver, *[bits[m] if m in enabled else z3.Not(bits[m]) for m in bits])
            if r == z3.unsat:
                continue
            witness = self.witness(solver.model(), o, source is not None) if r == z3.sat else None
            out[enabled] = Target(enabled, "may", witness, "z3", f"solver answered unknown: {why}")
        return list(out.values())

    def state_exists(self, enabled: Enabled) -> bool:
        """Is some object (meeting the invariant) in this abstract state? Unknown counts as yes."""
        solver = make_solver(self.timeout_ms)
        enc = Encoder(self.sem, solver, self.timeout_ms, self._count)
        solver.add(self.sem.post_invariant)
        enc.distinct = list(self.sem.distinct_seqs)
        bits = enc.bits(self.sem.fields, "s")
        solver.add(*[b if m in enabled else z3.Not(b) for m, b in bits.items()])
        while True:
            r = self.check(solver)
            if r != z3.sat:
                return bool(r != z3.unsat)
            status = enc.refine(solver.model())
            if status != REFINED:
                return True

    def havoc_targets(self, name: str, source: Enabled | None) -> list[Target]:
        """The method's effect is unknown: any state consistent with the invariant, as may.
        Those states do not depend on the method or the source: listed once (havoc_states)."""
        states, unknown = self.havoc_states()
        reason = next((f"{u.construct} (line {u.line})" for u in self._unknowns.values() if u.method == name),
                      "untranslated method")
        if unknown is not None:
            self._extra_findings.append(Finding(
                FindingKind.INCOMPLETE, f"{name}: the solver answered unknown ({unknown}) "
                f"while listing the states its unknown effect can reach; its transitions are incomplete",
                method=name))
        return [Target(enabled, "may", None, "z3", reason) for enabled in states]

    def havoc_states(self) -> tuple[list[Enabled], str | None]:
        """Every state an object meeting the invariant can be in (bits a model left open
        taken both ways), and why the listing stopped short (z3's reason_unknown) or None.
        Listed on the first call only: smtplib.SMTP's sendmail, untranslated, asked it from
        each of its 6 source states, 7 checks each (3.5 s of the exploration's 30)."""
        if self._havoc is None:
            self._havoc = self._list_states(None)
        return self._havoc

    def _list_states(self, limit: int | None) -> tuple[list[Enabled], str | None]:
        """havoc_states' listing; past `limit` states (if given), stopped short."""
        fields = {k: (V.fresh(v.type, f"havoc!{k}") if v.kind != "any" else v) for k, v in self.sem.fields.items()}
        wf = [V.well_formed(v, asserted=True) for v in fields.values() if v.kind != "any"]
        solver, enc, bits = self.setup(wf, None, fields)
        out: dict[Enabled, None] = {}
        while (r := self.check(solver)) == z3.sat:
            m = solver.model()
            if enc.refine(m) == REFINED:
                continue
            values = bit_values(m, bits)
            known = {a: b for a, b in bits.items() if values[a] is not None}
            enabled = frozenset(a for a, v in values.items() if v)
            open_bits = [a for a, v in values.items() if v is None]  # either value is possible
            for chosen in itertools.product([False, True], repeat=len(open_bits)):
                out[enabled | frozenset(a for a, v in zip(open_bits, chosen) if v)] = None
            if limit is not None and len(out) > limit:
                return list(out), f"more than {limit} states"
            solver.add(blocking(known, enabled))
        return list(out), solver.reason_unknown() if r == z3.unknown else None

    # -- witnesses -------------------------------------------------------------------

    def witness(self, m: z3.ModelRef, o: Outcome, with_source: bool) -> dict[str, Any]:
        return W.witness(m, o, self.sem.fields, with_source)

    def value(self, m: z3.ModelRef, v: Val) -> Any:
        return W.value(m, v)


def simplified(solver: z3.Solver, timeout_ms: int, quantified: bool = False) -> IsolatedSolver:
    """A solver holding `solver`'s assertions, each rewritten by z3.simplify (an equivalent
    formula: the same models, so the same answers; witnesses may differ), in a z3 context
    of its own (isolated.IsolatedSolver: its search does not depend on the terms the run
    made before; HTTPConnection's `request` ran past its 2.5 M units on a solver of the main
    context from both its source states, then took 1 to 1.3 s a check afresh; 0.14 to
    0.6 s for its first check in a context of its own, the same in every run).

    A method's shared solver (the whole-query all-SAT from a source state) answers checks
    with assumptions on z3's SMT core, which does not run a fresh solver's preprocessing:
    the translation's raise conditions nest (`And(Not(False), ...)`, the same prefixes
    again and again) and the core searched them as written. HTTPConnection's `request`,
    its 20 checks replayed with 6 random seeds: 1.1 to 15 s (median 3.1 s, 1.8 to 18 M
    resource units) as written, 0.6 to 1.2 s (median 0.9 s, 0.9 to 1.9 M) simplified;
    `endheaders` median 0.47 -> 0.29 s.

    Where the query is large (RELEVANCY_FREE_EXPRS), the solver does not track which atoms
    are relevant (`smt.relevancy` 0): z3's default (2) assigns only the atoms the formula's
    Boolean structure makes relevant, and on the deep nests of raise conditions of a method
    inlining most of its class its search wandered. HTTPConnection's `request` (177 K
    expressions, 7.2 K distinct nodes), its first check replayed with 5 random seeds: 0.2
    to 1.7 M resource units with relevancy, 0.14 to 0.26 M without; in runs 0.8 -> 0.12 M;
    `endheaders` (61 K) about the same. Its small queries (`send`, `connect`: 4 to 11 K
    expressions, 60-70 checks of 0.02-0.05 M units) took a third more units without
    relevancy, so they keep it; smtplib.SMTP's (10-17 K distinct nodes) took the same
    time either way (36 s). Not where a precondition is quantified (`quantified`): z3
    instantiates quantifiers on the relevant terms (as a constructor's solver, prepare).
    Answers are the same (a search heuristic); models, and so witnesses, may differ."""
    told = [z3.simplify(a) for a in solver.assertions()]
    shared = IsolatedSolver(told, timeout_ms)
    if told and not quantified and expressions(told) >= RELEVANCY_FREE_EXPRS:
        shared.set("smt.relevancy", 0)
    return shared


def expressions(terms: list[z3.BoolRef]) -> float:
    """z3's count of the expressions of a goal holding `terms` (the `num-exprs` probe; the
    goal splits conjunctions and pushes negations in, so it counts more than the distinct
    nodes: HTTPConnection's `request` 177 to 226 K for 7.2 K). Computed in z3: a
    millisecond, where a walk of the distinct nodes from Python took 0.1 s."""
    goal = z3.Goal(ctx=terms[0].ctx)
    goal.add(*terms)
    return float(z3.Probe("num-exprs", ctx=terms[0].ctx)(goal))


def enabled_in(model: z3.ModelRef, bits: dict[str, z3.BoolRef]) -> Enabled | None:
    """The abstract state a model gives the object whose enabledness bits these are (None:
    the model leaves some bit undecided)."""
    values = bit_values(model, bits)
    if any(v is None for v in values.values()):
        return None
    return frozenset(m for m, v in values.items() if v)


def bit_values(model: z3.ModelRef, bits: dict[str, z3.BoolRef]) -> dict[str, bool | None]:
    return {m: truth(model, b) for m, b in bits.items()}


def blocking(bits: dict[str, z3.BoolRef], enabled: Enabled) -> z3.BoolRef:
    """The clause excluding one abstract state from further models (all-SAT)."""
    if not bits:
        return z3.BoolVal(False)
    # the terms `z3.Or(*[b != z3.BoolVal(m in enabled) ...])` makes, by fastterms' C calls
    # (a fifth of the binding's time went into coercing the 28 bits of smtplib.SMTP)
    values = {True: z3.BoolVal(True), False: z3.BoolVal(False)}
    return F.or_(*[F.ne(b, values[m in enabled]) for m, b in bits.items()])


# in what the unknowns the run's budget made say (TranslationOutOfTime, out_of_budget, METHOD_SHARE_STATEMENTS)
BUDGET = "budget"


def budget_once(unknowns: Iterable[Unknown]) -> list[Unknown]:
    """One unknown per method the run's budget cut: its raise guards and its transitions are
    each translated (or not) and each noted, but one entry says what happened to it: the
    translation stopping (where it stopped, the latest line) before a reading never begun,
    with every reading it cost (the details)."""
    out: list[Unknown] = []
    cut: dict[str, list[Unknown]] = {}
    for u in unknowns:
        (cut.setdefault(u.method, []) if BUDGET in u.construct else out).append(u)
    for entries in cut.values():
        kept = max(entries, key=lambda u: ("while translating" in u.construct, u.line))
        details = list(dict.fromkeys(u.detail for u in entries if u.detail))
        out.append(Unknown(kept.method, kept.line, kept.construct, "; ".join(details)))
    return out

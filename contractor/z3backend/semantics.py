"""The z3 meaning of a class: its objects as field constants, its invariant, each action's
enabledness, and each method's effect, built once per class from the class model.

An object c is a tuple of field constants; `enabled[m]` is `exists p. pre_m(c, p)` (with
quantifiers eliminated where z3 can); the effect of a method is the post-state's field
terms plus the flags `raised` (an exception ends the call) and `unknown` (a path the
translation could not follow).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import z3

from contractor.errors import CalleePastShare, TranslationOutOfTime, UnsupportedConstruct
from contractor.model import ClassModel, Condition, Method, TypeKind, TypeRef
from contractor.typestate import Unknown
from contractor.z3backend import fastterms as F
from contractor.z3backend import values as V
from contractor.z3backend.boolcompact import compact
from contractor.z3backend.classlevel import class_defaults
from contractor.z3backend.deadends import no_followed_normal_end
from contractor.z3backend.executor import Executor
from contractor.z3backend.facts import ClassFacts
from contractor.z3backend.fieldtypes import may_hold_self, modelled, z3_field_type
from contractor.z3backend.guardorder import cheapest_first
from contractor.z3backend.invregion import region
from contractor.z3backend.lenbounds import LenBounds
from contractor.z3backend.membership import Memo, left_alone, push_all
from contractor.z3backend.miniscope import miniscope
from contractor.z3backend.paramwrites import MUTABLE_KINDS, changed_arguments, names_in
from contractor.z3backend.state import OLD, SELF, TRUE, ExecState, Site
from contractor.z3backend.values import Val
from contractor.z3backend.z3util import QE, Effort, eliminate_quantifiers

OPAQUE = "__opaque__"
# statements one method's translation may run under a run's budget (those of the callees
# it inlines too, a loop body's each time it is unrolled): past it the method is
# untranslated (its enabledness unknown, its answers may), not the rest of the run. A
# count, so the methods it stops are the same at any load; the 6 s of wall clock this was
# stopped smtplib.SMTP's `sendmail` or let it end, by the load. The largest translations
# that end: SMTP's `auth` 594 statements (1.2 s), the other standard-library classes of
# issue 8, the samples and the Contractor.NET classes at most 118. SMTP's `sendmail` (1424
# statements, 5 s, then its dict result has no sort) and `send_message` (1100 at 6 s) never
# ended translated: stopped at 800 statements, after 1.7 and 4.4 s
METHOD_SHARE_STATEMENTS = 800
# the part of what is left of a run's budget that reading the raise guards may take: the
# exploration gets the rest (smtplib.SMTP's guards took all of --budget 10, leaving no
# query: the typestate was the state `unexplored` alone)
GUARDS_SHARE = 0.6


def has_opaque_fields(model: ClassModel) -> bool:
    return any(z3_field_type(model, name).kind == "any" for name in model.fields)


def blank_object(model: ClassModel) -> dict[str, Val]:
    """A new object before __init__: fields with a class-level default z3 models have it,
    others are unset (reading one whose class-level value is not translated is itself
    not translated: Executor.get_attribute)."""
    defaults = class_defaults(model)
    fields: dict[str, Val] = {}
    if has_opaque_fields(model):
        fields[OPAQUE] = V.fresh(TypeRef(TypeKind.INT), "blank!" + OPAQUE)
    for name in model.fields:
        ftype = z3_field_type(model, name)
        if ftype.kind == "any":
            fields[name] = Val(ftype, None)
        elif (default := defaults.get(name)) is not None:
            fields[name] = V.coerce(default, ftype)
        else:
            fields[name] = Val(TypeRef(TypeKind.UNDEFINED, (ftype,)), None)
    return fields


def unfinished_result(ex: Executor, method: Method, result: Val) -> Val:
    """The call's result where its path was not followed to the end (a loop past the
    bound, recursion past the inlining depth, an untranslated statement): arbitrary, of
    the declared return type (or of the type the followed paths return)."""
    unknown = z3.simplify(ex.state.unknown)
    if z3.is_false(unknown) or result.kind == "any":  # "any": untranslated where it is used
        return result
    declared = method.returns if method.returns is not None and modelled(method.returns) else None
    rtype = declared or (result.type if result.kind not in ("none", "class", "any") else None)
    if rtype is None or not modelled(rtype):
        return result
    return V.ite(unknown, ex.fresh(rtype, "__return__"), result)


@contextlib.contextmanager
def out_of_time_untranslated() -> Iterator[None]:
    """A translation the run's budget cut short is an untranslated method (may-answers)."""
    try:
        yield
    except TranslationOutOfTime as err:
        raise UnsupportedConstruct(str(err), err.location) from None


@dataclass
class Outcome:
    """What running a method from given fields and arguments does."""

    after: dict[str, Val]
    result: Val
    raised: z3.BoolRef
    unknown: z3.BoolRef
    raises: list[Site]
    unknowns: list[Site]
    args: dict[str, Val]
    pre: z3.BoolRef = TRUE  # the method's precondition over the fields and `args`
    post_ok: z3.BoolRef = TRUE  # the method's postconditions hold (given normal termination)
    post_exact: bool = True
    explicit: z3.BoolRef = field(default_factory=lambda: z3.BoolVal(False))  # ends in an explicit raise
    outside: z3.BoolRef = field(default_factory=lambda: z3.BoolVal(False))  # used outside code's values
    outside_sites: list[Site] = field(default_factory=list)
    # no path ends normally through translated code alone (a proof by the terms' shape,
    # deadends.py): the exploration's exact phase has no model from any source state
    no_followed_end: bool = False


@dataclass
class ClassSemantics:
    model: ClassModel
    unroll: int = 8
    qe_effort: Effort = QE  # each elimination of a quantifier (z3util.eliminate_quantifiers)
    # time.monotonic() value after which enabledness is no longer read (the run's budget):
    # each remaining action's enabledness is then an unknown predicate (its answers may)
    deadline: float | None = None
    # undecided enabledness bits bounded (undecided.py): `enabled[m]` is then "can be
    # enabled" and `surely[m]` "surely enabled" for a method whose enabledness has unknowns
    merged: bool = False
    fields: dict[str, Val] = field(init=False)
    constants: dict[str, Any] = field(init=False)
    facts: ClassFacts = field(init=False)
    wf: z3.BoolRef = field(init=False)
    invariant: z3.BoolRef = field(init=False)
    enabled: dict[str, z3.BoolRef] = field(init=False)
    # time.monotonic() value after which no more raise guards are read (GUARDS_SHARE)
    guards_deadline: float | None = field(init=False)
    reading_guards: bool = field(init=False)  # while the enabledness of each action is read
    surely: dict[str, z3.BoolRef] = field(init=False)  # merged: m -> lo, for m whose enabledness has unknowns
    quantified: dict[str, tuple[dict[str, Val], z3.BoolRef]] = field(init=False)  # m -> (params, pre)
    inexact: dict[str, str] = field(init=False)  # formula name -> why it is approximate
    # the set and dict fields' lengths the invariant bounds: quantifiers over them unrolled (lenbounds.py)
    len_bounds: LenBounds = field(init=False)
    global_inexact: dict[str, str] = field(init=False)  # those in the invariant and enabledness
    # the invariant's conditions followed only within the unroll bound: (where not, over the
    # fields; why) -- answers about objects there are may (invregion.py)
    past_invariant: list[tuple[z3.BoolRef, str]] = field(init=False)
    unknowns: list[Unknown] = field(init=False)
    # method -> its one translation (oneread.py), or why it has none
    runs: dict[str, Outcome | UnsupportedConstruct] = field(init=False)
    # the methods whose own translation ran past its share (METHOD_SHARE_STATEMENTS): a later
    # translation calling one stops at the call (CalleePastShare)
    past_share: set[str] = field(init=False)
    # push's rewritings by the formula's node id: formula -> (formula kept alive, rewriting)
    pushed: dict[int, tuple[z3.BoolRef, z3.BoolRef]] = field(init=False)
    walk_memo: Memo | None = field(init=False)  # see `walked`
    # at_all's formulas (by their node ids, kept alive) -> whether push leaves them, with any
    # terms substituted in that it leaves too, as they are (membership.left_alone)
    pushed_alone: dict[tuple[int, ...], tuple[list[z3.BoolRef], bool]] = field(init=False)

    def __post_init__(self) -> None:
        self.runs = {}
        self.past_share = set()
        self.pushed = {}
        self.walk_memo = None
        self.pushed_alone = {}
        self.constants = dict(self.model.module_constants)
        self.facts = ClassFacts.read(self.model)  # where `self` escapes, the file's plain classes
        self.inexact = {}
        self.past_invariant = []
        self.unknowns = []
        self.quantified = {}
        self.fields = {}
        self.guards_deadline = None
        self.reading_guards = False
        if has_opaque_fields(self.model):
            # stands for the fields z3 does not model: every write to one changes it, and
            # conditions that could not be translated depend on it, so they may change too
            self.fields[OPAQUE] = V.fresh(TypeRef(TypeKind.INT), OPAQUE)
        for name in self.model.fields:
            ftype = z3_field_type(self.model, name)
            self.fields[name] = Val(ftype, None) if ftype.kind == "any" else V.fresh(ftype, name)
        # asserted: the invariant is only ever assumed (solvers, contexts), never negated
        self.wf = z3.And(*[V.well_formed(v, asserted=True) for v in self.fields.values() if v.kind != "any"])
        inv = self.conditions(self.model.invariants, self.fields, {}, "invariant")
        self.invariant = z3.And(self.wf, inv)
        # for objects a method built: their sets and dicts have distinct items by construction
        self.post_invariant = z3.And(*[V.well_formed(v, distinct=False) for v in self.fields.values()
                                       if v.kind != "any"], inv)
        # the explorer's queries use post_invariant for the object too, and check the
        # distinctness of these per model (encoding.py) instead of by a quantifier
        self.distinct_seqs = [(V.seq_of(v), len(v.type.args[0].members) if v.type.args[0].kind == "enum" else 0)
                              for v in self.fields.values() if v.kind in ("set", "dict")]
        self.len_bounds = LenBounds.read(inv, [seq for seq, _ in self.distinct_seqs])
        of_invariant = dict(self.inexact)
        now = time.monotonic()
        self.guards_deadline = None if self.deadline is None else now + GUARDS_SHARE * max(0.0, self.deadline - now)
        # under a budget, the cheapest guards first (guardorder.py): the budget then reads as
        # many as it can, and those it does not are unknown (may)
        order = cheapest_first(self.model, self.model.actions) if self.deadline is not None else self.model.actions
        self.reading_guards = True
        try:
            read = {m: self.bounded_enabledness(self.model.methods[m]) for m in order}
        finally:
            self.reading_guards = False
        # equivalent, and small where a guard's raise conditions nest (boolcompact.py)
        self.enabled = {m: compact(read[m]) for m in self.model.actions}
        self.global_inexact = dict(self.inexact)  # every answer depends on these
        self.surely = {}
        if self.merged:
            self.bound_unknowns(of_invariant)

    def bound_unknowns(self, of_invariant: dict[str, str]) -> None:
        """Each enabledness with unknown predicates becomes its "can be enabled" bound (the
        state's bit, a known formula), its "surely enabled" bound kept in `surely`. Answers
        then depend on the invariant's unknowns only, not on the other actions'."""
        from contractor.z3backend.undecided import bounds, unknown_names

        keep = unknown_names(self.invariant)
        for m, f in self.enabled.items():
            found = bounds(f, keep)
            if found is not None:
                self.enabled[m], self.surely[m] = found
        self.global_inexact = of_invariant

    # -- building blocks ---------------------------------------------------------------

    def flat(self, fields: dict[str, Val]) -> list[z3.ExprRef]:
        out = []
        for v in fields.values():
            if v.kind == "any" or not isinstance(v.z, z3.ExprRef):  # None, object ids
                continue
            out.append(v.z)
            if v.kind == "optional":
                out.append(v.is_none)
        return out

    def substitution(self, after: dict[str, Val]) -> list[tuple[z3.ExprRef, z3.ExprRef]]:
        """Pairs mapping this object's field constants to the post-state terms."""
        pairs = []
        for name, v in self.fields.items():
            if v.kind == "any":
                continue
            a = after[name]
            if a.kind == "undefined":
                raise UnsupportedConstruct(f"field `{name}` not set by the constructor")
            a = V.coerce(a, v.type)
            pairs.append((v.z, a.z))
            if v.kind == "optional":
                pairs.append((v.is_none, a.is_none))
        return [(x, y) for x, y in pairs if not x.eq(y)]

    def invariant_after(self, after: dict[str, Val]) -> z3.BoolRef:
        """The invariant of the object a method or constructor produced."""
        return self.at(self.post_invariant, after)

    def at(self, formula: z3.BoolRef, after: dict[str, Val]) -> z3.BoolRef:
        return self.rewritten(formula, self.substitution(after))

    def push(self, formula: z3.BoolRef) -> z3.BoolRef:
        """Membership pushed through the updates in `formula`, with quantifiers over the
        fields the invariant bounds unrolled (membership.py, lenbounds.py). Rewritten once
        per formula: the exploration pushes each method's outcome, precondition and
        invariant after it for every solver it prepares and every all-SAT enumeration
        (HTTPConnection: 65 pushes of 26 formulas, 0.9 s); the formula is kept alive with
        its rewriting, so its id stays its own."""
        key = F.node_id(formula)
        hit = self.pushed.get(key)
        if hit is None:
            hit = self.pushed[key] = (formula, push_all([formula], self.len_bounds, self.walked())[0])
        return hit[1]

    def walked(self) -> Memo:
        """The rewritings of every formula pushed so far (membership.Memo), node by node:
        the formulas share their subterms (a method's post-state terms are in its
        invariant after, in every action's enabledness after it, in its outcome), walked
        once (zipfile.ZipFile: 1.3 s of walks)."""
        if self.walk_memo is None:
            self.walk_memo = Memo(self.len_bounds)
        return self.walk_memo

    def rewritten(self, formula: z3.BoolRef, pairs: list[tuple[z3.ExprRef, z3.ExprRef]]) -> z3.BoolRef:
        """`formula` with `pairs` substituted, then pushed (`push`); left as it is when there
        is nothing to substitute or unroll."""
        if pairs:
            return self.push(z3.substitute(formula, *pairs))
        return self.push(formula) if self.len_bounds.bounds else formula

    def at_all(self, formulas: dict[str, z3.BoolRef], after: dict[str, Val]) -> dict[str, z3.BoolRef]:
        """`at` of each formula (one rewriting of the post-state terms they share)."""
        pairs = self.substitution(after)
        if not pairs and not self.len_bounds.bounds:
            return dict(formulas)
        substituted = [z3.substitute(f, *pairs) if pairs else f for f in formulas.values()]
        if pairs and self._left_alone(list(formulas.values())) and left_alone([b for _, b in pairs]):
            # push_all would walk every node to rewrite none (and keep the formulas alive)
            self.walked().alive.extend(substituted)
            return dict(zip(formulas, substituted))
        return dict(zip(formulas, push_all(substituted, self.len_bounds, self.walked())))

    def _left_alone(self, formulas: list[z3.BoolRef]) -> bool:
        """membership.left_alone of formulas terms are substituted in, asked once per list."""
        key = tuple(F.node_id(f) for f in formulas)
        if key not in self.pushed_alone:
            self.pushed_alone[key] = (formulas, left_alone(formulas, substituted=True))
        return self.pushed_alone[key][1]

    def executor(self, state: ExecState, prefix: str) -> Executor:
        return Executor(self.model, self.constants, self.unroll, state, prefix, self.facts)

    def conditions(self, conds: tuple[Condition, ...], fields: dict[str, Val], params: dict[str, Val],
                   label: str, extra: dict[str, Val] | None = None, old: dict[str, Val] | None = None,
                   old_params: dict[str, Val] | None = None, assume: z3.BoolRef | None = None,
                   changed: set[str] | None = None) -> z3.BoolRef:
        """The conjunction of the conditions (a condition that raises counts as false).

        `assume` is what every use of the result conjoins (the invariant of the same object,
        for preconditions): bounded translations (str.count) need not cover what it excludes.

        A condition the translation cannot follow becomes an uninterpreted predicate of the
        object's fields and the parameters: consistent, but unconstrained, so every answer
        that depends on it is a may-answer. So does a postcondition naming an argument in
        `changed`, which the method may change in place (paramwrites.py).
        """
        parts: list[z3.BoolRef] = []
        for i, cond in enumerate(conds):
            hit = sorted(names_in(cond.expr) & changed) if changed else []
            objects = {SELF: dict(fields)}
            if old is not None:
                objects[OLD] = dict(old)
            state = ExecState(objects)
            ex = self.executor(state, f"{label}{i}")
            me = Val(TypeRef(TypeKind.CLASS, name=self.model.name), SELF)
            ex.frame.locals = {"self": me, **params, **(extra or {})}
            ex.frame.old = dict(old_params or params)
            ex.old_oid = OLD if old is not None else None
            # the conditions are only ever used together: each is read assuming the ones
            # before it (a bound `len(self.s) <= 2` then makes a later `self.s <= {0, 1}` exact)
            earlier = ([assume] if assume is not None else []) + parts
            if earlier:
                ex.assume(z3.And(*earlier))
            try:
                if hit:
                    raise UnsupportedConstruct(f"a postcondition about `{hit[0]}`, an argument the method may "
                                               "change in place (its value after the call is not followed)")
                value = ex.condition(cond.expr)
                past = None  # where the invariant is not followed (an aggregate past --unroll)
                if not z3.is_false(state.unknown):
                    site = state.unknowns[0] if state.unknowns else None
                    why = "a condition with an untranslated part" + (
                        f" ({site.what}, line {site.line})" if site else "")
                    past = region(state.unknown, self.flat(fields)) if label == "invariant" else None
                    if past is None:
                        raise UnsupportedConstruct(why)
                if not z3.is_false(z3.simplify(state.outside)):  # a value outside code chose
                    site = state.outside_sites[0] if state.outside_sites else None
                    raise UnsupportedConstruct(f"a condition using code outside the analysed source"
                                               f"{f' ({site.what})' if site else ''}")
                if state.assumed:
                    raise UnsupportedConstruct("a loop over a set in a condition")
                exact = z3.And(value, z3.Not(state.raised))
                if past is not None:  # exact where it is followed (invregion.py)
                    self.past_invariant.append((past, why))
                    self.unknowns.append(Unknown(label, cond.location.line, why,
                                                 f"in the condition `{cond.text}`; exact within the bound "
                                                 f"(answers about objects there are must), not past it (may)"))
                    exact = z3.If(past, self.unknown_condition(label, i, fields, params, extra), exact)
                parts.append(exact)
            except (UnsupportedConstruct, z3.Z3Exception) as err:
                if isinstance(err, z3.Z3Exception):
                    err = UnsupportedConstruct(f"an expression z3 could not express ({err})")
                self.inexact[f"{label}: {cond.text}"] = err.construct
                self.unknowns.append(Unknown(label.split(":")[0], cond.location.line, err.construct,
                                             f"in the condition `{cond.text}`"))
                parts.append(self.unknown_condition(label, i, fields, params, extra))
        return z3.And(*parts) if parts else TRUE

    def unknown_condition(self, label: str, i: int, fields: dict[str, Val], params: dict[str, Val],
                          extra: dict[str, Val] | None) -> z3.BoolRef:
        """An uninterpreted predicate of the object's fields and the parameters standing for
        a condition z3 cannot follow: consistent, unconstrained."""
        args = self.flat(fields) + self.flat(params) + self.flat(extra or {})
        sorts = [a.sort() for a in args]
        fn = z3.Function(f"unknown!{label}!{i}", *sorts, z3.BoolSort())
        return fn(*args) if args else z3.Bool(f"unknown!{label}!{i}")

    def params(self, method: Method, prefix: str) -> dict[str, Val]:
        out = {}
        for p in method.params:
            if p.type is not None and not modelled(p.type) and not may_hold_self(p.type, self.model):
                # a type z3 does not model (ast.AST, dict[str, Any], ...): an untyped value,
                # which can be anything the type allows and more (opaque.py)
                out[p.name] = V.fresh(TypeRef(TypeKind.OPAQUE), f"{prefix}{p.name}")
                continue
            if p.type is None:
                raise UnsupportedConstruct(f"parameter `{p.name}` without a type")
            if not modelled(p.type):  # calls on it could change the analysed object
                raise UnsupportedConstruct(f"parameter `{p.name}` of type {p.type}, which may be the object itself")
            out[p.name] = V.fresh(p.type, f"{prefix}{p.name}")
        return out

    def declared_pre(self, method: Method, fields: dict[str, Val], args: dict[str, Val]) -> z3.BoolRef:
        """The declared precondition, where the precondition mode uses it (else True)."""
        if not self.model.preconditions.declared:
            return TRUE
        return self.conditions(method.preconditions, fields, args, f"{method.name}:pre",
                               assume=self.invariant if fields is self.fields else None)

    @property
    def reading_deadline(self) -> float | None:
        """When translating and eliminating must stop: the guards' share of the budget while
        the raise guards are read, the run's deadline after."""
        return self.guards_deadline if self.reading_guards else self.deadline

    def bounded_enabledness(self, method: Method) -> z3.BoolRef:
        """`enabledness`, or an unknown predicate of the object once the guards' share of
        the budget has passed (z3 calls the run guard cancels at the deadline end the same way)."""
        deadline = self.guards_deadline
        if deadline is None or time.monotonic() < deadline:
            try:
                return self.enabledness(method)
            except z3.Z3Exception:
                if deadline is None or time.monotonic() < deadline:
                    raise
        if deadline is not None:
            return self.out_of_budget(method, "enabledness", "enabled")
        return self.enabledness(method)  # not reached: no deadline means no early return above

    def unknown_predicate(self, name: str, label: str) -> z3.BoolRef:
        """An uninterpreted predicate of the object's fields, `unknown!label!name`: consistent,
        but unconstrained, so every answer using it is a may-answer (invtext.py prints it)."""
        args = self.flat(self.fields)
        if not args:
            return z3.Bool(f"unknown!{label}!{name}")
        return z3.Function(f"unknown!{label}!{name}", *[a.sort() for a in args], z3.BoolSort())(*args)

    def out_of_budget(self, method: Method, what: str, label: str, started: bool = False) -> z3.BoolRef:
        """The run's budget ran out before `method`'s `what` was read (`started`: while it
        was): an unknown, noted."""
        when = f"while its {what} was being read" if started else f"before its {what} was read"
        construct = f"the time budget ran out {when} (--budget)"
        self.inexact[f"{method.name}:{label}"] = construct
        self.unknowns.append(Unknown(method.name, method.location.line, construct))
        return self.unknown_predicate(method.name, label)

    def enabledness(self, method: Method) -> z3.BoolRef:
        """exists p. pre(c, p), over this object's field constants."""
        if self.model.preconditions.guards:
            from contractor.z3backend.guards import guarded_enabledness

            return guarded_enabledness(self, method)
        try:
            params = self.params(method, f"{method.name}.")
        except UnsupportedConstruct as err:
            self.inexact[f"{method.name}: parameters"] = err.construct
            self.unknowns.append(Unknown(method.name, method.location.line, err.construct))
            return self.unknown_predicate(method.name, "enabled")
        known = len(self.inexact)
        pre = self.conditions(method.preconditions, self.fields, params, f"{method.name}:pre",
                              assume=self.invariant)
        if not params:
            return z3.simplify(pre)
        if len(self.inexact) != known:
            # an untranslated precondition: nothing to eliminate or refine; its enabledness
            # is an unknown predicate of the object (every answer using it is a may-answer)
            return self.unknown_predicate(method.name, "enabled")
        wf = z3.And(*[V.well_formed(v) for v in params.values()])
        scoped = miniscope(params, z3.And(wf, pre))  # parameters decided without a quantifier
        if not scoped.rest:
            return z3.simplify(scoped.decided)
        formula = z3.Exists(self.flat(scoped.rest), scoped.residual)
        eliminated = eliminate_quantifiers(formula, self.qe_effort)
        if eliminated is formula:
            self.quantified[method.name] = (scoped.rest, z3.And(scoped.decided, scoped.residual))
        return z3.And(scoped.decided, eliminated)

    # -- running methods -------------------------------------------------------------

    def run(self, method: Method, fields: dict[str, Val], prefix: str) -> Outcome:
        """Run `method` on an object with the given fields, with fresh arguments (code outside
        the analysed source raising where READING_GUARDS is false: oneread.py)."""
        args = self.params(method, prefix)
        objects = {SELF: dict(fields), OLD: dict(fields)}
        deadline = self.reading_deadline
        # under a budget, no method takes more than its share of it
        share = None if deadline is None else METHOD_SHARE_STATEMENTS
        state = ExecState(objects, deadline=deadline, statements_left=share,
                          past_share=frozenset(self.past_share) if share is not None else frozenset())
        ex = self.executor(state, prefix)
        pre = self.declared_pre(method, fields, args)
        ex.assume(z3.And(self.invariant, pre, *[V.well_formed(v) for v in args.values()]))
        for v in args.values():
            ex.choose_by_caller(v)
        with out_of_time_untranslated():
            try:
                result = unfinished_result(ex, method, ex.invoke(method, SELF, dict(args), enforce_pre=False))
            except TranslationOutOfTime as err:
                ends = self.reading_deadline
                if ends is None or time.monotonic() >= ends:
                    raise
                if isinstance(err, CalleePastShare):
                    raise UnsupportedConstruct(f"it calls {err.callee}(), whose translation ran past its share of "
                                               f"the budget ({METHOD_SHARE_STATEMENTS} statements)",
                                               err.location) from None
                self.past_share.add(method.name)
                raise UnsupportedConstruct(f"its translation ran past its share of the budget "
                                           f"({METHOD_SHARE_STATEMENTS} statements)", err.location) from None
        out = self.outcome(method, state, result, args, fields)
        out.pre = z3.And(pre, *state.assumed) if state.assumed else pre
        return out

    def run_once(self, method: Method, guards: bool) -> Outcome:
        """`method` run on this object (prefix `name@`), translated once for its raise guards
        (`guards`: outside code returns normally) and its transitions (oneread.py); raises
        UnsupportedConstruct each time where it cannot be translated."""
        from contractor.z3backend.oneread import reading

        if method.name not in self.runs:
            try:
                self.runs[method.name] = self.run(method, self.fields, f"{method.name}@")
            except UnsupportedConstruct as err:
                self.runs[method.name] = err
        o = self.runs[method.name]
        if isinstance(o, UnsupportedConstruct):
            raise o
        ends = self.reading_deadline
        if guards and ends is not None and time.monotonic() >= ends:
            # reading the guard rewrites every term of the method: not after the budget
            raise UnsupportedConstruct(str(TranslationOutOfTime()), method.location)
        return reading(o, guards)

    def construct(self, ctor: Method, prefix: str) -> Outcome:
        """Run a constructor (`__init__` on a blank object, or a factory classmethod)."""
        args = self.params(ctor, prefix)
        blank = blank_object(self.model)
        state = ExecState({SELF: blank}, deadline=self.deadline)
        ex = self.executor(state, prefix)
        pre = self.ctor_pre(ctor, args)
        ex.assume(z3.And(*[V.well_formed(v) for v in args.values()], pre))
        with out_of_time_untranslated():
            result = ex.invoke(ctor, SELF, dict(args), enforce_pre=False)
        if ctor.name == "__init__":
            oid = SELF
        else:
            if result.kind != "class":
                raise UnsupportedConstruct(f"factory {ctor.name} returning something other than cls(...)")
            oid = result.z
        after = state.objects[oid]
        for name, v in list(after.items()):
            if v.kind == "undefined" and v.type.args[0].kind == "opaque":
                # an untyped field set later (by another method): read before, it raises
                # AttributeError, not a guard; here it is some value
                after[name] = ex.fresh(v.type.args[0], name)
            elif v.kind == "undefined":
                err = UnsupportedConstruct(f"field `{name}` not set by {ctor.name} on some path")
                state.unknowns.append(Site(TRUE, err.construct, ctor.location.line, ctor.name))
                state.unknown = TRUE
                after[name] = ex.fresh(v.type.args[0], name)
        state.objects[SELF] = after
        out = self.outcome(ctor, state, V.NONE_VAL, args, None)
        out.pre = z3.And(pre, *state.assumed) if state.assumed else pre
        return out

    def ctor_pre(self, ctor: Method, args: dict[str, Val]) -> z3.BoolRef:
        """A constructor's precondition (over its arguments only: there is no object yet)."""
        fields = {k: Val(TypeRef(TypeKind.ANY), None) for k in self.fields}
        return self.conditions(ctor.preconditions, fields, args, f"{ctor.name}:pre")

    def outcome(self, method: Method, state: ExecState, result: Val, args: dict[str, Val],
                before: dict[str, Val] | None) -> Outcome:
        after = state.objects[SELF]
        out = Outcome(after, result, z3.simplify(state.raised), z3.simplify(state.unknown),
                      state.raises, state.unknowns, args, explicit=z3.simplify(state.explicit),
                      outside=z3.simplify(state.outside), outside_sites=state.outside_sites,
                      no_followed_end=no_followed_normal_end(state.raised, state.unknown, state.unknowns))
        if method.postconditions:
            before_inexact = set(self.inexact)
            containers = {k for k, v in args.items() if v.kind in MUTABLE_KINDS}
            out.post_ok = self.conditions(
                method.postconditions, after, args, f"{method.name}:post",
                extra={"__return__": result}, old=before, old_params=args,
                changed=changed_arguments(method.body, containers) if containers else None)
            out.post_exact = set(self.inexact) == before_inexact
        return out

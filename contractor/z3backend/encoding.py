"""Enabledness bits for the objects of a query, with lazy instantiation for parameters.

A method with parameters is enabled in c iff `exists p. pre(c, p)`. Where z3's
quantifier elimination succeeded the bit is simply that formula. Otherwise the bit is
encoded without quantifiers: `bit -> pre(c, p_sk)` with Skolem constants p_sk (the
positive side), and the negative side is checked after each model: for every method
whose bit is false, a ground query looks for arguments enabling it on the model's
concrete object. If it finds some (p0), the model was wrong and the lemma
`pre(c, p0) -> bit` is added (valid for every object, so it is kept); if it proves
none exist, the model stands. This is model-based quantifier instantiation done by
hand, which terminates quickly on the preconditions users write (`x in self.items`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Set
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import z3

from contractor.model import TypeRef
from contractor.z3backend.values import Val, fresh, well_formed
from contractor.z3backend.z3util import make_solver, truth

if TYPE_CHECKING:  # semantics imports the executor, which imports nothing of this module
    from contractor.z3backend.semantics import ClassSemantics

TERM_INDICES = 4
MAX_TERM_INSTANCES = 32
OUTSIDE_KINDS = ("int", "str")
MAX_REFINEMENTS = 40
REFINED = "refined"
UNDECIDED = "undecided"
OK = "ok"


@dataclass
class Lazy:
    """The enabledness bit of a method whose precondition quantifies over its arguments, in one
    object: checked against each model the solver finds, and refined where it was wrong."""

    method: str
    bit: z3.BoolRef
    obj: dict[str, Val]


@dataclass
class Encoder:
    """Puts objects' enabledness into one solver, counting its queries."""

    sem: ClassSemantics
    solver: z3.Solver
    timeout_ms: int
    count: Callable[[], object]  # counts one solver query
    lazy: list[Lazy] = field(default_factory=list)
    skolems: int = 0
    # sequences (sets, dict keys) whose items are distinct, with an Enum item type's size (else 0)
    distinct: list[tuple[z3.SeqRef, int]] = field(default_factory=list)

    def bits(self, obj: dict[str, Val], label: str) -> dict[str, z3.BoolRef]:
        """A Boolean per action, constrained to be that action's enabledness in `obj`."""
        out = {}
        direct = self.sem.at_all({m: f for m, f in self.sem.enabled.items() if m not in self.sem.quantified}, obj)
        for m in self.sem.enabled:
            b = z3.Bool(f"{label}!{m}")
            out[m] = b
            if m in direct:
                self.solver.add(b == direct[m])
                continue
            self.skolems += 1
            params, pre = self.sem.quantified[m]
            skolem = {k: _rename(v, f"sk{self.skolems}!{k}") for k, v in params.items()}
            self.solver.add(z3.Implies(b, self.instantiate(m, obj, skolem)))
            for args in self.term_instances(params, obj, members_only(params, pre)):
                self.solver.add(z3.Implies(self.instantiate(m, obj, args), b))
            self.lazy.append(Lazy(m, b, obj))
        return out

    def term_instances(self, params: dict[str, Val], obj: dict[str, Val],
                       members: Set[str] = frozenset()) -> list[dict[str, Val]]:
        """Candidate arguments built from the object's own terms (its fields, the first list,
        set and dict elements): `pre(obj, t) -> enabled` is valid for any t, and these
        instances are the ones that usually decide enabledness (`x in self.items` by
        `self.items[0]`). For an int or str parameter one more candidate is a fresh value
        outside every collection of the object and unequal to its fields of that type (one
        always exists: the type is infinite), which decides `x not in self.sessions`. A
        parameter the precondition requires to be in a collection (`members`) gets only
        that collection's elements (the others could not meet it, and slow z3 down)."""
        per_param = []
        for name, p in params.items():
            cands = [v for v in obj.values() if v.type == p.type]
            outside = []
            for v in obj.values():
                seq = _elements(v, p.type)
                if seq is None:
                    continue
                n = z3.Length(seq)
                # sets and dicts: the first and last element (more terms slow z3 down a lot)
                cands += [Val(p.type, seq[i]) for i in range(TERM_INDICES if v.kind == "list" else 1)]
                cands.append(Val(p.type, seq[n - 1]))
                outside.append(seq)
            if name in members:
                pass
            elif p.kind in OUTSIDE_KINDS and outside:
                self.skolems += 1
                c = fresh(p.type, f"outside{self.skolems}!{p.type}")
                self.solver.add(*[z3.Not(z3.Contains(seq, z3.Unit(c.z))) for seq in outside],
                                *[c.z != v.z for v in obj.values() if v.type == p.type])
                cands.append(c)
            if p.kind == "str" and name not in members:  # a text no condition is likely to single out
                cands.append(Val(p.type, z3.StringVal("contractor")))
            if not cands:
                return []
            per_param.append(cands)
        combos = list(itertools.islice(itertools.product(*per_param), MAX_TERM_INSTANCES))
        return [dict(zip(params, c)) for c in combos]

    def instantiate(self, m: str, obj: dict[str, Val], args: dict[str, Val]) -> z3.BoolRef:
        """wf(args) and pre_m(obj, args), as a quantifier-free formula."""
        params, pre = self.sem.quantified[m]
        pairs = self.sem.substitution(obj)
        for k, v in params.items():
            pairs.append((v.z, args[k].z))
            if v.kind == "optional":
                pairs.append((v.is_none, args[k].is_none))
        return z3.And(*[well_formed(a) for a in args.values()], self.sem.rewritten(pre, pairs))

    def refine_distinct(self, model: z3.ModelRef) -> bool:
        """Sets and dict keys have distinct items (and Enum items in range): instead of a quantifier in every query,
        each model is checked, and where two positions i < j hold the same item the ground
        instance `j < len -> seq[i] != seq[j]` of that (valid) axiom is added."""
        added = False
        for seq, members in self.distinct:
            items = [model.eval(x, model_completion=True) for x in _items(model, seq)]
            seen: dict[str, int] = {}
            for j, x in enumerate(items):
                if members and not 0 <= x.as_long() < members:  # an Enum member's index
                    self.solver.add(z3.Implies(z3.Length(seq) > j, z3.And(0 <= seq[j], seq[j] < members)))
                    added = True
                i = seen.setdefault(x.sexpr(), j)
                if i != j:
                    self.solver.add(z3.Implies(z3.Length(seq) > j, seq[i] != seq[j]))
                    added = True
        return added

    def refine(self, model: z3.ModelRef) -> str:
        """Check the model's false bits; add lemmas where the model was wrong.

        OK: the model's bits are all right; REFINED: a lemma was added, solve again;
        UNDECIDED: some bit could not be checked (the answer built on it is a may-answer).
        """
        if self.refine_distinct(model):
            return REFINED
        refined = undecided = False
        for item in self.lazy:
            if truth(model, item.bit) is not False:
                continue  # true, or undecided (enabled_in then gives up on the model)
            params, _ = self.sem.quantified[item.method]
            concrete = {k: (_value_in(model, v) if v.kind != "any" else v) for k, v in item.obj.items()}
            s = make_solver(self.timeout_ms)
            s.add(self.instantiate(item.method, concrete, params))  # params stay free
            self.count()
            r = s.check()
            if r == z3.unsat:
                continue
            if r == z3.unknown:
                undecided = True
                continue
            witness = {k: _value_in(s.model(), v) for k, v in params.items()}
            self.solver.add(z3.Implies(self.instantiate(item.method, item.obj, witness), item.bit))
            refined = True
        return REFINED if refined else UNDECIDED if undecided else OK


def members_only(params: dict[str, Val], pre: z3.BoolRef) -> set[str]:
    """The parameters `pre` requires to be in some collection (a top-level `p in s`)."""
    from contractor.z3backend.miniscope import conjuncts

    found = set()
    for c in conjuncts(pre):
        if z3.is_app_of(c, z3.Z3_OP_SEQ_CONTAINS) and z3.is_app_of(c.arg(1), z3.Z3_OP_SEQ_UNIT):
            found |= {n for n, p in params.items() if c.arg(1).arg(0).eq(p.z)}
    return found


def _items(model: z3.ModelRef, seq: z3.SeqRef, limit: int = 64) -> list[z3.ExprRef]:
    n = model.eval(z3.Length(seq), model_completion=True).as_long()
    return [seq[i] for i in range(min(n, limit))]


def _elements(v: Val, t: TypeRef) -> z3.SeqRef | None:
    """The sequence of a list or set of t, or of the keys of a dict keyed by t."""
    if v.z is None or not v.type.args or v.type.args[0] != t or v.kind not in ("list", "set", "dict"):
        return None
    from contractor.z3backend.values import seq_of

    return seq_of(v) if v.kind == "dict" else v.z


def _value_in(model: z3.ModelRef, v: Val) -> Val:
    z = model.eval(v.z, model_completion=True) if v.z is not None else None
    is_none = model.eval(v.is_none, model_completion=True) if v.is_none is not None else None
    return Val(v.type, z, is_none)


def _rename(v: Val, name: str) -> Val:
    return fresh(v.type, name)

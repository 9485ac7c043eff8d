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
from dataclasses import dataclass, field

import z3

from contractor.z3backend.values import Val, fresh, well_formed
from contractor.z3backend.z3util import make_solver

TERM_INDICES = 4
MAX_TERM_INSTANCES = 32
MAX_REFINEMENTS = 40
REFINED = "refined"
UNDECIDED = "undecided"
OK = "ok"


@dataclass
class Lazy:
    method: str
    bit: z3.BoolRef
    obj: dict[str, Val]


@dataclass
class Encoder:
    sem: object  # ClassSemantics
    solver: z3.Solver
    timeout_ms: int
    count: object  # callable counting one solver query
    lazy: list[Lazy] = field(default_factory=list)
    skolems: int = 0

    def bits(self, obj: dict[str, Val], label: str) -> dict[str, z3.BoolRef]:
        """A Boolean per action, constrained to be that action's enabledness in `obj`."""
        out = {}
        for m, formula in self.sem.enabled.items():
            b = z3.Bool(f"{label}!{m}")
            out[m] = b
            if m not in self.sem.quantified:
                self.solver.add(b == self.sem.at(formula, obj))
                continue
            self.skolems += 1
            params, pre = self.sem.quantified[m]
            skolem = {k: _rename(v, f"sk{self.skolems}!{k}") for k, v in params.items()}
            self.solver.add(z3.Implies(b, self.instantiate(m, obj, skolem)))
            for args in self.term_instances(params, obj):
                self.solver.add(z3.Implies(self.instantiate(m, obj, args), b))
            self.lazy.append(Lazy(m, b, obj))
        return out

    def term_instances(self, params: dict[str, Val], obj: dict[str, Val]):
        """Candidate arguments built from the object's own terms (its fields, the first list
        elements): `pre(obj, t) -> enabled` is valid for any t, and these instances are
        the ones that usually decide enabledness (`x in self.items` by `self.items[0]`)."""
        per_param = []
        for p in params.values():
            cands = [v for v in obj.values() if v.type == p.type]
            for v in obj.values():
                if v.kind == "list" and v.type.args and v.type.args[0] == p.type and v.z is not None:
                    n = z3.Length(v.z)
                    cands += [Val(p.type, v.z[i]) for i in range(TERM_INDICES)]
                    cands.append(Val(p.type, v.z[n - 1]))
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
        body = z3.substitute(pre, *pairs) if pairs else pre
        return z3.And(*[well_formed(a) for a in args.values()], body)

    def refine(self, model: z3.ModelRef) -> str:
        """Check the model's false bits; add lemmas where the model was wrong.

        OK: the model's bits are all right; REFINED: a lemma was added, solve again;
        UNDECIDED: some bit could not be checked (the answer built on it is a may-answer).
        """
        refined = undecided = False
        for item in self.lazy:
            if not z3.is_false(model.eval(item.bit, model_completion=True)):
                continue
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


def _value_in(model: z3.ModelRef, v: Val) -> Val:
    z = model.eval(v.z, model_completion=True) if v.z is not None else None
    is_none = model.eval(v.is_none, model_completion=True) if v.is_none is not None else None
    return Val(v.type, z, is_none)


def _rename(v: Val, name: str) -> Val:
    return fresh(v.type, name)

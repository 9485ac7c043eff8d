"""Raise guards z3's quantifier elimination gives up on: values of sorts it cannot eliminate.

A raise guard is `exists v. ok(c, v)` over the values a method's body makes up (arguments,
results of outside code, fields an unfinished path made arbitrary). z3's `qe` eliminates
integers and Booleans, not strings, sequences or other sorts. Where those "hard" values
occur only inside atoms that mention nothing else (`s == "Idle"`, `"\\r" in s`), each such
atom is a Boolean the hard values choose, and `exists v. ok` is exactly

    exists b, v'. ok[atoms := b](c, b, v')  and  b is one of the vectors R some v realises

R is found by enumerating the atoms' realisable truth vectors with a solver (few atoms,
few vectors); the rest is ordinary elimination of integers and Booleans. Where R is too
large to enumerate, or an atom mixes hard values with fields or other values, the caller
gets an over-approximation instead (R taken as every vector): enabledness is then
`over and unknown`, so a state where the over-approximation is false still has the method
disabled for certain, and every answer using the unknown part is may.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from contractor.z3backend import dag
from contractor.z3backend.z3util import QE, Allowance, Effort, checked, eliminate_quantifiers, make_solver, truth

MAX_ATOMS = 12  # hard atoms abstracted at most
MAX_VECTORS = 64  # realisable truth vectors enumerated at most
# one query enumerating the atoms' truth vectors, in z3's resource units (the same answer at any load)
VECTOR = Effort(rlimit=4_000_000, cap_ms=20_000)
EASY_SORTS = (z3.Z3_INT_SORT, z3.Z3_BOOL_SORT, z3.Z3_REAL_SORT)
CONNECTIVES = (z3.Z3_OP_AND, z3.Z3_OP_OR, z3.Z3_OP_NOT, z3.Z3_OP_IMPLIES, z3.Z3_OP_XOR, z3.Z3_OP_ITE)


@dataclass(frozen=True)
class Elimination:
    """The guard without quantifiers: `exact`, or else only an over-approximation `over`."""

    formula: z3.BoolRef
    exact: bool


def eliminate_hard(ok: z3.BoolRef, chosen: list[z3.ExprRef], effort: Effort = QE,
                   allowance: Allowance | None = None) -> Elimination | None:
    """`exists chosen. ok` without quantifiers (see the module docstring), or None; its
    eliminations within `effort`, and every query within `allowance`."""
    hard = {str(c) for c in chosen if c.sort().kind() not in EASY_SORTS}
    if not hard:
        return None
    atoms = _hard_atoms(ok, hard)
    if atoms is None or len(atoms) > MAX_ATOMS:
        return None
    bits = [z3.Bool(f"guard!atom!{i}") for i in range(len(atoms))]
    abstracted = z3.substitute(ok, *zip(atoms, bits)) if atoms else ok
    if any(str(c) in hard for c in dag.free_constants(abstracted)):
        return None  # a hard value outside the atoms found (under a term z3 could not split)
    # exact only where the atoms are about the hard values alone: no field, no other chosen
    # value, no uninterpreted function (whose meaning the rest of the query shares)
    alone = not any(str(c) not in hard for a in atoms for c in dag.free_constants(a)) \
        and not any(n.decl_kind == z3.Z3_OP_UNINTERPRETED and n.args
                    for a in atoms for n in dag.postorder(a).values())
    try:
        vectors = _realisable(atoms, allowance) if alone else None
    except z3.Z3Exception:  # cancelled (the run's budget): no exact answer
        vectors = None
    exact = vectors is not None
    body = abstracted if vectors is None else z3.And(abstracted, z3.Or(*[
        z3.And(*[b if v else z3.Not(b) for b, v in zip(bits, vec)]) for vec in vectors]))
    easy = [c for c in chosen if str(c) not in hard] + bits
    formula = z3.Exists(easy, body) if easy else body
    eliminated = eliminate_quantifiers(formula, effort, project=True, allowance=allowance)
    if eliminated is formula:
        return None
    return Elimination(eliminated, exact)


def _hard_atoms(ok: z3.BoolRef, hard: set[str]) -> list[z3.BoolRef] | None:
    """The maximal non-connective Boolean subterms of `ok` that mention a hard value (None
    where a hard value sits under something else than Boolean structure and atoms)."""
    nodes = dag.postorder(ok)
    mentions: dict[int, bool] = {}
    for key, n in nodes.items():
        mentions[key] = dag.name(ok, n) in hard if dag.is_constant(n) else any(mentions[a] for a in n.args)
    found: dict[int, z3.BoolRef] = {}
    seen: set[int] = set()
    todo = [next(reversed(nodes))]
    while todo:
        key = todo.pop()
        if key in seen or not mentions[key]:
            continue
        seen.add(key)
        n = nodes[key]
        e = dag.expr(ok, n)
        if n.kind == z3.Z3_QUANTIFIER_AST:
            return None
        if z3.is_bool(e) and (n.decl_kind in CONNECTIVES or (n.decl_kind == z3.Z3_OP_EQ and z3.is_bool(e.arg(0)))):
            if n.decl_kind == z3.Z3_OP_ITE and not z3.is_bool(e.arg(1)):
                return None
            todo.extend(n.args)
            continue
        if not z3.is_bool(e):
            return None  # e.g. an if-then-else choosing between strings, above the atoms
        found[key] = e
    return list(found.values())


def _realisable(atoms: list[z3.BoolRef], allowance: Allowance | None) -> list[tuple[bool, ...]] | None:
    """Every truth vector of `atoms` some values realise (None: too many, or undecided)."""
    if not atoms:
        return [()]
    solver = make_solver(VECTOR.cap_ms, rlimit=VECTOR.rlimit)
    vectors: list[tuple[bool, ...]] = []
    while len(vectors) <= MAX_VECTORS:
        r = checked(solver, VECTOR, allowance)
        if r == z3.unsat:
            return vectors
        if r != z3.sat:
            return None
        m = solver.model()
        truths = [truth(m, a) for a in atoms]
        if None in truths:
            return None
        vec = tuple(bool(t) for t in truths)
        vectors.append(vec)
        solver.add(z3.Or(*[z3.Not(a) if v else a for a, v in zip(atoms, vec)]))
    return None


__all__ = ["Elimination", "eliminate_hard"]

"""Enabledness bits z3 cannot decide, bounded instead of split.

Where an action's enabledness could not be read (an untranslated precondition, a raise
guard with unknown paths or arguments z3 could not eliminate, the budget's end), its
formula f contains unknown predicates of the object (`unknown!guards!m`, ...). As a free
bit each one split every abstract state in two, though which half an object is in is
unknown by construction: k such methods gave up to 2^k states. The z3 backend, answering
alone, uses two known formulas instead (`bounds`):

- hi, "can be enabled": f with each unknown predicate existentially quantified (True
  where it occurs only positively, as in `Or(known, And(unfinished, unknown))`);
- lo, "surely enabled": f with each universally quantified (False where positive).

lo -> f -> hi for every value of the predicates. The abstract state of an object is its
vector of hi bits, so every object is in exactly one state and a method outside a state is
truly disabled there; a method in a state whose objects do not all meet lo is listed as
undecided there (`Z3Backend.undecided`).
"""

from __future__ import annotations

import itertools

import z3

from contractor.z3backend import dag

UNKNOWN = "unknown!"
MAX_MIXED = 3  # predicates occurring both ways are enumerated (2^n copies) up to this many

POS, NEG = 1, 2  # polarity bits


def bounds(f: z3.BoolRef, keep: frozenset[str] = frozenset()) -> tuple[z3.BoolRef, z3.BoolRef] | None:
    """(hi, lo) of f over its unknown predicates (names in `keep`, the invariant's own, are
    left as they are), or None when f has none."""
    nodes = dag.postorder(f)
    if not nodes:
        return None
    polarity: dict[int, int] = {next(reversed(nodes)): POS}
    atoms: dict[int, z3.BoolRef] = {}
    for key in reversed(nodes):  # parents before children
        n = nodes[key]
        p = polarity.get(key, 0)
        if n.kind == z3.Z3_APP_AST and n.decl_kind == z3.Z3_OP_UNINTERPRETED:
            name = dag.name(f, n)
            if name.startswith(UNKNOWN) and name not in keep:
                atoms[key] = dag.expr(f, n)
                continue  # its arguments are the object's fields
        for i, child in enumerate(n.args):
            polarity[child] = polarity.get(child, 0) | _child_polarity(n, i, p)
    if not atoms:
        return None
    hi_pairs: list[tuple[z3.ExprRef, z3.ExprRef]] = []
    lo_pairs: list[tuple[z3.ExprRef, z3.ExprRef]] = []
    mixed = []
    for key, atom in atoms.items():
        p = polarity.get(key, 0)
        if p == POS | NEG:
            mixed.append(atom)
        else:  # positive: True can only enable more; negative: False can
            hi_pairs.append((atom, z3.BoolVal(p != NEG)))
            lo_pairs.append((atom, z3.BoolVal(p == NEG)))
    hi = z3.substitute(f, *hi_pairs) if hi_pairs else f
    lo = z3.substitute(f, *lo_pairs) if lo_pairs else f
    if len(mixed) > MAX_MIXED:
        return z3.BoolVal(True), z3.BoolVal(False)  # can be enabled anywhere, surely nowhere
    if mixed:
        his, los = [], []
        for values in itertools.product([False, True], repeat=len(mixed)):
            pairs = [(a, z3.BoolVal(v)) for a, v in zip(mixed, values)]
            his.append(z3.substitute(hi, *pairs))
            los.append(z3.substitute(lo, *pairs))
        hi, lo = z3.Or(*his), z3.And(*los)
    return z3.simplify(hi), z3.simplify(lo)


def unknown_names(e: z3.ExprRef) -> frozenset[str]:
    """The names of the unknown predicates `e` applies."""
    nodes = dag.postorder(e)
    return frozenset(name for name in (dag.name(e, n) for n in nodes.values() if n.kind == z3.Z3_APP_AST
                                       and n.decl_kind == z3.Z3_OP_UNINTERPRETED) if name.startswith(UNKNOWN))


def _child_polarity(n: dag.Node, i: int, p: int) -> int:
    """The polarity of child i of node n, reached with polarity p."""
    if n.kind != z3.Z3_APP_AST:
        return POS | NEG if p else 0  # a quantifier's body: both ways, to be safe
    k = n.decl_kind
    if k in (z3.Z3_OP_AND, z3.Z3_OP_OR):
        return p
    if k == z3.Z3_OP_NOT or (k == z3.Z3_OP_IMPLIES and i == 0):
        return ((p & POS) and NEG) | ((p & NEG) and POS)
    if k == z3.Z3_OP_IMPLIES or (k == z3.Z3_OP_ITE and i > 0):
        return p
    return POS | NEG if p else 0  # ==, xor, an ite's condition, any other term: both ways


__all__ = ["bounds", "unknown_names"]

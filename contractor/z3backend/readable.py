"""Readable state invariants: the shortest conjunction of atomic facts equivalent to a state's
formula (under the class invariant), else z3's context simplification of it.

For the train door, state {alarm, open, start} reads `self.closed and not self.moving
and not self.danger` rather than the raw conjunction of enabled and disabled preconditions.
"""

from __future__ import annotations

import z3

BOOL_CONNECTIVES = (z3.Z3_OP_AND, z3.Z3_OP_OR, z3.Z3_OP_NOT, z3.Z3_OP_IMPLIES, z3.Z3_OP_XOR)


def atoms(formula: z3.BoolRef) -> list[z3.BoolRef]:
    """The Boolean atoms of a quantifier-free formula, in a stable order."""
    seen: dict[int, z3.BoolRef] = {}
    todo = [formula]
    while todo:
        e = todo.pop()
        if z3.is_quantifier(e):
            raise ValueError("quantified")
        if z3.is_bool(e) and z3.is_app(e) and not z3.is_true(e) and not z3.is_false(e):
            k = e.decl().kind()
            if k in BOOL_CONNECTIVES or (k == z3.Z3_OP_EQ and z3.is_bool(e.arg(0))) or k == z3.Z3_OP_ITE:
                todo.extend(e.children())
                continue
            seen.setdefault(e.get_id(), e)
            continue
        if z3.is_app(e) and e.decl().kind() == z3.Z3_OP_ITE:
            todo.extend(e.children())
    return sorted(seen.values(), key=lambda a: (str(a).count("("), str(a)))


def conjunction_of_literals(formula: z3.BoolRef, context: z3.BoolRef, timeout_ms: int,
                            count) -> list[z3.BoolRef] | None:
    """A short list of literals L with context |= (AND L <-> formula), or None if none exists."""
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(context, formula)
    implied = []
    for a in atoms(z3.And(context, formula)):
        for lit in (a, z3.Not(a)):
            count()
            if s.check(z3.Not(lit)) == z3.unsat:
                implied.append(lit)
                break
    back = z3.Solver()
    back.set("timeout", timeout_ms)
    back.add(context, z3.Not(formula))

    def sufficient(lits) -> bool:
        count()
        return back.check(*lits) == z3.unsat

    if not sufficient(implied):
        return None
    kept = list(implied)
    for lit in implied:  # drop literals the others already imply
        trial = [x for x in kept if not x.eq(lit)]
        if sufficient(trial):
            kept = trial
    return kept

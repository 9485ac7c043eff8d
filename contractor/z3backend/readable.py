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


def conjunction_of_literals(pattern: list[z3.BoolRef], solver: z3.Solver, count) -> list[z3.BoolRef] | None:
    """A short list of literals L with  context |= (AND L <-> AND pattern), or None.

    `solver` holds the context (the class invariant); every query passes the rest as
    assumptions, so one solver serves every state.
    """
    formula = z3.And(*pattern)
    candidates = atoms(formula)
    count()
    r, consequences = solver.consequences(pattern, candidates)  # one query for every atom
    if r != z3.sat:
        return None
    implied_ids = {}
    for c in consequences:  # each is Implies(assumptions, literal)
        lit = c.arg(1)
        implied_ids[lit.get_id()] = lit
    implied = []
    for a in candidates:  # keep the atoms' stable order
        for lit in (a, z3.Not(a)):
            if any(lit.eq(x) for x in implied_ids.values()):
                implied.append(lit)
    implied = implied or list(implied_ids.values())

    def sufficient(lits) -> bool:
        count()
        return solver.check(*lits, z3.Not(formula)) == z3.unsat

    if not sufficient(implied):
        return None
    kept = list(implied)
    for lit in implied:  # drop literals the others already imply
        trial = [x for x in kept if not x.eq(lit)]
        if sufficient(trial):
            kept = trial
    return kept

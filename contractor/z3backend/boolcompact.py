"""A big Boolean combination of few atoms rewritten as a small equivalent formula.

Raise guards read from models (guardmodels.py) are the translation's nested raise
conditions with the chosen values put in: thousands of nodes (`Not(Or(And(Not(Or(...`,
the same prefixes again and again) over a handful of atoms about the object
(`__state == "Idle"`, `none(__response)`). http.client.HTTPConnection's `request` guard:
about 50 K characters over 8 atoms, 117 once rewritten. The explorer's queries hold every
enabledness twice (pre- and post-object, the latter over the method's after-values), so
their size is the solver's work on every check.

The rewriting is exact: the formula's truth table over its atoms (taken as independent
propositions, so the result is equivalent whatever the atoms mean) is computed with one
bit per row in Python integers, one pass over the DAG, then written back as a decision
diagram (Shannon expansion, atoms in a stable order, shared cofactors). The same table
gives the same formula, whichever way the guard was reached.
"""

from __future__ import annotations

import z3

from contractor.z3backend import dag

MAX_ATOMS = 14  # 2^14-bit rows per column
MIN_NODES = 50  # smaller formulas are left as they are (their text is what users read)

_CONNECTIVES = {z3.Z3_OP_AND, z3.Z3_OP_OR, z3.Z3_OP_NOT, z3.Z3_OP_IMPLIES, z3.Z3_OP_XOR,
                z3.Z3_OP_ITE, z3.Z3_OP_EQ, z3.Z3_OP_TRUE, z3.Z3_OP_FALSE}


def compact(f: z3.BoolRef) -> z3.BoolRef:
    """`f`, or an equivalent smaller formula where it is big and over few atoms (see the
    module docstring)."""
    nodes = dag.postorder(f)
    if len(nodes) < MIN_NODES:
        return f
    try:
        atoms = dag.bool_atoms(f)
    except ValueError:  # quantified
        return f
    if len(atoms) > MAX_ATOMS:
        return f
    atoms.sort(key=lambda a: (a.sexpr().count("("), a.sexpr()))
    table = _truth_table(f, nodes, atoms)
    if table is None:
        return f
    out = _diagram(atoms, table)
    return out if len(dag.postorder(out)) < len(nodes) else f


def _column(i: int, n: int) -> int:
    """The rows (bits of a 2^n-bit integer) where atom i is true: those whose index has bit i."""
    rows = 1 << n
    width = 1 << i
    col = ((1 << width) - 1) << width
    period = 2 * width
    while period < rows:
        col |= col << period
        period *= 2
    return col & ((1 << rows) - 1)


def _truth_table(f: z3.BoolRef, nodes: dict[int, dag.Node], atoms: list[z3.BoolRef]) -> int | None:
    """The rows where `f` is true, or None where a connective is not one read here."""
    n = len(atoms)
    full = (1 << (1 << n)) - 1
    val = {a.get_id(): _column(i, n) for i, a in enumerate(atoms)}
    for key, nd in nodes.items():
        if key in val or nd.kind != z3.Z3_APP_AST or nd.decl_kind not in _CONNECTIVES:
            continue
        if any(a not in val for a in nd.args):
            continue  # below an atom, or not Boolean (an if-then-else of integers)
        args = [val[a] for a in nd.args]
        k = nd.decl_kind
        if k == z3.Z3_OP_TRUE:
            val[key] = full
        elif k == z3.Z3_OP_FALSE:
            val[key] = 0
        elif k == z3.Z3_OP_AND:
            v = full
            for x in args:
                v &= x
            val[key] = v
        elif k == z3.Z3_OP_OR:
            v = 0
            for x in args:
                v |= x
            val[key] = v
        elif k == z3.Z3_OP_NOT:
            val[key] = full ^ args[0]
        elif k == z3.Z3_OP_IMPLIES:
            val[key] = (full ^ args[0]) | args[1]
        elif k == z3.Z3_OP_XOR and len(args) == 2:
            val[key] = args[0] ^ args[1]
        elif k == z3.Z3_OP_EQ and len(args) == 2:
            val[key] = full ^ args[0] ^ args[1]
        elif k == z3.Z3_OP_ITE:
            val[key] = (args[0] & args[1]) | ((full ^ args[0]) & args[2])
    return val.get(next(reversed(nodes)))


def _diagram(atoms: list[z3.BoolRef], table: int) -> z3.BoolRef:
    """The formula of `table` (rows over `atoms`) as a reduced decision diagram."""
    return _Diagram(atoms, table).node(table, 0)


class _Diagram:
    """`_diagram`'s recursion. Methods of an object, not a nested function calling itself:
    such a closure is a reference cycle, and the terms of its memo stayed alive until
    Python's cycle collector ran (z3's term ids then depended on when it ran: see
    opaque._projected)."""

    def __init__(self, atoms: list[z3.BoolRef], table: int) -> None:
        n = len(atoms)
        self.atoms = atoms
        self.full = (1 << (1 << n)) - 1
        self.columns = [_column(i, n) for i in range(n)]
        self.memo: dict[tuple[int, int], z3.BoolRef] = {}

    def cofactor(self, t: int, i: int, value: bool) -> int:
        w = 1 << i
        if value:
            x = t & self.columns[i]
            return x | (x >> w)
        x = t & (self.full ^ self.columns[i])
        return x | (x << w)

    def node(self, t: int, i: int) -> z3.BoolRef:
        full, go = self.full, self.node
        if t == 0:
            return z3.BoolVal(False)
        if t == full:
            return z3.BoolVal(True)
        key = (t, i)
        if key not in self.memo:
            hi, lo = self.cofactor(t, i, True), self.cofactor(t, i, False)
            while hi == lo:  # t does not depend on atom i
                i += 1
                hi, lo = self.cofactor(t, i, True), self.cofactor(t, i, False)
            a = self.atoms[i]
            if lo == 0 and hi == full:
                r = a
            elif hi == 0 and lo == full:
                r = z3.Not(a)
            elif lo == 0:
                r = z3.And(a, go(hi, i + 1))
            elif hi == 0:
                r = z3.And(z3.Not(a), go(lo, i + 1))
            elif hi == full:
                r = z3.Or(a, go(lo, i + 1))
            elif lo == full:
                r = z3.Or(z3.Not(a), go(hi, i + 1))
            else:
                r = z3.If(a, go(hi, i + 1), go(lo, i + 1))
            self.memo[key] = r
        return self.memo[key]


__all__ = ["MAX_ATOMS", "MIN_NODES", "compact"]

"""Parameters eliminated from enabledness by miniscoping: `exists p. pre(c, p)` split into
what needs no parameter and independent groups of parameters, each group decided exactly
where a simple argument applies, so the enabledness bit is a quantifier-free formula of the
object instead of a lazily refined one (encoding.py), which z3's sequence solver handles
far better (`name not in self.sessions` over a dict of str keys).

The rules, each exact:
- a conjunct without parameters is taken out of the quantifier;
- a bool or Enum parameter is expanded into one disjunct per value;
- a group whose conjuncts mention no field is a closed sentence, decided by one query;
- `exists x. x in s` (and nothing else about x) is `len(s) > 0`;
- `exists x. x in s and Q(x)` becomes `exists i. 0 <= i < len(s) and Q(s[i])` (not decided:
  the lazy encoding then works with positions, not with elements it would have to find);
- `exists x. Q(x) and x not in s1 and x != t1 ...` for an int or str x is `exists x. Q(x)`
  when Q has infinitely many solutions (finitely many values are excluded): for an int, a
  quantified linear arithmetic query proves it; for a str, Q must be made of atoms every
  long enough `prefix + filler + suffix` satisfies (startswith, endswith, `in` of constants,
  length lower bounds, `!=` constants), so that Q satisfiable means Q infinite.
A group no rule decides stays existential (the caller's lazy encoding).
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from contractor.model import INT
from contractor.z3backend.values import Val
from contractor.z3backend.z3util import free_constants, make_solver

QUERY_MS = 250  # a sentence z3 cannot settle this fast (cubes) is left to the other encodings


@dataclass(frozen=True)
class Scoped:
    """pre = And(decided, exists rest. residual): `residual` over the parameters in `rest`."""

    decided: z3.BoolRef
    rest: dict[str, Val]
    residual: z3.BoolRef


def miniscope(params: dict[str, Val], pre: z3.BoolRef) -> Scoped:
    consts = {p.z.get_id(): name for name, p in params.items() if isinstance(p.z, z3.ExprRef)}
    consts.update({p.is_none.get_id(): name for name, p in params.items() if p.is_none is not None})
    groups: dict[str, set[str]] = {name: {name} for name in params}
    outside: list[z3.BoolRef] = []
    by_param: list[tuple[set[str], z3.BoolRef]] = []
    for c in conjuncts(pre):
        names = {consts[k.get_id()] for k in free_constants(c) if k.get_id() in consts}
        if not names:
            outside.append(c)
            continue
        by_param.append((names, c))
        merged = set().union(*[groups[n] for n in names])
        for n in merged:
            groups[n] = merged
    decided, rest, residual = list(outside), {}, []
    # in a fixed order (a set of str sets iterates by hash: the formula, and so z3's models
    # and the witnesses, changed with PYTHONHASHSEED)
    for group in sorted({frozenset(g) for g in groups.values()}, key=sorted):
        conj = [c for names, c in by_param if names <= group]
        ps = {n: params[n] for n in sorted(group)}
        result = _decide(ps, conj)
        if result is not None:
            decided.append(result)
            continue
        by_position = _by_position(ps, conj)
        if by_position is not None:
            ((_, i),), body = by_position[0].items(), by_position[1]
            decided.append(z3.Exists([i.z], z3.And(*body)))
            continue
        rest.update(ps)
        residual += conj
    return Scoped(z3.And(*decided) if decided else z3.BoolVal(True), rest,
                  z3.And(*residual) if residual else z3.BoolVal(True))


def conjuncts(f: z3.BoolRef) -> list[z3.BoolRef]:
    f = z3.simplify(f)
    if z3.is_and(f):
        return [c for child in f.children() for c in conjuncts(child)]
    return [] if z3.is_true(f) else [f]


def _decide(ps: dict[str, Val], conj: list[z3.BoolRef]) -> z3.BoolRef | None:
    """exists ps. And(conj), without the quantifier, or None."""
    body = z3.And(*conj) if conj else z3.BoolVal(True)
    finite = [(n, v) for n, v in ps.items() if v.kind in ("bool", "enum")]
    if finite:
        name, v = finite[0]
        values = [z3.BoolVal(False), z3.BoolVal(True)] if v.kind == "bool" else \
            [z3.IntVal(i) for i in range(len(v.type.members))]
        others = {n: x for n, x in ps.items() if n != name}
        cases = []
        for value in values:
            case = conjuncts(z3.substitute(body, (v.z, value)))
            if others:
                inner = miniscope(others, z3.And(*case) if case else z3.BoolVal(True))
                if inner.rest:
                    return None
                cases.append(inner.decided)
            else:
                cases.append(z3.And(*case) if case else z3.BoolVal(True))
        return z3.simplify(z3.Or(*cases))
    own = {k.get_id() for v in ps.values() for k in ([v.z] + ([v.is_none] if v.is_none is not None else []))}
    if all(k.get_id() in own for k in free_constants(body)):
        return _closed(body)
    if len(ps) != 1:
        return None
    (v,) = ps.values()
    if v.kind not in ("int", "str") or v.is_none is not None:
        return None
    x = v.z
    if len(conj) == 1 and _member_seq(conj[0], x) is not None:
        return z3.Length(_member_seq(conj[0], x)) > 0
    closed = [c for c in conj if not _excludes(c, x)]
    if any(not all(k.eq(x) for k in free_constants(c)) for c in closed):
        return None  # x related to the object other than by exclusion
    q = z3.And(*closed) if closed else z3.BoolVal(True)
    if not _infinite(q, x, v.kind):
        return None
    return _closed(q)


def _by_position(ps: dict[str, Val], conj: list[z3.BoolRef]) -> tuple[dict[str, Val], list[z3.BoolRef]] | None:
    """`exists x. x in s and Q(x)` as `exists i. 0 <= i < len(s) and Q(s[i])`: a position
    instead of an element, which the lazy encoding instantiates with numbers, not with
    elements z3 would have to find in s."""
    if len(ps) != 1:
        return None
    ((name, v),) = ps.items()
    if v.is_none is not None:
        return None
    seq = next((q for q in (_member_seq(c, v.z) for c in conj) if q is not None), None)
    if seq is None or _mentions(seq, v.z):
        return None
    i = Val(INT, z3.Int(f"{name}@position"))
    item = seq[i.z]
    return {f"{name}@position": i}, [0 <= i.z, i.z < z3.Length(seq), *[z3.substitute(c, (v.z, item)) for c in conj]]


def _closed(sentence: z3.BoolRef) -> z3.BoolRef | None:
    """A formula of the parameters alone: true iff satisfiable (None if undecided). One that
    simplifies to true or false (a parameter no precondition mentions: `exists data. True`)
    is that, without a solver (a fresh one costs 1-3 ms)."""
    simple = z3.simplify(sentence)
    if z3.is_true(simple) or z3.is_false(simple):
        return z3.BoolVal(z3.is_true(simple))
    s = make_solver(QUERY_MS)
    s.add(sentence)
    r = s.check()
    return None if r == z3.unknown else z3.BoolVal(r == z3.sat)


def _member_seq(c: z3.BoolRef, x: z3.ExprRef) -> z3.SeqRef | None:
    """s, if c is `x in s` (Contains(s, Unit(x))) with x not in s."""
    if z3.is_app_of(c, z3.Z3_OP_SEQ_CONTAINS):
        seq, unit = c.children()
        if z3.is_app_of(unit, z3.Z3_OP_SEQ_UNIT) and unit.children()[0].eq(x) and not _mentions(seq, x):
            return seq
    return None


def _excludes(c: z3.BoolRef, x: z3.ExprRef) -> bool:
    """c excludes finitely many values of x: not (x == t or x in s or ...), t and s free of x."""
    if not z3.is_not(c):
        return False
    inner = c.children()[0]
    alts = inner.children() if z3.is_or(inner) else [inner]
    for a in alts:
        if _member_seq(a, x) is not None:
            continue
        if z3.is_eq(a):
            lhs, rhs = a.children()
            other = rhs if lhs.eq(x) else lhs if rhs.eq(x) else None
            if other is not None and not _mentions(other, x):
                continue
        return False
    return True


def _mentions(e: z3.ExprRef, x: z3.ExprRef) -> bool:
    return any(k.eq(x) for k in free_constants(e))


def _infinite(q: z3.BoolRef, x: z3.ExprRef, kind: str) -> bool:
    """Q(x) has infinitely many solutions, or none (then the caller's check says false)."""
    if kind == "int":
        n = z3.FreshInt("bound")
        for beyond in (x > n, x < n):
            s = make_solver(QUERY_MS)
            s.add(z3.Exists([n], z3.ForAll([x], z3.Implies(q, z3.Not(beyond)))))  # bounded one way
            if s.check() == z3.unsat:
                return True
        return False
    return all(_long_strings_meet(c, x) for c in conjuncts(q))


def _long_strings_meet(c: z3.BoolRef, x: z3.ExprRef) -> bool:
    """Every `P + filler + S` long enough meets c, P and S the longest prefix and suffix any
    solution of the conjunction has (a str atom of the class miniscope's docstring names)."""
    def const(e: z3.ExprRef) -> bool:
        return bool(z3.is_string_value(e))

    if z3.is_app_of(c, z3.Z3_OP_SEQ_PREFIX) or z3.is_app_of(c, z3.Z3_OP_SEQ_SUFFIX):
        a, b = c.children()
        return const(a) and b.eq(x)
    if z3.is_app_of(c, z3.Z3_OP_SEQ_CONTAINS):
        a, b = c.children()
        return a.eq(x) and const(b)
    if z3.is_not(c) and z3.is_eq(c.children()[0]):
        a, b = c.children()[0].children()
        return (a.eq(x) and const(b)) or (b.eq(x) and const(a)) or _length_only(c, x)
    return _length_only(c, x)


def _length_only(c: z3.BoolRef, x: z3.ExprRef) -> bool:
    """c mentions x only as len(x), and holds for every long enough length."""
    length = z3.Length(x)
    n = z3.FreshInt("len")
    replaced = z3.substitute(c, (length, n))
    if _mentions(replaced, x):
        return False
    k = z3.FreshInt("k")
    s = make_solver(QUERY_MS)
    s.add(z3.ForAll([k], z3.Exists([n], z3.And(n > k, z3.Not(replaced)))))  # fails arbitrarily late
    return bool(s.check() == z3.unsat)

"""An executable form of "some arguments satisfy the precondition": the method's parameters
eliminated from its precondition, leaving a Python expression over `self` and module names.

A method with parameters is enabled when *some* arguments satisfy its precondition. The
strengthened class has no arguments to try, so it needs this existential as an expression
over the object alone. The elimination is exact or it gives up (None), one parameter at a time:

- a parameter that does not occur: nothing to do; `or`s distribute (`some p: A or B` is
  `(some p: A) or (some p: B)`), and conjuncts without the parameter move out;
- `p == e`: `e` replaces `p`;
- `p in C` (a collection that is not a `str`): `any(<the rest> for p in C)`, or
  `len(C) > 0` when nothing else mentions `p`;
- a `bool` parameter: both values substituted; an Enum one: `any(<conjuncts> for p in E)`;
- an `int` or `float` parameter, or the length of a `str`/`list` one, bounded by
  comparisons with expressions free of it: every lower bound is at most every upper bound
  (`l < v < u` is `l + 1 < u` for integers; a length is at least 0); exclusions
  (`p != e`, `p not in C`) leave infinitely many values when one side is unbounded, and
  make the elimination give up otherwise.
Anything else (a negated or called parameter, `p` in a `str`, an untyped parameter
outside the first two rules) gives up.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Sequence
from dataclasses import dataclass

from contractor.model import Method, TypeRef

_FLIP = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}
_NEGATE = {ast.Lt: ast.GtE, ast.LtE: ast.Gt, ast.Gt: ast.LtE, ast.GtE: ast.Lt, ast.Eq: ast.NotEq,
           ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In}
NUMBERS = ("int", "float")
SIZED = ("str", "list")  # parameters whose length can be any natural number


class GiveUp(Exception):
    """No exact executable form was found (internal: `enabled_python` answers None)."""


def _mentions(expr: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(expr))


def _and(parts: Sequence[ast.expr]) -> ast.expr:
    return _junction(ast.And(), True, parts)


def _or(parts: Sequence[ast.expr]) -> ast.expr:
    return _junction(ast.Or(), False, parts)


def _junction(op: ast.boolop, unit: bool, parts: Sequence[ast.expr]) -> ast.expr:
    """`a and b` (`unit` True) or `a or b` (False), simplified: the unit drops out, its
    opposite absorbs the whole."""
    kept = [p for p in parts if not (isinstance(p, ast.Constant) and p.value is unit)]
    if any(isinstance(p, ast.Constant) and p.value is (not unit) for p in kept):
        return ast.Constant(not unit)
    if not kept:
        return ast.Constant(unit)
    return kept[0] if len(kept) == 1 else ast.BoolOp(op, list(kept))


def _conjuncts(expr: ast.expr) -> list[ast.expr]:
    """`expr` as a list of conjuncts; chained comparisons split into binary ones; `not` pushed
    into a binary comparison."""
    if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.And):
        return [c for v in expr.values for c in _conjuncts(v)]
    if isinstance(expr, ast.Compare) and len(expr.ops) > 1:
        lefts = [expr.left, *expr.comparators[:-1]]
        return [ast.Compare(a, [op], [b]) for a, op, b in zip(lefts, expr.ops, expr.comparators)]
    if (isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not) and isinstance(expr.operand, ast.Compare)
            and len(expr.operand.ops) == 1 and type(expr.operand.ops[0]) in _NEGATE):
        cmp = expr.operand
        return [ast.Compare(cmp.left, [_NEGATE[type(cmp.ops[0])]()], cmp.comparators)]
    return [expr]


class _Replace(ast.NodeTransformer):
    def __init__(self, name: str, value: ast.expr) -> None:
        self.name, self.value = name, value

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return copy.deepcopy(self.value) if node.id == self.name else node


def _substitute(expr: ast.expr, name: str, value: ast.expr) -> ast.expr:
    result = _Replace(name, value).visit(copy.deepcopy(expr))
    assert isinstance(result, ast.expr)
    return result


def _generator(element: ast.expr, name: str, iterable: ast.expr) -> ast.expr:
    """`any(element for name in iterable)`."""
    comp = ast.comprehension(ast.Name(name, ast.Store()), iterable, [], 0)
    return ast.Call(ast.Name("any", ast.Load()), [ast.GeneratorExp(element, [comp])], [])


def _fold(expr: ast.expr) -> ast.expr:
    """`not True` and `not False` folded (what substituting a bool leaves)."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not) and isinstance(expr.operand, ast.Constant):
        return ast.Constant(not expr.operand.value)
    return expr


@dataclass(frozen=True)
class _Bound:
    expr: ast.expr
    strict: bool


def _is_var(expr: ast.expr, name: str, length: bool) -> bool:
    if length:
        return (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "len"
                and len(expr.args) == 1 and not expr.keywords
                and isinstance(expr.args[0], ast.Name) and expr.args[0].id == name)
    return isinstance(expr, ast.Name) and expr.id == name


def _is_int(expr: ast.expr, int_names: frozenset[str]) -> bool:
    """Whether `expr` certainly evaluates to an int (integer bounds allow the +1 step)."""
    if isinstance(expr, ast.Constant):
        return type(expr.value) is int
    if isinstance(expr, ast.Call):
        return isinstance(expr.func, ast.Name) and expr.func.id == "len"
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)):
        return _is_int(expr.left, int_names) and _is_int(expr.right, int_names)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _is_int(expr.operand, int_names)
    return ast.unparse(expr) in int_names


def _bounds(name: str, kind: str, conjuncts: list[ast.expr], int_names: frozenset[str]) -> ast.expr:
    """Eliminate a number (or a length) bounded by comparisons."""
    length = kind in SIZED
    integer = kind == "int" or length
    lower: list[_Bound] = [_Bound(ast.Constant(0), False)] if length else []
    upper: list[_Bound] = []
    exclusions = 0
    for c in conjuncts:
        if isinstance(c, ast.Compare) and len(c.ops) == 1:
            left, op, right = c.left, type(c.ops[0]), c.comparators[0]
            if op is ast.NotIn and _is_var(left, name, length) and not _mentions(right, name):
                exclusions += 1
                continue
            if op in _FLIP and _is_var(right, name, length) and not _mentions(left, name):
                left, op, right = right, _FLIP[op], left
            if op in _FLIP and _is_var(left, name, length) and not _mentions(right, name):
                if integer and not _is_int(right, int_names):
                    raise GiveUp(f"a bound of {name} that may not be an integer: {ast.unparse(right)}")
                if op in (ast.Gt, ast.GtE, ast.Eq):
                    lower.append(_Bound(right, op is ast.Gt))
                if op in (ast.Lt, ast.LtE, ast.Eq):
                    upper.append(_Bound(right, op is ast.Lt))
                if op is ast.NotEq:
                    exclusions += 1
                continue
        raise GiveUp(f"{ast.unparse(c)} is not a bound on {name}")
    if exclusions and lower and upper:
        raise GiveUp(f"{name} is bounded on both sides and excluded from some values")
    pairs: list[ast.expr] = []
    for lo in lower:
        for hi in upper:
            if integer and lo.strict and hi.strict:  # l < v < u: l + 1 < u
                low: ast.expr = ast.BinOp(copy.deepcopy(lo.expr), ast.Add(), ast.Constant(1))
                pairs.append(ast.Compare(low, [ast.Lt()], [copy.deepcopy(hi.expr)]))
            else:
                between: ast.cmpop = ast.Lt() if lo.strict or hi.strict else ast.LtE()
                pairs.append(ast.Compare(copy.deepcopy(lo.expr), [between], [copy.deepcopy(hi.expr)]))
    return _and(pairs)


def _string_collection(expr: ast.expr, collections: dict[str, str]) -> bool:
    """Whether `expr` may be a str (then `p in expr` is a substring test, not membership)."""
    return collections.get(ast.unparse(expr), "str") == "str"


def _exists(name: str, ref: TypeRef | None, expr: ast.expr, collections: dict[str, str],
            int_names: frozenset[str]) -> ast.expr:
    """An expression equivalent to "some value of parameter `name` (of type `ref`) satisfies `expr`"."""
    if not _mentions(expr, name):
        return expr
    if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.Or):
        return _or([_exists(name, ref, v, collections, int_names) for v in expr.values])
    conjuncts = _conjuncts(expr)
    for i, c in enumerate(conjuncts):  # distribute an `or` that mentions the parameter
        if isinstance(c, ast.BoolOp) and isinstance(c.op, ast.Or) and _mentions(c, name):
            rest = conjuncts[:i] + conjuncts[i + 1:]
            return _or([_exists(name, ref, _and([*rest, v]), collections, int_names) for v in c.values])
    free = [c for c in conjuncts if not _mentions(c, name)]
    bound = [c for c in conjuncts if _mentions(c, name)]
    return _and([*free, _exists_conjunction(name, ref, bound, collections, int_names)])


def _exists_conjunction(name: str, ref: TypeRef | None, bound: list[ast.expr], collections: dict[str, str],
                        int_names: frozenset[str]) -> ast.expr:
    kind = ref.kind if ref is not None else "any"
    for i, c in enumerate(bound):  # p == e: substitute
        if isinstance(c, ast.Compare) and len(c.ops) == 1 and isinstance(c.ops[0], ast.Eq):
            sides = (c.left, c.comparators[0])
            for var, value in (sides, sides[::-1]):
                if isinstance(var, ast.Name) and var.id == name and not _mentions(value, name):
                    rest = bound[:i] + bound[i + 1:]
                    return _and([_substitute(r, name, value) for r in rest])
    for i, c in enumerate(bound):  # p in C: iterate C
        if (isinstance(c, ast.Compare) and len(c.ops) == 1 and isinstance(c.ops[0], ast.In)
                and isinstance(c.left, ast.Name) and c.left.id == name and not _mentions(c.comparators[0], name)
                and not (kind in ("str", "any") and _string_collection(c.comparators[0], collections))):
            rest = bound[:i] + bound[i + 1:]
            collection = c.comparators[0]
            if not rest:
                return ast.Compare(ast.Call(ast.Name("len", ast.Load()), [collection], []), [ast.Gt()],
                                   [ast.Constant(0)])
            return _generator(_and(rest), name, collection)
    if kind == "bool":
        return _or([_and([_fold(_substitute(c, name, ast.Constant(v))) for c in bound]) for v in (True, False)])
    if kind == "enum" and ref is not None and ref.name:
        return _generator(_and(bound), name, ast.Name(ref.name, ast.Load()))
    if kind in NUMBERS or kind in SIZED:
        return _bounds(name, kind, bound, int_names)
    raise GiveUp(f"no rule eliminates the {kind} parameter {name} from {ast.unparse(_and(bound))}")


def enabled_python(method: Method, collections: dict[str, str], int_names: frozenset[str]) -> str | None:
    """A Python expression over `self` (and module names) that holds exactly when some
    arguments satisfy `method`'s preconditions; None if no exact one was found.

    `collections` maps expressions (`self.items`, `FORMATS`) to their type kinds, so that a
    membership test in a `str` is not mistaken for one in a collection; `int_names` are the
    expressions known to be integers.
    """
    expr = _and([copy.deepcopy(c.expr) for c in method.preconditions])
    int_names = int_names | {p.name for p in method.params if p.type is not None and p.type.kind == "int"}
    try:
        for param in reversed(method.params):
            expr = _exists(param.name, param.type, expr, collections, int_names)
    except GiveUp:
        return None
    if any(_mentions(expr, p.name) for p in method.params if not _bound_in_generator(expr, p.name)):
        return None
    return ast.unparse(ast.fix_missing_locations(expr))


def _bound_in_generator(expr: ast.expr, name: str) -> bool:
    """Whether every occurrence of `name` in `expr` is bound by a generator's `for name in`."""
    free = _Free(name)
    free.visit(expr)
    return not free.found


class _Free(ast.NodeVisitor):
    def __init__(self, name: str) -> None:
        self.name, self.found = name, False

    def visit_GeneratorExp(self, node: ast.GeneratorExp) -> None:
        if any(isinstance(g.target, ast.Name) and g.target.id == self.name for g in node.generators):
            for g in node.generators:
                self.visit(g.iter)
            return
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id == self.name:
            self.found = True


__all__ = ["enabled_python"]

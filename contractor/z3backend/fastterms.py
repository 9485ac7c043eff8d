"""z3's Boolean connectives without the Python binding's argument coercion, for the
executor's hottest term builders (the path condition `active()` of every statement,
each raise, each retruthed opaque place).

`z3.And(a, b)` finds the context among its arguments, makes a Bool sort object, casts
each argument to it (a sort look-up and a sort comparison each) and checks for probes,
all in Python, before the one C call that makes the term; for arguments that are
already Boolean terms of one context all that is a no-op. These make the same C call
on the same arguments, so the same terms (z3 shares equal terms) are made in the same
order and no other term is made or freed: z3's answers, which depend on its terms' ids,
stay the same. Where an argument is anything else (a Python bool, a probe), the
binding's own function is used.
"""

from __future__ import annotations

from typing import Any

import z3
from z3 import z3 as _Z3PY
from z3 import z3core as C

from contractor.z3backend import rawapi as R


def _bools(args: tuple[Any, ...]) -> bool:
    """Whether every argument is a Boolean term of the first one's context."""
    if not args:
        return False
    ctx = getattr(args[0], "ctx", None)
    return all(isinstance(a, z3.BoolRef) and a.ctx is ctx for a in args)


_inc_ref = R.unchecked(C.Z3_inc_ref)
_mk_not = R.unchecked(C.Z3_mk_not)
_mk_and = R.unchecked(C.Z3_mk_and)
_mk_or = R.unchecked(C.Z3_mk_or)
_mk_distinct = R.unchecked(C.Z3_mk_distinct)
_is_finite_set_sort = R.unchecked(C.Z3_is_finite_set_sort) if hasattr(C, "Z3_is_finite_set_sort") else None
# the binding's class of an application (not a numeral, not a quantifier) by its sort's kind,
# where `_to_expr_ref` picks it by the sort kind alone (other kinds go through the binding)
_APP_CLASSES: dict[int, type[z3.ExprRef]] = {
    z3.Z3_BOOL_SORT: z3.BoolRef, z3.Z3_INT_SORT: z3.ArithRef, z3.Z3_DATATYPE_SORT: z3.DatatypeRef,
    z3.Z3_SEQ_SORT: z3.SeqRef, z3.Z3_ARRAY_SORT: z3.ArrayRef, z3.Z3_BV_SORT: z3.BitVecRef}


def _wrapped(cls: Any, a: Any, ctx: z3.Context) -> Any:
    """`cls(a, ctx)` (AstRef.__init__: the AST kept, its reference counted), the count by
    the unchecked C call (incrementing a valid AST's count cannot fail)."""
    out = cls.__new__(cls)
    out.ast, out.ctx = a, ctx
    _inc_ref(ctx.ref(), a)
    return out


def bool_ref(a: Any, ctx: z3.Context) -> z3.BoolRef:
    """z3.BoolRef(a, ctx) for a Boolean AST `a` of `ctx`."""
    return _wrapped(z3.BoolRef, a, ctx)


def expr_ref(a: Any, ctx: z3.Context) -> z3.ExprRef:
    """The binding's `_to_expr_ref(a, ctx)`: the same class on the same AST, picked by
    rawapi.py's unchecked accessors for applications of the common sorts (the binding
    makes four checked calls and a Python frame each); numerals, quantifiers, variables
    and other sorts through the binding itself."""
    ref = ctx.ref()
    if R.get_ast_kind(ref, a) == z3.Z3_APP_AST:
        s = R.get_sort(ref, a)
        if _is_finite_set_sort is None or not _is_finite_set_sort(ref, s):
            cls = _APP_CLASSES.get(R.get_sort_kind(ref, s))
            if cls is not None:
                return _wrapped(cls, a, ctx)
    return _Z3PY._to_expr_ref(a, ctx)


def not_(a: Any) -> z3.BoolRef:
    """z3.Not(a)."""
    if not isinstance(a, z3.BoolRef):
        return z3.Not(a)
    ctx = a.ctx
    return bool_ref(_mk_not(ctx.ref(), a.as_ast()), ctx)


def _asts(args: tuple[Any, ...]) -> Any:
    """The arguments as the C array z3's n-ary constructors take."""
    return (z3.Ast * len(args))(*[a.as_ast() for a in args])


def and_(*args: Any) -> z3.BoolRef:
    """z3.And(*args)."""
    if not _bools(args):
        return z3.And(*args)
    ctx = args[0].ctx
    return bool_ref(_mk_and(ctx.ref(), len(args), _asts(args)), ctx)


def or_(*args: Any) -> z3.BoolRef:
    """z3.Or(*args)."""
    if not _bools(args):
        return z3.Or(*args)
    ctx = args[0].ctx
    return bool_ref(_mk_or(ctx.ref(), len(args), _asts(args)), ctx)


def ne(a: z3.ExprRef, b: z3.ExprRef) -> z3.BoolRef:
    """a != b for two terms of one sort and context (the binding's `__ne__`: a distinct of the two)."""
    ctx = a.ctx
    return bool_ref(_mk_distinct(ctx.ref(), 2, _asts((a, b))), ctx)


def eq(a: z3.ExprRef, b: z3.ExprRef) -> z3.BoolRef:
    """a == b for two terms of one sort and context (no coercion to make)."""
    ctx = a.ctx
    return bool_ref(C.Z3_mk_eq(ctx.ref(), a.as_ast(), b.as_ast()), ctx)


def simplified(a: z3.BoolRef) -> z3.BoolRef:
    """z3.simplify(a) without flattening nested `and`/`or` into one n-ary term each.

    The translation's Boolean terms nest: each raise is `raised or (active and cond)`,
    with active() holding `not raised` of the raises before it, so flattening copies every
    prefix of the disjunction into a term of its own, quadratic in the number of raises
    (http.client.HTTPConnection's `request`: 584 disjunctions of 102 K arguments in all,
    for 3.5 K distinct nodes). Whether the result is true or false is what the executor
    asks; the simplifier's other rewritings are the same."""
    return z3.simplify(a, flat_and_or=False)


def shown_false(a: z3.BoolRef) -> bool:
    """Whether z3's simplifier shows `a` false (`simplified`)."""
    return bool(z3.is_false(simplified(a)))


def _sort(ctx: Any, a: z3.ExprRef) -> int | None:
    return R.get_sort(ctx, a.as_ast()).value  # type: ignore[no-any-return]


def ite(c: Any, a: Any, b: Any) -> z3.ExprRef:
    """z3.If(c, a, b) (where `a` and `b` are terms of one sort: no coercion to make)."""
    if isinstance(c, z3.BoolRef) and isinstance(a, z3.ExprRef) and isinstance(b, z3.ExprRef) \
            and a.ctx is c.ctx and b.ctx is c.ctx:
        ctx = c.ctx
        ref = ctx.ref()
        if _sort(ref, a) == _sort(ref, b):
            return expr_ref(C.Z3_mk_ite(ref, c.as_ast(), a.as_ast(), b.as_ast()), ctx)
    return z3.If(c, a, b)


def app(f: z3.FuncDeclRef, *args: Any) -> z3.ExprRef:
    """f(*args) (where every argument is a term of its domain's sort: no coercion to make)."""
    ctx = f.ctx
    ref = ctx.ref()
    if len(args) == f.arity() and all(isinstance(a, z3.ExprRef) and a.ctx is ctx for a in args) \
            and all(_sort(ref, a) == C.Z3_get_domain(ref, f.ast, i).value for i, a in enumerate(args)):
        return expr_ref(C.Z3_mk_app(ref, f.ast, len(args), _asts(args)), ctx)
    return f(*args)


def op_kind(a: z3.ExprRef) -> int:
    """The kind of `a`'s function where it is an application (`z3.is_app_of(a, k)` is
    `op_kind(a) == k`), else -1; by rawapi.py's accessors on bare pointers (no object made,
    no argument converted: 1.28 -> 0.98 us a call, 48 K calls in HTTPConnection's run)."""
    ast = a.as_ast()  # the addresses: the values the C calls that made them set (else rawapi.pointer's)
    c, p = a.ctx.ctx.value or R.pointer(a.ctx_ref()), ast.value or R.pointer(ast)
    if R.ptr_ast_kind(c, p) != z3.Z3_APP_AST:
        return -1
    return int(R.ptr_decl_kind(c, R.ptr_app_decl(c, R.ptr_to_app(c, p))))


def arg(a: z3.ExprRef, i: int) -> z3.ExprRef:
    """a.arg(i) for an application `a` with more than `i` arguments: the same object on the
    same argument pointer, without the binding's debug checks (is_app, the argument count,
    each a checked C call or several) and by rawapi.py's accessor (opaque.py's projections
    and reach.py's identities take the branches of thousands of if-then-else terms)."""
    ref = a.ctx_ref()
    return expr_ref(R.get_app_arg(ref, R.to_app(ref, a.as_ast()), i), a.ctx)


def is_true(a: z3.ExprRef) -> bool:
    """z3.is_true(a) on a term (the application of `true`)."""
    return bool(op_kind(a) == z3.Z3_OP_TRUE)


def node_id(a: z3.AstRef) -> int:
    """a.get_id(), unchecked, on bare pointers (rawapi.py; 0.39 -> 0.31 us a call, 94 K
    calls in HTTPConnection's run)."""
    ast = a.as_ast()
    return int(R.ptr_ast_id(a.ctx.ctx.value or R.pointer(a.ctx_ref()), ast.value or R.pointer(ast)))


def bool_children(a: z3.BoolRef) -> list[z3.BoolRef]:
    """a.children() for an application whose arguments are Boolean (a connective's): the
    same objects (a quantifier argument a QuantifierRef, any other a BoolRef, as the
    binding's `_to_expr_ref` picks by kind and sort) on the same argument pointers, by
    rawapi.py's accessors instead of the binding's checked calls and sort look-ups."""
    ctx = a.ctx
    ref = ctx.ref()
    app = R.to_app(ref, a.as_ast())
    out: list[z3.BoolRef] = []
    for i in range(R.get_app_num_args(ref, app)):
        arg = R.get_app_arg(ref, app, i)
        quantified = R.get_ast_kind(ref, arg) == z3.Z3_QUANTIFIER_AST
        out.append(z3.QuantifierRef(arg, ctx) if quantified else bool_ref(arg, ctx))
    return out


def add(solver: z3.Solver, *terms: Any) -> None:
    """solver.add(*terms): the binding casts each term to the Boolean sort (a sort look-up
    and comparison in Python) before the C call asserting it; Boolean terms of the
    solver's context are asserted by the same C call at once, in the same order. Anything
    else goes through the binding."""
    ctx = solver.ctx
    if not all(isinstance(t, z3.BoolRef) and t.ctx is ctx for t in terms):
        solver.add(*terms)
        return
    ref = ctx.ref()
    for t in terms:
        C.Z3_solver_assert(ref, solver.solver, t.as_ast())

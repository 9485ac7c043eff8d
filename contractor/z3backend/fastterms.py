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


def not_(a: Any) -> z3.BoolRef:
    """z3.Not(a)."""
    if not isinstance(a, z3.BoolRef):
        return z3.Not(a)
    ctx = a.ctx
    return z3.BoolRef(C.Z3_mk_not(ctx.ref(), a.as_ast()), ctx)


def _asts(args: tuple[Any, ...]) -> Any:
    """The arguments as the C array z3's n-ary constructors take."""
    return (z3.Ast * len(args))(*[a.as_ast() for a in args])


def and_(*args: Any) -> z3.BoolRef:
    """z3.And(*args)."""
    if not _bools(args):
        return z3.And(*args)
    ctx = args[0].ctx
    return z3.BoolRef(C.Z3_mk_and(ctx.ref(), len(args), _asts(args)), ctx)


def or_(*args: Any) -> z3.BoolRef:
    """z3.Or(*args)."""
    if not _bools(args):
        return z3.Or(*args)
    ctx = args[0].ctx
    return z3.BoolRef(C.Z3_mk_or(ctx.ref(), len(args), _asts(args)), ctx)


def eq(a: z3.ExprRef, b: z3.ExprRef) -> z3.BoolRef:
    """a == b for two terms of one sort and context (no coercion to make)."""
    ctx = a.ctx
    return z3.BoolRef(C.Z3_mk_eq(ctx.ref(), a.as_ast(), b.as_ast()), ctx)


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
            return _Z3PY._to_expr_ref(C.Z3_mk_ite(ref, c.as_ast(), a.as_ast(), b.as_ast()), ctx)
    return z3.If(c, a, b)


def app(f: z3.FuncDeclRef, *args: Any) -> z3.ExprRef:
    """f(*args) (where every argument is a term of its domain's sort: no coercion to make)."""
    ctx = f.ctx
    ref = ctx.ref()
    if len(args) == f.arity() and all(isinstance(a, z3.ExprRef) and a.ctx is ctx for a in args) \
            and all(_sort(ref, a) == C.Z3_get_domain(ref, f.ast, i).value for i, a in enumerate(args)):
        return _Z3PY._to_expr_ref(C.Z3_mk_app(ref, f.ast, len(args), _asts(args)), ctx)
    return f(*args)


def op_kind(a: z3.ExprRef) -> int:
    """The kind of `a`'s function where it is an application (`z3.is_app_of(a, k)` is
    `op_kind(a) == k`), else -1; by rawapi.py's accessors (no object made)."""
    ctx, ast = a.ctx_ref(), a.as_ast()
    if R.get_ast_kind(ctx, ast) != z3.Z3_APP_AST:
        return -1
    return int(R.get_decl_kind(ctx, R.get_app_decl(ctx, R.to_app(ctx, ast))))


def arg(a: z3.ExprRef, i: int) -> z3.ExprRef:
    """a.arg(i) for an application `a` with more than `i` arguments: the same object on the
    same argument pointer, without the binding's debug checks (is_app, the argument count,
    each a checked C call or several) and by rawapi.py's accessor (opaque.py's projections
    and reach.py's identities take the branches of thousands of if-then-else terms)."""
    ref = a.ctx_ref()
    return _Z3PY._to_expr_ref(R.get_app_arg(ref, R.to_app(ref, a.as_ast()), i), a.ctx)


def is_true(a: z3.ExprRef) -> bool:
    """z3.is_true(a) on a term (the application of `true`)."""
    return bool(op_kind(a) == z3.Z3_OP_TRUE)


def node_id(a: z3.AstRef) -> int:
    """a.get_id(), unchecked (rawapi.py)."""
    return int(R.get_ast_id(a.ctx_ref(), a.as_ast()))


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
        out.append(z3.QuantifierRef(arg, ctx) if quantified else z3.BoolRef(arg, ctx))
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

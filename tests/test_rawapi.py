"""The unchecked z3 accessors (rawapi.py) answer as z3's checked binding does: a pure
speed-up of the DAG walks (dag.py, membership.py), which must see the same nodes."""

from __future__ import annotations

import ctypes

import z3
from z3 import z3 as _z3py
from z3 import z3core as C

from contractor.z3backend import dag
from contractor.z3backend import rawapi as R
from contractor.z3backend.membership import push


def _formula() -> z3.BoolRef:
    x, y = z3.Ints("x y")
    s = z3.Const("s", z3.SeqSort(z3.IntSort()))
    i = z3.Int("i")
    return z3.And(x + y > 2, z3.Or(z3.Contains(z3.Concat(s, z3.Unit(x)), z3.Unit(y)), z3.Length(s) == 3),
                  z3.ForAll([i], z3.Implies(z3.And(0 <= i, i < z3.Length(s)), s[i] > x)))


def test_unchecked_is_the_raw_c_function() -> None:
    # on the z3 this project pins, each accessor skips the binding's wrapper (else no speed-up)
    for name in ("get_ast_id", "get_ast_kind", "to_app", "get_app_decl", "get_decl_kind", "get_app_num_args",
                 "get_app_arg", "get_quantifier_body", "get_sort", "get_sort_kind"):
        assert getattr(R, name) is not getattr(C, f"Z3_{name}")
    assert R.unchecked(len) is len  # no raw function behind it: the callable itself


def test_accessors_keep_the_gil() -> None:
    # the walks' accessors and the binding's hottest calls do not release Python's GIL
    # (ctypes.PYFUNCTYPE); z3's own wrappers of the solver's calls do
    keeps = ctypes._FUNCFLAG_PYTHONAPI  # type: ignore[attr-defined]
    for f in (R.get_ast_kind, R.get_app_arg, R.ptr_ast_kind, R.ptr_app_arg, R.unchecked(C.Z3_inc_ref)):
        assert type(f)._flags_ & keeps
    assert R.unchecked(C.Z3_get_ast_kind) is R.unchecked(C.Z3_get_ast_kind)  # one function each
    raw = C.Z3_solver_check_assumptions.__defaults__[-1].f
    assert not type(raw)._flags_ & keeps
    x = z3.Int("x")
    assert R.get_ast_kind(x.ctx_ref(), x.as_ast()) == C.Z3_get_ast_kind(x.ctx_ref(), x.as_ast()) == z3.Z3_APP_AST


def _checked_postorder(e: z3.ExprRef) -> list[tuple[int, int, int | None, tuple[int, ...]]]:
    """dag.postorder's nodes as z3's Python objects give them (checked calls)."""
    out: dict[int, tuple[int, int, int | None, tuple[int, ...]]] = {}

    def visit(t: z3.ExprRef) -> None:
        if t.get_id() in out:
            return
        if z3.is_quantifier(t):
            kids = [t.body()]
            kind, decl_kind = z3.Z3_QUANTIFIER_AST, None
        elif z3.is_var(t):
            kids, kind, decl_kind = [], z3.Z3_VAR_AST, None
        else:
            kids = t.children()
            kind = C.Z3_get_ast_kind(t.ctx_ref(), t.as_ast())
            decl_kind = t.decl().kind()
        for k in kids:
            visit(k)
        out[t.get_id()] = (t.get_id(), kind, decl_kind, tuple(k.get_id() for k in kids))

    visit(e)
    return sorted(out.values())


def test_walks_see_what_the_checked_binding_sees() -> None:
    e = _formula()
    walked = sorted((k, n.kind, n.decl_kind, n.args) for k, n in dag.postorder(e).items())
    assert walked == _checked_postorder(e)
    assert [str(c) for c in dag.free_constants(e)] == ["s", "x", "y"]
    assert dag.has_sort([e], (z3.Z3_SEQ_SORT,)) and not dag.has_sort([e], (z3.Z3_REAL_SORT,))


def test_membership_rewriting_unchanged() -> None:
    x, y = z3.Ints("x y")
    s = z3.Const("s", z3.SeqSort(z3.IntSort()))
    pushed = push(z3.Contains(z3.Concat(s, z3.Unit(x)), z3.Unit(y)))
    assert pushed.eq(z3.Or(z3.Contains(s, z3.Unit(y)), x == y))


def test_pointer_accessors_and_their_fallback_agree_with_the_binding() -> None:
    import ctypes

    e = _formula()
    c, a = R.pointer(e.ctx_ref()), R.pointer(e.as_ast())
    vp = ctypes.c_void_p
    # a wrapper without the binding's raw function: the checked call on boxed pointers
    slow_id = R._on_pointers(lambda ctx, ast: C.Z3_get_ast_id(ctx, ast), ctypes.c_uint, vp, vp)
    slow_arg = R._on_pointers(lambda ctx, app, j: C.Z3_get_app_arg(ctx, app, j), vp, vp, vp, ctypes.c_uint)
    assert R.ptr_ast_id is not slow_id
    app = R.ptr_to_app(c, a)
    for j, child in enumerate(e.children()):
        fast, slow = R.ptr_app_arg(c, app, j), slow_arg(c, app, j)
        assert fast == slow == R.pointer(child.as_ast())
        assert R.ptr_ast_id(c, fast) == slow_id(c, slow) == child.get_id()
        back = _z3py._to_expr_ref(R.boxed(fast), e.ctx)  # a pointer back into z3's Python API
        assert back.eq(child)
    assert R.ptr_app_num_args(c, app) == e.num_args()
    assert R.ptr_decl_kind(c, R.ptr_app_decl(c, app)) == z3.Z3_OP_AND


def test_unchecked_binding_within_the_block_only() -> None:
    # the binding's hottest calls are the raw C functions inside the block, its own after
    before = {name: getattr(_z3py, name) for name in R.BINDING_CALLS}
    with R.unchecked_binding():
        for name in R.BINDING_CALLS:
            assert getattr(_z3py, name) is R.unchecked(before[name])
        assert _z3py.Z3_get_symbol_string is C.Z3_get_symbol_string  # converts its result: kept checked
        with R.unchecked_binding():  # nested: left as the outer block made them
            assert _z3py.Z3_get_ast_kind is R.unchecked(before["Z3_get_ast_kind"])
        assert _z3py.Z3_get_ast_kind is R.unchecked(before["Z3_get_ast_kind"])
        e = _formula()
        walked = sorted((k, n.kind, n.decl_kind, n.args) for k, n in dag.postorder(e).items())
        assert [str(c) for c in dag.free_constants(e)] == ["s", "x", "y"]
    assert {name: getattr(_z3py, name) for name in R.BINDING_CALLS} == before
    assert walked == _checked_postorder(e)  # the same terms as the checked binding makes and sees


def test_an_inference_runs_unchecked_and_restores_the_binding() -> None:
    from pathlib import Path

    from contractor.api import infer_model, load_model

    samples = Path(__file__).resolve().parent.parent / "samples"
    checked = _z3py.Z3_get_ast_kind
    seen: list[bool] = []
    model = load_model(f"{samples}/door.py:Door")
    ts = infer_model(model, on_event=lambda _: seen.append(_z3py.Z3_get_ast_kind is not checked))
    assert seen and all(seen) and ts.states
    assert _z3py.Z3_get_ast_kind is checked

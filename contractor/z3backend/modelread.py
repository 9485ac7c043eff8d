"""Plain values of terms in a model, evaluated and read through z3's C API on bare pointers.

A witness reads every argument and field of every model (zipfile.ZipFile: 17,000 values
over 330 witnesses). Through the binding each costs a `ModelRef.eval` (the checked C call,
then a Python object of the result: its kind, sort and sort kind looked up by four more
checked calls, and a reference taken and dropped) before its value is read; most values
are plain (a Boolean, an integer, an untyped object's identity, None-ness and truth), and
`read` evaluates those and reads them on the result's pointer instead.

The same terms are made, kept and freed in the same order as `model.eval` would (z3's
answers depend on its terms' ids, and so on when a term is freed): the term is translated
into an isolated model's context through its `Translations`, the result holds a
reference while it is read, and a result new to the translations is translated back and
kept, as `IsolatedModel.eval` does. Where a value is not plain, or the evaluation fails,
`read` answers NOT_PLAIN and the caller evaluates it through the binding (which raises).
"""

from __future__ import annotations

import ctypes
from typing import Any

import z3
from z3 import z3 as _z3py
from z3 import z3core as C

from contractor.z3backend import rawapi as R
from contractor.z3backend.isolated import IsolatedModel, Translations
from contractor.z3backend.z3util import plain_at

NOT_PLAIN: Any = object()  # read's answer for a value it does not read
_VP = ctypes.c_void_p


_eval: Any = R.on_pointers(C.Z3_model_eval, ctypes.c_bool, _VP, _VP, _VP, ctypes.c_bool, ctypes.POINTER(_VP))
_inc_ref: Any = R.on_pointers(C.Z3_inc_ref, None, _VP, _VP)
_dec_ref: Any = R.on_pointers(C.Z3_dec_ref, None, _VP, _VP)
AVAILABLE = None not in (_eval, _inc_ref, _dec_ref)


class Reader:
    """Reads plain values of main-context terms in one model (a z3.ModelRef, or an
    IsolatedModel whose terms are translated once: `Translations`)."""

    def __init__(self, m: Any) -> None:
        self.usable = AVAILABLE
        self.terms: Translations | None = None  # an isolated model's
        self.ctx: z3.Context = m.ctx
        if isinstance(m, IsolatedModel) and m.terms is not None:
            self.terms, model = m.terms, m.model.model
        elif type(m) is z3.ModelRef:
            model = m.model
        else:
            self.usable = False
        if self.usable:
            self.c = R.pointer(self.ctx.ref())
            self.m = R.pointer(model)

    def plain(self, term: z3.ExprRef) -> Any:
        """term's value (model completion) if it is True, False or an integer, else NOT_PLAIN."""
        return self._read(term, False)

    def opaque(self, term: z3.ExprRef) -> Any:
        """The parts (identity, is None, truth) of an untyped value's model value, each plain,
        else NOT_PLAIN."""
        return self._read(term, True)

    def _read(self, term: z3.ExprRef, parts: bool) -> Any:
        if not self.usable:
            return NOT_PLAIN
        t = term if self.terms is None else self.terms.into(term)
        c = self.c
        out = _VP()
        if not _eval(c, self.m, R.pointer(t.as_ast()), True, ctypes.byref(out)):
            return NOT_PLAIN  # the binding's evaluation raises what went wrong
        a = out.value
        if a is None:
            return NOT_PLAIN
        _inc_ref(c, a)
        try:
            if self.terms is not None and not self.terms.has_back(R.ptr_ast_id(c, a)):
                self.terms.back(_z3py._to_expr_ref(R.boxed(a), self.ctx))  # as IsolatedModel.eval keeps it
            return parts_of(c, a) if parts else plain_of(c, a)
        finally:
            _dec_ref(c, a)


def plain_of(c: int, a: int) -> Any:
    """True, False or the integer the term at `a` is (z3util.plain_at), else NOT_PLAIN."""
    value = plain_at(c, a)
    return NOT_PLAIN if value is None else value


def parts_of(c: int, a: int) -> Any:
    """The arguments of a datatype constructor's application at `a`, each plain, else NOT_PLAIN."""
    if R.ptr_ast_kind(c, a) != z3.Z3_APP_AST:
        return NOT_PLAIN
    app = R.ptr_to_app(c, a)
    if R.ptr_decl_kind(c, R.ptr_app_decl(c, app)) != z3.Z3_OP_DT_CONSTRUCTOR:
        return NOT_PLAIN
    out = tuple(plain_of(c, R.ptr_app_arg(c, app, j)) for j in range(R.ptr_app_num_args(c, app)))
    return NOT_PLAIN if NOT_PLAIN in out else out


def term_parts(e: z3.ExprRef) -> Any:
    """`parts_of` a term of the binding."""
    return parts_of(R.pointer(e.ctx_ref()), R.pointer(e.as_ast()))

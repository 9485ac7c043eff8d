"""z3's read-only C accessors without the error check z3's Python binding makes after each call.

Every function of `z3.z3core` calls the C function and then `Z3_get_error_code` (a second
foreign call and a Python frame) to raise any error. The DAG walks (dag.py,
membership.py) make millions of accessor calls on the formulas of real classes
(zipfile.ZipFile: 5.4 million checked calls, half of them the walks' id, kind and child
look-ups); these accessors cannot fail on the valid nodes the walks hand them (an
argument index is always below the node's argument count), so they are called directly:
the same C calls, in the same order, no term made or freed (so z3's answers, which depend
on its terms' ids, stay the same), at about half the cost each.

Where the binding does not expose the raw function (another z3 version), the checked one
is used.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import z3
from z3 import z3core as C


def unchecked(checked: Callable[..., Any]) -> Callable[..., Any]:
    """The raw C function behind a z3core wrapper (its `Elementaries` default argument),
    called holding the GIL (`holding_gil`), or the wrapper itself where it has none."""
    defaults = getattr(checked, "__defaults__", None) or ()
    raw = getattr(defaults[-1], "f", None) if defaults else None
    return holding_gil(raw) if callable(raw) else checked


def holding_gil(raw: Any) -> Any:
    """`raw` (a ctypes function of z3's library) as a function that keeps Python's GIL
    while it runs (`ctypes.PYFUNCTYPE`: the same C function, argument and result types).
    ctypes releases the GIL around every foreign call and takes it back after (mutex
    round trips, about 40 of the 300 ns an accessor call costs); the accessors and term
    builders here return within a microsecond, and no thread of contractor's waits for
    the GIL meanwhile (the run guard's watchdog sleeps in `select`). z3's checks,
    simplifications and evaluations, which the watchdog must be able to interrupt, keep
    the binding's calls. Where `raw` has no argument types, it is returned as it is."""
    if getattr(raw, "argtypes", None) is None:
        return raw
    return _keeping_gil(ctypes.cast(raw, ctypes.c_void_p).value, raw.restype, tuple(raw.argtypes))


@functools.cache  # one function per C function: the binding's names compare by identity (unchecked_binding)
def _keeping_gil(address: int, restype: Any, argtypes: tuple[Any, ...]) -> Any:
    return ctypes.PYFUNCTYPE(restype, *argtypes)(address)


get_ast_id = unchecked(C.Z3_get_ast_id)
get_ast_kind = unchecked(C.Z3_get_ast_kind)
to_app = unchecked(C.Z3_to_app)
get_app_decl = unchecked(C.Z3_get_app_decl)
get_decl_kind = unchecked(C.Z3_get_decl_kind)
get_app_num_args = unchecked(C.Z3_get_app_num_args)
get_app_arg = unchecked(C.Z3_get_app_arg)
get_quantifier_body = unchecked(C.Z3_get_quantifier_body)
get_sort = unchecked(C.Z3_get_sort)
get_sort_kind = unchecked(C.Z3_get_sort_kind)



# -- the same accessors on bare pointers (ints) -------------------------------------------
#
# The walks' edges (252,000 over 6,200 nodes in zipfile.ZipFile's constructor query: wide
# conjunctions) each cost an argument look-up and an id look-up. Through the binding's
# argument types every call converts its arguments in Python (`from_param`) and makes a
# Python object of every pointer it returns; on bare pointers ctypes does both in C, at
# about half the cost again. A pointer goes back into z3's Python API through `boxed`.

_VP = ctypes.c_void_p


def pointer(obj: Any) -> int:
    """The address behind a z3 context or AST object (what the C calls receive)."""
    value: Any = obj.value if isinstance(obj, ctypes.c_void_p) else None
    if value is None:  # made by its class's constructor: the address is its _as_parameter_
        value = getattr(obj, "_as_parameter_", obj)
        if isinstance(value, ctypes.c_void_p):
            value = value.value
    return int(value)


def boxed(address: int) -> z3.Ast:
    """The z3 AST object of an address (for z3's Python API, as the binding's calls return it)."""
    out = z3.Ast.__new__(z3.Ast)
    ctypes.c_void_p.__init__(out, address)
    return out


def on_pointers(checked: Callable[..., Any], restype: Any, *argtypes: Any) -> Callable[..., Any] | None:
    """`checked`'s C function typed on bare pointers (`argtypes`, returning `restype`), or
    None where the binding hides it."""
    raw: Any = unchecked(checked)
    if raw is checked:
        return None
    address: Any = ctypes.cast(raw, _VP).value
    return ctypes.PYFUNCTYPE(restype, *argtypes)(address)  # holding the GIL, as `holding_gil`


def _on_pointers(checked: Callable[..., Any], restype: Any, *argtypes: Any) -> Callable[..., Any]:
    """`on_pointers`; where the binding hides the C function, the checked call with the
    pointers boxed (slower, the same answers)."""
    direct = on_pointers(checked, restype, *argtypes)
    if direct is not None:
        return direct

    def via_binding(ctx: int, *args: Any) -> Any:
        context = z3.ContextObj.__new__(z3.ContextObj)
        ctypes.c_void_p.__init__(context, ctx)
        out = checked(context, *[boxed(a) if t is _VP else a for a, t in zip(args, argtypes[1:])])
        return pointer(out) if restype is _VP else out

    return via_binding


ptr_ast_id = _on_pointers(C.Z3_get_ast_id, ctypes.c_uint, _VP, _VP)
ptr_ast_kind = _on_pointers(C.Z3_get_ast_kind, ctypes.c_uint, _VP, _VP)
ptr_to_app = _on_pointers(C.Z3_to_app, _VP, _VP, _VP)
ptr_app_decl = _on_pointers(C.Z3_get_app_decl, _VP, _VP, _VP)
ptr_decl_kind = _on_pointers(C.Z3_get_decl_kind, ctypes.c_uint, _VP, _VP)
ptr_app_num_args = _on_pointers(C.Z3_get_app_num_args, ctypes.c_uint, _VP, _VP)
ptr_app_arg = _on_pointers(C.Z3_get_app_arg, _VP, _VP, _VP, ctypes.c_uint)
ptr_quantifier_body = _on_pointers(C.Z3_get_quantifier_body, _VP, _VP, _VP)
ptr_sort = _on_pointers(C.Z3_get_sort, _VP, _VP, _VP)
ptr_sort_kind = _on_pointers(C.Z3_get_sort_kind, ctypes.c_uint, _VP, _VP)
ptr_numeral_string = _on_pointers(C.Z3_get_numeral_string, ctypes.c_char_p, _VP, _VP)

# -- the binding's own calls ------------------------------------------------------------
#
# z3's Python objects make the same accessor calls, checked, by the hundred thousand: every
# wrapper takes a reference (`Z3_inc_ref`), and `_to_expr_ref` asks a term's kind, sort,
# sort kind and whether that is a finite set before it picks the wrapper's class
# (http.client.HTTPConnection: 700 K such calls a run, each about 0.7 us of the 1 us it
# costs in the error check). These cannot fail on the ASTs, sorts, symbols and
# declarations the binding hands them (every one is total on its kind of argument), so
# while contractor's analysis runs (`unchecked_binding`) the binding calls them unchecked:
# the same C calls in the same order, no term made or freed otherwise.

BINDING_CALLS = ("Z3_inc_ref", "Z3_get_ast_kind", "Z3_get_ast_id", "Z3_is_eq_ast", "Z3_get_sort", "Z3_get_sort_kind",
                 "Z3_is_finite_set_sort", "Z3_is_eq_sort", "Z3_get_symbol_kind", "Z3_get_decl_name",
                 "Z3_get_decl_kind")


def _plain_wrapper(checked: Any) -> bool:
    """Whether `checked` is a z3core wrapper that calls its C function, checks the error code
    and returns the result as it is (no conversion of it, as `Z3_get_symbol_string` makes)."""
    code = getattr(checked, "__code__", None)
    return code is not None and code.co_names == ("f", "Check")


@contextmanager
def unchecked_binding() -> Iterator[None]:
    """While the block runs, z3's Python binding calls the functions of BINDING_CALLS without
    its error check (see above); then the binding as it was. Where a name is not such a
    wrapper (another z3 version, a block nested in another), it is left as it is."""
    from z3 import z3 as binding

    saved: dict[str, Any] = {}
    for name in BINDING_CALLS:
        checked: Any = getattr(binding, name, None)
        raw = unchecked(checked) if _plain_wrapper(checked) else checked
        if raw is not checked:
            saved[name] = checked
            setattr(binding, name, raw)
    try:
        yield
    finally:
        for name, checked in saved.items():
            setattr(binding, name, checked)


__all__ = ["BINDING_CALLS", "boxed", "get_app_arg", "get_app_decl", "get_app_num_args", "get_ast_id", "get_ast_kind",
           "get_decl_kind", "get_quantifier_body", "get_sort", "get_sort_kind", "on_pointers", "pointer", "ptr_app_arg",
           "ptr_app_decl", "ptr_app_num_args", "ptr_ast_id", "ptr_ast_kind", "ptr_decl_kind", "ptr_numeral_string",
           "ptr_quantifier_body", "ptr_sort", "ptr_sort_kind", "ptr_to_app", "to_app", "unchecked", "unchecked_binding"]

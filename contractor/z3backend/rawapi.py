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

from collections.abc import Callable
from typing import Any

from z3 import z3core as C


def unchecked(checked: Callable[..., Any]) -> Callable[..., Any]:
    """The raw C function behind a z3core wrapper (its `Elementaries` default argument), or
    the wrapper itself where it has none."""
    defaults = getattr(checked, "__defaults__", None) or ()
    raw = getattr(defaults[-1], "f", None) if defaults else None
    return raw if callable(raw) else checked


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

__all__ = ["get_app_arg", "get_app_decl", "get_app_num_args", "get_ast_id", "get_ast_kind", "get_decl_kind",
           "get_quantifier_body", "get_sort", "get_sort_kind", "to_app", "unchecked"]

"""What `for x in v` iterates over, position by position: the k-th item of a str, list,
tuple, set or dict (its keys), and the condition that it exists. Loops, comprehensions and
the quantifier builtins (all, any, sum, min, max) unroll over these items."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import z3

from contractor.model import INT, STR
from contractor.z3backend import values as V
from contractor.z3backend.values import Val

if TYPE_CHECKING:  # mapcalls imports this module (through loops)
    from contractor.z3backend.mapcalls import DictView

ItemAt = Callable[[int], tuple[z3.BoolRef, Val]]


def items_of(seq: object) -> ItemAt | None:
    """k -> (the k-th item exists, the k-th item), or None if `seq` is not iterable here."""
    from contractor.z3backend.mapcalls import DictView
    from contractor.z3backend.seqcalls import Reversed

    if isinstance(seq, Reversed):
        return reversed_items(seq.value)
    if isinstance(seq, DictView):
        return view_items(seq)
    if not isinstance(seq, Val):
        return None
    if seq.kind == "tuple":
        items = V.tuple_items(seq)

        def at_tuple(k: int) -> tuple[z3.BoolRef, Val]:
            if k < len(items):
                return z3.BoolVal(True), items[k]
            return z3.BoolVal(False), items[-1] if items else V.const(0)
        return at_tuple
    if seq.kind == "list" and seq.z is None:  # [] of unknown item type
        return lambda k: (z3.BoolVal(False), V.const(0))
    z = keys_of(seq)
    if z is None:
        return None
    n = z3.Length(z)
    if seq.kind == "str":
        return lambda k: (z3.IntVal(k) < n, Val(STR, z3.SubString(z, k, 1)))
    elem = seq.type.args[0] if seq.type.args else INT
    return lambda k: (z3.IntVal(k) < n, Val(elem, z[k]))


def keys_of(seq: Val) -> z3.SeqRef | None:
    """The z3 sequence a str, list, set or dict iterates over (a dict: its keys)."""
    if seq.kind in ("str", "list", "set") and seq.z is not None:
        return seq.z
    if seq.kind == "dict" and seq.z is not None:
        from contractor.z3backend import mappings

        return mappings.keys(seq.z)
    return None


def reversed_items(seq: Val) -> ItemAt | None:
    if seq.kind == "tuple":
        items = V.tuple_items(seq)[::-1]
        return items_of(V.make_tuple(items)) if items else items_of(seq)
    z = keys_of(seq)
    if z is None or seq.kind not in ("str", "list"):
        return None
    n = z3.Length(z)
    if seq.kind == "str":
        return lambda k: (z3.IntVal(k) < n, Val(STR, z3.SubString(z, n - 1 - k, 1)))
    return lambda k: (z3.IntVal(k) < n, Val(seq.type.args[0], z[n - 1 - k]))


def view_items(view: DictView) -> ItemAt | None:
    """d.keys(), d.values(), d.items() in insertion order."""
    d = view.value
    if d.z is None:
        return lambda k: (z3.BoolVal(False), V.const(0))
    from contractor.z3backend import mappings as M

    ks, vs = M.keys(d.z), M.vals(d.z)
    kt, vt = d.type.args
    n = z3.Length(ks)
    if view.kind == "keys":
        return lambda k: (z3.IntVal(k) < n, Val(kt, ks[k]))
    if view.kind == "values":
        return lambda k: (z3.IntVal(k) < n, Val(vt, vs[ks[k]]))
    return lambda k: (z3.IntVal(k) < n, V.make_tuple([Val(kt, ks[k]), Val(vt, vs[ks[k]])]))

"""The type the z3 backend gives each field.

A field's declared type is kept where z3 models it. A declared type z3 does not model
(`Optional[Node]`, `list[Node]`, `socket.socket`, ...) makes the field an *opaque* value, as
an untyped field is: z3 tracks its identity, None-ness and truthiness, and reads and calls
on it are unknown results. Not when the field may hold the analysed object itself (a type
naming its class or one of its bases in the same file): calls through it could change
`self`, which an opaque value's havoc does not cover, so such a field stays not understood.
A type not understood (`Any`, an imported class) is opaque, as an untyped value is: such
values are taken to be other objects than `self` (README, "What is assumed").
"""

from __future__ import annotations

from contractor.errors import UnsupportedConstruct
from contractor.model import ClassModel, TypeKind, TypeRef
from contractor.z3backend import values as V

OPAQUE_TYPE = TypeRef(TypeKind.OPAQUE)
NOT_UNDERSTOOD = TypeRef(TypeKind.ANY)


def modelled(t: TypeRef) -> bool:
    try:
        if t.kind == "optional":
            return t.args[0].kind in V.SCALARS
        V.sort_of(t)
        return True
    except UnsupportedConstruct:
        return False


def may_hold_self(t: TypeRef, model: ClassModel) -> bool:
    """Whether a value of `t` may be the analysed object (its class or a base of the file)."""
    if t.kind == "class" and (t.name is None or t.name in _own_classes(model)):
        return True
    return any(may_hold_self(a, model) for a in t.args)


def _own_classes(model: ClassModel) -> set[str]:
    names = {model.name, model.name.rsplit(".", 1)[-1]}
    for b in model.bases:
        names.update((b.name, b.name.rsplit(".", 1)[-1]))
    return names


def z3_field_type(model: ClassModel, name: str) -> TypeRef:
    """The type the z3 backend models field `name` with (see the module docstring)."""
    t = model.fields[name].type
    if modelled(t):
        return t
    return NOT_UNDERSTOOD if may_hold_self(t, model) else OPAQUE_TYPE

"""Objects for the CrossHair path: field types as Python types, objects built from field
values without running `__init__`, and JSON-friendly snapshots of objects for witnesses."""

from __future__ import annotations

import enum
import inspect
from types import GenericAlias, ModuleType
from typing import Any, Optional, cast

from contractor.errors import InputError
from contractor.model import ClassModel, Field, TypeRef

_SCALARS = {"bool": bool, "int": int, "float": float, "str": str, "none": type(None)}


def python_type(ref: TypeRef, module: ModuleType, what: str, field: Field | None = None) -> Any:
    """The Python type CrossHair should make a symbolic value of, for a TypeRef."""
    if ref.kind in _SCALARS:
        return _SCALARS[ref.kind]
    args = tuple(python_type(a, module, what, field) for a in ref.args)
    if ref.kind == "optional":
        return Optional[args[0]]  # noqa: UP045 (a typing object built at run time for CrossHair)
    if ref.kind in ("enum", "class"):
        found = getattr(module, ref.name or "", None)
        if not isinstance(found, type):
            raise _type_error(f"{what}: type {ref.name!r} is not a class of module {module.__name__}", field)
        return found
    # list[args[0]] and so on, built at run time (what those subscripts make)
    if ref.kind in ("list", "set") and len(args) == 1:
        return GenericAlias(list if ref.kind == "list" else set, args[0])
    if ref.kind == "tuple" and args:
        return GenericAlias(tuple, args)
    if ref.kind == "dict" and len(args) == 2:
        return GenericAlias(dict, args)
    raise _type_error(
        f"{what}: cannot tell its type ({ref}) for CrossHair; annotate it, e.g. "
        f"`{field.name if field else 'x'}: list[int]` in the class body", field)


def _type_error(message: str, field: Field | None) -> InputError:
    return InputError(message, field.location if field else None, "field type")


def field_types(model: ClassModel, module: ModuleType) -> dict[str, Any]:
    """Field name -> Python type, for every field of the class (an InputError names the
    first field whose type cannot be used)."""
    return {name: python_type(f.type, module, f"field {name!r} of {model.name}", f)
            for name, f in model.fields.items()}


def original_class(cls: type, model: ClassModel, module: ModuleType) -> type:
    """The class as written: deal's `@deal.inv` replaces it with a checking subclass,
    whose attribute writes would check the invariant while an object is half-built."""
    names = set(model.methods) | {"__init__"}
    for klass in cls.__mro__:
        if klass.__module__ == module.__name__ and klass.__name__ == model.name and names & set(vars(klass)):
            return klass
    return cls


def build(cls: type, values: dict[str, Any]) -> Any:
    """An instance of cls whose fields are `values`, made without calling `__init__`."""
    obj = cast(Any, cls).__new__(cls)  # a subclass of dict (or another C class) needs its own __new__
    for name, value in values.items():
        object.__setattr__(obj, name, value)
    return obj


def fields_of(obj: Any, names) -> dict[str, Any]:
    return {name: getattr(obj, name, None) for name in names}


def plain_function(cls: type, name: str):
    """The method's own function, without the run-time contract checks of icontract/deal
    (their wrappers keep the original in `__wrapped__`)."""
    attr = inspect.getattr_static(cls, name)
    if isinstance(attr, (staticmethod, classmethod)):
        attr = attr.__func__
    return inspect.unwrap(attr)


def snapshot(value: Any, depth: int = 0) -> Any:
    """A JSON-friendly copy of a concrete value (for witnesses in typestate.json)."""
    if depth > 6:
        return repr(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else repr(value)
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, (list, tuple)):
        return [snapshot(v, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((snapshot(v, depth + 1) for v in value), key=repr)
    if isinstance(value, dict):
        return {str(snapshot(k, depth + 1)): snapshot(v, depth + 1) for k, v in value.items()}
    if hasattr(value, "__dict__"):
        return {"__class__": type(value).__name__,
                **{k: snapshot(v, depth + 1) for k, v in vars(value).items()}}
    return repr(value)

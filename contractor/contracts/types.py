"""Types of fields and parameters: annotations to TypeRef, the module's Enum classes,
and the types of values assigned to fields without an annotation (literals, enum members)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from contractor.contracts.context import FileContext
from contractor.model import BOOL, FLOAT, INT, NONE, STR, RunsAs, TypeKind, TypeRef

ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"})
# bases whose enums' members act as their values: they compare equal to them (`class
# Mode(int, Enum)` too) and a member whose value is 0 or "" is false (Flag's too: its
# comparisons with values are then left undecided as well)
VALUE_BASES = frozenset({"IntEnum", "StrEnum", "IntFlag", "Flag", "int", "str", "float", "bytes"})
_SCALARS = {"bool": BOOL, "int": INT, "float": FLOAT, "str": STR, "None": NONE, "NoneType": NONE}
_CONTAINERS: dict[str, TypeKind] = {"list": TypeKind.LIST, "List": TypeKind.LIST, "Sequence": TypeKind.LIST,
                                    "MutableSequence": TypeKind.LIST, "set": TypeKind.SET,
                                    "Set": TypeKind.SET, "FrozenSet": TypeKind.SET,
                                    "frozenset": TypeKind.SET, "AbstractSet": TypeKind.SET,
                                    "MutableSet": TypeKind.SET, "tuple": TypeKind.TUPLE,
                                    "Tuple": TypeKind.TUPLE, "dict": TypeKind.DICT, "Dict": TypeKind.DICT,
                                    "Mapping": TypeKind.DICT, "MutableMapping": TypeKind.DICT}
ANY = TypeRef(TypeKind.ANY)


def _last_name(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return None


def _runs_as(name: str | None) -> RunsAs:
    """What a container annotation's value read as a list is at run time: a Sequence may
    be a tuple (TypeRef.runs_as)."""
    return RunsAs.EITHER if name == "Sequence" else RunsAs.LIST


def enum_classes(module: ast.Module) -> dict[str, TypeRef]:
    """The Enum subclasses defined at the top of the module, with their member names."""
    enums: dict[str, TypeRef] = {}
    for node in module.body:
        if isinstance(node, ast.ClassDef) and any(_last_name(b) in ENUM_BASES for b in node.bases):
            members: list[str] = []
            for stmt in node.body:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else \
                    [stmt.target] if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else []
                members.extend(t.id for t in targets if isinstance(t, ast.Name) and not t.id.startswith("_"))
            by_value = any(_last_name(b) in VALUE_BASES for b in node.bases)
            enums[node.name] = TypeRef(TypeKind.ENUM, name=node.name, members=tuple(members), by_value=by_value)
    return enums


@dataclass(frozen=True)
class TypeReader:
    """Turns annotations into TypeRefs for one module and class."""

    ctx: FileContext
    class_name: str
    enums: dict[str, TypeRef]
    classes: frozenset[str]  # top-level class names of the module
    constants: dict[str, Any] = field(default_factory=dict)  # module constants (module_constants)
    class_constants: dict[str, Any] = field(default_factory=dict)  # self.X / C.X constants

    def annotation(self, ann: ast.expr | None) -> TypeRef | None:
        return None if ann is None else self.of(ann)

    def of(self, ann: ast.expr) -> TypeRef:
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                ann = ast.parse(ann.value, mode="eval").body
            except SyntaxError:
                return ANY
        if isinstance(ann, ast.Constant) and ann.value is None:
            return NONE
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            return self._union([ann.left, ann.right])
        if isinstance(ann, ast.Subscript):
            return self._generic(ann)
        name = _last_name(ann)
        if name is None:
            return ANY
        if name in _SCALARS:
            return _SCALARS[name]
        if name in _CONTAINERS:
            return TypeRef(_CONTAINERS[name], (ANY,) * (2 if _CONTAINERS[name] == "dict" else 1)
                           if _CONTAINERS[name] != "tuple" else (), runs_as=_runs_as(name))
        if name in self.enums:
            return self.enums[name]
        if name == "Self" or name == self.class_name or name in self.classes:
            return TypeRef(TypeKind.CLASS, name=self.class_name if name == "Self" else name)
        return ANY

    def _union(self, options: list[ast.expr]) -> TypeRef:
        flat: list[ast.expr] = []
        while options:
            first = options.pop(0)
            if isinstance(first, ast.BinOp) and isinstance(first.op, ast.BitOr):
                options[:0] = [first.left, first.right]
            else:
                flat.append(first)
        types = [self.of(o) for o in flat]
        rest = [t for t in types if t != NONE]
        if len(rest) == 1 and len(types) == 2:
            return TypeRef(TypeKind.OPTIONAL, (rest[0],))
        if len(types) == 1:
            return types[0]
        return ANY

    def _generic(self, ann: ast.Subscript) -> TypeRef:
        name = _last_name(ann.value)
        items = list(ann.slice.elts) if isinstance(ann.slice, ast.Tuple) else [ann.slice]
        if name == "Optional" and len(items) == 1:
            inner = self.of(items[0])
            return inner if inner == NONE or inner.kind == "optional" else TypeRef(TypeKind.OPTIONAL, (inner,))
        if name == "Union":
            return self._union(items)
        if name in ("ClassVar", "Final", "Annotated") and items:
            return self.of(items[0])
        kind = _CONTAINERS.get(name or "")
        if kind is None:
            return ANY
        if kind == "tuple" and len(items) == 2 and isinstance(items[1], ast.Constant) and items[1].value is ...:
            # tuple[int, ...] behaves as a sequence, but is a tuple at run time
            return TypeRef(TypeKind.LIST, (self.of(items[0]),), runs_as=RunsAs.TUPLE)
        return TypeRef(kind, tuple(self.of(i) for i in items), runs_as=_runs_as(name))

    def value(self, expr: ast.expr) -> TypeRef | None:
        """The type of a value assigned without annotation, or None if it cannot be told."""
        if isinstance(expr, ast.Constant):
            v = expr.value
            if isinstance(v, bool):
                return BOOL
            return {int: INT, float: FLOAT, str: STR}.get(type(v))
        if isinstance(expr, ast.Compare) or isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            return BOOL
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
            inner = self.value(expr.operand)
            return inner if inner in (INT, FLOAT) else None
        if isinstance(expr, ast.Name) and expr.id in self.constants:
            return self.value(ast.Constant(self.constants[expr.id]))
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) \
                and expr.value.id in ("self", "cls", self.class_name) and expr.attr in self.class_constants:
            return self.value(ast.Constant(self.class_constants[expr.attr]))
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in self.enums:
            enum = self.enums[expr.value.id]
            return enum if expr.attr in enum.members else None
        return None


def is_classvar(ann: ast.expr) -> bool:
    target = ann.value if isinstance(ann, ast.Subscript) else ann
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        return ann.value.startswith(("ClassVar", "typing.ClassVar"))
    return _last_name(target) == "ClassVar"

"""The fields of a class and their types: class-level annotations, `self.x: T = ...`,
`# type:` comments, and otherwise everything assigned to the field in the class:
literals, enum members, module and class constants, builtin conversions (`int(...)`),
parameters (annotated, or untyped with a literal default), `a or b` (an Optional operand
before the last counts without None) and `a if c else b`; other expressions follow the
rest. `None` and one other type give Optional (of a scalar: an Optional list, set or dict
is opaque); int and float give float. What cannot be
typed (an untyped parameter, values of different types, only expressions that do not
tell) is an *opaque* value: the z3 backend tracks its identity, None-ness and truthiness.
No class is refused for missing annotations.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from contractor.contracts.context import FileContext
from contractor.contracts.types import TypeReader, is_classvar
from contractor.model import BOOL, FLOAT, INT, NONE, OPAQUE, STR, Field, FunctionNode, TypeKind, TypeRef


@dataclass(frozen=True)
class ClassLevel:
    """A class-body definition of a field: `x: int = 0`, `x: int` or `x = 0`."""

    name: str
    annotation: ast.expr | None
    value: ast.expr | None
    node: ast.stmt


def class_level(cls: ast.ClassDef) -> list[ClassLevel]:
    """Class-body names in order (ClassVar annotations excluded)."""
    found: list[ClassLevel] = []
    for stmt in cls.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if not is_classvar(stmt.annotation):
                found.append(ClassLevel(stmt.target.id, stmt.annotation, stmt.value, stmt))
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            found.append(ClassLevel(stmt.targets[0].id, None, stmt.value, stmt))
    return found


def _self_target(node: ast.expr, self_name: str) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name:
        return node.attr
    return None


def _functions(cls: ast.ClassDef) -> list[FunctionNode]:
    return [f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.args.args
            and not any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in f.decorator_list)]


def _assignments(fn: FunctionNode) -> Iterator[tuple[str, ast.expr | None, ast.expr | None, ast.stmt]]:
    """(field name, annotation or None, value or None, node) for each `self.<name>` assignment."""
    self_name = fn.args.args[0].arg if fn.args.args else "self"
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, (ast.Tuple, ast.List)):
                    values = node.value.elts if isinstance(node.value, (ast.Tuple, ast.List)) \
                        and len(node.value.elts) == len(target.elts) else [None] * len(target.elts)
                    pairs = list(zip(target.elts, values))
                else:
                    pairs = [(target, node.value)]
                for elt, value in pairs:
                    name = _self_target(elt, self_name)
                    if name:
                        yield name, None, value, node
        elif isinstance(node, ast.AnnAssign):
            name = _self_target(node.target, self_name)
            if name:
                yield name, node.annotation, node.value, node
        elif isinstance(node, ast.AugAssign):
            name = _self_target(node.target, self_name)
            if name:
                yield name, None, None, node


_TYPE_COMMENT = re.compile(r"#\s*type:\s*(?!ignore\b)(.+?)\s*$")


def type_comment(node: ast.stmt, ctx: FileContext) -> ast.expr | None:
    """The `# type: T` comment on the statement's last line, parsed, or None."""
    lines = ctx.source.splitlines()
    end: int = node.end_lineno or node.lineno
    if not 0 < end <= len(lines):
        return None
    m = _TYPE_COMMENT.search(lines[end - 1])
    if m is None:
        return None
    try:
        return ast.parse(m.group(1), mode="eval").body
    except SyntaxError:
        return None


def param_types(fn: FunctionNode, types: TypeReader) -> dict[str, TypeRef]:
    """Each parameter's type: its annotation, else its literal default's type, else opaque."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    pairs = list(zip(positional, defaults)) + list(zip(a.kwonlyargs, a.kw_defaults))
    out: dict[str, TypeRef] = {}
    for p, d in pairs:
        if p.annotation is not None:
            out[p.arg] = types.of(p.annotation)
            continue
        typ = types.value(d) if d is not None else None
        out[p.arg] = typ if typ is not None and typ != NONE else OPAQUE
    return out


def read_fields(cls: ast.ClassDef, ctx: FileContext, types: TypeReader,
                constants: frozenset[str] = frozenset(),
                inherited: dict[str, Field] | None = None) -> dict[str, Field]:
    """Every field of the class, in order of first appearance, with its type (class
    constants, see constants.py, are not fields; a field the class does not annotate keeps
    the type its base classes give it, `inherited`)."""
    declared: dict[str, Field] = {}
    for item in class_level(cls):
        if item.name in constants:
            continue
        if item.annotation is not None:
            declared[item.name] = Field(item.name, types.of(item.annotation), ctx.loc(item.node))
    assigned: dict[str, list[tuple[TypeRef | None, ast.stmt]]] = {}
    order: list[str] = list(declared)
    for fn in _functions(cls):
        params = param_types(fn, types)
        for name, ann, value, node in _assignments(fn):
            if name not in order:
                order.append(name)
            ann = ann if ann is not None else type_comment(node, ctx)
            if ann is not None:
                if name not in declared:
                    declared[name] = Field(name, types.of(ann), ctx.loc(node))
                continue
            assigned.setdefault(name, []).append((_value_type(value, params, types), node))
    defaults = {c.name: c for c in class_level(cls)
                if c.annotation is None and c.value is not None and c.name not in constants}
    fields: dict[str, Field] = {}
    for name in order:
        if name in constants:
            continue
        if name in declared:
            fields[name] = declared[name]
            continue
        if inherited and name in inherited:
            fields[name] = inherited[name]
            continue
        uses = assigned.get(name, [])
        if name in defaults:
            uses.insert(0, (_value_type(defaults[name].value, {}, types), defaults[name].node))
        fields[name] = Field(name, join_uses([t for t, _ in uses]), ctx.loc(uses[0][1]))
    return fields


def _value_type(value: ast.expr | None, params: dict[str, TypeRef], types: TypeReader) -> TypeRef | None:
    """The type of one assigned value; None for `+=` and the like (they keep the type)."""
    if value is None:
        return None
    if isinstance(value, ast.Name) and value.id in params:
        return params[value.id]
    if isinstance(value, ast.Constant) and value.value is None:
        return NONE
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _BUILTIN_RESULTS:
        return _BUILTIN_RESULTS[value.func.id]
    if isinstance(value, ast.IfExp):
        return _join_told([_value_type(v, params, types) for v in (value.body, value.orelse)])
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        # `a or b or c` is the first truthy operand, else the last: an Optional operand
        # before the last one is never taken while None (`items or []` is a list).
        parts = [_value_type(v, params, types) for v in value.values]
        return _join_told([_not_none(t) for t in parts[:-1]] + parts[-1:])
    return types.value(value)  # None: an expression that does not tell (it follows the others)


def _not_none(t: TypeRef | None) -> TypeRef | None:
    if t == NONE:
        return None
    return t.args[0] if t is not None and t.kind == "optional" else t


def _join_told(parts: list[TypeRef | None]) -> TypeRef | None:
    """The join of the parts that tell their type (None if none does: it follows the others)."""
    told = [t for t in parts if t is not None]
    return join_uses(told) if told else None


_BUILTIN_RESULTS = {"int": INT, "len": INT, "round": INT, "str": STR, "repr": STR, "float": FLOAT, "bool": BOOL}


_SCALAR_KINDS = ("bool", "int", "float", "str", "enum")


def join_uses(typed: Sequence[TypeRef | None]) -> TypeRef:
    """One type for every value a field is assigned (see the module docstring)."""
    kinds = {t for t in typed if t is not None and t != NONE}
    has_none = NONE in typed
    if kinds <= {BOOL, INT} and len(kinds) == 2:
        kinds = {INT}
    elif kinds <= {BOOL, INT, FLOAT} and FLOAT in kinds:
        kinds = {FLOAT}
    if not kinds:
        return OPAQUE  # only ever None (or only augmented): opaque tracks None-ness
    if len(kinds) > 1 or OPAQUE in kinds:
        return OPAQUE
    (only,) = kinds
    if only.kind == "optional":  # z3 models Optional scalars; an opaque value tracks None-ness
        return only if only.args[0].kind in _SCALAR_KINDS else OPAQUE
    if has_none:
        return TypeRef(TypeKind.OPTIONAL, (only,)) if only.kind in _SCALAR_KINDS else OPAQUE
    return only

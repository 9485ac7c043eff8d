"""The fields of a class and their types: class-level annotations, `self.x: T = ...`,
`self.x = p` for an annotated parameter p, and literal or enum-member assignments.

A field whose type cannot be told is an InputError that says how to annotate it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from contractor.contracts.context import FileContext
from contractor.contracts.types import TypeReader, is_classvar
from contractor.model import FLOAT, INT, Field, TypeRef


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


def _functions(cls: ast.ClassDef) -> list[ast.FunctionDef]:
    return [f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.args.args
            and not any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in f.decorator_list)]


def _assignments(fn: ast.FunctionDef):
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


def _param_types(fn: ast.FunctionDef, types: TypeReader) -> dict[str, TypeRef]:
    a = fn.args
    return {p.arg: types.of(p.annotation) for p in [*a.posonlyargs, *a.args, *a.kwonlyargs] if p.annotation}


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
    assigned: dict[str, list[tuple[TypeRef | None, ast.expr | None, ast.stmt]]] = {}
    order: list[str] = list(declared)
    for fn in _functions(cls):
        params = _param_types(fn, types)
        for name, ann, value, node in _assignments(fn):
            if name not in order:
                order.append(name)
            if ann is not None:
                if name not in declared:
                    declared[name] = Field(name, types.of(ann), ctx.loc(node))
                continue
            typ = None
            if isinstance(value, ast.Name) and value.id in params:
                typ = params[value.id]
            elif value is not None:
                typ = types.value(value)
            assigned.setdefault(name, []).append((typ, value, node))
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
            uses.insert(0, (types.value(defaults[name].value), defaults[name].value, defaults[name].node))
        fields[name] = _infer(name, uses, cls, ctx)
    return fields


def _infer(name: str, uses, cls: ast.ClassDef, ctx: FileContext) -> Field:
    known = [(t, node) for t, _, node in uses if t is not None]
    first = uses[0][2]
    hint = f"add `{name}: {_example(uses)}` to the body of class {cls.name}"
    for _typ, value, node in uses:
        if isinstance(value, ast.Constant) and value.value is None:
            raise ctx.error(f"field {name!r} is assigned None but has no annotation; {hint}", node,
                            f"self.{name} = None")
    if not known:
        text = ctx.text(first).splitlines()[0]
        raise ctx.error(f"cannot tell the type of field {name!r} from `{text}`; {hint}", first,
                        f"self.{name}")
    kinds = {t for t, _ in known}
    if kinds == {INT, FLOAT}:
        return Field(name, FLOAT, ctx.loc(known[0][1]))
    if len(kinds) > 1:
        listed = ", ".join(sorted(str(k) for k in kinds))
        raise ctx.error(f"field {name!r} is assigned values of different types ({listed}); {hint}",
                        known[1][1], f"self.{name}")
    return Field(name, known[0][0], ctx.loc(known[0][1]))


def _example(uses) -> str:
    """An annotation to suggest, from the shape of the first value assigned."""
    for _, value, _ in uses:
        if isinstance(value, ast.Constant) and value.value is None:
            return "Optional[int] = None"
        if isinstance(value, (ast.List, ast.ListComp)):
            return "list[int]"
        if isinstance(value, (ast.Dict, ast.DictComp)):
            return "dict[str, int]"
        if isinstance(value, (ast.Set, ast.SetComp)):
            return "set[int]"
        if isinstance(value, ast.Tuple):
            return "tuple[int, ...]"
    return "<type>"

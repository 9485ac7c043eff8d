"""The methods of a class: their kinds (constructor, factory, action, property, helper),
parameters and bodies, and the `__init__` synthesised for classes that do not write one
(a dataclass's generated constructor, or one assigning the class-level defaults)."""

from __future__ import annotations

import ast
import copy
from typing import cast

from contractor.contracts.context import FileContext, decorator_call, is_docstring, keyword
from contractor.contracts.fields import ClassLevel, class_level, param_types
from contractor.contracts.types import TypeReader
from contractor.model import Field, FunctionNode, MethodKind, Param


def decorator_names(fn: FunctionNode | ast.ClassDef) -> tuple[str, ...]:
    """Decorators as written, without their arguments (e.g. "icontract.require")."""
    return tuple(ast.unparse(decorator_call(d)[0]) for d in fn.decorator_list)


_TAGS = {"classmethod", "staticmethod", "property", "cached_property", "functools.cached_property"}


def _builtin_decorators(fn: FunctionNode, ctx: FileContext) -> set[str]:
    """classmethod / staticmethod / property / cached_property / accessor (`@x.setter`)."""
    tags = set()
    for dec in fn.decorator_list:
        qual = ctx.qualname(decorator_call(dec)[0]) or ""
        if qual.endswith((".setter", ".deleter", ".getter")):
            tags.add("accessor")
        elif qual in _TAGS:
            tags.add(qual.rsplit(".", 1)[-1])
    return tags


def is_accessor(fn: FunctionNode, ctx: FileContext) -> bool:
    """A property's setter/deleter: `@x.setter`."""
    return "accessor" in _builtin_decorators(fn, ctx)


def _returns_class(fn: FunctionNode, class_name: str) -> bool:
    ann = fn.returns
    if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
        ann = ast.Name(ann.value.strip())
    name = ann.id if isinstance(ann, ast.Name) else ann.attr if isinstance(ann, ast.Attribute) else None
    if name in (class_name, "Self"):
        return True
    cls_name = fn.args.args[0].arg if fn.args.args else "cls"
    for node in ast.walk(fn):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Name) and node.value.func.id in (cls_name, class_name):
            return True
    return False


def kind_of(fn: FunctionNode, class_name: str, ctx: FileContext) -> tuple[MethodKind, str]:
    """(kind, binding) where binding is "instance", "class" or "static"."""
    decs = _builtin_decorators(fn, ctx)
    if fn.name == "__init__":
        return "constructor", "instance"
    if "classmethod" in decs:
        return ("factory" if _returns_class(fn, class_name) else "helper"), "class"
    if "staticmethod" in decs:
        return "helper", "static"
    if "property" in decs or "cached_property" in decs:
        return "property", "instance"
    return ("helper" if fn.name.startswith("_") else "action"), "instance"


def params_of(fn: FunctionNode, types: TypeReader, ctx: FileContext, *, bound: bool = True) -> tuple[Param, ...]:
    """The parameters after self/cls (all of them for a static method)."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    pairs = list(zip(positional, defaults)) + list(zip(a.kwonlyargs, a.kw_defaults))
    if bound:
        pairs = pairs[1:]
    typed = param_types(fn, types)  # untyped: the literal default's type, else opaque
    return tuple(Param(p.arg, typed[p.arg], d, ctx.loc(p)) for p, d in pairs)


def param_names(fn: FunctionNode) -> list[str]:
    a = fn.args
    return [p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]]


def body_of(fn: FunctionNode) -> tuple[ast.stmt, ...]:
    return tuple(fn.body[1:] if fn.body and is_docstring(fn.body[0]) else fn.body)


def is_dataclass(cls: ast.ClassDef, ctx: FileContext) -> bool:
    for dec in cls.decorator_list:
        func, _, kws = decorator_call(dec)
        if ctx.qualname(func) in ("dataclasses.dataclass", "dataclass"):
            init = keyword(kws, "init")
            return not (isinstance(init, ast.Constant) and init.value is False)
    return False


def _self_assign(name: str, value: ast.expr) -> ast.stmt:
    return ast.Assign(targets=[ast.Attribute(ast.Name("self", ast.Load()), name, ast.Store())], value=value)


def _field_call(value: ast.expr | None, ctx: FileContext) -> ast.Call | None:
    if isinstance(value, ast.Call) and ctx.qualname(value.func) in ("dataclasses.field", "field"):
        return value
    return None


def synthesise_init(cls: ast.ClassDef, ctx: FileContext, fields: dict[str, Field], dataclass: bool,
                    lineage: list[tuple[ast.ClassDef, FileContext]] | None = None,
                    post_init: bool | None = None) -> ast.FunctionDef:
    """The `__init__` Python would give the class: a dataclass's field-by-field constructor,
    or (for a plain class) one without parameters that assigns the class-level defaults.

    `lineage`: the dataclasses whose fields the constructor takes, bases first (Python
    collects them in reverse MRO order; a redefined field keeps its first place and takes
    the last definition); `post_init`: whether some class of the MRO defines
    `__post_init__` (default: the class itself)."""
    args: list[ast.arg] = [ast.arg("self")]
    defaults: list[ast.expr] = []
    body: list[ast.stmt] = []
    ordered: dict[str, tuple[ClassLevel, FileContext]] = {}
    for node, node_ctx in lineage or [(cls, ctx)]:
        for item in class_level(node):
            ordered[item.name] = (item, node_ctx)
    for item, ctx in ordered.values():
        if item.name not in fields:
            continue
        value = copy.deepcopy(item.value) if item.value is not None else None
        call = _field_call(value, ctx)
        init = True
        if call is not None:
            init_kw = keyword(call.keywords, "init")
            init = not (isinstance(init_kw, ast.Constant) and init_kw.value is False)
            factory = keyword(call.keywords, "default_factory")
            value = keyword(call.keywords, "default") or (
                ast.copy_location(ast.Call(factory, [], []), factory) if factory is not None else None)
        if dataclass and init and item.annotation is not None:
            args.append(ast.copy_location(ast.arg(item.name, copy.deepcopy(item.annotation)), item.node))
            if value is not None:
                defaults.append(value)
            body.append(ast.copy_location(_self_assign(item.name, ast.Name(item.name, ast.Load())), item.node))
        elif value is not None:
            body.append(ast.copy_location(_self_assign(item.name, value), item.node))
    if post_init is None:
        post_init = any(isinstance(f, ast.FunctionDef) and f.name == "__post_init__" for f in cls.body)
    if post_init:
        call = ast.Call(ast.Attribute(ast.Name("self", ast.Load()), "__post_init__", ast.Load()), [], [])
        body.append(ast.Expr(call))
    fn = ast.FunctionDef(
        name="__init__",
        args=ast.arguments(posonlyargs=[], args=args, vararg=None, kwonlyargs=[], kw_defaults=[],
                           kwarg=None, defaults=defaults),
        body=body or [ast.Pass()], decorator_list=[], returns=None, type_comment=None)
    ast.copy_location(fn, cls)
    for part in ast.walk(fn):
        if "lineno" in part._attributes and not hasattr(part, "lineno"):
            ast.copy_location(part, cls)
            positioned = cast(ast.expr, part)  # a node type with positions (expr, stmt, arg, ...)
            positioned.end_lineno, positioned.end_col_offset = cls.lineno, cls.col_offset
    return fn

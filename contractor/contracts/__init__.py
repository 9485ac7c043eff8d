"""Read a class's contracts, in any of the four dialects, into a normalised ClassModel.

One module per dialect (pep316, icontract_dialect, deal_dialect, asserts), like
CrossHair's parsers; `types` and `fields` type the fields and parameters, `methods`
classifies the methods, `normalize` rewrites expressions into the model's normal form.
"""

from __future__ import annotations

import ast
import difflib
from typing import Iterable

from contractor.contracts import asserts, deal_dialect, icontract_dialect, pep316
from contractor.contracts.clauses import Clauses
from contractor.contracts.constants import class_constants, module_constants
from contractor.contracts.context import FileContext
from contractor.contracts.fields import read_fields
from contractor.contracts.methods import (body_of, decorator_names, is_accessor, is_dataclass, kind_of,
                                          param_names, params_of, synthesise_init)
from contractor.contracts.types import TypeReader, enum_classes
from contractor.errors import InputError
from contractor.model import DIALECTS, ClassModel, Method, PreconditionMode
from contractor.target import ResolvedTarget

def _method_clauses(fn: ast.FunctionDef, ctx: FileContext, lines: list[str]) -> dict[str, Clauses]:
    names = param_names(fn)
    return {
        "pep316": pep316.read_method(fn, ctx, lines),
        "icontract": icontract_dialect.read_method(fn, ctx, names),
        "deal": deal_dialect.read_method(fn, ctx, names),
        "asserts": asserts.read_method(fn, ctx),
    }


def _functions(cls: ast.ClassDef, ctx: FileContext) -> dict[str, ast.FunctionDef]:
    """The class's methods by name; a later definition replaces an earlier one, as in Python,
    except a property's setter or deleter, which keeps the getter."""
    found: dict[str, ast.FunctionDef] = {}
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and not (node.name in found and is_accessor(node, ctx)):
            found[node.name] = node
    return found


def _select(requested: Iterable[str] | None, exclude: Iterable[str], methods: dict[str, Method],
            cls: ast.ClassDef, ctx: FileContext, static: set[str]) -> tuple[str, ...]:
    selectable = sorted(n for n, m in methods.items()
                        if m.kind in ("action", "helper") and n not in static and not n.startswith("__"))

    def check(name: str, option: str) -> None:
        if name in selectable:
            return
        if name in methods:
            why = f"is a {methods[name].kind}" if name not in static else "is a static or class method"
            raise InputError(f"{option} {name!r}: {cls.name}.{name} {why}, not an action", ctx.loc(methods[name].node))
        close = difflib.get_close_matches(name, selectable, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else f" (its methods: {', '.join(selectable)})"
        raise InputError(f"{option} {name!r}: class {cls.name} has no method {name!r}{hint}", ctx.loc(cls))

    chosen = list(requested) if requested is not None else [n for n in selectable if methods[n].kind == "action"]
    for name in chosen:
        check(name, "--methods")
    for name in exclude:
        check(name, "--exclude")
    return tuple(sorted(set(chosen) - set(exclude)))


def read_class(resolved: ResolvedTarget, *, methods: Iterable[str] | None = None,
               exclude: Iterable[str] = (), preconditions: PreconditionMode | None = None) -> ClassModel:
    """The class model of a resolved target: fields, invariants, methods with their contracts.

    `preconditions` None: the declared contracts if the class declares any, else the
    implicit ones (raise guards)."""
    ctx = FileContext.of(resolved.display_path, resolved.source, resolved.module)
    cls = resolved.node
    lines = resolved.source.splitlines()
    enums = enum_classes(resolved.module)
    classes = frozenset(n.name for n in resolved.module.body if isinstance(n, ast.ClassDef))
    types = TypeReader(ctx, cls.name, enums, classes, module_constants(resolved.module))
    constants = class_constants(cls)
    fields = read_fields(cls, ctx, types, frozenset(constants))
    used: set[str] = set()

    invariants = []
    for dialect, clauses in (("pep316", pep316.read_class(cls, ctx, lines)),
                             ("icontract", icontract_dialect.read_class(cls, ctx)),
                             ("deal", deal_dialect.read_class(cls, ctx))):
        invariants += clauses.inv
        if clauses.any:
            used.add(dialect)

    functions = _functions(cls, ctx)
    if "__init__" not in functions:
        functions = {"__init__": synthesise_init(cls, ctx, fields, is_dataclass(cls, ctx)), **functions}
    model_methods: dict[str, Method] = {}
    static: set[str] = set()
    for name, fn in functions.items():
        kind, binding = kind_of(fn, cls.name, ctx)
        if binding != "instance":
            static.add(name)
        merged = Clauses()
        for dialect, clauses in _method_clauses(fn, ctx, lines).items():
            merged.extend(clauses)
            if clauses.any:
                used.add(dialect)
        model_methods[name] = Method(
            name=name, kind=kind, params=params_of(fn, types, ctx, bound=binding != "static"),
            preconditions=tuple(merged.pre), postconditions=tuple(merged.post), body=body_of(fn),
            node=fn, location=ctx.loc(fn), returns=types.annotation(fn.returns),
            raises=tuple(merged.raises), decorators=decorator_names(fn))

    factories = sorted(n for n, m in model_methods.items() if m.kind == "factory")
    if preconditions is None:
        # leading asserts alone do not count: under raise guards a failing assert is a guard too
        preconditions = PreconditionMode.DECLARED if used - {"asserts"} else PreconditionMode.IMPLICIT
    return ClassModel(
        name=cls.name, path=resolved.display_path, source=resolved.source, node=cls,
        module=resolved.module, fields=fields, invariants=tuple(invariants), methods=model_methods,
        actions=_select(methods, exclude, model_methods, cls, ctx, static),
        constructors=("__init__", *factories),
        dialects=tuple(d for d in DIALECTS if d in used), enums=enums, location=ctx.loc(cls),
        class_constants=constants, module_constants=module_constants(resolved.module),
        preconditions=preconditions)


__all__ = ["read_class"]

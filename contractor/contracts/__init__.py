"""Read a class's contracts, in any of the four dialects, into a normalised ClassModel.

One module per dialect (pep316, icontract_dialect, deal_dialect, asserts), like
CrossHair's parsers; `types` and `fields` type the fields and parameters, `methods`
classifies the methods, `normalize` rewrites expressions into the model's normal form.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from contractor.contracts.bases import Unreadable
from contractor.contracts.checks import check_depth, undefined_name_findings
from contractor.contracts.constants import module_constants
from contractor.contracts.context import FileContext
from contractor.contracts.inherit import Definition, Hierarchy, opaque_body, precondition_list, until_first_await
from contractor.contracts.methods import body_of, decorator_names, is_dataclass, kind_of, params_of, synthesise_init
from contractor.errors import InputError
from contractor.model import DIALECTS, ClassModel, Condition, FunctionNode, Method, MethodKind, PreconditionMode
from contractor.target import ResolvedTarget


def _select(requested: Iterable[str] | None, exclude: Iterable[str], methods: dict[str, Method],
            cls: ast.ClassDef, ctx: FileContext, static: set[str]) -> tuple[str, ...]:
    selectable = sorted(n for n, m in methods.items()
                        if m.kind in ("action", "helper") and n not in static and not n.startswith("__")
                        and "." not in n)  # "Base.m": a base's definition reached by super()

    def check(name: str, option: str) -> None:
        if name in selectable:
            return
        if name in methods:
            why = f"is a {methods[name].kind}" if name not in static else "is a static or class method"
            raise InputError(f"{option} {name!r}: {cls.name}.{name} {why}, not an action", ctx.loc(methods[name].node))
        import difflib

        close = difflib.get_close_matches(name, selectable, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else f" (its methods: {', '.join(selectable)})"
        raise InputError(f"{option} {name!r}: class {cls.name} has no method {name!r}{hint}", ctx.loc(cls))

    chosen = list(requested) if requested is not None else [n for n in selectable if methods[n].kind == "action"]
    for name in chosen:
        check(name, "--methods")
    for name in exclude:
        check(name, "--exclude")
    return tuple(sorted(set(chosen) - set(exclude)))


def _method(name: str, d: Definition, h: Hierarchy, body_fn: FunctionNode, owner: str) -> Method:
    r, fn = d.readable()
    kind, _ = kind_of(fn, r.src.name, r.ctx)
    _, binding = kind_of(fn, r.src.name, r.ctx)
    contracts = h.contracts(d)
    return Method(
        name=name, kind=kind, params=params_of(fn, r.types, r.ctx, bound=binding != "static"),
        preconditions=tuple(precondition_list(contracts)),
        postconditions=tuple(c for e in contracts.values() for c in e.post), body=_body(body_fn),
        node=fn, location=r.ctx.loc(fn), returns=r.types.annotation(fn.returns),
        raises=tuple(x for e in contracts.values() for x in e.raises), decorators=decorator_names(fn),
        owner=owner, constants=None if r.src.path == h.top.src.path else module_constants(r.src.module))


def _body(fn: FunctionNode) -> tuple[ast.stmt, ...]:
    body = body_of(fn)
    return until_first_await(fn, body) if isinstance(fn, ast.AsyncFunctionDef) else body


def _opaque(name: str, where: Unreadable, at: ast.ClassDef, kind: MethodKind = "helper") -> Method:
    reason = f"{name.rsplit('.', 1)[-1]} of the unreadable base class {where.name}"
    fn = ast.copy_location(ast.FunctionDef(name=name, args=ast.arguments(
        posonlyargs=[], args=[ast.arg("self")], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
        defaults=[]), body=[ast.Pass()], decorator_list=[], returns=None, type_comment=None), at)
    ast.fix_missing_locations(fn)
    return Method(name=name, kind=kind, params=(), preconditions=(), postconditions=(),
                  body=opaque_body(reason, where_node(where, at), base=where.name), node=fn, location=where.location,
                  owner=where.name)


def where_node(where: Unreadable, at: ast.AST) -> ast.AST:
    node = ast.Pass()
    node.lineno, node.col_offset = where.location.line, where.location.col
    node.end_lineno, node.end_col_offset = where.location.line, where.location.col
    return node


def read_class(resolved: ResolvedTarget, *, methods: Iterable[str] | None = None,
               exclude: Iterable[str] = (), preconditions: PreconditionMode | None = None,
               root: Path | None = None) -> ClassModel:
    """The class model of a resolved target: fields, invariants, methods with their contracts,
    its bases' included (see contracts/inherit.py).

    `preconditions` None: the declared contracts if the class declares any, else the
    implicit ones (raise guards)."""
    check_depth(resolved.node, resolved.display_path, f"an expression or statement of class {resolved.node.name}")
    h = Hierarchy(resolved, root or Path.cwd())
    top = h.top
    cls, ctx = resolved.node, top.ctx
    constants = h.class_constants()
    fields = h.fields(frozenset(constants))
    invariants = h.invariants()
    model_methods: dict[str, Method] = {}
    static: set[str] = set()
    todo: list[tuple[str, Definition]] = []
    for name in h.names():
        d = h.definition(name)
        if d is not None:
            todo.append((name, d))
    if "__init__" not in top.functions and (is_dataclass(cls, ctx) or "__init__" not in h.names()):
        where = h.unreadable[0] if h.unreadable else None
        if where is not None and not h.dataclass_lineage():
            model_methods["__init__"] = _opaque("__init__", where, cls, "constructor")
        else:
            lineage = h.dataclass_lineage()
            fn = synthesise_init(cls, ctx, fields, bool(lineage), lineage or None,
                                 post_init=bool(lineage) and h.definition("__post_init__") is not None)
            top.functions = {"__init__": fn, **top.functions}
            todo.insert(0, ("__init__", Definition(top, fn, 0)))
    done: set[str] = set(model_methods)
    while todo:
        name, d = todo.pop(0)
        if name in done:
            continue
        done.add(name)
        if d.unreadable is not None:  # an unreadable base may define it in front of any readable one
            readable = h.definition(name, d.index + 1)
            kind: MethodKind = "action" if not name.startswith("_") else "helper"
            if readable is not None and readable.reading is not None:
                r, base_fn = readable.readable()
                kind, _ = kind_of(base_fn, r.src.name, r.ctx)
            model_methods[name] = _opaque(name, d.unreadable, cls, kind)
            continue
        reading, own_fn = d.readable()
        _, binding = kind_of(own_fn, reading.src.name, reading.ctx)
        if binding != "instance" and "." not in name:
            static.add(name)
        body_fn, targets = h.body(d)
        model_methods[name] = _method(name, d, h, body_fn, reading.src.name)
        for t in targets:
            if isinstance(t.owner, Unreadable):
                if t.name not in done:
                    done.add(t.name)
                    model_methods[t.name] = _opaque(t.name, t.owner, cls, "helper")
                continue
            owner = t.owner
            assert owner is not None  # SuperRewriter.needed holds only calls landing in a class
            index = next(i for i, c in enumerate(h.mro) if c.key == owner.key)
            todo.append((t.name, Definition(h.readings[index], h.readings[index].functions[t.method], index)))

    factories = sorted(n for n, m in model_methods.items() if m.kind == "factory" and "." not in n)
    used = h.used
    if preconditions is None:
        # leading asserts alone do not count: under raise guards a failing assert is a guard too;
        # nor do docstring `raises:` lines alone (they declare no condition)
        preconditions = PreconditionMode.DECLARED if h.declaring - {"asserts"} else PreconditionMode.IMPLICIT
    conditions: list[tuple[str | None, set[str], Condition]] = [  # those written in the target's own file
        (None, set(), c) for c in invariants] + [
        (name, {p.name for p in m.params}, c) for name, m in model_methods.items()
        for c in (*m.preconditions, *m.postconditions)]
    conditions = [t for t in conditions if t[2].location.path == resolved.display_path]
    return ClassModel(
        name=cls.name, path=resolved.display_path, source=resolved.source, node=cls,
        module=resolved.module, fields=fields, invariants=tuple(invariants), methods=model_methods,
        actions=_select(methods, exclude, model_methods, cls, ctx, static),
        constructors=("__init__", *factories),
        dialects=tuple(d for d in DIALECTS if d in used), enums=h.enums(), location=ctx.loc(cls),
        class_constants=constants, module_constants=module_constants(resolved.module),
        preconditions=preconditions, bases=h.bases(),
        notes=tuple(undefined_name_findings(conditions, resolved.module)))


__all__ = ["read_class"]

"""Rewrite a class's module so the class enforces its typestate, from the state table and templates.

The templates under `contractor/templates/strengthen/` hold the generated code's shape; this module
computes what goes into them (names that collide with nothing in the user's module, the
per-method expressions) and splices the results into the user's source text.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from contractor.errors import InputError, Location
from contractor.model import ClassModel, Dialect
from contractor.resources import jinja_env
from contractor.strengthen import source as src
from contractor.strengthen.overrides import override
from contractor.strengthen.table import StateTable

DIALECT_MODULES = {"icontract": "icontract", "deal": "deal"}  # modules a dialect's contracts need


@dataclass(frozen=True)
class Names:
    """Names the generated code introduces, each free in the user's module and class."""

    cls: str
    enum: str
    field: str  # the state field
    before_field: str  # deal only: the state before the current call
    snapshot: str  # icontract only: OLD.<snapshot> is the state before the call
    enabled: str
    next: str
    invariants: str
    not_enabled: str
    next_state: str
    error: str
    before: str  # local variable in wrappers: the state before the call
    result: str  # local variable in wrappers: the body's result


@dataclass(frozen=True)
class MethodView:
    name: str
    pre: str  # "the state enables this method", over self.<field>
    pre_failed: str  # its negation
    update: str | None  # the new state, over the local `before` and the object; None: unchanged
    body_name: str
    body_signature: str
    call_args: str
    returns_value: bool
    needs_before: bool  # whether the wrapper keeps the state before the call


@dataclass(frozen=True)
class ConstructorView:
    name: str
    init: str  # the initial state (or the call choosing it)
    indent: str = ""
    body_indent: str = ""
    factory: bool = False
    receiver: str = "self"
    body_name: str = ""
    body_signature: str = ""
    body_decorators: str = ""
    call_args: str = ""


def _names(model: ClassModel, table: StateTable) -> Names:
    taken = src.module_names(model.module) | set(model.methods)
    attrs = src.attribute_names(model.node) | set(model.fields)
    params = {p for m in model.methods.values() for p in src.parameter_names(m.node)}
    prefix = "_" + re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", model.name).upper()
    lower = prefix.lower()
    field = src.free_name("_typestate", attrs)
    return Names(
        cls=model.name,
        enum=src.free_name(f"{model.name}State", taken),
        field=field,
        before_field=src.free_name(f"{field}_before", attrs),
        snapshot="typestate",
        enabled=src.free_name(f"{prefix}_ENABLED", taken),
        next=src.free_name(f"{prefix}_NEXT", taken),
        invariants=src.free_name(f"{prefix}_INVARIANTS", taken),
        not_enabled=src.free_name(f"{lower}_not_enabled", taken),
        next_state=src.free_name(f"{lower}_next_state", taken),
        error=src.free_name("TypestateError", taken),
        before=src.free_name("state_before", params),
        result=src.free_name("result", params),
    )


def _member(n: Names, state: str) -> str:
    return f"{n.enum}.{state}"


def _pytuple(items) -> str:
    """A tuple display of the given expressions: "()", "(a,)", "(a, b)"."""
    items = list(items)
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _states(n: Names, ids: tuple[str, ...]) -> str:
    return _pytuple(_member(n, s) for s in ids)


def _choice(n: Names, receiver: str, ids: tuple[str, ...]) -> str:
    if len(ids) == 1:
        return _member(n, ids[0])
    return f"{n.next_state}({receiver}, {_states(n, ids)})"


def _check_action(model: ClassModel, node: ast.FunctionDef) -> None:
    where = Location(model.path, node.lineno, node.col_offset)
    if not isinstance(node, ast.FunctionDef):
        raise InputError(f"{node.name}(): async methods cannot be strengthened", where, "async def")
    if src.is_generator(node):
        raise InputError(f"{node.name}(): generator methods cannot be strengthened "
                         "(the state would change before the generator runs)", where, "yield")
    if not (node.args.posonlyargs + node.args.args):
        raise InputError(f"{node.name}(): an action needs `self`", where, "static method")


def _method_view(model: ClassModel, table: StateTable, n: Names, name: str, dialect: Dialect,
                 node: ast.FunctionDef) -> MethodView:
    _check_action(model, node)
    t = table.methods[name]
    field = f"self.{n.field}"
    if len(t.enabled_in) == 1:
        pre, failed = f"{field} is {_member(n, t.enabled_in[0])}", f"{field} is not {_member(n, t.enabled_in[0])}"
    else:
        pre, failed = f"{field} in {_states(n, t.enabled_in)}", f"{field} not in {_states(n, t.enabled_in)}"
    complete = set(t.next) == set(t.enabled_in)
    if complete and all(ts == (s,) for s, ts in t.next.items()):
        update = None
    elif t.constant_target:
        update = _member(n, t.constant_target)
    elif t.deterministic and complete:
        pairs = ", ".join(f"{_member(n, s)}: {_member(n, ts[0])}" for s, ts in t.next.items())
        update = f"{{{pairs}}}[{n.before}]"
    else:
        lookup = f'[{n.before}]' if complete else f".get({n.before}, ())"
        update = f'{n.next_state}(self, {n.next}["{name}"]{lookup})'
    body_name = src.free_name(f"_{name}_body", set(model.methods))
    return MethodView(name, pre, failed, update, body_name, src.body_signature(node, body_name),
                      src.call_arguments(node), src.returns_value(node),
                      needs_before=update is not None and (n.before in update or dialect == "asserts"))


def _written(model: ClassModel, name: str):
    """The method `name` as written in the class (not one the contract reader synthesised)."""
    method = model.methods.get(name)
    return method if method is not None and method.node in model.node.body else None


def _is_dataclass(node: ast.ClassDef) -> bool:
    return any("dataclass" in ast.unparse(d) for d in node.decorator_list)


def _constructor_edits(model: ClassModel, table: StateTable, n: Names, env) -> list[src.Edit]:
    macros = env.get_template("strengthen/constructor.py.j2").make_module({"n": n})
    edits: list[src.Edit] = []
    body = model.node.body
    class_indent = " " * body[0].col_offset
    for ctor, ids in table.inits.items():
        method = _written(model, ctor)
        if method is None and ctor == "__init__":
            name = "__post_init__" if _is_dataclass(model.node) else "__init__"
            method = _written(model, name)
            if method is None:
                view = ConstructorView(name, _choice(n, "self", ids), indent=class_indent)
                end = model.node.end_lineno or model.node.lineno
                edits.append(src.Edit(end + 1, end, str(macros.added(view))))
                continue
        if method is None:
            continue
        node = method.node
        factory = ctor != "__init__" and method.kind == "factory"
        if not factory and not src.has_return(node):
            parts = src.method_parts(model.source, node, model.path)
            view = ConstructorView(ctor, _choice(n, "self", ids), body_indent=parts.body_indent)
            edits.append(src.Edit(parts.last + 1, parts.last, str(macros.appended(view))))
            continue
        parts = src.method_parts(model.source, node, model.path)
        body_name = src.free_name(f"_{ctor.strip('_')}_body", set(model.methods))
        receiver = n.result if factory else "self"
        first = node.args.posonlyargs + node.args.args
        kinds = [ast.unparse(d) for d in node.decorator_list if ast.unparse(d) in ("classmethod", "staticmethod")]
        view = ConstructorView(
            ctor, _choice(n, receiver, ids), factory=factory,
            receiver=first[0].arg if first and "staticmethod" not in kinds else model.name,
            body_name=body_name, body_signature=src.body_signature(node, body_name),
            body_decorators="".join(f"{parts.indent}@{k}\n" for k in kinds),
            call_args=src.call_arguments(node) if "staticmethod" not in kinds else _all_args(node))
        edits.append(src.Edit(parts.first, parts.last, str(macros.wrapped(view, parts))))
    return edits


def _all_args(node: ast.FunctionDef) -> str:
    a = node.args
    parts = [p.arg for p in a.posonlyargs + a.args] + ([f"*{a.vararg.arg}"] if a.vararg else [])
    return ", ".join(parts + [f"{p.arg}={p.arg}" for p in a.kwonlyargs] + ([f"**{a.kwarg.arg}"] if a.kwarg else []))


def _support(model: ClassModel, table: StateTable, n: Names, dialect: Dialect, env) -> str:
    states = [
        {"id": s.id, "enabled": s.enabled,
         "doc": "Enabled: " + (", ".join(f"{m}()" for m in s.enabled) or "nothing") + "."
                + (" Initial state." if s.id in {i for ids in table.inits.values() for i in ids} else "")}
        for s in table.states
    ]
    invariants = [s for s in table.states if s.id in table.needs_invariants]
    return env.get_template("strengthen/support.py.j2").render(
        n=n, cls=model.name, states=states, methods=list(table.methods.values()),
        invariants=invariants if table.nondeterministic else [],
        needs_error=dialect == "pep316" or table.nondeterministic)


def _indent_lines(text: str, prefix: str) -> str:
    """`text` with `prefix` before each non-blank line (jinja's indent filter indents "" too)."""
    return "".join(prefix + line if line.strip() else line for line in str(text).splitlines(keepends=True))


def rewrite(model: ClassModel, table: StateTable, dialect: Dialect) -> str:
    """The user's module with `model`'s class strengthened (not yet formatted)."""
    if model.node not in model.module.body:
        raise InputError(f"class {model.name} is nested; only module-level classes can be strengthened",
                         model.location, "nested class")
    if any(isinstance(s, ast.Assign) and any(getattr(t, "id", None) == "__slots__" for t in s.targets)
           for s in model.node.body):
        raise InputError(f"class {model.name} declares __slots__; strengthening adds a state field",
                         model.location, "__slots__")
    env = jinja_env().overlay(autoescape=False)
    env.filters["indent_lines"] = _indent_lines
    env.filters["pytuple"] = _pytuple
    n = _names(model, table)
    env.filters["member"] = lambda state: _member(n, state)
    dialect_macros = env.get_template(f"strengthen/{dialect}.py.j2").make_module({"n": n})
    method_template = env.get_template("strengthen/method.py.j2")
    edits: list[src.Edit] = []
    on_top = dialect in DIALECT_MODULES and any(d in DIALECT_MODULES and d != dialect for d in model.dialects)
    class_end = model.node.end_lineno or model.node.lineno
    for name in table.methods:
        method = model.method(name)
        inherited = method.node not in model.node.body
        if inherited:  # overridden in the class, calling the base's through super()
            made = override(method, " " * model.node.body[0].col_offset)
            node, text_of = made.node, made.text
        else:
            node, text_of = method.node, model.source
        view = _method_view(model, table, n, name, dialect, node)
        parts = src.method_parts(text_of, node, model.path)
        doc_lines = str(dialect_macros.docstring(view)).splitlines()  # type: ignore[attr-defined]  # a macro
        docstring = src.add_docstring_lines(parts.docstring, doc_lines, parts.body_indent) if doc_lines \
            else parts.docstring or ""
        text = method_template.render(n=n, m=view, parts=parts, docstring=docstring, dialect=dialect,
                                      on_top=on_top)
        edits.append(src.Edit(class_end + 1, class_end, "\n" + text) if inherited
                     else src.Edit(parts.first, parts.last, text))
    edits += _constructor_edits(model, table, n, env)
    first = src.class_first_line(model.source, model.node)
    edits.append(src.Edit(first, first - 1, _support(model, table, n, dialect, env) + "\n"))
    imported = src.imported_modules(model.module)
    needed = ["enum"] + ([DIALECT_MODULES[dialect]] if dialect in DIALECT_MODULES else [])
    imports = "".join(f"import {m}\n" for m in needed if m not in imported)
    if imports:
        first_import = src.first_import_line(model.module)
        if first_import:  # beside the module's own imports
            edits.append(src.Edit(first_import, first_import - 1, imports))
        else:
            after = min(src.imports_line(model.source, model.module), first - 1)  # not inside the class
            edits.append(src.Edit(after + 1, after, ("\n" if after else "") + imports + "\n"))
    return src.apply_edits(model.source, edits)

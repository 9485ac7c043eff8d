"""Rewrite a class's module so the class enforces its typestate, from the state table and templates.

The templates under `contractor/templates/strengthen/` hold the generated code's shape; this module
computes what goes into them (names that collide with nothing in the user's module, the
per-method expressions) and places the generated code into the user's module as a concrete
syntax tree (`members`, `module_edit`), so nothing else in the module changes.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

import libcst as cst

from contractor.errors import InputError, Location
from contractor.model import ClassModel, Dialect, FunctionNode, Method
from contractor.resources import jinja_env
from contractor.strengthen import members as cm
from contractor.strengthen import source as src
from contractor.strengthen.formatting import tidy
from contractor.strengthen.module_edit import ClassEdit, apply, class_index, member
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
    call_args: str
    returns_value: bool
    needs_before: bool  # whether the wrapper keeps the state before the call


@dataclass(frozen=True)
class ConstructorView:
    name: str
    init: str  # the initial state (or the call choosing it)
    factory: bool = False
    receiver: str = "self"
    body_name: str = ""
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


def _check_action(model: ClassModel, node: FunctionNode) -> None:
    where = Location(model.path, node.lineno, node.col_offset)
    if not isinstance(node, ast.FunctionDef):
        raise InputError(f"{node.name}(): async methods cannot be strengthened", where, "async def")
    if src.is_generator(node):
        raise InputError(f"{node.name}(): generator methods cannot be strengthened "
                         "(the state would change before the generator runs)", where, "yield")
    if not (node.args.posonlyargs + node.args.args):
        raise InputError(f"{node.name}(): an action needs `self`", where, "static method")


def _method_view(model: ClassModel, table: StateTable, n: Names, name: str, dialect: Dialect,
                 node: FunctionNode) -> MethodView:
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
    return MethodView(name, pre, failed, update, body_name, src.call_arguments(node), src.returns_value(node),
                      needs_before=update is not None and (n.before in update or dialect == "asserts"))


def _written(model: ClassModel, name: str) -> Method | None:
    """The method `name` as written in the class (not one the contract reader synthesised)."""
    method = model.methods.get(name)
    return method if method is not None and method.node in model.node.body else None


def _is_dataclass(node: ast.ClassDef) -> bool:
    return any("dataclass" in ast.unparse(d) for d in node.decorator_list)


@dataclass
class _Editor:
    """The libcst edit of one class being built: the user's module, its class, the templates."""

    model: ClassModel
    module: cst.Module
    index: int  # the class's index in the libcst module body
    n: Names
    env: Any  # the jinja2 environment
    members: dict[int, list[cst.BaseStatement]]
    added: list[cst.BaseStatement]

    def method_node(self, node: FunctionNode) -> tuple[int, cst.FunctionDef]:
        index, stmt = member(self.module, self.index, self.model.node.body.index(node))
        assert isinstance(stmt, cst.FunctionDef) and stmt.name.value == node.name
        return index, stmt

    def body_indent(self, node: FunctionNode) -> str:
        """The indentation of `node`'s body (inside its docstring, where lines are indented)."""
        lines = self.model.source.splitlines()
        first = node.body[0]
        if first.lineno > node.lineno:
            return lines[first.lineno - 1][:first.col_offset]
        return self.member_indent() + self.unit

    @property
    def unit(self) -> str:
        """The class's own indentation step (a module may mix several)."""
        cls = self.module.body[self.index]
        assert isinstance(cls, cst.ClassDef)
        own = cls.body.indent if isinstance(cls.body, cst.IndentedBlock) else None
        return own if own is not None else self.module.default_indent

    def member_indent(self) -> str:
        first = self.model.node.body[0]
        return self.model.source.splitlines()[first.lineno - 1][:first.col_offset]

    def replace(self, index: int, statements: list[cst.BaseStatement]) -> None:
        self.members[index] = statements


def _constructor_edits(model: ClassModel, table: StateTable, ed: _Editor) -> None:
    n = ed.n
    macros: Any = ed.env.get_template("strengthen/constructor.py.j2").make_module({"n": n})
    for ctor, ids in table.inits.items():
        method = _written(model, ctor)
        if method is None and ctor == "__init__":
            name = "__post_init__" if _is_dataclass(model.node) else "__init__"
            method = _written(model, name)
            if method is None:
                added = cm.function(tidy(str(macros.added(ConstructorView(name, _choice(n, "self", ids)))), 1), ed.unit)
                ed.added.append(added.with_changes(leading_lines=[cst.EmptyLine(indent=False)]))
                continue
        if method is None:
            continue
        node = method.node
        index, original = ed.method_node(node)
        parts = cm.pieces(original)
        factory = ctor != "__init__" and method.kind == "factory"
        if not factory and not src.has_return(node):
            line = cm.statements(str(macros.appended(ConstructorView(ctor, _choice(n, "self", ids)))), ed.unit)
            ed.replace(index, [cm.appended(parts, line)])
            continue
        body_name = src.free_name(f"_{ctor.strip('_')}_body", set(model.methods))
        receiver = n.result if factory else "self"
        first = node.args.posonlyargs + node.args.args
        kinds = [d for d in original.decorators
                 if isinstance(d.decorator, cst.Name) and d.decorator.value in ("classmethod", "staticmethod")]
        static = any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in kinds)
        view = ConstructorView(
            ctor, _choice(n, receiver, ids), factory=factory,
            receiver=first[0].arg if first and not static else model.name,
            body_name=body_name, call_args=src.call_arguments(node) if not static else _all_args(node))
        wrapper = cm.wrapper(parts, [], [], parts.docstring, cm.statements(tidy(str(macros.wrapped(view)), 2), ed.unit),
                             keeps_body=False)
        doc = f"The original body of {ctor}(), which {ctor}() wraps to set the typestate."
        ed.replace(index, [wrapper, cm.body_method(parts, body_name, doc, kinds)])


def _all_args(node: FunctionNode) -> str:
    a = node.args
    parts = [p.arg for p in a.posonlyargs + a.args] + ([f"*{a.vararg.arg}"] if a.vararg else [])
    return ", ".join(parts + [f"{p.arg}={p.arg}" for p in a.kwonlyargs] + ([f"**{a.kwarg.arg}"] if a.kwarg else []))


def _support(model: ClassModel, table: StateTable, n: Names, dialect: Dialect, env: Any) -> str:
    states = [
        {"id": s.id, "enabled": s.enabled,
         "doc": "Enabled: " + (", ".join(f"{m}()" for m in s.enabled) or "nothing") + "."
                + (" Initial state." if s.id in {i for ids in table.inits.values() for i in ids} else "")}
        for s in table.states
    ]
    invariants = [s for s in table.states if s.id in table.needs_invariants]
    return str(env.get_template("strengthen/support.py.j2").render(
        n=n, cls=model.name, states=states, methods=list(table.methods.values()),
        invariants=invariants if table.nondeterministic else [],
        needs_error=dialect == "pep316" or table.nondeterministic))


def _check_class(model: ClassModel) -> None:
    if model.node not in model.module.body:
        raise InputError(f"class {model.name} is nested; only module-level classes can be strengthened",
                         model.location, "nested class")
    if any(isinstance(s, ast.Assign) and any(getattr(t, "id", None) == "__slots__" for t in s.targets)
           for s in model.node.body):
        raise InputError(f"class {model.name} declares __slots__; strengthening adds a state field",
                         model.location, "__slots__")


def _action(model: ClassModel, table: StateTable, ed: _Editor, name: str, dialect: Dialect, on_top: bool) -> None:
    """Edit (or, for an inherited action, add) the method `name`."""
    n, env = ed.n, ed.env
    dialect_macros: Any = env.get_template(f"strengthen/{dialect}.py.j2").make_module({"n": n})
    method_macros: Any = env.get_template("strengthen/method.py.j2").make_module({"n": n})
    method = model.method(name)
    inherited = method.node not in model.node.body
    if inherited:  # overridden in the class, calling the base's through super()
        made = override(method)
        node, original, index = made.node, cm.function(made.text, ed.unit), None
        indent = ed.member_indent() + ed.module.default_indent
    else:
        node = method.node
        index, original = ed.method_node(node)
        indent = ed.body_indent(node)
    view = _method_view(model, table, n, name, dialect, node)
    parts = cm.pieces(original)
    docstring = cm.docstring_with(ed.module, parts.docstring, str(dialect_macros.docstring(view)).splitlines(),
                                  indent)
    decorator_lines = str(dialect_macros.decorators(view))
    generated = cm.decorators(tidy(decorator_lines + "def _():\n    pass\n", 1)) if decorator_lines.strip() else []
    above, below = (generated, []) if on_top else ([], generated)
    pre = cm.statements(tidy(str(dialect_macros.guard(view)) + str(dialect_macros.record(view)), 2), ed.unit)
    if view.update is None:
        result = [cm.wrapper(parts, above, below, docstring, [*pre, *parts.statements], keeps_body=True)]
    else:
        around = tidy(str(method_macros.wrapper(view, str(dialect_macros.post(view)))), 2)
        wrapper = cm.wrapper(parts, above, below, docstring, [*pre, *cm.statements(around, ed.unit)], keeps_body=False)
        doc = f"The original body of {name}(), which {name}() wraps to keep the typestate."
        result = [wrapper, cm.body_method(parts, view.body_name, doc, [])]
    if index is None:
        ed.added.extend([result[0].with_changes(leading_lines=[cst.EmptyLine(indent=False)]), *result[1:]])
    else:
        ed.replace(index, list(result))


def rewrite(model: ClassModel, table: StateTable, dialect: Dialect) -> str:
    """The user's module with `model`'s class strengthened."""
    _check_class(model)
    env = jinja_env().overlay(autoescape=False)
    env.filters["pytuple"] = _pytuple
    n = _names(model, table)
    env.filters["member"] = lambda state: _member(n, state)
    try:
        module = cst.parse_module(model.source)
    except cst.ParserSyntaxError as e:  # ast read it, so libcst's grammar lags behind Python's
        raise InputError(f"libcst cannot parse the module: {e.message}", Location(model.path, e.raw_line, e.raw_column),
                         "syntax") from None
    ed = _Editor(model, module, class_index(module, model.module, model.node), n, env, {}, [])
    on_top = dialect in DIALECT_MODULES and any(d in DIALECT_MODULES and d != dialect for d in model.dialects)
    for name in table.methods:
        _action(model, table, ed, name, dialect, on_top)
    _constructor_edits(model, table, ed)
    imported = src.imported_modules(model.module)
    needed = ["enum"] + ([DIALECT_MODULES[dialect]] if dialect in DIALECT_MODULES else [])
    support = cm.module_statements(tidy(_support(model, table, n, dialect, env), 0), ed.unit)
    edit = ClassEdit(members=dict(ed.members), added=ed.added, support=support,
                     imports=[m for m in needed if m not in imported])
    return apply(module, ed.index, edit).code

"""The user's class as runnable Python: its module imported from the model's path, and the
normalised contracts compiled into functions `pre_m(self, *params)` and `inv(self)`.

This is the only place contractor imports and runs the user's module (the z3 path never does).
"""

from __future__ import annotations

import ast
import copy
import hashlib
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, cast

from crosshair.auditwall import SideEffectDetected

from contractor.crosshair_backend.eager import COMBINATORS
from contractor.crosshair_backend.objects import (
    field_types,
    original_class,
    plain_function,
    python_type,
)
from contractor.errors import InputError
from contractor.model import ClassModel, Condition


def load_module(model: ClassModel) -> ModuleType:
    """Import the file the class comes from, under a private name (its folder on sys.path
    so that sibling imports work)."""
    path = Path(model.path).resolve()
    digest = hashlib.sha256(model.source.encode()).hexdigest()[:12]
    name = f"_contractor_user_{path.stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InputError(f"cannot import {model.path}", model.location, "module")
    module = importlib.util.module_from_spec(spec)
    if str(path.parent) not in sys.path:
        sys.path.append(str(path.parent))
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise InputError(f"importing {model.path} for CrossHair failed: {exc!r}", model.location,
                         "module import") from exc
    return module


def _arguments(names: list[str]) -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], kwonlyargs=[],
                         kw_defaults=[], defaults=[])


def _thunk(expr: ast.expr) -> ast.Lambda:
    return ast.Lambda(_arguments([]), expr)


def _eager(expr: ast.expr) -> ast.expr:
    """Rewrite the boolean structure of a condition (and/or/not, chained comparisons) into
    calls of the combinators in contractor.crosshair_backend.eager, which CrossHair runs
    without forking a path per operand."""
    if isinstance(expr, ast.BoolOp):
        name = "__ch_all" if isinstance(expr.op, ast.And) else "__ch_any"
        return ast.Call(ast.Name(name, ast.Load()), [_thunk(_eager(v)) for v in expr.values], [])
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return ast.Call(ast.Name("__ch_not", ast.Load()), [_thunk(_eager(expr.operand))], [])
    if isinstance(expr, ast.Compare) and len(expr.ops) > 1:
        lefts = [expr.left, *expr.comparators[:-1]]
        parts = [ast.Compare(copy.deepcopy(a), [op], [copy.deepcopy(b)])
                 for a, op, b in zip(lefts, expr.ops, expr.comparators)]
        return ast.Call(ast.Name("__ch_all", ast.Load()), [_thunk(p) for p in parts], [])
    return expr


def _function(name: str, params: list[str], conditions: tuple[Condition, ...], path: str,
              env: dict[str, Any], eager: bool = False) -> Callable[..., bool]:
    body: ast.expr = ast.Constant(True)
    if conditions:
        body = ast.BoolOp(ast.And(), [copy.deepcopy(c.expr) for c in conditions]) \
            if len(conditions) > 1 else copy.deepcopy(conditions[0].expr)
    if eager:
        body = _eager(body)
    fn = ast.FunctionDef(name=name, args=_arguments(params), body=[ast.Return(body)],
                         decorator_list=[], returns=None)
    # a factory binds the combinators as closure variables, leaving the module untouched
    factory = ast.FunctionDef(name="__factory", args=_arguments(list(COMBINATORS)),
                              body=[fn, ast.Return(ast.Name(name, ast.Load()))],
                              decorator_list=[], returns=None)
    if sys.version_info >= (3, 12):  # a field since 3.12 (compile() wants it there)
        fn.type_params = factory.type_params = []
    tree = ast.fix_missing_locations(ast.Module([factory], type_ignores=[]))
    scope: dict[str, Any] = {}
    exec(compile(tree, path, "exec"), env, scope)
    return scope["__factory"](*COMBINATORS.values())


def _recording(condition: Callable[..., Any], method: str, blocked: dict[str, str]) -> Callable[..., Any]:
    """`condition`, noting in `blocked` when it attempts a side effect the wall blocks (it
    still raises, so the condition counts as false, as any raising condition does)."""
    def checked(*args: Any) -> Any:
        try:
            return condition(*args)
        except SideEffectDetected as exc:
            blocked.setdefault(method, str(exc).split(". ")[0])
            raise
    return checked


@dataclass
class Program:
    """Everything the CrossHair path runs for one class."""

    model: ClassModel
    module: ModuleType
    cls: type  # the class as written (not deal's checking subclass)
    fields: dict[str, Any]  # field name -> Python type
    params: dict[str, dict[str, Any]]  # method -> param name -> Python type
    pre: dict[str, Callable[..., bool]]  # method -> pre(self, *params)
    inv: Callable[[Any], bool]
    sym_pre: dict[str, Callable[..., Any]]  # the same, for symbolic values (eager.py)
    sym_inv: Callable[[Any], Any]
    blocked: dict[str, str] = field(default_factory=dict)  # method -> a side effect its precondition tried

    @classmethod
    def load(cls, model: ClassModel) -> Program:
        module = load_module(model)
        found = getattr(module, model.name, None)
        if not isinstance(found, type):
            raise InputError(f"module {model.path} has no class {model.name}", model.location, "class")
        env = module.__dict__
        pre: dict[str, Callable[..., bool]] = {}
        sym_pre: dict[str, Callable[..., Any]] = {}
        params: dict[str, dict[str, Any]] = {}
        blocked: dict[str, str] = {}
        for name in (*model.actions, *model.constructors):
            method = model.methods[name]
            params[name] = {}
            for p in method.params:
                if p.type is None or p.type.kind == "opaque":  # untyped: CrossHair needs a type
                    raise InputError(
                        f"parameter {p.name!r} of {name} has no type annotation; CrossHair needs one "
                        f"(e.g. `{p.name}: int`)", p.location, "parameter type")
                try:
                    params[name][p.name] = python_type(p.type, module, f"parameter {p.name!r} of {name}")
                except InputError as err:
                    raise InputError(err.message, p.location, "parameter type") from None
            first = [] if method.kind == "factory" else ["self"]
            names = first + [p.name for p in method.params]
            pre[name] = _recording(_function(f"__pre_{name}", names, method.preconditions, model.path, env),
                                   name, blocked)
            sym_pre[name] = _recording(
                _function(f"__pre_{name}", names, method.preconditions, model.path, env, True), name, blocked)
        inv = _function("__inv", ["self"], model.invariants, model.path, env)
        sym_inv = _function("__inv", ["self"], model.invariants, model.path, env, True)
        return cls(model, module, original_class(found, model, module), field_types(model, module),
                   params, pre, inv, sym_pre, sym_inv, blocked)

    def call(self, obj: Any, method: str, args: dict[str, Any]) -> Any:
        return plain_function(self.cls, method)(obj, *args.values())

    def construct(self, ctor: str, args: dict[str, Any]) -> Any:
        if ctor == "__init__":
            obj = cast(Any, self.cls).__new__(self.cls)
            plain_function(self.cls, "__init__")(obj, *args.values())
            return obj
        attr = plain_function(self.cls, ctor)
        kind = type(self.cls.__dict__.get(ctor))
        return attr(self.cls, *args.values()) if kind is classmethod else attr(*args.values())

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
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from contractor.crosshair_backend.objects import field_types, original_class, plain_function, python_type
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


def _function(name: str, params: list[str], conditions: tuple[Condition, ...], path: str,
              env: dict[str, Any]) -> Callable[..., bool]:
    body: ast.expr = ast.Constant(True)
    if conditions:
        body = ast.BoolOp(ast.And(), [copy.deepcopy(c.expr) for c in conditions]) \
            if len(conditions) > 1 else copy.deepcopy(conditions[0].expr)
    fn = ast.FunctionDef(
        name=name,
        args=ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], kwonlyargs=[],
                           kw_defaults=[], defaults=[]),
        body=[ast.Return(body)], decorator_list=[], returns=None, type_params=[])
    tree = ast.fix_missing_locations(ast.Module([fn], type_ignores=[]))
    scope: dict[str, Any] = {}
    exec(compile(tree, path, "exec"), env, scope)
    return scope[name]


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

    @classmethod
    def load(cls, model: ClassModel) -> "Program":
        module = load_module(model)
        found = getattr(module, model.name, None)
        if not isinstance(found, type):
            raise InputError(f"module {model.path} has no class {model.name}", model.location, "class")
        env = module.__dict__
        pre, params = {}, {}
        for name in (*model.actions, *model.constructors):
            method = model.methods[name]
            params[name] = {}
            for p in method.params:
                if p.type is None:
                    raise InputError(
                        f"parameter {p.name!r} of {name} has no type annotation; CrossHair needs one "
                        f"(e.g. `{p.name}: int`)", p.location, "parameter type")
                params[name][p.name] = python_type(p.type, module, f"parameter {p.name!r} of {name}")
            first = [] if method.kind == "factory" else ["self"]
            pre[name] = _function(f"__pre_{name}", first + [p.name for p in method.params],
                                  method.preconditions, model.path, env)
        inv = _function("__inv", ["self"], model.invariants, model.path, env)
        return cls(model, module, original_class(found, model, module), field_types(model, module), params, pre, inv)

    def call(self, obj: Any, method: str, args: dict[str, Any]) -> Any:
        return plain_function(self.cls, method)(obj, *args.values())

    def construct(self, ctor: str, args: dict[str, Any]) -> Any:
        if ctor == "__init__":
            obj = object.__new__(self.cls)
            plain_function(self.cls, "__init__")(obj, *args.values())
            return obj
        attr = plain_function(self.cls, ctor)
        kind = type(self.cls.__dict__.get(ctor))
        return attr(self.cls, *args.values()) if kind is classmethod else attr(*args.values())

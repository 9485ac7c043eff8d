"""Contracts of a live (imported) class as Python callables, for the brute-force oracle.

Reads them independently of contractor: PEP 316 `inv:`/`pre:` docstring lines and
leading `assert`s from the class's source file, icontract's and deal's from the
decorators' own introspection. Only tests use this; the z3 path never imports user code.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import inspect
import itertools
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Predicate = Callable[..., bool]
_LINE = re.compile(r"^\s*(pre|inv)\s*:\s*(.+?)\s*$")


@dataclass(frozen=True)
class MethodContract:
    name: str
    params: tuple[str, ...]  # without self
    preconditions: tuple[Predicate, ...]  # each called as p(obj, **args)
    function: Callable[..., Any]  # the undecorated function (self first)
    factory: bool = False  # a classmethod constructor: function(cls, **args)


@dataclass(frozen=True)
class ClassContracts:
    cls: type  # the class objects are built from (deal's invariant subclass removed)
    invariants: tuple[Predicate, ...]  # each called as p(obj)
    methods: Mapping[str, MethodContract]
    actions: tuple[str, ...]  # public methods, sorted
    constructors: tuple[str, ...]

    def invariant(self, obj: Any) -> bool:
        return all(_holds(p, obj) for p in self.invariants)

    def precondition(self, method: str, obj: Any, args: Mapping[str, Any]) -> bool:
        return all(_holds(p, obj, **args) for p in self.methods[method].preconditions)


def _holds(predicate: Predicate, *args: Any, **kwargs: Any) -> bool:
    """A contract whose evaluation raises counts as violated."""
    try:
        return bool(predicate(*args, **kwargs))
    except Exception:
        return False


_loaded = itertools.count()


def load_class(path: str | Path, name: str) -> type:
    """Import the file at `path` under a fresh module name and return its class `name`."""
    module_name = f"_contractor_test_{Path(path).stem}_{next(_loaded)}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses, enums and inspect look modules up here
    spec.loader.exec_module(module)
    return getattr(module, name)


def _original_class(cls: type) -> type:
    """deal's `@inv` replaces a class by an invariant-checking subclass: undo that."""
    if "_deal_invariants" not in vars(cls):
        return cls
    return next(k for k in cls.__mro__[1:]
                if "_deal_invariants" not in vars(k) and k.__name__ != "InvariantedClass")


def _class_node(cls: type) -> ast.ClassDef:
    path = inspect.getsourcefile(cls)
    tree = ast.parse(Path(path).read_text(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
            return node
    raise LookupError(f"class {cls.__name__} not found in {path}")


def _docstring_lines(node: ast.AST, kind: str) -> list[str]:
    doc = ast.get_docstring(node) or ""
    found = (_LINE.match(line) for line in doc.splitlines())
    return [m.group(2) for m in found if m and m.group(1) == kind]


def _leading_asserts(node: ast.FunctionDef) -> list[str]:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    tests = []
    for stmt in body:
        if not isinstance(stmt, ast.Assert):
            break
        tests.append(ast.unparse(stmt.test))
    return tests


def _lambda(expr: str, params: tuple[str, ...], namespace: dict, owner: type | None = None) -> Predicate:
    """The condition as a function; `owner`: the class it is written in, whose private
    names (`self.__x`) Python mangles (`self._Owner__x`), as it would in the class body."""
    if owner is not None:
        prefix = "_" + owner.__name__.lstrip("_")
        expr = re.sub(r"\.(__\w+)", lambda m: "." + (m.group(1) if m.group(1).endswith("__")
                                                      else prefix + m.group(1)), expr)
    return eval(f"lambda {', '.join(('self',) + params)}: ({expr})", namespace)


def _icontract_pres(wrapper: Any) -> list[Predicate]:
    """icontract's precondition groups (one per class of an inheritance chain under
    icontract.DBC) are or-ed; the contracts of one group are and-ed."""
    groups = [list(g) for g in getattr(wrapper, "__preconditions__", []) or [] if g]
    if not groups:
        return []

    def holds(contract, obj, args):
        values = {"self": obj, **args}
        return contract.condition(**{a: values[a] for a in contract.condition_args})

    def pred(obj, __groups=groups, **args):
        return any(all(holds(c, obj, args) for c in g) for g in __groups)
    return [pred]


def _deal_pres(wrapper: Any) -> list[Predicate]:
    try:
        import deal
    except ImportError:  # pragma: no cover - deal is a test dependency
        return []
    preds = []
    for contract in deal.introspection.get_contracts(wrapper):
        if isinstance(contract, deal.introspection.Pre):
            def pred(obj, __c=contract, **args):
                try:
                    __c.validate(obj, **args)
                except Exception:
                    return False
                return True
            preds.append(pred)
    return preds


def _lineage(cls: type) -> list[type]:
    """The classes of the MRO written in Python (object and C bases left out)."""
    out = []
    for k in cls.__mro__:
        if k is object:
            continue
        try:
            inspect.getsourcefile(k)
            _class_node(k)
        except (TypeError, OSError, LookupError):
            continue
        out.append(k)
    return out


def _invariants(cls: type, original: type, namespace: dict) -> list[Predicate]:
    """Every class's PEP 316 invariants (they are inherited), icontract's (already collected
    by icontract on the class) and deal's."""
    invs: list[Predicate] = []
    for k in _lineage(original):
        ns = dict(inspect.getmodule(k).__dict__)
        invs += [_lambda(e, (), ns, k) for e in _docstring_lines(_class_node(k), "inv")]
    for contract in getattr(original, "__invariants__", []) or []:  # icontract
        invs.append(lambda obj, __c=contract: __c.condition(self=obj))
    for validator in getattr(cls, "_deal_invariants", []) or []:
        def check(obj, __v=validator):
            __v.validate((obj,), {})
            return True
        invs.append(check)
    return invs


def _guard_lines(path: str) -> frozenset[int]:
    """The lines of the file's `raise` and `assert` statements."""
    tree = ast.parse(Path(path).read_text(), path)
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Raise, ast.Assert)):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return frozenset(lines)


def ends_in_explicit_raise(exc: BaseException, path: str, lines: frozenset[int]) -> bool:
    """Whether `exc` was raised by a `raise` or failing `assert` of the file at `path`
    (its innermost frame is there, on such a statement), not by a Python operation or
    by other code."""
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return Path(tb.tb_frame.f_code.co_filename).resolve() == Path(path).resolve() and tb.tb_lineno in lines


def raise_guard(function: Callable[..., Any], path: str) -> Predicate:
    """The implicit precondition: running the method on a copy of the object does not end
    in an explicit raise of the analysed code (other exceptions do not count)."""
    lines = _guard_lines(path)

    def guard(obj: Any, **args: Any) -> bool:
        import copy

        try:
            function(copy.deepcopy(obj), **args)
        except Exception as exc:
            return not ends_in_explicit_raise(exc, path, lines)
        return True
    return guard


def _pep316_pres(lineage: list[type], name: str, params: tuple[str, ...]) -> list[Predicate]:
    """PEP 316 preconditions as CrossHair reads them: the defining class's own, or, when it
    has none, those of the next class of the MRO that defines the method."""
    for k in lineage:
        if name not in k.__dict__:
            continue
        fnode = next(n for n in _class_node(k).body
                     if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name)
        lines = _docstring_lines(fnode, "pre")
        if lines:
            ns = dict(inspect.getmodule(k).__dict__)
            return [_lambda(e, params, ns, k) for e in lines]
    return []


def read_contracts(cls: type, *, actions: tuple[str, ...] | None = None,
                   preconditions: str = "declared") -> ClassContracts:
    """The invariant, preconditions and undecorated methods of `cls` (all dialects), its
    bases' included as each dialect inherits them.

    `preconditions` as contractor's --preconditions: "declared", "implicit" (raise guards
    instead of the declared preconditions) or "both"."""
    original = _original_class(cls)
    lineage = _lineage(original)
    methods: dict[str, MethodContract] = {}
    public: list[str] = []
    constructors: list[str] = []
    for index, k in enumerate(lineage):
        defs = {n.name: n for n in _class_node(k).body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        namespace = dict(inspect.getmodule(k).__dict__)
        for name, fnode in defs.items():
            if name in methods or name not in k.__dict__:
                continue  # defined further up the MRO
            raw = k.__dict__[name]
            factory = isinstance(raw, classmethod)
            if isinstance(raw, (classmethod, staticmethod)):
                wrapper = raw.__func__
            elif isinstance(raw, property):
                continue
            else:
                wrapper = raw
            function = inspect.unwrap(wrapper)
            params = tuple(inspect.signature(function).parameters)[1:]
            pres: list[Predicate] = _pep316_pres(lineage[index:], name, params)
            asserts = _leading_asserts(fnode)
            if asserts:
                pres.append(_lambda(" and ".join(f"({t})" for t in asserts), params, namespace, k))
            pres += _icontract_pres(wrapper) + _deal_pres(wrapper)
            if preconditions == "implicit":
                pres = []
            if preconditions != "declared" and name != "__init__" and not factory:
                pres.append(raise_guard(function, inspect.getsourcefile(k)))
            methods[name] = MethodContract(name, params, tuple(pres), function, factory)
            if name == "__init__" or factory:
                constructors.append(name)
            elif not name.startswith("_") and not isinstance(raw, staticmethod):
                public.append(name)
    if "__init__" not in methods and dataclasses.is_dataclass(original):  # a generated constructor
        params = tuple(inspect.signature(original.__init__).parameters)[1:]
        methods["__init__"] = MethodContract("__init__", params, (), original.__init__)
        constructors.append("__init__")
    return ClassContracts(
        cls=original,
        invariants=tuple(_invariants(cls, original, dict(inspect.getmodule(original).__dict__))),
        methods=methods,
        actions=tuple(sorted(actions if actions is not None else public)),
        constructors=tuple(constructors or ["__init__"]),
    )

"""Typestates in: `--typestate typestate.json` files and `--class FILE.py:Class` targets
(inferred on the fly with the z3 backend, which never imports the class's module, and
cached by the class's source text), each made into a `Protocol`."""

from __future__ import annotations

import ast
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from contractor.check.protocol import ClassFacts, MethodFacts, Protocol, Truth
from contractor.errors import InputError, Location
from contractor.typestate import Typestate

CACHE_VERSION = "check-2"  # 2: undecided enabledness bits merged (z3 alone)


def module_constants(module: ast.Module) -> dict[str, Any]:
    """Module-level `NAME = <literal>` assignments made once (read, never executed); a
    name some function declares `global` is not a constant."""
    out: dict[str, Any] = {}
    assigned: dict[str, int] = {}
    for stmt in module.body:
        for node in ast.walk(stmt) if not isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) else ():
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                assigned[node.id] = assigned.get(node.id, 0) + 1
        target, value = None, None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target, value = stmt.targets[0].id, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            target, value = stmt.target.id, stmt.value
        if target is None or value is None:
            continue
        try:
            literal = ast.literal_eval(value)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(literal, (bool, int, float, str)):
            out[target] = literal
    out = {k: v for k, v in out.items() if assigned.get(k, 0) == 1}
    if out:
        for node in ast.walk(module):
            if isinstance(node, ast.Global):
                for name in node.names:
                    out.pop(name, None)
    return out


def class_facts(source: str, class_name: str) -> ClassFacts:
    """What the checker needs of a class, from its module's source text."""
    try:
        module = ast.parse(source)
    except SyntaxError:
        return ClassFacts()
    node = next((n for n in module.body if isinstance(n, ast.ClassDef) and n.name == class_name), None)
    if node is None:
        return ClassFacts(constants=module_constants(module))
    methods: dict[str, MethodFacts] = {}
    has_exit = enter_self = False
    for item in node.body:
        if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = [a.arg for a in item.args.posonlyargs + item.args.args][1:]
        params += [a.arg for a in item.args.kwonlyargs]
        returns_bool = isinstance(item.returns, ast.Name) and item.returns.id == "bool"
        methods[item.name] = MethodFacts(tuple(params), returns_bool)
        if item.name == "__exit__":
            has_exit = True
        if item.name == "__enter__":
            returns = [n for n in ast.walk(item) if isinstance(n, ast.Return)]
            enter_self = bool(returns) and all(
                isinstance(r.value, ast.Name) and r.value.id == "self" for r in returns)
    return ClassFacts(methods, has_exit, enter_self, module_constants(module))


def _read_source(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def load_typestate_file(path: Path) -> Protocol:
    """A protocol from a typestate.json; the class's source (its `source` key, relative to
    the working folder or to the JSON file) gives the class facts and the solver."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise InputError(f"cannot read the typestate: {e.strerror}", Location(str(path), 1), "--typestate") from None
    except json.JSONDecodeError as e:
        raise InputError(f"not JSON: {e.msg}", Location(str(path), e.lineno, e.colno - 1), "--typestate") from None
    try:
        typestate = Typestate.from_dict(data)
        tests = {m: {s: Truth(v) for s, v in per.items()} for m, per in data.get("state_tests", {}).items()}
    except (KeyError, TypeError, AttributeError, ValueError) as e:
        raise InputError(f"not a typestate.json written by `contractor infer` ({type(e).__name__}: {e})",
                         Location(str(path), 1), "--typestate") from None
    facts, oracle = ClassFacts(), None
    for candidate in (Path(typestate.source), path.parent / typestate.source):
        text = _read_source(candidate)
        if text is not None:
            facts = class_facts(text, typestate.class_name)
            from contractor.check.oracle import LazyOracle

            oracle = LazyOracle(f"{candidate}:{typestate.class_name}", tuple(typestate.methods), typestate.merged)
            break
    return Protocol(typestate, facts, oracle, state_tests=tests)


def load_class(target: str, cache_dir: Path | None) -> Protocol:
    """A protocol inferred from FILE.py:Class with the z3 backend (cached by source text)."""
    from contractor import __version__, api
    from contractor.check.oracle import Z3Oracle

    options = api.InferOptions(backend="z3")
    model = api.load_model(target, options)
    key = hashlib.sha256("\0".join([CACHE_VERSION, __version__, model.name, ",".join(model.actions),
                                    model.source]).encode()).hexdigest()[:32]
    typestate = _cached(cache_dir, key)
    oracle = Z3Oracle(model, typestate.merged if typestate is not None else True)
    if typestate is None:
        typestate = api.infer_model(model, options)
        _store(cache_dir, key, typestate)
    facts = class_facts(model.source, model.name)
    return Protocol(typestate, facts, oracle)


def default_cache_dir() -> Path:
    return Path(os.environ.get("CONTRACTOR_CACHE_DIR") or Path.cwd() / ".contractor-cache") / "check"


def _cached(cache_dir: Path | None, key: str) -> Typestate | None:
    if cache_dir is None:
        return None
    try:
        return Typestate.from_dict(json.loads((cache_dir / f"{key}.json").read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store(cache_dir: Path | None, key: str, typestate: Typestate) -> None:
    """Write the cache entry atomically; a cache that cannot be written is skipped."""
    if cache_dir is None or not typestate.complete:
        return
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = cache_dir / f"{key}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(typestate.to_dict()), encoding="utf-8")
        os.replace(tmp, cache_dir / f"{key}.json")
    except OSError:
        pass

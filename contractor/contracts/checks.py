"""Checks on the class's source before any analysis: expressions nested deeper than the
analysis can follow (an input error, not a crash), and names a contract uses that nothing
defines (a finding: such a contract raises NameError whenever it is evaluated)."""

from __future__ import annotations

import ast
import builtins

from contractor.errors import InputError, Location
from contractor.model import Condition
from contractor.typestate import Finding, FindingKind

# Nesting levels of an expression or statement that every stage (normalising, z3
# translation, CrossHair compilation) follows within Python's default recursion limit.
MAX_DEPTH = 200

# names a contract may use besides the module's and the method's own
CONTRACT_NAMES = frozenset({"self", "cls", "result", "OLD", "__old__", "__return__", "_"})


def deepest(node: ast.AST) -> tuple[int, ast.AST]:
    """The nesting depth of `node`'s tree and its deepest node (iteratively: no recursion)."""
    best, where = 0, node
    todo = [(node, 1)]
    while todo:
        current, depth = todo.pop()
        if depth > best:
            best, where = depth, current
        todo.extend((child, depth + 1) for child in ast.iter_child_nodes(current))
    return best, where


def check_depth(node: ast.AST, path: str, what: str, line_offset: int = 0) -> None:
    """Raise an InputError naming the place when `node` nests deeper than MAX_DEPTH."""
    depth, where = deepest(node)
    if depth > MAX_DEPTH:
        line = getattr(where, "lineno", getattr(node, "lineno", 1)) + line_offset
        raise InputError(f"{what} is nested {depth} levels deep; contractor follows at most {MAX_DEPTH} "
                         f"(split it into smaller parts)", Location(path, line), "deep expression")


def module_names(module: ast.Module) -> set[str]:
    """Names bound at the module's top level (assignments, imports, definitions, loops...)."""
    names: set[str] = set()
    todo: list[ast.AST] = list(module.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    names.add("*")
                names.add(alias.asname or alias.name.split(".")[0])
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        todo.extend(n for n in ast.iter_child_nodes(node)
                    if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)))
        todo.extend(n for n in ast.iter_child_nodes(node) if isinstance(n, (ast.FunctionDef,
                                                                            ast.AsyncFunctionDef, ast.ClassDef)))
    return names


def _bound_inside(expr: ast.AST) -> set[str]:
    """Names a condition binds itself (comprehension targets, lambda parameters, :=)."""
    bound: set[str] = set()
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, ast.Lambda):
            bound.update(a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs))
            if node.args.vararg:
                bound.add(node.args.vararg.arg)
            if node.args.kwarg:
                bound.add(node.args.kwarg.arg)
    return bound


def undefined_names(condition: Condition, params: set[str], known: set[str]) -> list[str]:
    """Names the condition reads that neither it, the method's parameters, the module nor
    the builtins define."""
    if "*" in known:  # a star import may define anything
        return []
    bound = _bound_inside(condition.expr) | params | known | CONTRACT_NAMES | set(dir(builtins))
    missing = {n.id for n in ast.walk(condition.expr)
               if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound}
    return sorted(missing)


def undefined_name_findings(conditions: list[tuple[str | None, set[str], Condition]],
                            module: ast.Module) -> list[Finding]:
    """One finding per contract clause that reads an undefined name: evaluating it raises
    NameError, so the method it guards is never callable (as the CrossHair path sees it)."""
    known = module_names(module)
    found = []
    for method, params, condition in conditions:
        missing = undefined_names(condition, params, known)
        if missing:
            where = f" of {method}" if method else ""
            found.append(Finding(
                FindingKind.UNDEFINED_NAME,
                f"the {condition.kind} clause{where} `{condition.text}` reads {', '.join(map(repr, missing))}, "
                f"which nothing in {condition.location.path} defines: evaluating it raises NameError",
                method=method, line=condition.location.line))
    return found

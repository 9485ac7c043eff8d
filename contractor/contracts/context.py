"""What every dialect reader needs about the file it reads: locations, source text, errors,
and how the module's imports name the contract libraries (`import icontract as ic`, ...)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from contractor.errors import InputError, Location
from contractor.model import FunctionNode


def _import_names(module: ast.Module) -> dict[str, str]:
    """Local name -> qualified name for top-level imports (`from icontract import require as r`
    gives r -> icontract.require; `import deal` gives deal -> deal)."""
    names: dict[str, str] = {}
    for node in module.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


@dataclass(frozen=True)
class FileContext:
    """The file a class comes from, as seen by the readers."""

    path: str  # display path, used in every Location
    source: str
    module: ast.Module
    imports: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, path: str, source: str, module: ast.Module) -> FileContext:
        return cls(path, source, module, _import_names(module))

    def loc(self, node: ast.AST) -> Location:
        return Location(self.path, getattr(node, "lineno", 1), getattr(node, "col_offset", 0))

    def text(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.source, node) or ast.unparse(node)

    def error(self, message: str, node: ast.AST | None, construct: str | None = None) -> InputError:
        return InputError(message, self.loc(node) if node is not None else None, construct)

    def qualname(self, expr: ast.expr) -> str | None:
        """The qualified name an expression refers to through the module's imports
        (`ic.require` -> `icontract.require`), or None if it is not a dotted name."""
        parts: list[str] = []
        while isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        if not isinstance(expr, ast.Name):
            return None
        head = self.imports.get(expr.id, expr.id)
        return ".".join([head, *reversed(parts)])


def decorator_call(dec: ast.expr) -> tuple[ast.expr, list[ast.expr], list[ast.keyword]]:
    """Split a decorator into (callee, args, keywords); a bare decorator has no arguments."""
    if isinstance(dec, ast.Call):
        return dec.func, list(dec.args), list(dec.keywords)
    return dec, [], []


def keyword(keywords: list[ast.keyword], name: str) -> ast.expr | None:
    for kw in keywords:
        if kw.arg == name:
            return kw.value
    return None


def string_value(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return ast.unparse(node)
    return None


def docstring_node(node: ast.ClassDef | FunctionNode) -> ast.Constant | None:
    if node.body and isinstance(node.body[0], ast.Expr):
        value = node.body[0].value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value
    return None


def is_docstring(stmt: ast.stmt) -> bool:
    return (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, str))


def as_lambda(node: ast.expr | None, ctx: FileContext, construct: str, at: ast.AST) -> ast.Lambda:
    """The condition of a decorator, which must be a lambda (contractor reads, never runs, it)."""
    if isinstance(node, ast.Lambda):
        if node.args.vararg or node.args.kwarg:
            raise ctx.error(f"{construct}: a condition lambda with *args or **kwargs is not supported",
                            node, ctx.text(node))
        return node
    shown = ctx.text(node) if node is not None else "(nothing)"
    raise ctx.error(f"{construct} needs a lambda as its condition, got `{shown}` "
                    "(contractor reads conditions from source; write the condition inline as a lambda)",
                    node if node is not None else at, construct)


def lambda_params(node: ast.Lambda) -> list[str]:
    a = node.args
    return [p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]]

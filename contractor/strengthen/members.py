"""Concrete-syntax-tree (libcst) pieces of a strengthened class: the user's methods with generated
statements around their own, the private methods keeping their original bodies, and generated
code parsed from template text.

A user's node is never printed and re-parsed: its decorators, signature, comments and body
statements are the very libcst nodes of the user's module, so they print byte for byte.
Generated nodes are parsed from text at indentation zero, so they take on the module's own
indentation and line endings when printed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from contractor.strengthen.source import add_docstring_lines


@dataclass(frozen=True)
class MethodPieces:
    """A method's body cut into the pieces a strengthened wrapper reuses (all the user's nodes)."""

    node: cst.FunctionDef
    docstring: cst.SimpleStatementLine | None  # its first line, if that is a docstring alone
    statements: tuple[cst.BaseStatement, ...]  # the rest of the body
    block: cst.IndentedBlock  # the body as an indented block (an inline body turned into one)


class _Indented(cst.CSTTransformer):
    """Sets the indentation of every block that has the default one."""

    def __init__(self, unit: str) -> None:
        super().__init__()
        self.unit = unit

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        return updated.with_changes(indent=self.unit) if updated.indent is None else updated


def module_statements(text: str, unit: str | None = None) -> list[cst.BaseStatement]:
    """Generated module-level code (blank lines and comments included), its blocks indented by
    `unit` (the user's class's own indentation) instead of the module's default."""
    module = cst.parse_module(text)
    if unit is not None:
        module = module.visit(_Indented(unit))
    return list(module.body)


def statements(text: str, unit: str | None = None) -> list[cst.BaseStatement]:
    """Generated statements, written at indentation zero (blank lines are dropped)."""
    code = "".join(line + "\n" for line in text.splitlines() if line.strip())
    return module_statements(code, unit) if code else []


def function(text: str, unit: str | None = None) -> cst.FunctionDef:
    """A generated function written at indentation zero."""
    (node,) = module_statements(text, unit)
    if not isinstance(node, cst.FunctionDef):
        raise AssertionError(f"not a function: {text!r}")  # a template bug
    return node


def decorators(text: str) -> list[cst.Decorator]:
    """The decorators of a generated function written at indentation zero."""
    return list(function(text).decorators)


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine) or not stmt.body:
        return False
    first = stmt.body[0]
    return isinstance(first, cst.Expr) and isinstance(first.value, (cst.SimpleString, cst.ConcatenatedString))


def pieces(node: cst.FunctionDef) -> MethodPieces:
    """`node`'s docstring line and other statements; `def f(self): x = 1` becomes an indented block."""
    body = node.body
    if isinstance(body, cst.SimpleStatementSuite):
        # the def line's comment stays on the def line, as the block's header
        block = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=body.body)], header=body.trailing_whitespace)
    else:
        assert isinstance(body, cst.IndentedBlock)
        block = body
    stmts = list(block.body)
    doc: cst.SimpleStatementLine | None = None
    if stmts and _is_docstring(stmts[0]):
        first = stmts[0]
        assert isinstance(first, cst.SimpleStatementLine)
        if len(first.body) > 1:  # `"""doc"""; x = 1`: the docstring gets a line of its own
            rest = cst.SimpleStatementLine(body=first.body[1:], trailing_whitespace=first.trailing_whitespace)
            doc = first.with_changes(body=[first.body[0].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)],
                                     trailing_whitespace=cst.TrailingWhitespace())
            stmts[:1] = [doc, rest]
        else:
            doc = first
        stmts = stmts[1:]
    return MethodPieces(node, doc, tuple(stmts), block)


def docstring_with(module: cst.Module, doc: cst.SimpleStatementLine | None, lines: Sequence[str],
                   indent: str) -> cst.SimpleStatementLine | None:
    """The docstring line `doc` (or a new one) with `lines` added before its closing quotes;
    `indent` is the body's indentation (docstring lines are indented inside the string)."""
    if not lines:
        return doc
    if doc is None:
        text = add_docstring_lines(None, list(lines), indent)
        return cst.SimpleStatementLine(body=[cst.Expr(cst.SimpleString(text.strip()))])
    expr = doc.body[0]
    assert isinstance(expr, cst.Expr)
    literal = module.code_for_node(expr.value)
    text = add_docstring_lines(f"{indent}{literal}\n", list(lines), indent)
    return doc.with_changes(body=[expr.with_changes(value=cst.SimpleString(text[len(indent):].rstrip("\n")))])


def wrapper(parts: MethodPieces, above: Sequence[cst.Decorator], below: Sequence[cst.Decorator],
            docstring: cst.SimpleStatementLine | None, body: Sequence[cst.BaseStatement],
            *, keeps_body: bool) -> cst.FunctionDef:
    """The user's method with decorators added above and below its own, `docstring` and `body`.

    The comments above the method, the def line and its comment, and the signature stay as
    written; the comments after the body go where the body goes (`keeps_body`: here).
    """
    block = parts.block.with_changes(body=[*([docstring] if docstring else []), *body])
    if not keeps_body:
        block = block.with_changes(footer=())
    return parts.node.with_changes(decorators=[*above, *parts.node.decorators, *below], body=block)


def _without_default(param: cst.Param) -> cst.Param:
    return param.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT)


def body_method(parts: MethodPieces, name: str, doc: str, kept: Sequence[cst.Decorator]) -> cst.FunctionDef:
    """The private method keeping the original body of `parts`: same parameters without
    defaults (the wrapper passes every argument), same return annotation, `kept` decorators."""
    params = parts.node.params
    params = params.with_changes(
        params=[_without_default(p) for p in params.params],
        posonly_params=[_without_default(p) for p in params.posonly_params],
        kwonly_params=[_without_default(p) for p in params.kwonly_params])
    statements_ = list(parts.statements) or [cst.SimpleStatementLine(body=[cst.Pass()])]
    docline = cst.SimpleStatementLine(body=[cst.Expr(cst.SimpleString(f'"""{doc}"""'))])
    block = parts.block.with_changes(body=[docline, *statements_], header=cst.TrailingWhitespace())
    return parts.node.with_changes(
        name=cst.Name(name), params=params, decorators=list(kept), body=block,
        leading_lines=[cst.EmptyLine(indent=False)], lines_after_decorators=())


def appended(parts: MethodPieces, added: Sequence[cst.BaseStatement]) -> cst.FunctionDef:
    """The user's method with `added` statements at the end of its body (its trailing comments after)."""
    return parts.node.with_changes(body=parts.block.with_changes(body=[*parts.block.body, *added]))


__all__ = ["MethodPieces", "appended", "body_method", "decorators", "docstring_with", "function", "pieces",
           "module_statements", "statements", "wrapper"]

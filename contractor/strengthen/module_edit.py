"""Edit the user's module as a concrete syntax tree (libcst): replace or extend the strengthened
class's members, put the generated support code right before the class and the imports it
needs beside the module's own. Every node the edit does not name prints as it was read, so
the rest of the module (comments, formatting, other classes, top-level code) stays byte for byte.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst


@dataclass(frozen=True)
class ClassEdit:
    """What changes in one module-level class and around it."""

    members: dict[int, Sequence[cst.BaseStatement]] = field(default_factory=dict)  # body index -> replacement
    added: Sequence[cst.BaseStatement] = ()  # members added at the end of the class body
    support: Sequence[cst.BaseStatement] = ()  # module-level statements placed right before the class
    imports: Sequence[str] = ()  # modules to `import`


def cst_index(body: Sequence[cst.BaseStatement], ast_index: int) -> int:
    """The index in a libcst statement list of the `ast_index`-th statement of the same list in
    `ast` (a libcst line `a = 1; b = 2` holds two `ast` statements)."""
    seen = 0
    for i, stmt in enumerate(body):
        width = len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
        if seen + width > ast_index:
            return i
        seen += width
    raise IndexError(ast_index)


def member(module: cst.Module, class_index: int, ast_member: int) -> tuple[int, cst.BaseStatement]:
    """The class body's statement for `ast_member` (an index into the ast class body), with its index."""
    cls = module.body[class_index]
    assert isinstance(cls, cst.ClassDef) and isinstance(cls.body, cst.IndentedBlock)
    index = cst_index(cls.body.body, ast_member)
    return index, cls.body.body[index]


def class_index(module: cst.Module, tree: ast.Module, node: ast.ClassDef) -> int:
    return cst_index(module.body, tree.body.index(node))


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def _is_future(stmt: cst.BaseStatement) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.ImportFrom)
            and isinstance(stmt.body[0].module, cst.Name) and stmt.body[0].module.value == "__future__")


def _is_import(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], (cst.Import, cst.ImportFrom))


def _with_imports(body: list[cst.BaseStatement], names: Sequence[str], limit: int) -> list[cst.BaseStatement]:
    """`body` with `import name` statements beside the module's first import if that comes
    right after the docstring and __future__ imports, else after those (never after index `limit`)."""
    if not names:
        return body
    new: list[cst.BaseStatement] = [cst.parse_statement(f"import {name}\n") for name in names]
    at = 0
    while at < min(limit, len(body)) and (_is_future(body[at]) or (at == 0 and _is_docstring(body[at]))):
        at += 1
    if at < limit and _is_import(body[at]):  # beside the user's imports, under the comments above them
        first = body[at]
        assert isinstance(first, cst.SimpleStatementLine)
        new[0] = new[0].with_changes(leading_lines=first.leading_lines)
        body = [*body[:at], *new, first.with_changes(leading_lines=()), *body[at + 1:]]
    else:
        if at:
            new[0] = new[0].with_changes(leading_lines=[cst.EmptyLine(indent=False)])
        body = [*body[:at], *new, *body[at:]]
    return body


def _split_comments(lines: Sequence[cst.EmptyLine]) -> tuple[list[cst.EmptyLine], list[cst.EmptyLine]]:
    """Leading lines as (the blank/comment lines before the comment block right above, that block)."""
    cut = len(lines)
    while cut > 0 and lines[cut - 1].comment is not None:
        cut -= 1
    return list(lines[:cut]), list(lines[cut:])


def apply(module: cst.Module, index: int, edit: ClassEdit) -> cst.Module:
    """`module` with the class at body `index` edited as `edit` says."""
    cls = module.body[index]
    assert isinstance(cls, cst.ClassDef)
    suite = cls.body
    if isinstance(suite, cst.SimpleStatementSuite):  # `class A: pass`
        block = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=suite.body)], header=suite.trailing_whitespace)
    else:
        assert isinstance(suite, cst.IndentedBlock)
        block = suite
    members: list[cst.BaseStatement] = []
    for i, stmt in enumerate(block.body):
        members.extend(edit.members[i] if i in edit.members else [stmt])
    members.extend(edit.added)
    header = list(module.header)
    if index == 0 and edit.support:  # the comments right above the class are the module header's
        header, above = _split_comments(header)
        cls = cls.with_changes(leading_lines=[*above, *cls.leading_lines])
    cls = cls.with_changes(body=block.with_changes(body=members))
    body: list[cst.BaseStatement] = list(module.body)
    if edit.support:
        before, comments = _split_comments(cls.leading_lines)
        support = list(edit.support)
        blank = [cst.EmptyLine(indent=False), cst.EmptyLine(indent=False)]
        lead = before if index else blank if edit.imports else []
        support[0] = support[0].with_changes(leading_lines=lead)
        body[index:index + 1] = [*support, cls.with_changes(leading_lines=[*blank, *comments])]
    else:
        body[index] = cls
    return module.with_changes(header=header, body=_with_imports(body, edit.imports, index))


__all__ = ["ClassEdit", "apply", "class_index", "cst_index", "member"]

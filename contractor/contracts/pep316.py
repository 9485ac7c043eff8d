"""PEP 316 docstring contracts, read the way CrossHair's Pep316Parser reads them.

`inv:` lines in the class docstring; `pre:` and `post:` (or `post[mutable, ...]:`) lines in
a method docstring, inline or as an indented section below the header; `raises:` or
Sphinx `:raises X:` lines name expected exceptions. `__return__`, `__old__` are already the
normal form; `implies(X, Y)` becomes `Y if X else True` as in CrossHair.
"""

from __future__ import annotations

import ast
import re

from contractor.contracts.checks import check_depth
from contractor.contracts.clauses import Clauses
from contractor.contracts.context import FileContext, docstring_node
from contractor.contracts.normalize import rewrite_implies, shift
from contractor.errors import InputError, Location
from contractor.model import ClauseKind, Condition, FunctionNode

# The next three patterns are CrossHair's (crosshair/condition_parser.py), unchanged.
_HEADER_LINE = re.compile(
    r"""^(\s*)\:?  # whitespace with optional leading colon
         ((?:post)|(?:pre)|(?:raises)|(?:inv))  # noncapturing keywords
         (?:\[([\w\s\,\.]*)\])?  # optional params in square brackets
         \:\:?\s*  # single or double colons
         (.*?)  # The (non-greedy) content
         \s*$""",
    re.VERBOSE,
)
_SECTION_LINE = re.compile(r"^(\s*)(.*?)\s*$")
_RAISE_SPHINX_RE = re.compile(
    r"""
        (?: ^ \s* \: raises \s+ ( [\w\.]+ ) \: ) |
        (?: ^ \s* \:? raises \s* \: ( [^\r\n#]+ ) )
    """,
    re.MULTILINE | re.VERBOSE,
)
# a docstring opens with an optional prefix and one of the four quotes, and closes with the same
_OPEN_RE = re.compile("^\\s*[rRuU]?('''|\"\"\"|'|\")")


def doc_lines(node: ast.ClassDef | FunctionNode, source_lines: list[str]) -> list[tuple[int, str]]:
    """(line number, raw text) of the docstring's source lines, quotes removed."""
    doc = docstring_node(node)
    if doc is None:
        return []
    out: list[tuple[int, str]] = []
    close: re.Pattern[str] | None = None
    for number in range(doc.lineno, (doc.end_lineno or doc.lineno) + 1):
        line = source_lines[number - 1]
        if close is None:
            opened = _OPEN_RE.match(line)
            if opened is None:
                continue
            line = " " * opened.end() + line[opened.end():]
            close = re.compile(re.escape(opened.group(1)) + "\\s*(#.*)?$")
        line, replaced = close.subn("", line)
        out.append((number, line))
        if replaced:
            break
    return out


def _has_expr(text: str) -> bool:
    text = text.strip()
    return bool(text) and not text.startswith("#")


def sections(lines: list[tuple[int, str]], wanted: tuple[str, ...], ctx: FileContext) \
        -> list[tuple[str, int, int, str]]:
    """(section, line, column, expression text) for each clause, as CrossHair's parse_sections."""
    found: list[tuple[str, int, int, str]] = []
    current: tuple[str, int] | None = None
    seen_mutable = False
    for number, line in lines:
        if line.strip() == "":
            continue
        if current:
            section, indent = current
            match = _SECTION_LINE.match(line)
            if match and len(match.group(1)) > indent:
                if _has_expr(match.group(2)):
                    found.append((section, number, match.start(2), match.group(2)))
                continue
            current = None
        match = _HEADER_LINE.match(line)
        if not match:
            continue
        lead, section, bracketed, inline = match.groups()
        if section not in wanted:
            continue
        if bracketed is not None:
            if section != "post":
                raise _error(ctx, number, line, f"brackets are not allowed in a {section} section")
            if seen_mutable:
                raise _error(ctx, number, line, "duplicate post[...] section")
            seen_mutable = True
        if _has_expr(inline):
            found.append((section, number, match.start(4), inline))
        else:
            current = (section, len(lead))
    return found


def _error(ctx: FileContext, line: int, text: str, message: str) -> InputError:
    return InputError(message, Location(ctx.path, line, 0), text.strip())


def _condition(kind: ClauseKind, line: int, col: int, text: str, ctx: FileContext) -> Condition:
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise InputError(f"PEP 316 {kind} clause does not parse: {exc.msg}",
                         Location(ctx.path, line, col), text) from exc
    except (RecursionError, MemoryError) as exc:  # Python's parser has a nesting limit
        raise InputError(f"PEP 316 {kind} clause is nested too deeply for Python's parser "
                         f"({len(text)} characters); split it into several clauses",
                         Location(ctx.path, line, col), text[:60] + ("..." if len(text) > 60 else "")) from exc
    check_depth(tree, ctx.path, f"PEP 316 {kind} clause", line - 1)
    expr = rewrite_implies(shift(tree, line, col))
    return Condition(expr, text, kind, "pep316", Location(ctx.path, line, col))


def read_class(node: ast.ClassDef, ctx: FileContext, source_lines: list[str]) -> Clauses:
    found = Clauses()
    for _, line, col, text in sections(doc_lines(node, source_lines), ("inv",), ctx):
        found.inv.append(_condition("inv", line, col, text, ctx))
    return found


def read_method(node: FunctionNode, ctx: FileContext, source_lines: list[str]) -> Clauses:
    found = Clauses()
    for section, line, col, text in sections(doc_lines(node, source_lines), ("pre", "post"), ctx):
        kind: ClauseKind = "pre" if section == "pre" else "post"
        (found.pre if kind == "pre" else found.post).append(_condition(kind, line, col, text, ctx))
    doc = docstring_node(node)
    if doc is not None:
        for one, many in _RAISE_SPHINX_RE.findall(str(doc.value)):
            for name in ([one] if one else many.split(",")):
                name = name.strip()
                if name and name not in found.raises:
                    found.raises.append(name)
    return found

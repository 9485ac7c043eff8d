"""Source-text surgery on the user's module: line ranges of methods, their parts, and edits.

The strengthened module is the user's file with some line ranges replaced, so every
comment and docstring outside the replaced ranges survives untouched, and the replaced
methods keep their decorators, signature, docstring and body text verbatim.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

from contractor.errors import InputError, Location

_CONTRACT_LINE = re.compile(r"(pre|post|raises|inv)(\[.*\])?:")


@dataclass(frozen=True)
class Edit:
    """Replace lines first..last (1-based, inclusive) by text; last = first - 1 inserts."""

    first: int
    last: int
    text: str


@dataclass(frozen=True)
class MethodParts:
    """A method's source cut into the pieces the strengthened wrapper reuses."""

    first: int  # first line (its first decorator, else the def line)
    last: int  # last line of the body
    decorators: str  # the decorator lines, verbatim
    header: str  # the `def ...:` lines, verbatim
    docstring: str | None  # the docstring lines, verbatim (None if there is none)
    body: str  # the statements after the docstring, verbatim (comments included)
    indent: str  # indentation of the def line
    body_indent: str  # indentation of the body


def apply_edits(source: str, edits: list[Edit]) -> str:
    lines = source.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    for edit in sorted(edits, key=lambda e: (e.first, e.last), reverse=True):
        text = edit.text if not edit.text or edit.text.endswith("\n") else edit.text + "\n"
        lines[edit.first - 1:edit.last] = [text]
    return "".join(lines)


def _segment(lines: list[str], first: int, last: int) -> str:
    return "".join(lines[first - 1:last])


def _header_end(lines: list[str], node: ast.FunctionDef) -> tuple[int, int]:
    """(line, column) of the colon that ends the def's signature."""
    text = _segment(lines, node.lineno, node.end_lineno or node.lineno)
    depth, seen_def = 0, False
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME and tok.string == "def":
            seen_def = True
        elif tok.type == tokenize.OP and seen_def:
            if tok.string in "([{":
                depth += 1
            elif tok.string in ")]}":
                depth -= 1
            elif tok.string == ":" and depth == 0:
                return node.lineno + tok.start[0] - 1, tok.start[1]
    raise AssertionError(f"no colon ends the signature of {node.name}")  # ast parsed it


def _rest_of_line_is_code(line: str, col: int) -> bool:
    rest = line[col + 1:].strip()
    return bool(rest) and not rest.startswith("#")


def _unparsed(stmts: list[ast.stmt], indent: str) -> str:
    return "".join(indent + line + "\n" for s in stmts for line in ast.unparse(s).splitlines())


def docstring_node(node: ast.FunctionDef | ast.ClassDef) -> ast.Expr | None:
    first = node.body[0] if node.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first
    return None


def method_parts(source: str, node: ast.FunctionDef, path: str) -> MethodParts:
    lines = source.splitlines(keepends=True)
    first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    last = node.end_lineno or node.lineno
    header_line, colon = _header_end(lines, node)
    indent = lines[node.lineno - 1][: node.col_offset]
    doc = docstring_node(node)
    stmts = node.body[1:] if doc else list(node.body)
    body_indent = " " * node.body[0].col_offset
    inline = _rest_of_line_is_code(lines[header_line - 1], colon)
    if doc and (inline or (stmts and stmts[0].lineno == doc.end_lineno)):
        raise InputError(f"{node.name}(): put the docstring and the body on lines of their own",
                         Location(path, node.lineno, node.col_offset), "method layout")
    if inline:  # `def f(self): return 1`: the body shares the def line, so regenerate it
        body_indent = indent + "    "
        header = _segment(lines, node.lineno, header_line - 1) + lines[header_line - 1][: colon + 1] + "\n"
        body = _unparsed(stmts, body_indent)
    else:
        header = _segment(lines, node.lineno, header_line)
        body = _segment(lines, ((doc.end_lineno or doc.lineno) if doc else header_line) + 1, last)
    return MethodParts(
        first=first, last=last,
        decorators=_segment(lines, first, node.lineno - 1),
        header=header,
        docstring=_segment(lines, doc.lineno, doc.end_lineno or doc.lineno) if doc else None,
        body=body if body.strip() else body_indent + "pass\n",
        indent=indent, body_indent=body_indent)


def add_docstring_lines(docstring: str | None, new_lines: list[str], indent: str) -> str:
    """The docstring (verbatim text, or None) with `new_lines` appended before its closing quotes."""
    added = "".join(f"{indent}{line}\n" if line else "\n" for line in new_lines)
    if docstring is None:
        return f'{indent}"""Typestate contracts (generated by contractor).\n\n{added}{indent}"""\n'
    text = docstring.rstrip("\n")
    value = ast.literal_eval(text.strip())
    quote = text[-3:] if text.endswith(('"""', "'''")) else None
    if quote is None or "\\" in text or any(q in value for q in ('"""', "'''")):
        # A one-quote or escaped docstring: rewrite it as an ordinary triple-quoted one.
        body = value.strip().replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
        return f'{indent}"""{body}\n\n{added}{indent}"""\n'
    inner = text[:-3].rstrip()
    last = inner.splitlines()[-1].strip()
    # Join contract lines to the ones already there; separate them from prose by a blank line.
    tight = bool(_CONTRACT_LINE.match(last)) or last.lstrip("rRuU") in ('"""', "'''")
    return f"{inner}\n{'' if tight else chr(10)}{added}{indent}{quote}\n"


def _own_nodes(node: ast.AST):
    """The nodes of a function body, without nested functions, classes and lambdas."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield child
        yield from _own_nodes(child)


def returns_value(node: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Return) and n.value is not None for n in _own_nodes(node))


def has_return(node: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.Return) for n in _own_nodes(node))


def is_generator(node: ast.FunctionDef) -> bool:
    return any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in _own_nodes(node))


def call_arguments(node: ast.FunctionDef) -> str:
    """The arguments with which the wrapper passes its own parameters on (`self` excluded)."""
    a = node.args
    positional = [p.arg for p in a.posonlyargs + a.args][1:]
    parts = positional + ([f"*{a.vararg.arg}"] if a.vararg else [])
    parts += [f"{p.arg}={p.arg}" for p in a.kwonlyargs]
    parts += [f"**{a.kwarg.arg}"] if a.kwarg else []
    return ", ".join(parts)


def parameter_names(node: ast.FunctionDef) -> set[str]:
    a = node.args
    names = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}
    return names | {p.arg for p in (a.vararg, a.kwarg) if p}


def body_signature(node: ast.FunctionDef, name: str) -> str:
    """`def name(<the same parameters, without defaults>) -> <the same return type>:`."""
    a = node.args
    bare = ast.arguments(posonlyargs=a.posonlyargs, args=a.args, vararg=a.vararg, kwonlyargs=a.kwonlyargs,
                         kw_defaults=[None] * len(a.kwonlyargs), kwarg=a.kwarg, defaults=[])
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"def {name}({ast.unparse(bare)}){returns}:"


def class_first_line(source: str, node: ast.ClassDef) -> int:
    """The class's first line, with its decorators and the comment lines right above it."""
    lines = source.splitlines()
    first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    while first > 1 and lines[first - 2].lstrip().startswith("#"):
        first -= 1
    return first


def imports_line(source: str, module: ast.Module) -> int:
    """The line after which new imports go: after the module docstring and __future__ imports."""
    after = 0
    for stmt in module.body:
        is_doc = isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and stmt is module.body[0]
        is_future = isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"
        if not (is_doc or is_future):
            break
        after = stmt.end_lineno or stmt.lineno
    if after == 0:  # keep a shebang, an encoding line and leading comments on top
        lines = source.splitlines()
        while after < len(lines) and lines[after].startswith("#"):
            after += 1
    return after


def first_import_line(module: ast.Module) -> int | None:
    """The line of the first module-level import (not from __future__), if it comes before any other code."""
    for stmt in module.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            continue
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            return stmt.lineno
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and stmt is module.body[0]):
            return None
    return None


def imported_modules(module: ast.Module) -> set[str]:
    """Names bound at module level by plain `import x` statements."""
    return {alias.asname or alias.name for s in module.body if isinstance(s, ast.Import) for alias in s.names}


def module_names(module: ast.Module) -> set[str]:
    """Every name the module binds or mentions (to pick names for generated code that collide with none)."""
    names = {n.id for n in ast.walk(module) if isinstance(n, ast.Name)}
    names |= {n.name for n in ast.walk(module) if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))}
    names |= {a.asname or a.name.split(".")[0] for n in ast.walk(module)
              if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    return names


def attribute_names(node: ast.AST) -> set[str]:
    return {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}


def free_name(base: str, taken: set[str]) -> str:
    name = base
    while name in taken:
        name += "_"
    return name

"""State names derived from state invariants (`--state-names`): `closed_not_moving` rather
than `S1`, used as the state's id everywhere (diagrams, typestate.json, strengthened enums,
findings), so every output names a state the same way.

A name is built from the invariant's conjuncts (`self.closed` -> `closed`, `not self.moving`
-> `not_moving`, `self.mode == Mode.LOCKED` -> `locked`, `len(self.items) == 0` ->
`items_empty`, `self.n > 0` -> `n_gt_0`). A state whose invariant does not read so, or
whose name would be too long or taken, keeps its `S<n>` id.
"""

from __future__ import annotations

import ast
import keyword
import re
from dataclasses import replace

from contractor.typestate import Typestate

MAX_LENGTH = 40
_OPS = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}


def _subject(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"
            and len(node.args) == 1):
        inner = _subject(node.args[0])
        return f"{inner}_len" if inner else None
    return None


def _operand(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, str)) and not isinstance(node.value, bool):
        text = str(node.value).replace("-", "minus_")
        return text if re.fullmatch(r"\w+", text) else None
    if isinstance(node, ast.Attribute):
        return _subject(node) or node.attr.lower()
    return None


def _token(node: ast.expr) -> str | None:
    subject = _subject(node)
    if subject is not None:
        return subject
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _token(node.operand)
        return f"not_{inner}" if inner else None
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, op, right = _subject(node.left), node.ops[0], node.comparators[0]
        if left is None:
            return None
        if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value is None:
            return f"{left}_none" if isinstance(op, ast.Is) else f"{left}_set"
        value = _operand(right)
        if value is None or type(op) not in _OPS:
            return None
        if isinstance(op, ast.Eq) and isinstance(right, ast.Attribute) and not _subject(right):
            return value  # self.mode == Mode.LOCKED -> locked
        if left.endswith("_len") and isinstance(op, ast.Eq) and value == "0":
            return f"{left[:-4]}_empty"
        return f"{left}_{_OPS[type(op)]}_{value}"
    return None


def derived_name(invariant: str) -> str | None:
    """The name an invariant reads as, or None."""
    try:
        tree = ast.parse(invariant, mode="eval").body
    except SyntaxError:
        return None
    parts = tree.values if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And) else [tree]
    tokens = [_token(p) for p in parts]
    if not tokens or any(t is None for t in tokens):
        return None
    name = "_".join(t for t in tokens if t).lower()
    if not name.isidentifier() or keyword.iskeyword(name) or len(name) > MAX_LENGTH:
        return None
    return name


def _rename_text(text: str, names: dict[str, str]) -> str:
    return re.sub(r"\bS\d+\b", lambda m: names.get(m.group(0), m.group(0)), text)


def name_states(ts: Typestate) -> Typestate:
    """`ts` with each state's id replaced by the name its invariant reads as, where it has one."""
    names: dict[str, str] = {}
    taken = {s.id for s in ts.states}
    for state in ts.states:
        name = derived_name(state.invariant) if state.invariant else None
        if name and name not in taken and not re.fullmatch(r"S\d+", name):
            names[state.id] = name
            taken.add(name)
    if not names:
        return ts

    def new(sid: str) -> str:
        return names.get(sid, sid)

    findings = tuple(
        replace(f, state=new(f.state) if f.state else None, message=_rename_text(f.message, names))
        for f in ts.findings
    )
    return replace(
        ts,
        states=tuple(replace(s, id=new(s.id)) for s in ts.states),
        transitions=tuple(replace(t, source=new(t.source), target=new(t.target)) for t in ts.transitions),
        initializations=tuple(replace(i, target=new(i.target)) for i in ts.initializations),
        state_tests={m: {new(s): v for s, v in per.items()} for m, per in ts.state_tests.items()},
        findings=findings,
    )


__all__ = ["derived_name", "name_states"]

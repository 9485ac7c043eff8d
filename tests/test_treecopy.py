"""copy_tree (contracts/treecopy.py) copies a syntax tree as copy.deepcopy does: an equal
tree, no node or list shared with the original, so rewriting the copy leaves it alone."""

from __future__ import annotations

import ast
import copy
from pathlib import Path

from contractor.contracts.treecopy import copy_tree

ROOT = Path(__file__).resolve().parent.parent


def _shared(a: ast.AST, b: ast.AST) -> set[int]:
    def parts(t: ast.AST) -> set[int]:
        out = set()
        for node in ast.walk(t):
            out.add(id(node))
            out.update(id(v) for v in vars(node).values() if isinstance(v, list))
        return out
    return parts(a) & parts(b)


def test_a_copy_equals_deepcopy_and_shares_nothing() -> None:
    for path in sorted((ROOT / "samples").glob("*.py")):
        tree = ast.parse(path.read_text())
        made = copy_tree(tree)
        assert ast.dump(made, include_attributes=True) == ast.dump(copy.deepcopy(tree), include_attributes=True)
        assert not _shared(tree, made), path.name


def test_rewriting_the_copy_leaves_the_original() -> None:
    tree = ast.parse("def f(self, x=(1, 2)):\n    return super().f(x) + [b'a', 1.5j, ...][0]\n")
    before = ast.dump(tree, include_attributes=True)
    made = copy_tree(tree)
    for node in ast.walk(made):
        if isinstance(node, ast.Name):
            node.id = "renamed"
        if isinstance(node, ast.Call):
            node.args.append(ast.Constant(0))
    made.body[0].extra = {"kept": [1]}  # type: ignore[attr-defined]  # an attribute no AST has: deep-copied
    again = copy_tree(made)
    assert again.body[0].extra == {"kept": [1]} and again.body[0].extra is not made.body[0].extra  # type: ignore[attr-defined]
    assert ast.dump(tree, include_attributes=True) == before

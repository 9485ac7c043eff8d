"""method_groups (split.py): a post bit or post term a method changes is in the group of
its pre bit or field even where it reads no symbol (a method setting a field to a
constant). An untouched group copies the source's bits for its actions: had the field's
group stayed untouched, the post bit the constant decides would have been copied from
the source (HTTP-style `close(): self.sock = None` went from "connected" back to
"connected", a must transition no object takes: test_outside_precision's audit case)."""

from __future__ import annotations

import z3

from contractor.model import TypeKind, TypeRef
from contractor.z3backend.split import SymbolIndex, method_groups
from contractor.z3backend.values import Val

INT = TypeRef(TypeKind.INT)


def _groups(after_x: z3.ArithRef, after_y: z3.ArithRef) -> list:
    x, y = z3.Ints("x y")
    fields = {"x": Val(INT, x), "y": Val(INT, y)}
    enabled = {"m": x > 0, "n": y > 0}
    enabled_after = {"m": z3.substitute(x > 0, (x, after_x)), "n": z3.substitute(y > 0, (y, after_y))}
    after = {"x": Val(INT, after_x), "y": Val(INT, after_y)}
    return method_groups(SymbolIndex(), [], z3.BoolVal(True), z3.BoolVal(True), enabled, enabled_after,
                         fields, {}, after)


def _holding(groups: list, action: str):
    (g,) = [g for g in groups if action in g.pre]
    return g


def test_a_constant_written_touches_the_fields_group() -> None:
    x, y = z3.Ints("x y")
    groups = _groups(z3.IntVal(0), y)  # m's method sets x = 0, leaves y alone
    g = _holding(groups, "m")
    assert "m" in g.post and g.touched
    assert ("after", "x") in {(p, n) for p, n, _ in g.terms}
    untouched = _holding(groups, "n")
    assert untouched is not g and not untouched.touched  # y's part is still copied


def test_a_field_read_elsewhere_keeps_its_groups_apart() -> None:
    x, y = z3.Ints("x y")
    groups = _groups(x + 1, y)  # symbols shared as before: the same grouping
    assert _holding(groups, "m").touched and not _holding(groups, "n").touched
    assert _holding(groups, "m") is not _holding(groups, "n")

"""Executor mixin: the `del` statement, as Python runs it.

- `del name` unbinds a local where the paths reaching it run: reading it afterwards
  raises UnboundLocalError there (a Python exception, not a raise guard), and so does
  deleting a name that is not bound.
- `del d[k]` removes a dict key (KeyError where absent); `del xs[i]` and `del xs[a:b]`
  remove list items (IndexError where `i` is out of range; a slice is clamped as Python
  clamps it and never raises).
- `del obj[...]` on an untyped object is outside code (its `__delitem__`): it may change
  that object (reach.py; a change outside code chose, so its answers are may unless the
  object is the caller's argument), may raise as a finding, and raises TypeError where
  it is None.

Not translated (the paths reaching them are unknown, never guessed): deleting a field
(`del self.x`: a field bound on some paths only is not modelled), a global or nonlocal
name, a slice with a step, and items of values z3 does not model.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import z3

from contractor.errors import UnsupportedConstruct
from contractor.z3backend import fastterms as F
from contractor.z3backend import strings as S
from contractor.z3backend import valops as P
from contractor.z3backend import values as V
from contractor.z3backend.mapcalls import drop
from contractor.z3backend.state import TRUE
from contractor.z3backend.values import Val

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
else:
    _Host = object


class DeleteExecutor(_Host):
    """Mixin of Executor: needs frame, model, active, eval, raise_if, store, tolerant,
    none_raises, hand_out, caller_chosen, note_outside, outside_raise_if, fresh_choice
    and loc."""

    def delete_stmt(self, node: ast.Delete) -> None:
        for t in node.targets:
            if isinstance(t, ast.Name):
                self.delete_name(t)
            elif isinstance(t, (ast.Tuple, ast.List)):  # del a, (b, c): each in turn
                self.delete_stmt(ast.copy_location(ast.Delete(targets=list(t.elts)), t))
            elif isinstance(t, ast.Subscript):
                self.delete_item(t)
            else:
                what = "a field" if isinstance(t, ast.Attribute) else f"a {type(t).__name__}"
                raise UnsupportedConstruct(f"del of {what}", self.loc(t))

    def delete_name(self, t: ast.Name) -> None:
        method = self.model.methods.get(self.frame.method)
        if method is not None and any(isinstance(s, (ast.Global, ast.Nonlocal)) and t.id in s.names
                                      for s in ast.walk(method.node)):
            raise UnsupportedConstruct("del of a global or nonlocal name", self.loc(t))
        f = self.frame
        if t.id not in f.locals:  # bound on no path so far
            self.raise_if(TRUE, "UnboundLocalError", t)
            return
        defined = f.defined.get(t.id, TRUE)
        self.raise_if(F.not_(defined), "UnboundLocalError", t)
        f.defined[t.id] = F.and_(defined, F.not_(self.active()))

    def delete_item(self, t: ast.Subscript) -> None:
        c = self.eval(t.value)
        if c.kind == "opaque":  # its __delitem__: outside code
            self.none_raises(c, "TypeError", t)
            for part in _slice_parts(t.slice):
                self.tolerant(part)
            self.hand_out(t.value, c)
            if not self.caller_chosen(c):  # what it does to the object: outside code's choice
                self.note_outside("__delitem__ of an untyped object", t)
            self.outside_raise_if(self.fresh_choice("delitem"), "an exception from __delitem__()", t)
            return
        if c.kind == "list" and c.z is not None and isinstance(t.slice, ast.Slice):  # del xs[a:b]
            sl = t.slice
            if sl.step is not None:
                raise UnsupportedConstruct("del of a slice with a step", self.loc(t))
            lower = V.to_int(self.eval(sl.lower)) if sl.lower is not None else None
            upper = V.to_int(self.eval(sl.upper)) if sl.upper is not None else None
            self.store(t.value, Val(c.type, S.without_slice(c.z, lower, upper)))
            return
        if c.kind == "list" and c.z is None and isinstance(t.slice, ast.Slice):  # of `[]`: nothing
            return
        if c.kind == "list" and c.z is not None:  # del xs[i]
            i = V.to_int(self.eval(t.slice))
            n = z3.Length(c.z)
            self.raise_if(F.or_(i < -n, i >= n), "IndexError", t)
            j = F.ite(i < 0, i + n, i)
            self.store(t.value, Val(c.type, z3.Concat(z3.Extract(c.z, 0, j), z3.Extract(c.z, j + 1, n - j - 1))))
            return
        if c.kind == "list":  # an item of `[]`
            self.eval(t.slice)
            self.raise_if(TRUE, "IndexError", t)
            return
        if c.kind != "dict" or isinstance(t.slice, ast.Slice):
            raise UnsupportedConstruct(f"del of an item of a {c.type}", self.loc(t))
        k = self.eval(t.slice)
        if c.z is None:
            self.raise_if(TRUE, "KeyError", t)
            return
        self.raise_if(F.not_(P.contains(k, c)), "KeyError", t)
        self.store(t.value, drop(c, k))


def _slice_parts(s: ast.expr) -> list[ast.expr]:
    if isinstance(s, ast.Slice):
        return [p for p in (s.lower, s.upper, s.step) if p is not None]
    return [s]


__all__ = ["DeleteExecutor"]

"""Calls into a base class contractor cannot read (a C extension, a module not found).

The base receives `self`, so it may change every field of the object (and what they
reference); it cannot end the path, as a method of the analysed source would not: the
paths go on after the call with every field arbitrary where they ran it, their answers
are may (code outside the analysed source chose the values), and the call may raise (a
`may_raise` finding, never a raise guard). Its arguments are handed to it as to any
outside code (reach.py); its result is an untyped value. The base is named once among
the summary's unknowns (explore.unreadable_bases).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

import z3

from contractor.errors import UnsupportedConstruct
from contractor.model import BOOL, OPAQUE, Method, Opaque
from contractor.z3backend import values as V
from contractor.z3backend.reach import CONTAINERS
from contractor.z3backend.values import Val

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
else:
    _Host = object


def unreadable_base(method: Method) -> str | None:
    """The unreadable base class whose code `method` stands for, if it is one."""
    body = method.body
    if len(body) == 1 and isinstance(body[0], Opaque) and bool(getattr(body[0], "base", "")):
        return body[0].base
    return None


class BaseCalls(_Host):
    """Mixin of Executor (with OutsideEvaluator and Reach)."""

    def call_unreadable(self, oid: int, method: Method, args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Val:
        """`super().m(...)` (or `self.m(...)`) landing in an unreadable base."""
        nodes = (list(node.args) + [k.value for k in node.keywords]) if isinstance(node, ast.Call) else []
        values = list(args) + list(kwargs.values())
        for i, v in enumerate(values):
            if isinstance(v, Val) and v.kind in ("class", "any"):
                raise UnsupportedConstruct(f"{V.a_value_of(v.type)} handed to the unreadable base {method.owner}",
                                           self.loc(node))
            if i < len(nodes) and not isinstance(nodes[i], ast.Starred):
                self.hand_out(nodes[i], v)
        opaque = method.body[0]
        assert isinstance(opaque, Opaque)  # call_method calls this only for an unreadable_base method
        self.unreadable_effect(oid, opaque.reason, node)
        fails = self.fresh(BOOL, f"raises!{method.name}")
        self.outside_raise_if(fails.z, f"an exception from {method.name}()", node)
        return self.fresh(OPAQUE, f"call!{method.name}")

    def unreadable_effect(self, oid: int, what: str, node: ast.AST) -> None:
        """The base code ran on object `oid` (see the module docstring)."""
        if any(name in f.aliases and isinstance(f.locals[name], Val) and f.locals[name].kind in CONTAINERS
               for f in self.all_frames() for name in f.locals):
            raise UnsupportedConstruct(f"{what} while a local aliases a field", self.loc(node))
        act = self.active()
        if z3.is_false(z3.simplify(act)):
            return
        for fields in [fields for o, fields in self.state.objects.items() if o >= 0]:
            for v in list(fields.values()):
                for identity, truth in self._opaque_parts(v):  # objects it references may change
                    self._retruth_everywhere(identity, truth, act)
        for o, fields in self.state.objects.items():
            if o < 0:  # __old__'s copy
                continue
            for name, v in list(fields.items()):
                if v.kind in ("any", "class"):
                    continue
                if v.kind == "undefined":  # the base may set it
                    fields[name] = self.fresh(v.type.args[0], name)
                    continue
                fields[name] = V.ite(act, self.fresh(v.type, name), v)
        self.note_outside(what, node)


__all__ = ["BaseCalls", "unreadable_base"]

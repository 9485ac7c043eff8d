"""Exception handling and the statements of ordinary code the loop and statement modules
leave out: `try`/`except`/`else`/`finally`, `with`, a bare `raise` in a handler, nested
`def`/`class`, `del` of a local.

Path-merging as everywhere: the body runs with the raised flag cleared; a handler runs on
the paths whose exception it catches (by name, following the module's exception classes
and Python's builtin hierarchy; an exception of unknown class, from outside code, may or
may not be caught: a fresh choice); `finally` runs on every path that entered the `try`,
and then the paths that raised go on raising. A re-raise keeps the caught exception's
kind: explicit (a raise guard) only if the caught one was.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from typing import TYPE_CHECKING

import z3

from contractor.model import OPAQUE
from contractor.z3backend import effects
from contractor.z3backend import fastterms as F
from contractor.z3backend import values as V
from contractor.z3backend.state import FALSE, READING_GUARDS, TRUE, Loop, Site
from contractor.z3backend.values import Val

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
else:
    _Host = object

_ROOTS = ("BaseException", "Exception")


@dataclass
class Caught:
    """The exception a handler is running for (for a bare `raise`)."""

    explicit: z3.BoolRef


def _names(expr: ast.expr | None) -> list[str] | None:
    """The class names an `except` clause lists; None for a bare `except:`."""
    if expr is None:
        return None
    elts = expr.elts if isinstance(expr, ast.Tuple) else [expr]
    out = []
    for e in elts:
        out.append(e.attr if isinstance(e, ast.Attribute) else e.id if isinstance(e, ast.Name) else "?")
    return out


def ancestors(name: str, module: ast.Module) -> tuple[set[str], bool]:
    """The exception class and its bases by name, and whether that list is complete."""
    classes = {n.name: n for n in module.body if isinstance(n, ast.ClassDef)}
    found: set[str] = set()
    complete = True
    todo = [name]
    while todo:
        current = todo.pop()
        if current in found:
            continue
        found.add(current)
        builtin = getattr(builtins, current, None)
        if isinstance(builtin, type) and issubclass(builtin, BaseException):
            found.update(k.__name__ for k in builtin.__mro__)
        elif current in classes:
            for b in classes[current].bases:
                todo.append(b.attr if isinstance(b, ast.Attribute) else b.id if isinstance(b, ast.Name) else "?")
        else:
            complete = False  # imported or unknown: its bases cannot be read here
    return found, complete


def catches(handler: list[str] | None, raised: str, module: ast.Module) -> bool | None:
    """Whether `except <handler>` catches `raised`: True, False, or None (cannot tell)."""
    if handler is None or "BaseException" in handler:
        return True
    known, complete = ancestors(raised, module)
    if any(h in known for h in handler):
        return True
    if not complete or raised.startswith("an exception from") or "?" in handler:
        return None
    return False  # its bases are all known and none is handled


class HandlerExecutor(_Host):
    """Mixin of Executor: needs its state, guard, frame, loops, active(), run_block(),
    raise_if(), fresh(), store(), eval_any() and tolerant()."""

    def run_other(self, node: ast.stmt, writes: set[str] | None) -> bool:
        """Run a statement this module handles; False if it is not one of them."""
        if isinstance(node, ast.Try):
            self.run_try(node, writes)
        elif isinstance(node, ast.With):
            self.run_with(node, writes)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.store(ast.Name(node.name, ast.Store()), self.fresh(OPAQUE, node.name))
        elif isinstance(node, ast.Raise) and node.exc is None:
            self.reraise(node)
        else:
            return False
        return True

    def run_opaque_for(self, node: ast.For, writes: set[str] | None) -> None:
        """`for x in <untyped value>`: any number of iterations. What the body writes is
        arbitrary at the start of an iteration; the body then runs once, or not at all."""
        self.hand_out(node.iter, self.eval(node.iter))  # iterating runs its outside code
        act = self.active()
        names = {n.id for stmt in node.body for n in ast.walk(stmt)
                 if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for name in sorted(names & set(self.frame.locals)):
            old = self.frame.locals[name]
            if isinstance(old, Val) and old.kind not in ("class", "any", "none"):
                self.frame.locals[name] = V.ite(act, self.fresh(old.type, name), old)
        own = self.frame.locals.get("self")
        if isinstance(own, Val) and own.kind == "class":
            fields = self.state.objects[own.z]
            # what the body (with the methods it calls) may write, not the whole method:
            # the rest of the method runs after the loop as it does
            may_write = effects.statement_writes(self.model, node.body)
            for name, v in list(fields.items()):
                if v.kind in ("any", "class", "undefined") or (may_write is not None and name not in may_write):
                    continue
                fields[name] = V.ite(act, self.fresh(v.type, name), v)
        saved = self.guard
        self.guard = F.and_(saved, self.fresh_choice("iterates"))
        self.loops.append(Loop())
        try:
            self.store(node.target, self.fresh_opaque("item", node)) if isinstance(node.target, ast.Name) \
                else self.unpack_opaque(node.target)
            self.run_block(node.body, writes)
        finally:
            self.loops.pop()
            self.guard = saved

    def unpack_opaque(self, target: ast.expr) -> None:
        for t in target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]:
            self.store(t, self.fresh_opaque("item", t))

    def reraise(self, node: ast.Raise) -> None:
        caught = getattr(self, "caught", [])
        if not caught:
            self.raise_if(TRUE, "RuntimeError", node)  # no active exception
            return
        act = self.active()
        self.raise_if(TRUE, "re-raised exception", node)
        self.state.explicit = F.or_(self.state.explicit, F.and_(act, caught[-1].explicit))

    def run_with(self, node: ast.With, writes: set[str] | None) -> None:
        """`with cm: body`. An untyped context manager is outside code: its `__exit__` may
        swallow what the body raises (then the paths go on after the block), except while
        reading raise guards, where outside code returns normally (a falsy `__exit__`)."""
        outside = False
        for item in node.items:
            ctx = self.tolerant(item.context_expr)
            outside = outside or getattr(ctx, "kind", None) != "class"
            self.hand_out(item.context_expr, ctx)  # __enter__ and __exit__ are outside code
            if item.optional_vars is not None:  # what __enter__ returns: outside code
                self.store(item.optional_vars, ctx if getattr(ctx, "kind", None) == "class" else
                           self.fresh(OPAQUE, "with"))
        if not outside:
            self.run_block(node.body, writes)
            return
        st = self.state
        saved_raised, saved_explicit, saved_guard, first = st.raised, st.explicit, self.guard, len(st.raises)
        self.guard = self.entry_guard()
        st.raised, st.explicit = FALSE, FALSE
        try:
            self.run_block(node.body, writes)
        finally:
            self.guard = saved_guard
        kept = F.or_(READING_GUARDS, F.not_(self.fresh_choice("swallows")))
        swallowed = F.and_(st.raised, F.not_(kept))
        if not z3.is_false(z3.simplify(st.raised)):  # those paths go on with a value outside code chose
            st.outside = F.or_(st.outside, swallowed)
            st.outside_sites.append(Site(swallowed, "an exception a context manager may swallow",
                                         node.lineno, self.frame.method))
        for site in st.raises[first:]:
            site.cond = F.and_(site.cond, kept)
        st.raised = F.or_(saved_raised, F.and_(st.raised, kept))
        st.explicit = F.or_(saved_explicit, F.and_(st.explicit, kept))

    def run_try(self, node: ast.Try, writes: set[str] | None) -> None:
        st = self.state
        saved_raised, saved_explicit, first_site = st.raised, st.explicit, len(st.raises)
        saved_guard = self.guard
        entry = self.entry_guard()
        returned_at_entry = self.frame.returned
        st.raised, st.explicit = FALSE, FALSE
        self.guard = entry
        self.run_block(node.body, writes)
        body_raised, body_explicit = st.raised, st.explicit
        body_sites = st.raises[first_site:]
        # else: on the paths that finished the body normally
        st.raised = body_raised
        self.run_block(node.orelse, writes)
        after_else_raised = F.and_(st.raised, F.not_(body_raised))
        else_explicit = self._explicit_since(first_site + len(body_sites))
        caught_any = FALSE
        handler_raised, handler_explicit = FALSE, FALSE
        for h in node.handlers:
            names = _names(h.type)
            parts = []
            for s in body_sites:
                verdict = catches(names, s.what, self.model.module)
                if verdict is None:
                    verdict = self.fresh_choice("catches")
                if verdict is False:
                    continue
                parts.append(F.and_(s.cond, verdict) if verdict is not True else s.cond)
            caught_h = F.and_(F.or_(*parts), F.not_(caught_any)) if parts else FALSE
            caught_any = F.or_(caught_any, caught_h)
            if F.shown_false(caught_h):  # and/or left nested (fastterms.simplified): the raises' disjunction
                continue
            st.raised, st.explicit = FALSE, FALSE
            self.guard = caught_h
            if h.name:
                self.store(ast.Name(h.name, ast.Store()), self.fresh(OPAQUE, h.name))
            stack = getattr(self, "caught", None)
            if stack is None:
                stack = self.caught = []
            stack.append(Caught(F.and_(caught_h, body_explicit)))
            try:
                self.run_block(h.body, writes)
            finally:
                stack.pop()
            handler_raised = F.or_(handler_raised, st.raised)
            handler_explicit = F.or_(handler_explicit, st.explicit)
        # the exceptions of the body no handler caught go on
        for s in body_sites:
            s.cond = F.and_(s.cond, F.not_(caught_any))
        uncaught = F.and_(body_raised, F.not_(caught_any))
        raised = F.or_(uncaught, after_else_raised, handler_raised)
        explicit = F.or_(F.and_(body_explicit, F.not_(caught_any)), else_explicit, handler_explicit)
        if node.finalbody:
            self.guard = entry
            st.raised, st.explicit = FALSE, FALSE
            returned = self.frame.returned
            self.frame.returned = returned_at_entry
            self.run_block(node.finalbody, writes)
            fin_raised, fin_explicit = st.raised, st.explicit
            self.frame.returned = F.or_(returned, self.frame.returned)
            explicit = F.or_(F.and_(explicit, F.not_(fin_raised)), fin_explicit)
            raised = F.or_(raised, fin_raised)
        st.raised = F.or_(saved_raised, raised)
        st.explicit = F.or_(saved_explicit, explicit)
        self.guard = saved_guard

    def _explicit_since(self, start: int) -> z3.BoolRef:
        return F.or_(FALSE, *[s.cond for s in self.state.raises[start:] if s.explicit])

    def fresh_choice(self, hint: str) -> z3.BoolRef:
        from contractor.model import BOOL

        return self.fresh(BOOL, hint).z


__all__ = ["HandlerExecutor", "ancestors", "catches"]

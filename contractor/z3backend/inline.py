"""Executor mixin: calls to the class's own methods, inlined on the current state (arguments
bound to parameters, icontract/deal preconditions checked as Python checks them, return
values merged over the callee's return paths), and `cls(...)` constructing a new object."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

import z3

from contractor.errors import CalleePastShare, UnsupportedConstruct
from contractor.model import Method, TypeKind, TypeRef
from contractor.z3backend import fastterms as F
from contractor.z3backend import values as V
from contractor.z3backend.basecalls import unreadable_base
from contractor.z3backend.fieldtypes import NOT_UNDERSTOOD, modelled
from contractor.z3backend.mapcalls import MapMethod
from contractor.z3backend.reach import names_other
from contractor.z3backend.refs import ListMethod
from contractor.z3backend.state import FALSE, Frame
from contractor.z3backend.values import Val

if TYPE_CHECKING:
    from contractor.z3backend.host import ExecutorHost as _Host
else:
    _Host = object

MAX_INLINE_DEPTH = 8


class InlineCalls(_Host):
    """Mixin of Executor: needs model, state, frame, loops, guard, root, active, eval, fresh,
    raise_if, condition, run_block and loc."""

    def bind(self, method: Method, args: list[Any], kwargs: dict[str, Any] | dict[str | None, Any], node: ast.AST,
             unknown_rest: bool = False) -> dict[str, Val]:
        """Arguments to parameters; `unknown_rest`: a `*args`/`**kw` at the call may supply
        any parameter not given otherwise (it gets an arbitrary value of its type)."""
        params = method.params
        vararg = method.node.args.vararg
        bound: dict[str, Any] = {}
        if vararg is not None:  # def f(self, a, *rest): rest is a tuple outside code may read
            bound[vararg.arg] = self.fresh(TypeRef(TypeKind.OPAQUE), vararg.arg)
            args = args[:len(params)]
        if len(args) > len(params):
            raise UnsupportedConstruct(f"too many arguments to {method.name}()", self.loc(node))
        for p, a in zip(params, args):
            bound[p.name] = a
        for k, a in kwargs.items():
            if k is None or k not in {p.name for p in params} or k in bound:  # None: a **kw
                raise UnsupportedConstruct(f"argument {k}= to {method.name}()", self.loc(node))
            bound[k] = a
        for a in bound.values():
            if isinstance(a, (ListMethod, MapMethod)):
                # `self._each(files.append)`: the method names its list by the caller's
                # expression, which the callee would read in its own frame (another
                # `files`, or none); ftplib.FTP.nlst passes one to retrlines
                raise UnsupportedConstruct(f"a bound method `.{a.name}` of a {a.value.type} passed to "
                                           f"{method.name}()", self.loc(node))
        for p in params:
            if p.name not in bound and unknown_rest and p.type is not None and modelled(p.type):
                bound[p.name] = self.fresh(p.type, p.name)
            if p.name not in bound:
                if p.default is None:
                    raise UnsupportedConstruct(f"missing argument {p.name} to {method.name}()", self.loc(node))
                bound[p.name] = self.eval(p.default)
            if p.type is not None and isinstance(bound[p.name], Val) and modelled(p.type):
                bound[p.name] = V.coerce(bound[p.name], p.type)  # (a Node-typed one stays as passed)
        return bound

    def call_method(self, oid: int, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.AST,
                    unknown_rest: bool = False) -> Val:
        method = self.model.methods[name]
        if unreadable_base(method) is not None:  # basecalls.py: it goes on after the call
            return self.call_unreadable(oid, method, args, kwargs, node)
        self.check_inlinable(name, node)
        bound = self.bind(method, args, kwargs, node, unknown_rest)
        return self.invoke(method, oid, bound, enforce_pre=method.kind != "helper")

    def check_inlinable(self, name: str, node: ast.AST) -> None:
        """Raises where a call to the class's method `name` (a constructor's `__init__` too)
        is not inlined: past the inlining depth, or a call being inlined already."""
        if self.state.depth >= MAX_INLINE_DEPTH:
            raise UnsupportedConstruct("recursion deeper than the inlining bound", self.loc(node))
        if (self.frame.method, name) in _call_edges([*(f.method for f in self.callers), self.frame.method]):
            # recursion: a call from this method to that one is being inlined already; one
            # more round would only repeat it (connect -> _tunnel -> send -> connect ...)
            raise UnsupportedConstruct("recursion deeper than the inlining bound", self.loc(node))
        if name in self.state.past_share:  # see CalleePastShare
            raise CalleePastShare(name, self.loc(node))

    def invoke(self, method: Method, oid: int, bound: dict[str, Val], enforce_pre: bool) -> Val:
        """Inline `method` on object `oid`; its return value (merged over its return paths)."""
        outer_frame, outer_loops, outer_guard = self.frame, self.loops, self.guard
        if self.root is None:
            self.root = (method.name, oid)
        entry = self.entry_guard()  # the callee runs only where the caller is still running
        frame = Frame(method.name, locals={"self": Val(TypeRef(TypeKind.CLASS, name=self.model.name), oid), **bound})
        frame.old = dict(bound)
        self.callers.append(outer_frame)
        self.frame, self.loops, self.guard = frame, [], entry
        self.state.depth += 1
        try:
            dialects = {c.dialect for c in method.preconditions}
            if enforce_pre and method.preconditions and dialects & {"icontract", "deal"}:
                # icontract and deal check preconditions at run time, on internal calls too
                for c in method.preconditions:
                    if c.dialect in ("icontract", "deal"):
                        self.raise_if(F.not_(self.condition(c.expr)), "ViolationError", c.expr, explicit=True)
            self.run_block(method.body, None)
            # paths that end without `return`: asked only where there are returns to merge
            # (merge_returns reads it for nothing else); simplifying active(), every raise
            # and path condition so far, took smtplib.SMTP's raise guards 1.7 s over 608
            # inlined calls without a `return`
            falls_through = z3.simplify(self.active()) if frame.returns else FALSE
        finally:
            self.state.depth -= 1
            self.callers.pop()
            self.frame, self.loops, self.guard = outer_frame, outer_loops, outer_guard
        return merge_returns(frame, falls_through)

    def construct(self, args: list[Any], kwargs: dict[str | None, Any], node: ast.AST) -> Val:
        """`cls(...)` or `ClassName(...)`: a new object initialised by __init__."""
        from contractor.z3backend.semantics import blank_object

        init = self.model.methods.get("__init__")
        if init is not None:  # a constructor building an object of its class (starlette's URL)
            self.check_inlinable("__init__", node)
        oid = self.state.new_object(blank_object(self.model))
        if init is not None:
            self.invoke(init, oid, self.bind(init, args, kwargs, node), enforce_pre=True)
        return Val(TypeRef(TypeKind.CLASS, name=self.model.name), oid)


def _call_edges(stack: list[str]) -> set[tuple[str, str]]:
    """The (caller, callee) pairs of the methods being inlined, outermost first."""
    return set(zip(stack, stack[1:]))


def merge_returns(frame: Frame, falls_through: z3.BoolRef) -> Val:
    """The value the call returns: each `return`'s value on its paths, None where the body
    ends without one. Values z3 cannot merge (None on one path and a list of untyped items
    on another) give a value of a type z3 does not model: untranslated where it is used,
    not in the whole call (whose raise guards and writes do not depend on it). Not where
    one may be an object of the class: an untranslated call keeps what it may do to it."""
    returns = list(frame.returns)
    if not returns:
        return V.NONE_VAL
    if z3.is_false(falls_through):
        result, rest = returns[-1][1], returns[:-1]
    else:
        result, rest = V.NONE_VAL, returns
    for cond, v in rest:
        try:
            result = V.ite(cond, v, result)
        except UnsupportedConstruct:
            if names_other(v.type) or names_other(result.type):
                raise
            return Val(NOT_UNDERSTOOD, None)
    return result

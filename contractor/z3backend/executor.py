"""Symbolic execution of method bodies (the statement half): assignments, branches, loops,
returns, raises, asserts, and calls to other methods of the class (inlined).

Untranslatable statements do not stop the analysis: the paths reaching them are marked
`unknown` and every field they may change is given an arbitrary value, so a query can
still be answered, as a may-answer, and never wrongly.
"""

from __future__ import annotations

import ast
from typing import Any

import z3

from contractor.errors import Location, UnsupportedConstruct
from contractor.model import ClassModel, Method, Opaque, TypeRef
from contractor.z3backend import effects
from contractor.z3backend import opaque as O
from contractor.z3backend import values as V
from contractor.z3backend.exprs import ExprEvaluator, OldNamespace
from contractor.z3backend.handlers import HandlerExecutor
from contractor.z3backend.loops import LoopExecutor
from contractor.z3backend.mapcalls import MapCalls
from contractor.z3backend.outside import OutsideEvaluator
from contractor.z3backend.quantifiers import Quantifiers
from contractor.z3backend.seqcalls import SeqCalls
from contractor.z3backend.state import TRUE, ExecState, Frame, Loop, Site
from contractor.z3backend.values import Val

MAX_INLINE_DEPTH = 8
FRESH_LIST_NODES = (ast.List, ast.BinOp, ast.Call, ast.ListComp, ast.Set, ast.Dict, ast.SetComp, ast.DictComp)
MUTABLE = ("list", "set", "dict")


class Executor(ExprEvaluator, SeqCalls, MapCalls, Quantifiers, LoopExecutor, OutsideEvaluator, HandlerExecutor):
    """Runs one method (or one condition) symbolically over a given state."""

    def __init__(self, model: ClassModel, constants: dict[str, Any], unroll: int,
                 state: ExecState, fresh_prefix: str):
        self.model = model
        self.constants = constants
        self.unroll = unroll
        self.state = state
        self.guard: z3.BoolRef = TRUE
        self.frame = Frame("<condition>")
        self.loops: list[Loop] = []
        self.prefix = fresh_prefix
        self.counter = 0
        self.old_oid: int | None = None
        self.context: z3.Solver | None = None  # what the caller assumes (invariant, precondition)
        self.root: tuple[str, int] | None = None  # the first method invoked, and its object
        self.root_writes: frozenset[str] | None | tuple = ()  # its write set, once computed

    def assume(self, context: z3.BoolRef, timeout_ms: int = 2000) -> None:
        """Let loops stop unrolling where `context` makes further iterations impossible."""
        from contractor.z3backend.z3util import make_solver

        self.context = make_solver(timeout_ms)
        self.context.add(context)

    def feasible(self, cond: z3.BoolRef) -> bool:
        cond = z3.simplify(cond)
        if z3.is_false(cond):
            return False
        if self.context is None:
            return True
        return self.context.check(cond) != z3.unsat

    # -- bookkeeping -----------------------------------------------------------------

    def loc(self, node: ast.AST) -> Location:
        return Location(self.model.path, getattr(node, "lineno", 0), getattr(node, "col_offset", 0))

    def active(self) -> z3.BoolRef:
        parts = [self.guard, z3.Not(self.state.raised), z3.Not(self.state.unknown),
                 z3.Not(self.frame.returned)]
        for loop in self.loops:
            parts += [z3.Not(loop.broke), z3.Not(loop.continued)]
        return z3.And(*[p for p in parts if not z3.is_true(p)]) if parts else TRUE

    def raise_if(self, cond: z3.BoolRef, exc: str, node: ast.AST, explicit: bool = False) -> None:
        """Paths where `cond` holds raise `exc` here; `explicit` for a `raise` or `assert` of
        the analysed code (a raise guard), not an exception of a Python operation."""
        if z3.is_false(cond):
            return
        c = z3.And(self.active(), cond)
        self.state.raised = z3.Or(self.state.raised, c)
        if explicit:
            self.state.explicit = z3.Or(self.state.explicit, c)
        self.state.raises.append(Site(c, exc, getattr(node, "lineno", 0), self.frame.method, explicit=explicit))

    def fresh(self, t: TypeRef, hint: str) -> Val:
        self.counter += 1
        name = f"{self.prefix}!{hint}!{self.counter}"
        if t.kind == "opaque":  # well-formed by construction (nothing asserts it for these)
            return Val(t, O.fresh_well_formed(name))
        return V.fresh(t, name)

    def old_object(self) -> int:
        if self.old_oid is None:
            raise UnsupportedConstruct("__old__ outside a postcondition")
        return self.old_oid

    def mark_unknown(self, err: UnsupportedConstruct, node: ast.AST, writes: set[str] | None) -> None:
        """Paths reaching `node` become unknown; the fields they may write become arbitrary
        (on the analysed method's object: those in its write set, see effects.py)."""
        c = self.active()
        line = err.location.line if err.location else getattr(node, "lineno", 0)
        self.state.unknowns.append(Site(c, err.construct, line, self.frame.method, err.detail))
        # an unknown path ends here, skipping the rest of every method on the stack: what
        # the first method (with all it calls) may write is what may have changed
        own_oid = self.root[1] if self.root is not None else None
        if writes is None and self.root is not None:
            if self.root_writes == ():  # computed once per executor, not per unknown statement
                self.root_writes = effects.writes(self.model, self.root[0])
            writes = self.root_writes
            own = self.state.objects.get(own_oid, {})
            if writes is not None and any(w not in own or own[w].kind == "any" for w in writes):
                writes = writes | {"__opaque__"}  # it stands for the fields z3 does not model
        for oid, fields in self.state.objects.items():
            if oid < 0:
                continue
            for name, v in list(fields.items()):
                if writes is not None and oid == own_oid and name not in writes:
                    continue
                if v.kind in ("any", "class"):
                    continue
                if v.kind == "undefined":  # the unknown path may set it: arbitrary from here on
                    fields[name] = self.fresh(v.type.args[0], name)
                    continue
                fields[name] = V.ite(c, self.fresh(v.type, name), v)
        self.state.unknown = z3.Or(self.state.unknown, c)

    # -- storing ---------------------------------------------------------------------

    def assign_name(self, name: str, v: Val) -> None:
        f = self.frame
        act = self.active()
        if name in f.locals:
            f.locals[name] = V.ite(act, v, f.locals[name]) if not z3.is_true(act) else v
            if name in f.defined:
                f.defined[name] = z3.Or(f.defined[name], act)
        else:
            if z3.is_true(act) or v.kind in ("class", "none") or (v.kind in MUTABLE and v.z is None):
                f.locals[name] = v
            else:
                f.locals[name] = V.ite(act, v, self.fresh(v.type, name))
                f.defined[name] = act

    def store(self, target: ast.expr, v: Val) -> None:
        if isinstance(target, ast.Name):
            if target.id in self.frame.aliases and v.kind in MUTABLE:
                raise UnsupportedConstruct(f"mutation of a {v.kind} through an alias", self.loc(target))
            self.assign_name(target.id, v)
            return
        if isinstance(target, ast.Attribute):
            base = self.eval_any(target.value)
            if isinstance(base, Val) and base.kind == "class" and not isinstance(base, OldNamespace):
                fields = self.state.objects[base.z]
                if target.attr not in fields:
                    raise UnsupportedConstruct(f"assignment to `{target.attr}`, which is not a field",
                                               self.loc(target))
                old = fields[target.attr]
                if old.kind == "any":  # an opaque field: only its stand-in changes
                    if "__opaque__" in fields:
                        act = self.active()
                        fields["__opaque__"] = V.ite(act, self.fresh(TypeRef("int"), "__opaque__"),
                                                     fields["__opaque__"])
                    return
                declared = self.model.fields[target.attr].type if target.attr in self.model.fields else v.type
                new = V.coerce(v, declared)
                act = self.active()
                if old.kind == "undefined":
                    fields[target.attr] = new if z3.is_true(act) else V.ite(act, new, self.fresh(declared, target.attr))
                else:
                    fields[target.attr] = new if z3.is_true(act) else V.ite(act, new, old)
                return
        if isinstance(target, ast.Subscript) and not isinstance(target.slice, ast.Slice):
            seq = self.eval(target.value)
            if seq.kind == "dict":
                self.store_dict_item(target, v)
                return
            if seq.kind == "opaque":  # outside code (__setitem__): it may change the object
                self.tolerant(target.slice)
                self.none_raises(seq, "TypeError", target)
                self.havoc_place(target.value, seq)
                return
            if seq.kind != "list" or seq.z is None:
                raise UnsupportedConstruct("item assignment", self.loc(target))
            i = V.to_int(self.eval(target.slice))
            n = z3.Length(seq.z)
            self.raise_if(z3.Or(i < -n, i >= n), "IndexError", target)
            j = z3.If(i < 0, i + n, i)
            unit = z3.Unit(V.coerce(v, seq.type.args[0]).z)
            self.store(target.value, Val(seq.type, z3.Concat(z3.SubSeq(seq.z, 0, j), unit,
                                                             z3.SubSeq(seq.z, j + 1, n - j - 1))))
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            self.unpack(target, v)
            return
        raise UnsupportedConstruct(f"assignment to {type(target).__name__}", self.loc(target))

    def unpack(self, target: ast.Tuple | ast.List, v: Val) -> None:
        """`a, b = v` for a tuple or list v: ValueError where the lengths differ."""
        if any(isinstance(e, ast.Starred) for e in target.elts):
            raise UnsupportedConstruct("starred unpacking", self.loc(target))
        n = len(target.elts)
        if v.kind == "opaque":  # an untyped value: n items of it, or a ValueError
            if not self.state.outside_returns:
                self.raise_if(self.fresh_choice("unpack"), "ValueError", target)
            for t in target.elts:
                self.store(t, self.fresh(TypeRef("opaque"), "item"))
            return
        if v.kind == "tuple":
            items = V.tuple_items(v)
            if len(items) != n:
                self.raise_if(TRUE, "ValueError", target)
                return
        elif v.kind in ("list", "str") and v.z is not None:
            self.raise_if(z3.Length(v.z) != n, "ValueError", target)
            elem = v.type.args[0] if v.kind == "list" else v.type
            items = [Val(elem, v.z[i] if v.kind == "list" else z3.SubString(v.z, i, 1)) for i in range(n)]
        else:
            raise UnsupportedConstruct(f"unpacking a {v.type}", self.loc(target))
        for t, x in zip(target.elts, items):
            self.store(t, x)

    # -- statements ------------------------------------------------------------------

    def run_block(self, stmts, writes: set[str] | None) -> None:
        for stmt in stmts:
            if z3.is_false(z3.simplify(self.active())):
                return
            try:
                self.run_stmt(stmt, writes)
            except UnsupportedConstruct as err:
                self.mark_unknown(err, stmt, writes)
            except z3.Z3Exception as exc:  # e.g. a sort mismatch: a construct we mistyped
                err = UnsupportedConstruct(f"{type(stmt).__name__} z3 could not express ({exc})", self.loc(stmt))
                self.mark_unknown(err, stmt, writes)

    def run_stmt(self, node: ast.stmt, writes: set[str] | None) -> None:
        if isinstance(node, (ast.Pass, ast.Import, ast.ImportFrom)):
            return
        if isinstance(node, Opaque):  # code of an unreadable base class
            raise UnsupportedConstruct(node.reason, self.loc(node))
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant):
                return  # a docstring or a bare constant
            self.eval_any(node.value)
            return
        if isinstance(node, ast.Assign):
            if len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple) and isinstance(node.value, ast.Tuple):
                tgt = node.targets[0]
                if len(tgt.elts) != len(node.value.elts):
                    raise UnsupportedConstruct("unpacking of different lengths", self.loc(node))
                vals = [self.eval(e) for e in node.value.elts]
                for t, v in zip(tgt.elts, vals):
                    self.store(t, v)
                return
            v = self.eval(node.value)
            self.note_alias(node.targets, node.value, v)
            for t in node.targets:
                self.store(t, v)
            return
        if isinstance(node, ast.AnnAssign):
            if node.value is not None:
                v = self.eval(node.value)
                self.note_alias([node.target], node.value, v)
                self.store(node.target, v)
            return
        if isinstance(node, ast.AugAssign):
            op = ast.BinOp(left=_as_load(node.target), op=node.op, right=node.value)
            ast.copy_location(op, node)
            self.store(node.target, self.eval(op))
            return
        if isinstance(node, ast.If):
            c = self.condition(node.test)
            saved = self.guard
            self.guard = z3.And(saved, c)
            self.run_block(node.body, writes)
            self.guard = z3.And(saved, z3.Not(c))
            self.run_block(node.orelse, writes)
            self.guard = saved
            return
        if isinstance(node, ast.Return):
            v = self.eval(node.value) if node.value is not None else V.NONE_VAL
            act = self.active()
            self.frame.returns.append((act, v))
            self.frame.returned = z3.Or(self.frame.returned, act)
            return
        if isinstance(node, ast.Raise) and node.exc is not None:
            self.raise_if(TRUE, _exception_name(node), node, explicit=True)
            return
        if isinstance(node, ast.Assert):
            self.raise_if(z3.Not(self.condition(node.test)), "AssertionError", node, explicit=True)
            return
        if isinstance(node, (ast.For, ast.While)):
            self.run_loop(node, writes)
            return
        if isinstance(node, ast.Delete):
            self.delete_stmt(node)
            return
        if isinstance(node, (ast.Break, ast.Continue)) and self.loops:
            loop = self.loops[-1]
            act = self.active()
            if isinstance(node, ast.Break):
                loop.broke = z3.Or(loop.broke, act)
            else:
                loop.continued = z3.Or(loop.continued, act)
            return
        if self.run_other(node, writes):  # try, with, a bare raise, ... (handlers.py)
            return
        raise UnsupportedConstruct(f"statement {type(node).__name__}", self.loc(node))

    def note_alias(self, targets, value_node: ast.expr, v: Val) -> None:
        if v.kind not in MUTABLE or isinstance(value_node, FRESH_LIST_NODES):
            return
        for t in targets:
            if isinstance(t, ast.Name):
                self.frame.aliases.add(t.id)
            else:
                raise UnsupportedConstruct("a field made to share another list (aliasing)", self.loc(t))

    def bind(self, method: Method, args: list, kwargs: dict, node: ast.AST,
             unknown_rest: bool = False) -> dict[str, Val]:
        """Arguments to parameters; `unknown_rest`: a `*args`/`**kw` at the call may supply
        any parameter not given otherwise (it gets an arbitrary value of its type)."""
        params = method.params
        vararg = method.node.args.vararg
        bound: dict[str, Any] = {}
        if vararg is not None:  # def f(self, a, *rest): rest is a tuple outside code may read
            bound[vararg.arg] = self.fresh(TypeRef("opaque"), vararg.arg)
            args = args[:len(params)]
        if len(args) > len(params):
            raise UnsupportedConstruct(f"too many arguments to {method.name}()", self.loc(node))
        for p, a in zip(params, args):
            bound[p.name] = a
        for k, a in kwargs.items():
            if k not in {p.name for p in params} or k in bound:
                raise UnsupportedConstruct(f"argument {k}= to {method.name}()", self.loc(node))
            bound[k] = a
        for p in params:
            if p.name not in bound and unknown_rest and p.type is not None and p.type.kind not in ("any", "class"):
                bound[p.name] = self.fresh(p.type, p.name)
            if p.name not in bound:
                if p.default is None:
                    raise UnsupportedConstruct(f"missing argument {p.name} to {method.name}()", self.loc(node))
                bound[p.name] = self.eval(p.default)
            if p.type is not None and isinstance(bound[p.name], Val) and p.type.kind not in ("any", "class"):
                bound[p.name] = V.coerce(bound[p.name], p.type)
        return bound

    def call_method(self, oid: int, name: str, args: list, kwargs: dict, node: ast.AST,
                    unknown_rest: bool = False) -> Val:
        method = self.model.methods[name]
        if self.state.depth >= MAX_INLINE_DEPTH:
            raise UnsupportedConstruct("recursion deeper than the inlining bound", self.loc(node))
        bound = self.bind(method, args, kwargs, node, unknown_rest)
        return self.invoke(method, oid, bound, enforce_pre=method.kind != "helper")

    def invoke(self, method: Method, oid: int, bound: dict[str, Val], enforce_pre: bool) -> Val:
        """Inline `method` on object `oid`; its return value (merged over its return paths)."""
        outer_frame, outer_loops, outer_guard = self.frame, self.loops, self.guard
        if self.root is None:
            self.root = (method.name, oid)
        entry = self.active()  # the callee runs only where the caller is still running
        frame = Frame(method.name, locals={"self": Val(TypeRef("class", name=self.model.name), oid), **bound})
        frame.old = dict(bound)
        self.frame, self.loops, self.guard = frame, [], entry
        self.state.depth += 1
        try:
            dialects = {c.dialect for c in method.preconditions}
            if enforce_pre and method.preconditions and dialects & {"icontract", "deal"}:
                # icontract and deal check preconditions at run time, on internal calls too
                for c in method.preconditions:
                    if c.dialect in ("icontract", "deal"):
                        self.raise_if(z3.Not(self.condition(c.expr)), "ViolationError", c.expr, explicit=True)
            self.run_block(method.body, None)
            falls_through = z3.simplify(self.active())  # paths that end without `return`
        finally:
            self.state.depth -= 1
            self.frame, self.loops, self.guard = outer_frame, outer_loops, outer_guard
        return merge_returns(frame, falls_through)

    def construct(self, args: list, kwargs: dict, node: ast.AST) -> Val:
        """`cls(...)` or `ClassName(...)`: a new object initialised by __init__."""
        from contractor.z3backend.semantics import blank_object

        oid = self.state.new_object(blank_object(self.model))
        init = self.model.methods.get("__init__")
        if init is not None:
            self.invoke(init, oid, self.bind(init, args, kwargs, node), enforce_pre=True)
        return Val(TypeRef("class", name=self.model.name), oid)


def merge_returns(frame: Frame, falls_through: z3.BoolRef) -> Val:
    """The value the call returns: each `return`'s value on its paths, None where the body
    ends without one."""
    returns = list(frame.returns)
    if not returns:
        return V.NONE_VAL
    if z3.is_false(falls_through):
        result, rest = returns[-1][1], returns[:-1]
    else:
        result, rest = V.NONE_VAL, returns
    for cond, v in rest:
        result = V.ite(cond, v, result)
    return result


def _as_load(target: ast.expr) -> ast.expr:
    import copy

    t = copy.deepcopy(target)
    for n in ast.walk(t):
        if hasattr(n, "ctx"):
            n.ctx = ast.Load()
    return t


def _exception_name(node: ast.Raise) -> str:
    exc = node.exc
    if isinstance(exc, ast.Call):
        exc = exc.func
    if isinstance(exc, ast.Name):
        return exc.id
    if isinstance(exc, ast.Attribute):
        return exc.attr
    return "Exception"

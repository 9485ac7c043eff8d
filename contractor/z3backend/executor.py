"""Symbolic execution of method bodies (the statement half): the executor's state and
bookkeeping, and the statements (assignments, branches, returns, raises, asserts); stores
are stores.py's, calls to the class's own methods inline.py's, loops loops.py's.

Untranslatable statements do not stop the analysis: the paths reaching them are marked
`unknown` and every field they may change is given an arbitrary value, so a query can
still be answered, as a may-answer, and never wrongly.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Any, cast

import z3

from contractor.errors import Location, TranslationOutOfTime, UnsupportedConstruct
from contractor.model import ClassModel, Opaque, TypeRef
from contractor.z3backend import effects
from contractor.z3backend import fastterms as F
from contractor.z3backend import opaque as O
from contractor.z3backend import values as V
from contractor.z3backend.aggregates import Aggregates
from contractor.z3backend.basecalls import BaseCalls
from contractor.z3backend.comprehensions import Comprehensions
from contractor.z3backend.deletes import DeleteExecutor
from contractor.z3backend.exprs import ExprEvaluator
from contractor.z3backend.facts import ClassFacts
from contractor.z3backend.handlers import HandlerExecutor
from contractor.z3backend.inline import InlineCalls
from contractor.z3backend.loops import LoopExecutor
from contractor.z3backend.mapcalls import MapCalls
from contractor.z3backend.outside import OutsideEvaluator
from contractor.z3backend.pytypes import KnownTypes
from contractor.z3backend.quantifiers import Quantifiers
from contractor.z3backend.reach import Reach
from contractor.z3backend.seqcalls import SeqCalls
from contractor.z3backend.setalgebra import SetAlgebra
from contractor.z3backend.state import READING_GUARDS, TRUE, ExecState, Frame, Loop, Site
from contractor.z3backend.stores import StoreExecutor
from contractor.z3backend.values import Val
from contractor.z3backend.z3util import FEASIBLE, Assumptions, Effort


class Executor(ExprEvaluator, StoreExecutor, InlineCalls, SeqCalls, MapCalls, Quantifiers, Comprehensions,
               Aggregates, SetAlgebra, LoopExecutor, OutsideEvaluator, Reach, BaseCalls, HandlerExecutor,
               DeleteExecutor, KnownTypes):
    """Runs one method (or one condition) symbolically over a given state."""

    def __init__(self, model: ClassModel, constants: dict[str, Any], unroll: int,
                 state: ExecState, fresh_prefix: str, facts: ClassFacts | None = None):
        self.model = model
        self.facts = facts if facts is not None else ClassFacts()  # read once per class (facts.py)
        self.known_types: dict[int, tuple[z3.ExprRef, type]] = {}  # exact Python types (pytypes.py)
        self.constants = constants
        self.unroll = unroll
        self.state = state
        self.guard: z3.BoolRef = TRUE
        self.frame = Frame("<condition>")
        self.callers: list[Frame] = []  # the frames of the methods that inlined the current one
        self.loops: list[Loop] = []
        self.prefix = fresh_prefix
        self.counter = 0
        self.old_oid: int | None = None
        self.context: Assumptions | None = None  # what the caller assumes (invariant, precondition)
        self.root: tuple[str, int] | None = None  # the first method invoked, and its object
        self.root_writes: frozenset[str] | None | tuple[()] = ()  # its write set, once computed
        # live(): the answer per parts of active() it is keyed on (the terms kept alive)
        self.liveness: dict[tuple[int, ...], tuple[bool, z3.BoolRef, list[z3.BoolRef]]] = {}
        # entry_guard()'s terms by id, with the raises, unknowns and returns they were taken with
        self.entries: dict[int, tuple[z3.BoolRef, z3.BoolRef, z3.BoolRef, z3.BoolRef]] = {}

    def assume(self, context: z3.BoolRef, timeout_ms: int = 2000) -> None:
        """Let loops stop unrolling where `context` makes further iterations impossible."""
        self.context = Assumptions(context, timeout_ms)

    def feasible(self, cond: z3.BoolRef, timeout_ms: int | None = None, effort: Effort | None = None) -> bool:
        """Whether some object meeting the assumptions has `cond`; undecided (within
        `effort`, else `timeout_ms` of wall clock if given, default FEASIBLE's resource
        units: the same answer at every load) counts as yes. Asked with and/or left
        nested (fastterms.simplified, z3util.make_solver): a loop's question holds every
        raise before it."""
        cond = F.simplified(cond)
        if z3.is_false(cond):
            return False
        if self.context is None:
            return True
        if effort is None and timeout_ms is None:
            effort = FEASIBLE
        return bool(self.context.check(cond, timeout_ms=timeout_ms, effort=effort) != z3.unsat)

    # -- bookkeeping -----------------------------------------------------------------

    def loc(self, node: ast.AST) -> Location:
        return Location(self.model.path, getattr(node, "lineno", 0), getattr(node, "col_offset", 0))

    def active(self) -> z3.BoolRef:
        # the binding's coercions skipped (fastterms.py: the same terms): asked before and
        # in every statement, this was a fifth of translating zipfile.ZipFile's methods
        parts = [self.guard, F.not_(self.state.raised), F.not_(self.state.unknown),
                 F.not_(self.frame.returned)]
        for loop in self.loops:
            parts += [F.not_(loop.broke), F.not_(loop.continued)]
        return F.and_(*[p for p in parts if not F.is_true(p)]) if parts else TRUE

    def live(self) -> bool:
        """Whether some path may still run here: false once z3's simplifier shows active()
        empty. Asked before every statement; simplifying the whole active() each time (all
        raises so far, every path condition) was a third of translating a method of
        smtplib.SMTP, so it is asked once per guard, return and loop state of the frame
        (and its untranslated paths): a raise of the analysed code ends the rest of its
        block in run_block, and one in a callee or a branch (the paths it ends go on
        being run, every effect under the false path condition) only costs time.
        "No path" is reused only for the same raises: a `finally` block (or a branch in
        it, z3 terms being shared) runs under the try body's guard again with the body's
        raises undone, where the body's dead end must not end it too."""
        parts = [self.guard, self.state.unknown, self.frame.returned]
        parts += [f for loop in self.loops for f in (loop.broke, loop.continued)]
        key = tuple(p.get_id() for p in parts)
        known = self.liveness.get(key)
        if known is None or not (known[0] or known[1].eq(self.state.raised)):
            alive = self.alive()
            self.liveness[key] = (alive, self.state.raised, parts)
            return alive
        return known[0]

    def alive(self) -> bool:
        """live()'s question asked anew. Where the path condition is `saved and c` (a
        branch, a loop's next iteration: `F.and_` of two terms), whether z3's simplifier
        shows `c` false: the paths that got here were alive before `c` was added, and a
        false `c` was what ended every path (HTTPConnection's and ZipFile's 65 dead ends).
        Simplifying `c` alone instead of active() (every raise so far and every path
        condition in it, terms of thousands of nodes: 0.8 s of reading HTTPConnection's
        raise guards) takes a sixth of the time. A dead end it does not see (raises or
        returns covering every path) only costs time, as above; one it sees, simplify
        would have seen in active() too (a false conjunct makes the conjunction false).
        Simplified with and/or left nested (fastterms.simplified): flattening rebuilt every
        nested disjunction of raises, a third of the time, and showed no more dead ends on
        the standard-library classes of issue 8."""
        g = self.guard
        entry = self.entries.get(F.node_id(g))
        if entry is not None and self._unchanged_since(entry):
            return True
        if F.op_kind(g) == z3.Z3_OP_AND and g.num_args() == 2:
            return not F.shown_false(F.arg(g, 1))
        return not F.shown_false(self.active())

    def entry_guard(self) -> z3.BoolRef:
        """active() as the path condition of a block that runs where the current paths
        run (a callee's body, a `try` or `with` body). The paths got there alive: until
        a raise, an untranslated statement or a return since (one that may have ended
        every path), alive() takes them as alive without simplifying active() (every
        raise and path condition so far) again. Simplifying found no such entry dead on
        the samples, the Contractor.NET classes and the standard-library classes of
        issue 8; one missed only costs time."""
        g = self.active()
        self.entries[F.node_id(g)] = (g, self.state.raised, self.state.unknown, self.frame.returned)
        return g

    def _unchanged_since(self, entry: tuple[z3.BoolRef, z3.BoolRef, z3.BoolRef, z3.BoolRef]) -> bool:
        """No raise, untranslated statement or return since entry_guard() made `entry`
        (a `try` body starts with its raises undone, a callee with no return)."""
        _, raised, unknown, returned = entry
        now = self.state.raised, self.state.unknown, self.frame.returned
        return (F.node_id(now[1]) == F.node_id(unknown)
                and (z3.is_false(now[0]) or F.node_id(now[0]) == F.node_id(raised))
                and (z3.is_false(now[2]) or F.node_id(now[2]) == F.node_id(returned)))

    def raise_if(self, cond: z3.BoolRef, exc: str, node: ast.AST, explicit: bool = False) -> None:
        """Paths where `cond` holds raise `exc` here; `explicit` for a `raise` or `assert` of
        the analysed code (a raise guard), not an exception of a Python operation."""
        if z3.is_false(cond):
            return
        c = F.and_(self.active(), cond)
        self.state.raised = F.or_(self.state.raised, c)
        if explicit:
            self.state.explicit = F.or_(self.state.explicit, c)
        self.state.raises.append(Site(c, exc, getattr(node, "lineno", 0), self.frame.method, explicit=explicit))

    def outside_raise_if(self, cond: z3.BoolRef, exc: str, node: ast.AST) -> None:
        """Paths where `cond` holds raise `exc`, an exception of code outside the analysed
        source: never while reading raise guards (there such code returns normally)."""
        self.raise_if(F.and_(F.not_(READING_GUARDS), cond), exc, node)

    def fresh(self, t: TypeRef, hint: str) -> Val:
        self.counter += 1
        name = f"{self.prefix}!{hint}!{self.counter}"
        if t.kind == "opaque":  # well-formed by construction (nothing asserts it for these)
            return Val(t, O.fresh_well_formed(name))
        return V.fresh(t, name)

    def new_object(self, truthy: z3.BoolRef) -> z3.ExprRef:
        """A new object (not None) as an untyped value: `[]` where the value is untyped."""
        self.counter += 1
        return O.fresh_object(f"{self.prefix}!new!{self.counter}", truthy)

    def old_object(self) -> int:
        if self.old_oid is None:
            raise UnsupportedConstruct("__old__ outside a postcondition")
        return self.old_oid

    def mark_unknown(self, err: UnsupportedConstruct, node: ast.AST, writes: AbstractSet[str] | None) -> None:
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
                # once `self` escaped, outside code may have changed any field (escape.py)
                self.root_writes = None if self.facts.escape is not None else effects.writes(self.model, self.root[0])
            writes = cast("frozenset[str] | None", self.root_writes)  # computed: not the () sentinel
            own = self.state.objects.get(self.root[1], {})
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
        self.state.unknown = F.or_(self.state.unknown, c)

    # -- statements ------------------------------------------------------------------

    def run_block(self, stmts: Sequence[ast.stmt], writes: set[str] | None) -> None:
        for stmt in stmts:
            if not self.live():
                return
            self.check_time(stmt)
            self.spend_statement(stmt)
            try:
                self.run_stmt(stmt, writes)
            except UnsupportedConstruct as err:
                self.mark_unknown(err, stmt, writes)
            except z3.Z3Exception as exc:  # e.g. a sort mismatch: a construct we mistyped
                self.check_time(stmt)  # or z3 cancelled by the run guard at the deadline
                unexpressed = UnsupportedConstruct(f"{type(stmt).__name__} z3 could not express ({exc})",
                                                   self.loc(stmt))
                self.mark_unknown(unexpressed, stmt, writes)
            if isinstance(stmt, _ENDS_BLOCK):  # the rest of the block is dead code
                return

    def check_time(self, node: ast.AST) -> None:
        """Past the run's deadline, the method being translated is given up (TranslationOutOfTime)."""
        if self.state.deadline is not None and time.monotonic() >= self.state.deadline:
            raise TranslationOutOfTime(self.loc(node))

    def spend_statement(self, node: ast.stmt) -> None:
        """One statement of the method's share run; past the share, the method being
        translated is given up (TranslationOutOfTime, as past the deadline)."""
        left = self.state.statements_left
        if left is not None:
            if left <= 0:
                raise TranslationOutOfTime(self.loc(node))
            self.state.statements_left = left - 1

    def run_stmt(self, node: ast.stmt, writes: set[str] | None) -> None:
        if isinstance(node, (ast.Pass, ast.Import, ast.ImportFrom)):
            return
        if isinstance(node, Opaque) and bool(getattr(node, "base", "")):  # an unreadable base's method
            own = self.frame.locals.get("self")
            if isinstance(own, Val) and own.kind == "class":
                self.unreadable_effect(own.z, node.reason, node)
                return
        if isinstance(node, Opaque):  # code contractor does not follow
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
            self.guard = F.and_(saved, c)
            self.run_block(node.body, writes)
            self.guard = F.and_(saved, F.not_(c))
            self.run_block(node.orelse, writes)
            self.guard = saved
            return
        if isinstance(node, ast.Return):
            v = self.eval(node.value) if node.value is not None else V.NONE_VAL
            act = self.active()
            self.frame.returns.append((act, v))
            self.frame.returned = F.or_(self.frame.returned, act)
            return
        if isinstance(node, ast.Raise) and node.exc is not None:
            self.raise_if(TRUE, _exception_name(node), node, explicit=True)
            return
        if isinstance(node, ast.Assert):
            self.raise_if(F.not_(self.condition(node.test)), "AssertionError", node, explicit=True)
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
                loop.broke = F.or_(loop.broke, act)
            else:
                loop.continued = F.or_(loop.continued, act)
            return
        if self.run_other(node, writes):  # try, with, a bare raise, ... (handlers.py)
            return
        raise UnsupportedConstruct(f"statement {type(node).__name__}", self.loc(node))

# statements after which nothing in the same block runs (in a loop: `break`, `continue`)
_ENDS_BLOCK = (ast.Raise, ast.Return, ast.Break, ast.Continue)


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

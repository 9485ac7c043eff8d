"""The abstract interpreter over one function's (or a module's top level) statements.

It carries an `Env` (which variables hold which tracked objects, in which states)
through Python's control flow: branches join, loops iterate to a fixpoint, `return`,
`raise`, `break` and `continue` leave the normal flow (running the `finally` blocks on
their way), and `with` releases its object through `__exit__`. The exceptional edges
into `except` and `finally` are the explicit ones: `raise`, a failing `assert`, and a
client helper that contains a `raise` (an exception from any other call is not
followed, which avoids an alarm on every `try: x.open() finally: x.close()`).
Expressions and calls are `exprs.Expressions`' job.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from contractor.check import blocks
from contractor.check.domain import Env, Key, Obj, Site, join
from contractor.check.exprs import Expressions, Unreachable
from contractor.check.records import LeakRecord, Records

MAX_ITERATIONS = 30  # loop iterations before every object in the loop is lost (widening)


@dataclass
class Loop:
    finally_depth: int
    breaks: list[Env] = field(default_factory=list)
    continues: list[Env] = field(default_factory=list)


NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
          ast.DictComp, ast.GeneratorExp)


def names_read(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def module_captured(body: list[ast.stmt]) -> set[str]:
    """Names a module's functions, classes, lambdas and comprehensions read or declare
    global: a module-level object bound to one can change when any of them runs."""
    out: set[str] = set()
    for top in body:
        for node in ast.walk(top):
            if isinstance(node, NESTED):
                out |= names_read(node)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                out.update(node.names)
    return out


class Analysis:
    """One run over a body. After `run`, `records`, `returns` and `escaped` hold what it saw."""

    def __init__(self, checker, module, path: str, scope: str, body: list[ast.stmt],
                 tracked_atoms: frozenset[str] = frozenset()):
        self.checker = checker
        self.module = module
        self.path = path
        self.scope = scope  # "f()" or "the module", for leak messages
        self.body = body
        self.function: ast.FunctionDef | ast.AsyncFunctionDef | None = None  # None: a module's top level
        self.records = Records()
        self.returns: list[tuple[Env, Key | None]] = []
        self.escaped: set[str] = set()  # atoms of objects that escaped (lost) somewhere
        self.seen: dict[str, set[str]] = {a: set() for a in tracked_atoms}
        self.exc_stack: list[list[Env]] = []
        self.finally_stack: list[list[ast.stmt]] = []
        self.loops: list[Loop] = []
        self.is_module = scope == "the module"
        # names an object may not be followed in: captured by a nested scope or global
        # (a function's grow as its nested scopes are met; a module's are found on first use)
        self._untrackable: set[str] | None = None if self.is_module else set()
        self.exprs = Expressions(self)

    def untrackable(self, name: str) -> bool:
        if self._untrackable is None:
            self._untrackable = self.checker.module_captured(self.body)
        return name in self._untrackable

    def capture(self, names: set[str], env: Env) -> None:
        """A nested scope (or a global declaration) can reach these names from now on."""
        if not self.is_module:
            assert self._untrackable is not None
            self._untrackable |= names
        for name in names:
            key = env.vars.get(name)
            if key is not None:
                self.exprs.escape(key, env)

    @property
    def options(self):
        return self.checker.options

    def note_seen(self, key: Key, states: dict) -> None:
        """Remember every state a parameter's object reaches (for a summary's handlers)."""
        for atom in key:
            if atom in self.seen:
                self.seen[atom].update(states)

    def site(self, node: ast.stmt | ast.expr) -> Site:
        return Site(self.path, node.lineno, node.col_offset)

    def run(self, env: Env) -> Env | None:
        out = self.block(self.body, env)
        if out is not None:
            line = self.body[-1].end_lineno or self.body[-1].lineno if self.body else 1
            self.leave_scope(out, None, line)
            self.returns.append((out, None))
        return out

    # -- statements --------------------------------------------------------------------

    def block(self, body: list[ast.stmt], env: Env | None) -> Env | None:
        for stmt in body:
            if env is None:
                return None
            try:
                env = getattr(self, "stmt_" + type(stmt).__name__, self.stmt_other)(stmt, env)
            except Unreachable:
                return None
        return env

    def stmt_other(self, node: ast.stmt, env: Env) -> Env | None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.exprs.escape_all(child, env)
        return env

    def stmt_Expr(self, node: ast.Expr, env: Env) -> Env:
        self.exprs.eval(node.value, env)
        return env

    def stmt_Assign(self, node: ast.Assign, env: Env) -> Env:
        target, value = node.targets[0], node.value
        if (len(node.targets) == 1 and isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, ast.Tuple)
                and len(target.elts) == len(value.elts)
                and not any(isinstance(e, ast.Starred) for e in target.elts + value.elts)):
            keys = [self.exprs.eval(v, env) for v in value.elts]  # a, b = X(), Y(): element by element
            held = [f" tuple{i}" for i, k in enumerate(keys) if k is not None]  # alive while binding
            for name, kept in zip(held, [k for k in keys if k is not None]):
                env.vars[name] = kept
            for t, k, v in zip(target.elts, keys, value.elts):
                self.exprs.bind(t, k, env, v)
            for name in held:
                self.exprs.set_var(name, None, env, node.lineno)
            return env
        key = self.exprs.eval(node.value, env)
        for target in node.targets:
            self.exprs.bind(target, key, env, node.value)
        return env

    def stmt_AnnAssign(self, node: ast.AnnAssign, env: Env) -> Env:
        if node.value is not None:
            self.exprs.bind(node.target, self.exprs.eval(node.value, env), env, node.value)
        return env

    def stmt_AugAssign(self, node: ast.AugAssign, env: Env) -> Env:
        self.exprs.escape_all(node.value, env)
        self.exprs.escape_all(node.target, env)
        return env

    def stmt_Delete(self, node: ast.Delete, env: Env) -> Env:
        for target in node.targets:
            self.exprs.bind(target, None, env, None)
        return env

    def stmt_Pass(self, node: ast.stmt, env: Env) -> Env:
        return env

    stmt_Import = stmt_ImportFrom = stmt_Pass

    def stmt_Global(self, node: ast.Global | ast.Nonlocal, env: Env) -> Env:
        self.capture(set(node.names), env)
        return env

    stmt_Nonlocal = stmt_Global

    def stmt_FunctionDef(self, node: ast.FunctionDef, env: Env) -> Env:
        for d in node.decorator_list + node.args.defaults + node.args.kw_defaults:
            if d is not None:
                self.exprs.escape_all(d, env)
        if not self.is_module:
            self.capture(names_read(node), env)
        self.checker.nested(self.module, node)
        self.exprs.bind(ast.Name(node.name, ast.Store()), None, env, None)
        return env

    stmt_AsyncFunctionDef = stmt_FunctionDef

    def stmt_ClassDef(self, node: ast.ClassDef, env: Env) -> Env:
        for d in node.decorator_list + node.bases:
            self.exprs.escape_all(d, env)
        if not self.is_module:
            self.capture(names_read(node), env)
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.checker.nested(self.module, item, node)
        return env

    def stmt_Return(self, node: ast.Return, env: Env) -> None:
        key = self.exprs.eval(node.value, env) if node.value is not None else None
        out = self.unwind(env, 0)
        if out is not None:
            self.leave_scope(out, key, node.lineno)
            self.returns.append((out, key))

    def stmt_Raise(self, node: ast.Raise, env: Env) -> None:
        for part in (node.exc, node.cause):
            if part is not None:
                self.exprs.escape_all(part, env)
        self.throw(env)

    def throw(self, env: Env) -> None:
        """An exception leaves this point: the innermost handler (if any) may get it."""
        if self.exc_stack:
            self.exc_stack[-1].append(env.copy())

    def stmt_Assert(self, node: ast.Assert, env: Env) -> Env | None:
        self.exprs.eval(node.test, env)
        if node.msg is not None:
            self.exprs.escape_all(node.msg, env)
        self.throw(env)
        return self.exprs.refine(env, node.test, True)

    def stmt_If(self, node: ast.If, env: Env) -> Env | None:
        self.exprs.eval(node.test, env)
        yes = self.exprs.refine(env.copy(), node.test, True)
        no = self.exprs.refine(env, node.test, False)
        return join(self.block(node.body, yes), self.block(node.orelse, no))

    def stmt_While(self, node: ast.While, env: Env) -> Env | None:
        return self.loop(node, env, node.test, None)

    def stmt_For(self, node: ast.For, env: Env) -> Env | None:
        self.exprs.escape_all(node.iter, env)
        return self.loop(node, env, None, node.target)

    stmt_AsyncFor = stmt_For

    def loop(self, node: ast.While | ast.For, env: Env, test: ast.expr | None,
             target: ast.expr | None) -> Env | None:
        head: Env = env
        exits: list[Env | None] = []
        for iteration in range(MAX_ITERATIONS + 1):
            if iteration == MAX_ITERATIONS:
                head = self.widen(head)
            loop = Loop(len(self.finally_stack))
            self.loops.append(loop)
            entry, exit_ = self.loop_entry(head.copy(), test, target)
            try:
                out = self.block(node.body, entry)
            finally:
                self.loops.pop()
            new_head: Env = join(head, out)
            for e in loop.continues:
                new_head = join(new_head, e)
            if new_head == head or iteration == MAX_ITERATIONS:
                exits = [exit_, *loop.breaks]
                break
            head = new_head
        after_else = self.block(node.orelse, exits[0]) if exits[0] is not None else None
        out_env: Env | None = after_else
        for leaving in exits[1:]:
            out_env = join(out_env, leaving)
        return out_env

    def loop_entry(self, env: Env, test: ast.expr | None, target: ast.expr | None) -> tuple[Env | None, Env | None]:
        """(env entering the body, env leaving the loop normally) at the loop head."""
        if target is not None:
            self.exprs.bind(target, None, env, None)
            return env, env.copy()
        assert test is not None
        try:
            self.exprs.eval(test, env)
        except Unreachable:
            return None, None
        if isinstance(test, ast.Constant) and test.value:
            return env, None
        return self.exprs.refine(env.copy(), test, True), self.exprs.refine(env, test, False)

    def widen(self, env: Env) -> Env:
        """Give up on a loop that has not settled: lose every object it holds."""
        for key in list(env.objs):
            self.exprs.escape(key, env)
        return env

    def stmt_Break(self, node: ast.Break, env: Env) -> None:
        if self.loops:
            out = self.unwind(env, self.loops[-1].finally_depth)
            if out is not None:
                self.loops[-1].breaks.append(out)

    def stmt_Continue(self, node: ast.Continue, env: Env) -> None:
        if self.loops:
            out = self.unwind(env, self.loops[-1].finally_depth)
            if out is not None:
                self.loops[-1].continues.append(out)

    def unwind(self, env: Env, depth: int) -> Env | None:
        """Run the enclosing `finally` blocks down to `depth` (innermost first)."""
        saved = self.finally_stack
        out: Env | None = env.copy()
        try:
            while len(self.finally_stack) > depth and out is not None:
                body = self.finally_stack[-1]
                self.finally_stack = self.finally_stack[:-1]
                out = self.block(body, out)
        finally:
            self.finally_stack = saved
        return out

    def stmt_Try(self, node: ast.Try, env: Env) -> Env | None:
        return blocks.try_statement(self, node, env)

    def stmt_With(self, node: ast.With, env: Env) -> Env | None:
        return blocks.with_statement(self, node, env)

    def stmt_Match(self, node: ast.Match, env: Env) -> Env | None:
        return blocks.match_statement(self, node, env)

    stmt_TryStar = stmt_Try
    stmt_AsyncWith = stmt_With

    # -- leaving the scope -------------------------------------------------------------

    def leave_scope(self, env: Env, returned: Key | None, line: int) -> None:
        """Objects with a --must-call obligation that no variable outside this scope holds
        go out of scope here (a returned object and fields hand the obligation on)."""
        kept = {k for v, k in env.vars.items() if v.startswith("self.")}
        if returned is not None:
            kept.add(returned)
        for key, obj in env.objs.items():
            if key not in kept:
                self.out_of_scope(obj, line)

    def out_of_scope(self, obj: Obj, line: int, dropped: bool = False) -> None:
        if obj.owned and obj.known and obj.protocol.must_call and obj.site is not None:
            self.records.leak(LeakRecord(obj.site, obj.name, obj.protocol, dict(obj.states), self.scope, line,
                                         dropped))

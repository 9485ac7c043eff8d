"""The checker's driver and its function summaries, computed bottom-up on demand.

Every function is analysed once with its parameters' states unknown (its *base*
analysis: it reports on the objects it creates, and says which new object it returns).
A client function's summary for one parameter and one incoming state is one more
analysis with that parameter in exactly that state: whether some call then fails
(`Failure`), in which states the object comes back, whether it is returned, and every
state it passes through. A call site passing an object in states S uses the summaries
of the states in S, so a violation inside a helper is reported where the wrong state
is passed in. Recursion, and objects a helper lets escape, lose the object (no report).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from contractor.check.domain import Env, Event, Obj, Site, join_obj
from contractor.check.flow import Analysis, module_captured
from contractor.check.protocol import Protocol
from contractor.check.records import HelperRecord, Mode, Options
from contractor.check.resolve import Function, Index, Module


@dataclass(frozen=True)
class Failure:
    """A call inside a helper that its incoming state makes fail."""

    site: Site  # the failing call
    method: str
    text: str  # its receiver, as written there
    protocol: Protocol
    states: dict[str, Event | None]  # the receiver's states there that do not enable it
    via: tuple[Site, ...] = ()  # the helper calls leading there, outermost first


@dataclass(frozen=True)
class Summary:
    failure: Failure | None
    exits: dict[str, Event | None] | None  # states on normal return; None: the helper loses the object
    returns_param: bool
    seen: frozenset[str]


def disabled(protocol: Protocol, method: str, states: dict[str, Event | None], mode: Mode) -> dict[str, Event | None]:
    """The states that make a call of `method` a violation in `mode` (empty: none): sound,
    a state where it may be disabled (undecided there counts); complete, every state, where
    it is surely disabled."""
    if mode is Mode.COMPLETE:
        bad = {s: e for s, e in states.items() if method not in protocol.enabled[s]}
        return bad if len(bad) == len(states) else {}
    return {s: e for s, e in states.items() if method not in protocol.surely[s]}


class Checker:
    """Analyses the modules of an `Index`, caching base analyses and summaries."""

    def __init__(self, index: Index, options: Options):
        self.index = index
        self.options = options
        self.mode = options.mode
        self.analyses: list[Analysis] = []  # the base analyses (module top levels, functions)
        self._base: dict[int, Analysis | None] = {}
        self._summaries: dict[tuple[int, int, int, str], Summary | None] = {}
        self._pending: list[tuple[Module, Function]] = []
        self._owner: dict[int, Module] = dict(index.owner)
        self._raises: dict[int, bool] = {}
        self._captured: dict[int, set[str]] = {}
        self._class_of: dict[int, ast.ClassDef] = {}  # method -> its class

    # -- driving -----------------------------------------------------------------------

    def run(self) -> None:
        for module in self.index.modules:
            analysis = Analysis(self, module, module.path, "the module", module.tree.body)
            analysis.run(Env())
            self.analyses.append(analysis)
            while self._pending:
                self.base(*self._pending.pop())

    def nested(self, module: Module, function: Function, klass: ast.ClassDef | None = None) -> None:
        """A function (or a method of `klass`) met in a body: give it a base analysis."""
        self._owner.setdefault(id(function), module)
        if klass is not None:
            self._class_of[id(function)] = klass
        if id(function) not in self._base:
            self._pending.append((module, function))

    def sibling(self, function: Function | None, name: str) -> Function | None:
        """The method `name` of the class whose method `function` is (for `self.name(...)`),
        when it is a plain method (not a static or class method, not a property)."""
        klass = self._class_of.get(id(function)) if function is not None else None
        if klass is None:
            return None
        for item in klass.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                return None if item.decorator_list else item
        return None

    def unknown(self, protocol: Protocol) -> Obj:
        """An object whose state nobody told us: any state, reported only under --strict."""
        return Obj(protocol, {s: None for s in protocol.states}, self.options.strict)

    def analyse(self, module: Module, function: Function, given: dict[int, Obj]) -> Analysis:
        args = function.args.posonlyargs + function.args.args
        atoms = frozenset(f"param:{i}" for i in given)
        analysis = Analysis(self, module, module.path, f"{function.name}()", function.body, atoms)
        analysis.function = function
        env = Env()
        for i, arg in enumerate(args + function.args.kwonlyargs):
            obj = given.get(i)
            if obj is None and arg.annotation is not None:
                protocol = self.index.class_of(module, arg.annotation, annotation=True)
                obj = self.unknown(protocol) if protocol is not None else None
            if obj is not None and not analysis.untrackable(arg.arg):
                key = frozenset({f"param:{i}"})
                env.vars[arg.arg] = key
                env.objs[key] = Obj(obj.protocol, obj.states, obj.known, obj.owned, obj.site, arg.arg)
        analysis.run(env)
        return analysis

    def base(self, module: Module, function: Function) -> Analysis | None:
        if id(function) not in self._base:
            self._base[id(function)] = None  # in progress (recursion)
            analysis = self.analyse(module, function, {})
            self._base[id(function)] = analysis
            self.analyses.append(analysis)
        return self._base[id(function)]

    # -- summaries ---------------------------------------------------------------------

    def module_captured(self, body: list[ast.stmt]) -> set[str]:
        if id(body) not in self._captured:
            self._captured[id(body)] = module_captured(body)
        return self._captured[id(body)]

    def raises(self, function: Function) -> bool:
        """Whether the function's body has an explicit raise or assert (an exceptional edge)."""
        if id(function) not in self._raises:
            self._raises[id(function)] = any(isinstance(n, (ast.Raise, ast.Assert)) for n in ast.walk(function))
        return self._raises[id(function)]

    def returned(self, function: Function) -> Obj | None:
        """The new object `function` returns (its base analysis), or None."""
        analysis = self.base(self._owner[id(function)], function)
        if analysis is None:
            return None
        made: Obj | None = None
        for env, key in analysis.returns:
            if key is None:
                continue
            obj = env.objs.get(key)
            if obj is None or any(atom.startswith("param:") for atom in key):
                return None
            made = join_obj(made, obj)
        return made

    def summary(self, function: Function, index: int, state: str, protocol: Protocol) -> Summary | None:
        cache_key = (id(function), index, id(protocol), state)
        if cache_key in self._summaries:
            return self._summaries[cache_key]
        self._summaries[cache_key] = None  # in progress: a recursive call loses the object
        analysis = self.analyse(self._owner[id(function)], function, {index: Obj(protocol, {state: None})})
        atom = f"param:{index}"
        found: dict[str, Event | None] = {}
        exits: dict[str, Event | None] | None = found
        returns_param = False
        for env, returned in analysis.returns:
            held = [k for k in env.objs if atom in k]
            if atom in analysis.escaped or not held:
                exits = None
                break
            for k in held:
                found = {**found, **{s: e for s, e in env.objs[k].states.items() if s not in found}}
            exits = found
            returns_param |= returned is not None and atom in returned
        summary = Summary(self.failure(analysis, atom), exits, returns_param,
                          frozenset(analysis.seen.get(atom, ())))
        self._summaries[cache_key] = summary
        return summary

    def failure(self, analysis: Analysis, atom: str) -> Failure | None:
        found: list[Failure] = []
        for rec in analysis.records.calls.values():
            if atom in rec.roots:
                bad = disabled(rec.protocol, rec.method, rec.states, self.mode)
                if bad:
                    found.append(Failure(rec.site, rec.method, rec.text, rec.protocol, bad))
        for helper in analysis.records.helpers.values():
            if atom in helper.roots:
                judged = self.judge_helper(helper)
                if judged is not None:
                    inner = judged[1]
                    found.append(Failure(inner.site, inner.method, inner.text, inner.protocol, inner.states,
                                         (helper.site,) + inner.via))
        return min(found, key=_order) if found else None

    def judge_helper(self, rec: HelperRecord) -> tuple[dict[str, Event | None], Failure] | None:
        """(the incoming states that make the helper fail, the first failure) in this mode."""
        bad: dict[str, Event | None] = {}
        first: Failure | None = None
        for s, event in sorted(rec.states.items()):
            summary = self.summary(rec.callee, rec.index, s, rec.protocol)
            if summary is not None and summary.failure is not None:
                bad[s] = event
                first = first or summary.failure
        if first is None or (self.mode is Mode.COMPLETE and len(bad) < len(rec.states)):
            return None
        return bad, first

    def helper_ok(self, rec: HelperRecord):
        """For the enabling sequence: does the helper succeed from this state?"""
        def ok(state: str) -> bool:
            summary = self.summary(rec.callee, rec.index, state, rec.protocol)
            return summary is None or summary.failure is None
        return ok


def _order(failure: Failure) -> tuple[int, int]:
    first = failure.via[0] if failure.via else failure.site
    return first.line, first.col

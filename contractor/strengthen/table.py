"""The per-method state table of a typestate: where each action is enabled and where it leads.

This is all the strengthened class needs to know about the typestate; the renderers
read it, never the raw `Typestate`.
"""

from __future__ import annotations

import ast
from collections import deque
from dataclasses import dataclass

from contractor.errors import InputError
from contractor.typestate import State, Typestate


@dataclass(frozen=True)
class MethodTable:
    """One action: the states enabling it and, from each, the states it can lead to."""

    name: str
    enabled_in: tuple[str, ...]  # state ids, in typestate order
    next: dict[str, tuple[str, ...]]  # source id -> target ids (must and may), typestate order

    @property
    def deterministic(self) -> bool:
        return all(len(targets) == 1 for targets in self.next.values())

    @property
    def constant_target(self) -> str | None:
        """The one target reached from every enabling state, if there is exactly one."""
        targets = {t for ts in self.next.values() for t in ts}
        if self.deterministic and len(targets) == 1 and set(self.next) == set(self.enabled_in):
            return next(iter(targets))
        return None


@dataclass(frozen=True)
class StateTable:
    class_name: str
    states: tuple[State, ...]
    methods: dict[str, MethodTable]  # by action name, sorted
    inits: dict[str, tuple[str, ...]]  # constructor -> initial state ids
    transitions: int

    @property
    def needs_invariants(self) -> tuple[str, ...]:
        """States whose invariant the generated code evaluates (non-deterministic choices)."""
        ids: set[str] = set()
        for table in self.methods.values():
            ids.update(t for ts in table.next.values() if len(ts) > 1 for t in ts)
        ids.update(t for ts in self.inits.values() if len(ts) > 1 for t in ts)
        return tuple(s.id for s in self.states if s.id in ids)

    @property
    def nondeterministic(self) -> bool:
        return bool(self.needs_invariants) or any(
            len(ts) != 1 for t in self.methods.values() for ts in t.next.values())

    def enabling_calls(self, state: str, method: str) -> list[str] | None:
        """The shortest call sequence from `state` to a state enabling `method` (BFS).

        Neighbours are visited in sorted method order, so the answer is stable. None if
        no sequence enables it. The generated module repeats this search at run time.
        """
        enabled = {s.id: s.enabled for s in self.states}
        paths: dict[str, list[str]] = {state: []}
        queue = deque([state])
        while queue:
            source = queue.popleft()
            if method in enabled[source]:
                return paths[source]
            for m in enabled[source]:
                for target in self.methods[m].next.get(source, ()) if m in self.methods else ():
                    if target not in paths:
                        paths[target] = paths[source] + [m]
                        queue.append(target)
        return None


def build_table(typestate: Typestate, actions: tuple[str, ...] | None = None) -> StateTable:
    """Index `typestate` by method; check that every invariant the code will evaluate parses.

    `actions`, if given, are the class's actions: every method of the typestate must be
    one of them (else the typestate belongs to another version of the class).
    """
    if not typestate.states:
        raise InputError(f"the typestate of {typestate.class_name} has no states", construct="typestate")
    if not typestate.complete:
        raise InputError(f"the typestate of {typestate.class_name} is partial (its exploration stopped early); "
                         "strengthening with it would reject calls the class allows", construct="typestate")
    names = {s.id for s in typestate.states}
    if actions is not None:
        missing = sorted(set(typestate.methods) - set(actions))
        if missing:
            raise InputError(
                f"the typestate of {typestate.class_name} names methods the class does not have "
                f"as actions: {', '.join(missing)} (was it inferred from another version?)",
                construct="typestate")
    order = {s.id: i for i, s in enumerate(typestate.states)}
    for t in typestate.transitions:
        if t.source not in names or t.target not in names:
            raise InputError(f"transition {t.source} --{t.method}--> {t.target} names an unknown state",
                             construct="typestate")
    methods: dict[str, MethodTable] = {}
    for m in sorted(typestate.methods):
        nxt: dict[str, set[str]] = {}
        for t in typestate.transitions:
            if t.method == m:
                nxt.setdefault(t.source, set()).add(t.target)
        enabled_in = tuple(s.id for s in typestate.states if m in s.enabled)
        methods[m] = MethodTable(
            m, enabled_in,
            {src: tuple(sorted(ts, key=order.__getitem__))
             for src, ts in sorted(nxt.items(), key=lambda kv: order[kv[0]])})
    inits: dict[str, set[str]] = {}
    for i in typestate.initializations:
        if i.target not in names:
            raise InputError(f"initialization by {i.constructor} names an unknown state {i.target}",
                             construct="typestate")
        inits.setdefault(i.constructor, set()).add(i.target)
    if not inits and typestate.initial:
        inits["__init__"] = set(typestate.initial)
    table = StateTable(
        typestate.class_name, typestate.states, methods,
        {c: tuple(sorted(ts, key=order.__getitem__)) for c, ts in inits.items()},
        len(typestate.transitions))
    for sid in table.needs_invariants:
        _check_invariant(typestate.state(sid))
    return table


def _check_invariant(state: State) -> None:
    """The state's invariant must be executable: a call that can lead to several states
    evaluates it to choose the new one."""
    where = f"state {state.id} (enabled: {', '.join(state.enabled) or 'nothing'})"
    if state.executable is None or not state.executable.strip():
        shown = f" (it is only known as {state.invariant!r})" if state.invariant.strip() else ""
        raise InputError(
            f"cannot strengthen: a call can lead to {where} or another state, and no Python "
            f"expression over the object's fields tells {state.id} apart{shown}; the generated class "
            "could not choose its new state (write a parameter in the precondition as bounds, "
            "`p in <collection>` or `p == <expression>`, or exclude the method with --exclude)",
            construct="state invariant")
    try:
        ast.parse(state.executable, mode="eval")
    except SyntaxError as e:
        raise InputError(f"the invariant of {where} is not a Python expression: {state.executable!r} ({e.msg})",
                         construct="state invariant") from None

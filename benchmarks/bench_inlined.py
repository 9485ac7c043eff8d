"""How much of a class's translation is spent re-translating the class's own methods where
they are inlined (z3backend/inline.py): the upper bound of what a callee summary
(translated once, instantiated at each call site) could save.

Runs `python -m contractor infer ARGS...` in this process with `InlineCalls.invoke`
timed (wall clock, perf_counter; one run, so compare figures of one run with each other):
every method run on its own (depth 0, the root: its raise guard and transitions) and
every inlined call (depth 1 and more) with the root it is inlined in. Printed: each
root's translation with its inlined calls to `--depth` (calls under 20 ms left out), the
time in outermost inlined calls, the time in inlined calls of methods that are roots too
(translated on their own as well: what re-running them costs, each counted once), and
per callee its inlined calls' count and inclusive time (nested calls counted again in
their callers); then how many of each callee's calls depend on more than the terms of
the fields and arguments they start from, and on what (`watch_impure`): where a summary
of the callee, instantiated by substitution, would not be what inlining makes.

    PYTHONPATH=TREE python benchmarks/bench_inlined.py [--depth 3] infer smtplib:SMTP --backend z3 -q --out DIR
"""

from __future__ import annotations

import collections
import sys
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Call:
    """One run of `InlineCalls.invoke`: the root method it belongs to, its depth, callee, time."""

    root: str
    depth: int
    method: str
    seconds: float = 0.0
    # what in it (or in a call it made) depends on more than the fields' and arguments'
    # terms, so that a summary of the callee would not be the same (see `watch_impure`)
    impure: set[str] = field(default_factory=set)


def timed_invoke(calls: list[Call], running: list[Call]) -> None:
    """Wrap InlineCalls.invoke so that each call appends its Call to `calls` (`running`:
    the calls under way, innermost last)."""
    from contractor.z3backend import inline

    original = inline.InlineCalls.invoke

    def invoke(self: Any, method: Any, oid: int, bound: dict[str, Any], enforce_pre: bool) -> Any:
        call = Call(self.root[0] if self.root else method.name, self.state.depth, method.name)
        calls.append(call)
        running.append(call)
        start = time.perf_counter()
        try:
            return original(self, method, oid, bound, enforce_pre)
        finally:
            call.seconds = time.perf_counter() - start
            running.pop()

    inline.InlineCalls.invoke = invoke  # type: ignore[method-assign]


def watch_impure(running: list[Call]) -> None:
    """Note on every call under way what makes its translation depend on more than the
    terms of the fields and arguments it starts from: `feasible` (a question to the
    root method's assumptions: how far a loop unrolls), `unknown` (an untranslated path:
    the fields the root may write are made arbitrary), `recursion` (a call cut by the
    call stack), `dead` (a path pruned by simplifying the actual terms), `alloc` (a new
    object's id)."""
    from contractor.errors import UnsupportedConstruct
    from contractor.z3backend import executor, inline, state

    def note(what: str) -> None:
        for c in running:
            if c.depth >= 1:
                c.impure.add(what)

    feasible, mark_unknown, alive = executor.Executor.feasible, executor.Executor.mark_unknown, executor.Executor.alive
    call_method, new_object = inline.InlineCalls.call_method, state.ExecState.new_object

    def feasible_noted(self: Any, *a: Any, **k: Any) -> bool:
        note("feasible")
        return feasible(self, *a, **k)

    def unknown_noted(self: Any, *a: Any, **k: Any) -> None:
        note("unknown")
        mark_unknown(self, *a, **k)

    def alive_noted(self: Any) -> bool:
        live = alive(self)
        if not live:
            note("dead")
        return live

    def call_noted(self: Any, *a: Any, **k: Any) -> Any:
        try:
            return call_method(self, *a, **k)
        except UnsupportedConstruct as err:
            if "recursion" in err.construct:
                note("recursion")
            raise

    def new_noted(self: Any, fields: Any) -> int:
        note("alloc")
        return new_object(self, fields)

    executor.Executor.feasible = feasible_noted  # type: ignore[method-assign]
    executor.Executor.mark_unknown = unknown_noted  # type: ignore[method-assign]
    executor.Executor.alive = alive_noted  # type: ignore[method-assign]
    inline.InlineCalls.call_method = call_noted  # type: ignore[method-assign]
    state.ExecState.new_object = new_noted  # type: ignore[method-assign]


def report(calls: list[Call], depth: int) -> None:
    roots = sum(c.seconds for c in calls if c.depth == 0)
    outermost = sum(c.seconds for c in calls if c.depth == 1)
    for c in calls:
        if c.depth == 0 or (c.depth <= depth and c.seconds >= 0.02):
            print(f"{'  ' * c.depth}{c.method} {c.seconds:.3f}")
    print(f"roots' translations {roots:.2f} s, of which in inlined calls (outermost) {outermost:.2f} s")
    print(f"in inlined calls of methods also translated as roots (outermost such) {_repeated(calls):.2f} s")
    total: dict[str, float] = collections.defaultdict(float)
    count: collections.Counter[str] = collections.Counter()
    for c in calls:
        if c.depth >= 1:
            total[c.method] += c.seconds
            count[c.method] += 1
    print("inlined, inclusive: " + ", ".join(f"{m} x{count[m]} {s:.2f} s"
                                               for m, s in sorted(total.items(), key=lambda x: -x[1])))
    pure = sum(c.seconds for c in calls if c.depth >= 1 and not c.impure)
    print(f"inlined calls depending on the fields and arguments alone: {pure:.2f} s (inclusive); the others:")
    reasons: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for c in calls:
        if c.depth >= 1:
            reasons[c.method].update(c.impure or {"pure"})
    for m in sorted(reasons, key=lambda m: -total[m]):
        print(f"  {m} x{count[m]}: " + ", ".join(f"{r} {n}" for r, n in sorted(reasons[m].items())))


def _repeated(calls: list[Call]) -> float:
    """Seconds in inlined calls of methods that are roots too, each counted once (not
    again inside another such call)."""
    roots = {c.method for c in calls if c.depth == 0}
    seconds = 0.0
    inside = -1  # depth of the repeated call being counted, -1: none
    for c in calls:  # in call order: a call's nested calls follow it
        if inside >= 0 and c.depth > inside:
            continue
        inside = -1
        if c.depth >= 1 and c.method in roots:
            seconds += c.seconds
            inside = c.depth
    return seconds


def main(argv: list[str]) -> None:
    depth = 3
    if argv[:1] == ["--depth"]:
        depth, argv = int(argv[1]), argv[2:]
    calls: list[Call] = []
    running: list[Call] = []
    timed_invoke(calls, running)
    watch_impure(running)
    from contractor.cli import main as cli

    try:
        cli(argv, standalone_mode=False)
    finally:
        report(calls, depth)


if __name__ == "__main__":
    main(sys.argv[1:])

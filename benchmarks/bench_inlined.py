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
their callers).

    PYTHONPATH=TREE python benchmarks/bench_inlined.py [--depth 3] infer smtplib:SMTP --backend z3 -q --out DIR
"""

from __future__ import annotations

import collections
import sys
import time
from dataclasses import dataclass
from typing import Any


@dataclass
class Call:
    """One run of `InlineCalls.invoke`: the root method it belongs to, its depth, callee, time."""

    root: str
    depth: int
    method: str
    seconds: float = 0.0


def timed_invoke(calls: list[Call]) -> None:
    """Wrap InlineCalls.invoke so that each call appends its Call to `calls`."""
    from contractor.z3backend import inline

    original = inline.InlineCalls.invoke

    def invoke(self: Any, method: Any, oid: int, bound: dict[str, Any], enforce_pre: bool) -> Any:
        call = Call(self.root[0] if self.root else method.name, self.state.depth, method.name)
        calls.append(call)
        start = time.perf_counter()
        try:
            return original(self, method, oid, bound, enforce_pre)
        finally:
            call.seconds = time.perf_counter() - start

    inline.InlineCalls.invoke = invoke  # type: ignore[method-assign]


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
    timed_invoke(calls)
    from contractor.cli import main as cli

    try:
        cli(argv, standalone_mode=False)
    finally:
        report(calls, depth)


if __name__ == "__main__":
    main(sys.argv[1:])

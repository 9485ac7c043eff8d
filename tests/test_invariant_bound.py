"""An invariant with an aggregate past --unroll is followed within the bound (invregion.py):
calls on objects within it, before and after, give must-transitions with real witnesses;
the rest may, naming the bound. The soundness side is the semantic case
`invariant_aggregate_past_the_bound` (tests/semantic_collection_cases.py), against the
brute force; here, the precision that was lost (every answer of such a class was may)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from semantic_collection_cases import COLLECTION_CASES

from contractor.api import InferOptions, infer
from contractor.model import PreconditionMode
from contractor.outputs.summary import to_text

CASE = next(c for c in COLLECTION_CASES if c.name == "invariant_aggregate_past_the_bound")

# CrossHair's own example (crosshair/examples/PEP316/correct_code/rolling_average.py)
ROLLING = '''
from typing import List


class AverageableStack:
    """
    A stack of numbers with a O(1) average() operation.

    inv: self._total == sum(self._values)
    """

    _values: List[int]
    _total: int

    def __init__(self):
        self._values = []
        self._total = 0

    def push(self, val: int):
        """post: True"""
        self._values.append(val)
        self._total += val

    def pop(self) -> int:
        """
        pre: self._values
        """
        val = self._values.pop()
        self._total -= val
        return val

    def average(self) -> float:
        """pre: self._values"""
        return self._total / len(self._values)
'''


def test_within_the_bound_must_past_it_may(tmp_path: Path) -> None:
    path = tmp_path / "agg.py"
    path.write_text(textwrap.dedent(CASE.source))
    ts = infer(f"{path}:C", InferOptions(backend="z3", unroll=2))

    def state(n_items: str) -> set[str]:
        return {s.id for s in ts.states if f"len(self.xs) {n_items}" in s.invariant}

    moves = {(t.source, t.method, t.target): t for t in ts.transitions}
    inside = [t for (a, _, b), t in moves.items() if not (state("== 3") | state("== 4")) & {a, b}]
    outside = [t for (a, _, b), t in moves.items() if (state("== 3") | state("== 4")) & {a, b}]
    assert inside and outside
    assert any(t.certainty == "must" and t.witness for t in inside if t.method in ("add", "drop"))
    assert all(t.certainty == "may" for t in outside)
    assert any("followed within --unroll only" in (t.reason or "") for t in outside)
    assert any(u.method == "invariant" and "exact within the bound" in u.detail for u in ts.unknowns)


def test_crosshair_rolling_average_is_all_must(tmp_path: Path) -> None:
    path = tmp_path / "rolling_average.py"
    path.write_text(ROLLING)
    ts = infer(f"{path}:AverageableStack", InferOptions(backend="z3"))
    assert ts.complete and len(ts.states) == 2 and len(ts.transitions) == 5
    assert all(t.certainty == "must" for t in ts.transitions), [(t.method, t.reason) for t in ts.transitions]
    # the summary says so: not "their queries gave may-answers" of the invariant's aggregate
    summary = to_text(ts)
    assert "Not translated (1; the answers that depend on them are may):" in summary, summary
    assert "exact within the bound (answers about objects there are must), not past it (may)" in summary


TALLY = '''
class Tally:
    """
    inv: self.total == sum(self.items)
    """

    def __init__(self) -> None:
        self.items: list[int] = []
        self.total: int = 0

    def add(self, v: int) -> None:
        self.items.append(v)
        self.total += v
'''

BREAKS = TALLY + '''
    def corrupt(self) -> None:
        self.total += 1
'''


def test_breaking_the_invariant_is_found_within_the_bound_and_said_unchecked_past_it(tmp_path: Path) -> None:
    """checks.bounded_invariant_finding: `corrupt` breaks the invariant on every object; the
    finding comes with a counterexample within the bound, replayed here on a real object.
    `add` keeps it within the bound, and past the bound nothing was checked: an unknown
    finding names the method (the differential test's generated classes met both cases)."""
    path = tmp_path / "tally.py"
    path.write_text(BREAKS)
    ts = infer(f"{path}:Tally", InferOptions(backend="z3", unroll=2))
    breaks = {f.method: f for f in ts.findings if f.kind.value == "breaks_invariant"}
    assert set(breaks) == {"corrupt"}
    cx = breaks["corrupt"].counterexample
    assert cx is not None
    namespace: dict[str, object] = {}
    exec(compile(BREAKS, str(path), "exec"), namespace)  # the class itself, run concretely
    obj = object.__new__(namespace["Tally"])  # type: ignore[call-overload]
    obj.__dict__.update(cx["fields"])
    assert obj.total == sum(obj.items)  # the example object meets the invariant
    obj.corrupt()
    assert obj.total != sum(obj.items)  # and the call breaks it
    unknown = [f for f in ts.findings if f.kind.value == "unknown" and f.method == "add"]
    assert unknown and "past the bound" in unknown[0].message
    assert not [f for f in ts.findings if f.kind.value == "unknown" and f.method == "__init__"]  # [] only


NEVER = TALLY + '''
    def big(self) -> None:
        if len(self.items) < 5:
            raise ValueError("not yet")

    def broken(self) -> None:
        raise NotImplementedError("never")
'''


def test_never_enabled_within_the_bound_is_said_unchecked_past_it(tmp_path: Path) -> None:
    """checks.bounded_never_enabled: `big` is enabled on no object within --unroll 2 but on
    real objects past it (five adds, run below): an unknown finding, never a wrong
    never_enabled; `broken` raises on every object: never_enabled (the differential test
    met a generated class where it was silently missing)."""
    path = tmp_path / "tally.py"
    path.write_text(NEVER)
    ts = infer(f"{path}:Tally", InferOptions(backend="z3", unroll=2, preconditions=PreconditionMode.BOTH))
    never = {f.method for f in ts.findings if f.kind.value == "never_enabled"}
    assert never == {"broken"}
    assert any(f.kind.value == "unknown" and f.method == "big" and "past the bound" in f.message
               for f in ts.findings)
    namespace: dict[str, object] = {}
    exec(compile(NEVER, str(path), "exec"), namespace)
    obj = namespace["Tally"]()  # type: ignore[operator]
    for v in range(5):
        obj.add(v)
    obj.big()  # enabled past the bound: not never enabled

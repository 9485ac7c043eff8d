"""Term builders leave no z3 term in Python's cyclic garbage.

A z3 term held by a reference cycle (a nested function calling itself through its
closure, with a memo of terms) is freed only when Python's cycle collector runs, and z3
hands the freed ids to the next terms it makes: its searches, and so the witnesses of a
run, then changed with any change to how many Python objects the run allocated (one
more list per witness changed 2,000 lines of zipfile.ZipFile's typestate.json). These
builders run thousands of times a run (opaque.py's projections of every untyped value);
each must free its terms by reference counting alone.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import z3

from contractor.z3backend import opaque as O
from contractor.z3backend.boolcompact import compact


@contextmanager
def cyclic_terms() -> Iterator[list[int]]:
    """Counts the z3 terms the cycle collector finds among what the block left behind."""
    found: list[int] = []
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield found
        gc.collect()
        found.append(sum(isinstance(o, z3.AstRef) for o in gc.garbage))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def _left(build: Callable[[], object]) -> int:
    with cyclic_terms() as found:
        build()
    return found[0]


def test_the_cycle_check_sees_a_self_calling_closure() -> None:
    def holder() -> z3.BoolRef:
        memo = {0: z3.Bool("kept")}

        def go(n: int) -> z3.BoolRef:
            return memo[0] if n == 0 else go(n - 1)

        return go(2)

    assert _left(holder) >= 1


def test_projections_of_untyped_values_free_their_terms() -> None:
    c, d = z3.Bools("c d")
    a, b = O.fresh_well_formed("a"), O.fresh_well_formed("b")
    merged = z3.If(c, a, z3.If(d, b, z3.Const("raw", O.SORT)))
    assert _left(lambda: [read(merged) for read in (O.oid, O.is_none, O.truth)]) == 0


def test_compacted_formulas_free_their_terms() -> None:
    p, q, r = z3.Bools("p q r")
    raised = z3.BoolVal(False)
    for test in (z3.And(p, z3.Not(q)), z3.And(q, r), z3.And(r, z3.Not(p)), z3.And(p, q, r)) * 4:
        raised = z3.Or(raised, z3.And(z3.Not(raised), test))
    assert _left(lambda: compact(z3.Not(raised))) == 0


RUN_WITH_GC = """
import gc, sys
threshold = sys.argv.pop(1)
if threshold == "off":
    gc.disable()
else:
    gc.set_threshold(int(threshold))
from contractor.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
"""


@pytest.mark.slow  # two runs of zipfile.ZipFile, about 10 s each
def test_a_run_writes_the_same_whenever_the_cycle_collector_runs(tmp_path: Path) -> None:
    """zipfile.ZipFile's typestate with the cycle collector off and run every 100
    allocations: before opaque._projected, 5,964 lines of their typestate.json differed
    (witnesses, may-reasons); now none."""
    script = tmp_path / "run_with_gc.py"
    script.write_text(RUN_WITH_GC)
    root = Path(__file__).resolve().parent.parent
    written = []
    for threshold in ("off", "100"):
        out = tmp_path / threshold
        env = {**os.environ, "PYTHONPATH": str(root), "PYTHONHASHSEED": "0"}
        subprocess.run([sys.executable, str(script), threshold, "infer", "zipfile:ZipFile", "--backend", "z3",
                        "-q", "--out", str(out)], env=env, cwd=tmp_path, check=True, timeout=600)
        data = json.loads((out / "typestate.json").read_text())
        data["stats"].pop("seconds", None)
        written.append(data)
    assert written[0] == written[1]

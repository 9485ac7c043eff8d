"""Answers reused across states (z3backend/reuse.py) change nothing but the query count.

The z3 backend with reuse on must give exactly the typestate it gives with reuse off
(every (state, method) pair one whole query): same states with the same invariants, same
transitions with the same certainty and reason, same findings, on generated classes
(tests/classgen.py), on every sample, and on classes built to split into many parts.
Witnesses may differ (any model will do); the differential test replays them.
On the flags family the exploration's queries grow with N, not with 2^N.
"""

from __future__ import annotations

import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from classgen import UNROLL, Generated, classes
from hypothesis import HealthCheck, Phase, example, given, settings
from shared_runs import SEEN, SEQUENTIAL, SequentialRun, SequentialRuns

from contractor.api import InferOptions, load_model
from contractor.explore import explore
from contractor.typestate import FindingKind, Typestate
from contractor.z3backend import Z3Backend

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from flags import flags_source  # noqa: E402

Z3_SAMPLES = sorted(p.name for p in (ROOT / "samples").glob("*.py"))

# Fields in separate parts, parameters, an invariant linking two fields, a method writing
# one field from another, an untouched Optional, an Enum and a method with no precondition.
SPLIT = textwrap.dedent('''\
    import enum
    from typing import Optional


    class Mode(enum.Enum):
        IDLE = 0
        BUSY = 1


    class Parts:
        """
        inv: 0 <= self.n <= 1
        inv: self.lo <= self.hi
        """

        def __init__(self) -> None:
            self.n = 0
            self.lo = 0
            self.hi = 0
            self.flag = False
            self.name: Optional[int] = None
            self.mode = Mode.IDLE

        def add(self, k: int) -> None:
            """pre: 0 < k and self.n + k <= 1"""
            self.n += k

        def reset(self) -> None:
            """pre: self.n > 0"""
            self.n = 0

        def widen(self) -> None:
            """pre: self.hi < 1"""
            self.hi += 1

        def narrow(self) -> None:
            """pre: self.lo < self.hi"""
            self.lo += 1

        def toggle(self) -> None:
            self.flag = not self.flag

        def copy_flag(self) -> None:
            """pre: self.n == 1"""
            self.flag = self.n > 1

        def rename(self, s: int) -> None:
            """pre: self.name is None and s > 0"""
            self.name = s

        def work(self) -> None:
            """pre: self.mode == Mode.IDLE and self.flag"""
            self.mode = Mode.BUSY

        def rest(self) -> None:
            """pre: self.mode == Mode.BUSY"""
            self.mode = Mode.IDLE
    ''')


def comparable(ts: Typestate, undecided: frozenset = frozenset()) -> tuple:
    """Everything of a typestate but witnesses, counterexamples' models and timings. The line
    of a may_raise finding is its counterexample's raise site: where a method can raise at
    several places, which one the model shows is not part of the answer. A finding check
    one run could not decide (an unknown finding at `undecided`'s (method, line); z3's
    incomplete answers depend on the process's history) is left out of both."""
    return (ts.states,
            [(t.source, t.method, t.target, t.certainty, t.backend, t.reason) for t in ts.transitions],
            [(i.constructor, i.target, i.certainty, i.reason) for i in ts.initializations],
            [(f.kind, f.method, f.state, None if f.kind is FindingKind.MAY_RAISE else f.line)
             for f in ts.findings if (f.method, f.line) not in undecided],
            ts.unknowns, ts.complete)


def both(path: Path, target: str, unroll: int = 8,
         shared: SequentialRun | None = None) -> tuple[Typestate, Typestate]:
    """The typestates with reuse off and on; `shared`: the run with reuse on (the session's
    sequential run of the class, tests/shared_runs.py, whose options these are), else
    explored here."""
    model = shared.model if shared else load_model(f"{path}:{target}", InferOptions(backend="z3"))
    # a generous per-query limit (queries here take milliseconds): on a loaded machine a query
    # of one run timing out (a may-answer) and its twin of the other not would be a difference
    # of load, not of reuse. Not more: a few generated classes hold a finding check z3 cannot
    # decide at all (an unknown finding, left out of the comparison), paid twice per class
    reference = Z3Backend(model, unroll=unroll, timeout=SEQUENTIAL.timeout, reuse=False)
    if shared:
        assert unroll == SEQUENTIAL.unroll
        reference.sem = shared.backend.sem  # one translation for both (below)
        return explore(model, reference), shared.typestate
    backend = Z3Backend(model, unroll=unroll, timeout=SEQUENTIAL.timeout, reuse=True)
    # one translation for both: quantifier elimination has a time limit, and a loaded
    # machine could make it succeed for one backend and not the other
    backend.sem = reference.sem
    return explore(model, reference), explore(model, backend)


def assert_same(path: Path, target: str, unroll: int = 8,
                shared: SequentialRun | None = None) -> tuple[Typestate, Typestate]:
    plain, reused = both(path, target, unroll, shared)
    undecided = frozenset((f.method, f.line) for f in plain.findings + reused.findings
                          if f.kind is FindingKind.UNKNOWN)
    for what, a, b in zip(("states", "transitions", "initializations", "findings", "unknowns", "complete"),
                          comparable(plain, undecided), comparable(reused, undecided)):
        assert a == b, f"{target}: reuse changed the {what}:\n{a}\n!=\n{b}\n{path.read_text()}"
    return plain, reused


# Samples no method of which splits into parts (every query is asked whole, reuse on or
# off) run in the full suite (CI); the quick loop has SEEN (tests/shared_runs.py) for them.
UNSPLIT_SAMPLES = ("router.py", "session_pool.py", "tag_set.py")


def test_an_unsplit_set_class_is_unchanged(tmp_path: Path, sequential_z3: SequentialRuns) -> None:
    path = tmp_path / "seen.py"
    path.write_text(SEEN)
    plain, _ = assert_same(path, "Seen", shared=sequential_z3(path, "Seen"))
    assert len(plain.states) >= 3


@pytest.mark.parametrize("sample", [pytest.param(s, marks=[pytest.mark.slow] if s in UNSPLIT_SAMPLES else [])
                                    for s in Z3_SAMPLES])
def test_samples_are_unchanged(sample: str, sequential_z3: SequentialRuns) -> None:
    path = ROOT / "samples" / sample
    tree = __import__("ast").parse(path.read_text())
    for name in [n.name for n in tree.body if n.__class__.__name__ == "ClassDef"]:
        model = load_model(f"{path}:{name}", InferOptions(backend="z3"))
        if model.actions:
            assert_same(path, name, shared=sequential_z3(path, name))


def test_a_class_of_many_parts_is_unchanged_and_asks_fewer_queries(tmp_path: Path) -> None:
    path = tmp_path / "parts.py"
    path.write_text(SPLIT)
    plain, reused = assert_same(path, "Parts")
    assert len(plain.states) > 20
    assert reused.stats.exploration_queries < plain.stats.exploration_queries / 2


def _generated_unchanged(generated: Generated) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "generated.py"
        path.write_text(generated.source)
        assert_same(path, "C", unroll=UNROLL)


# Most generated methods split into 2-6 parts (a few, with quantified enabledness, are
# asked whole): the two runs take different routes to the same typestate.
@pytest.mark.slow  # about 15 s
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(classes())
def test_generated_classes_are_unchanged(generated: Generated) -> None:
    _generated_unchanged(generated)


# 80 classes, each explored twice (120 took 760 s at load 4 on 2 cores; the classes with
# set and dict fields cost the most); the per-test limit leaves room for CI load
@pytest.mark.slow
@pytest.mark.timeout(1800)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(classes())
@example(Generated(SPLIT.replace("class Parts", "class C"), {}, {}))
def test_many_generated_classes_are_unchanged(generated: Generated) -> None:
    _generated_unchanged(generated)


def test_flags_queries_grow_with_n_not_with_the_states(tmp_path: Path) -> None:
    per_pair = {}
    for n in (4, 6, 8):
        path = tmp_path / f"flags{n}.py"
        path.write_text(flags_source(n))
        model = load_model(f"{path}:Flags{n}", InferOptions(backend="z3"))
        ts = explore(model, Z3Backend(model))
        assert (ts.stats.states, ts.stats.transitions) == (2 ** n, n * 2 ** n)
        assert ts.stats.exploration_queries <= 8 * n + 4  # one part per flag, two patterns each
        per_pair[n] = ts.stats.exploration_queries / ts.stats.transitions
    assert per_pair[8] < 0.05 < per_pair[4]


def test_the_splits_stop_at_the_runs_deadline(tmp_path: Path) -> None:
    """Splitting the queries translates each method and rewrites its formulas without a
    query, so no query's deadline check stopped it: smtplib.SMTP's 28 splits ran 15 s past
    a spent budget. Past the deadline none is made, and the run's BudgetSpent ends it."""
    import time

    from contractor.errors import BudgetSpent

    path = tmp_path / "flags.py"
    path.write_text(flags_source(4))
    model = load_model(f"{path}:Flags4", InferOptions(backend="z3"))
    backend = Z3Backend(model)
    assert backend.reuse is not None
    (initial,) = backend.initial_targets("__init__")
    backend.deadline = time.monotonic() - 1
    with pytest.raises(BudgetSpent):
        backend.targets(initial.enabled, "set_0")
    assert backend.reuse.splits == {}

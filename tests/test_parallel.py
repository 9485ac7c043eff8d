"""Parallel exploration (contractor.parallel) gives the sequential typestate.

Everything is compared but the statistics (the time, and the query count, which may be
higher in parallel: each worker caches shared parts of its own) and, on classes with
list fields, the witness values: z3 picks sequence elements from state a worker does
not share, so a witness may be another valid object (replayed here on the real class).
On bool/int classes the witnesses are identical too. Workers are forced on (no minimum
of pending pairs) so that small classes exercise them.
"""

from __future__ import annotations

import ast
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from runtime_contracts import load_class
from shared_runs import SEEN, SEQUENTIAL, SequentialRun, SequentialRuns
from test_samples import EXPECTED
from typestate_check import witness_problems

from contractor.api import InferOptions, infer, load_model, make_backend
from contractor.explore import explore
from contractor.parallel import ParallelBackend
from contractor.typestate import Typestate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from flags import flags_source  # noqa: E402

# One invariant links every field: no part is shared between states, every pair is real
# solver work (the kind of class where a second core pays).
BUDGET = textwrap.dedent('''\
    class Budget:
        """
        inv: 0 <= self.x0 <= 2 and 0 <= self.x1 <= 2 and 0 <= self.x2 <= 2
        inv: self.x0 + self.x1 + self.x2 <= 4
        """

        def __init__(self) -> None:
            self.x0 = 0
            self.x1 = 0
            self.x2 = 0
    ''') + "".join(textwrap.dedent(f'''
        def inc_{i}(self) -> None:
            """pre: self.x{i} < 2 and self.x0 + self.x1 + self.x2 < 4"""
            self.x{i} += 1

        def dec_{i}(self) -> None:
            """pre: self.x{i} > 0"""
            self.x{i} -= 1
    ''').replace("\n", "\n    ") for i in range(3))


def without_time(ts: Typestate) -> Typestate:
    """`ts` with statistics that depend on how the work was spread cleared."""
    return replace(ts, stats=replace(ts.stats, seconds=0.0, queries=0, exploration_queries=0,
                                     queries_by_backend={}))


def without_witnesses(ts: Typestate) -> Typestate:
    return replace(ts, transitions=tuple(replace(t, witness=None) for t in ts.transitions))


def both(path: Path, name: str, backend: str = "z3",
         shared: SequentialRun | None = None) -> tuple[Typestate, Typestate, ParallelBackend]:
    """The sequential and the parallel typestate; `shared`: the sequential run (the
    session's, tests/shared_runs.py, whose options the parallel run then takes)."""
    options = SEQUENTIAL if shared else InferOptions(backend=backend)
    if shared:
        assert backend == SEQUENTIAL.backend
        sequential = shared.typestate
    else:
        model = load_model(f"{path}:{name}", options)
        sequential = explore(model, make_backend(model, options))
    model = load_model(f"{path}:{name}", options)
    parallel_backend = ParallelBackend(make_backend(model, options), jobs=2, min_pairs=0, min_pair_seconds=0)
    try:
        parallel = explore(model, parallel_backend)
    finally:
        parallel_backend.close()
    if not any(f.type.kind in ("set", "dict") for f in model.fields.values()):
        # (sets and dicts: the distinctness of their items is refined per model, so the number
        # of queries depends on the models each solver happens to find first)
        assert parallel.stats.queries >= sequential.stats.queries
    assert parallel.stats.states == sequential.stats.states
    parallel = rendered_alike(parallel, sequential, model)
    return without_time(sequential), without_time(parallel), parallel_backend


def rendered_alike(parallel: Typestate, sequential: Typestate, model) -> Typestate:
    """`parallel` with a state's invariant text taken from `sequential` where one of the two
    runs showed the form read off the preconditions instead of z3's short form: the short
    form's search has a wall-clock budget (invtext.READABLE_SECONDS, 2 s a query), which a
    loaded machine can spend (seen once in CI, in a process 480 tests old), and that is not
    the parallel exploration's doing. The states' identities, enabled methods and
    everything else are still compared."""
    from contractor.state_invariants import precondition_invariant

    theirs = {s.enabled: s for s in sequential.states}
    states = []
    for state in parallel.states:
        other = theirs.get(state.enabled)
        if other is not None and other.invariant != state.invariant:
            fallback = precondition_invariant(model, frozenset(state.enabled)).text
            if fallback in (state.invariant, other.invariant):
                state = replace(state, invariant=other.invariant, executable=other.executable)
        states.append(state)
    return replace(parallel, states=tuple(states))


@pytest.mark.parametrize("backend", ["z3", "auto"])
def test_flags_in_parallel_equal_sequential(tmp_path: Path, backend: str) -> None:
    path = tmp_path / "flags6.py"
    path.write_text(flags_source(6))
    sequential, parallel, used = both(path, "Flags6", backend)
    assert used.parallel_pairs > 300  # the workers answered nearly all 384 pairs
    assert parallel == sequential


@pytest.mark.slow  # the quick loop's slowest (pytest --durations, issue 12)
def test_a_solver_heavy_class_in_parallel_equals_sequential(tmp_path: Path) -> None:
    path = tmp_path / "budget.py"
    path.write_text(BUDGET)
    sequential, parallel, used = both(path, "Budget")
    assert used.parallel_pairs > 0 and len(sequential.states) > 10
    assert parallel == sequential


# The samples that never go to workers (some method not split into parts or not decided
# exactly: reuse.parallel_ready), so that a ParallelBackend answers them in its own process,
# as it does SEEN (tests/shared_runs.py) here, run in the full suite (CI): tag_set.py (sets,
# the costliest sample), session_pool.py and router.py (dicts), untyped.py (opaque values)
# and loop_past_bound.py (past the unroll bound).
ONE_PROCESS_SAMPLES = ("loop_past_bound.py", "router.py", "session_pool.py", "tag_set.py", "untyped.py")


def test_a_set_class_in_parallel_equals_sequential(tmp_path: Path, sequential_z3: SequentialRuns) -> None:
    path = tmp_path / "seen.py"
    path.write_text(SEEN)
    sequential, parallel, used = both(path, "Seen", shared=sequential_z3(path, "Seen"))
    assert len(sequential.states) >= 3
    assert without_witnesses(parallel) == without_witnesses(sequential)
    if any(t.witness != u.witness for t, u in zip(parallel.transitions, sequential.transitions)):
        params = {"see": {"x": list(range(-16, 17))}, "forget": {"x": list(range(-16, 17))}}
        assert not witness_problems(parallel, load_class(path, "Seen"), params)


@pytest.mark.parametrize("sample", [
    pytest.param(p.name, marks=[pytest.mark.slow] if p.name in ONE_PROCESS_SAMPLES else [])
    for p in sorted((ROOT / "samples").glob("*.py"))])
def test_samples_in_parallel_equal_sequential(sample: str, sequential_z3: SequentialRuns) -> None:
    path = ROOT / "samples" / sample
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ClassDef) and load_model(f"{path}:{node.name}", InferOptions(backend="z3")).actions:
            sequential, parallel, used = both(path, node.name, shared=sequential_z3(path, node.name))
            assert without_witnesses(parallel) == without_witnesses(sequential), f"{sample}:{node.name}"
            if any(t.witness != u.witness for t, u in zip(parallel.transitions, sequential.transitions)):
                params = next(e.params for e in EXPECTED.values() if e.target == f"{sample}:{node.name}")
                assert not witness_problems(parallel, load_class(path, node.name), params)


def test_the_api_option_and_small_classes_stay_in_one_process(tmp_path: Path) -> None:
    path = tmp_path / "flags4.py"
    path.write_text(flags_source(4))  # 64 pairs: below the minimum, no worker starts
    one = infer(f"{path}:Flags4", InferOptions(backend="z3"))
    two = infer(f"{path}:Flags4", InferOptions(backend="z3", jobs=2))
    assert without_time(one) == without_time(two)


@pytest.mark.slow  # forks worker processes from a subprocess
def test_cli_jobs_option(tmp_path: Path) -> None:
    import json

    from click.testing import CliRunner

    from contractor.cli import main

    path = tmp_path / "budget.py"
    path.write_text(BUDGET)
    outputs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"out{jobs}"
        result = CliRunner().invoke(main, ["infer", f"{path}:Budget", "--backend", "z3", "--jobs", jobs,
                                           "--out", str(out), "--quiet", "--no-svg", "--no-html"])
        assert result.exit_code == 0, result.output
        data = json.loads((out / "typestate.json").read_text())
        data.pop("stats")
        outputs.append(data)
    assert outputs[0] == outputs[1]
    bad = CliRunner().invoke(main, ["infer", f"{path}:Budget", "--jobs", "-1"])
    assert bad.exit_code == 2


def test_cheap_pairs_never_start_workers(tmp_path: Path) -> None:
    """Flags N=8: 2,048 pairs, nearly all answered from the reuse cache: shipping them to
    workers would cost more than answering them, so none starts."""
    path = tmp_path / "flags8.py"
    path.write_text(flags_source(8))
    model = load_model(f"{path}:Flags8", InferOptions(backend="z3"))
    backend = ParallelBackend(make_backend(model, InferOptions(backend="z3")), jobs=2)
    try:
        ts = explore(model, backend)
    finally:
        backend.close()
    assert ts.stats.transitions == 8 * 2 ** 8
    assert backend.parallel_pairs == 0 and backend._workers is None


def _infer_in_daemon(path: str, queue) -> None:
    from contractor.parallel import ParallelBackend as PB

    model = load_model(f"{path}:Budget", InferOptions(backend="z3"))
    backend = PB(make_backend(model, InferOptions(backend="z3")), jobs=2, min_pairs=0, min_pair_seconds=0)
    try:
        ts = explore(model, backend)
    finally:
        backend.close()
    queue.put((ts.stats.transitions, backend.parallel_pairs))


def test_a_daemonic_process_explores_alone(tmp_path: Path) -> None:
    """A pool's worker (daemonic) may not start processes: it explores in one process."""
    import multiprocessing

    path = tmp_path / "budget.py"
    path.write_text(BUDGET)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=_infer_in_daemon, args=(str(path), queue), daemon=True)
    process.start()
    transitions, parallel_pairs = queue.get(timeout=120)
    process.join(timeout=10)
    assert transitions > 0 and parallel_pairs == 0


def test_a_slow_worker_does_not_hold_the_run_past_its_budget(tmp_path: Path, monkeypatch) -> None:
    """A worker has no watchdog (threads do not survive the fork) and may compute long
    between queries: the explorer waited on it, and smtplib.SMTP's run went 15 s past its
    60 s budget. The parent now waits only until the deadline, stops the workers, and the
    typestate is partial."""
    import time

    import contractor.parallel as parallel
    from contractor.runguard import guarded

    def stalled(z3b, methods, conn) -> None:
        time.sleep(60)

    monkeypatch.setattr(parallel, "_serve", stalled)
    path = tmp_path / "flags.py"
    path.write_text(flags_source(4))
    options = InferOptions(backend="z3")
    model = load_model(f"{path}:Flags4", options)
    started = time.monotonic()
    with guarded(1.0) as guard:
        backend = make_backend(model, replace(options, run_deadline=guard.deadline))
        parallel_backend = ParallelBackend(backend, jobs=2, min_pairs=0, min_pair_seconds=0)
        try:
            ts = explore(model, parallel_backend, stop=guard.stop)
        finally:
            parallel_backend.close()
    assert time.monotonic() - started < 10
    assert not ts.complete

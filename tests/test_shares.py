"""Method shares (contractor.shares): a class the z3 backend does not split into parts,
explored by forked workers each owning a share of its methods, gives one process's
typestate: states, transitions, certainties, findings in their order and unknowns (the
witnesses may differ, and are the same in every run with the same --jobs); a budget spent
in a worker ends the run partial, and small classes stay in one process."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path

import pytest

from contractor import parallel, shares
from contractor.api import InferOptions, infer, load_model
from contractor.typestate import Finding, FindingKind, Typestate, Unknown
from contractor.z3backend import Z3Backend

# may-answers (outside code), an untranslated construct (a loop decided by outside code)
# and may_raise findings
JOB = textwrap.dedent('''\
    import os


    class Job:
        """A job named by the environment, run in steps."""

        def __init__(self) -> None:
            self.state = 0
            self.done = 0
            self.name = ""

        def start(self) -> None:
            if self.state != 0:
                raise RuntimeError("already started")
            self.name = os.environ.get("JOB", "job")
            self.state = 1

        def step(self, n: int) -> None:
            if self.state != 1:
                raise RuntimeError("not running")
            if n > 10:
                raise ValueError("too big a step")
            while os.path.exists(self.name):
                self.done += 1
            if os.environ.get("STOP"):
                self.state = 2

        def finish(self) -> None:
            if self.state == 0:
                raise RuntimeError("not started")
            self.state = 3

        def reset(self) -> None:
            if self.state != 3:
                raise RuntimeError("not finished")
            self.state = 0
    ''')

# the same, large enough (shares.weights) to go to workers by default
BIG_JOB = JOB + textwrap.indent(textwrap.dedent('''
    def describe(self) -> int:
        if self.state == 0:
            raise RuntimeError("not started")
    ''') + "".join(f"    _ = {i}\n" for i in range(400)) + "    return self.done\n", "    ")


def shape(ts: Typestate) -> Typestate:
    """`ts` without what depends on how the work was spread: what is read off a model
    (witnesses, counterexamples, may reasons, the raise site a may_raise names), time, query
    counts."""
    def finding(f: Finding) -> Finding:
        read_off = f.kind is FindingKind.MAY_RAISE
        return replace(f, counterexample=None, message="" if read_off else f.message, line=None if read_off else f.line)

    return replace(ts, transitions=tuple(replace(t, witness=None, reason=None) for t in ts.transitions),
                   findings=tuple(finding(f) for f in ts.findings),
                   stats=replace(ts.stats, seconds=0.0, queries=0, exploration_queries=0, queries_by_backend={}))


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every class goes to shares; the numbers of shares started."""
    started: list[int] = []
    init = shares.Shares.__init__

    def spy(self, z3b, owner, n):
        started.append(n)
        init(self, z3b, owner, n)

    monkeypatch.setattr(parallel, "MIN_WEIGHT", 0)
    monkeypatch.setattr(shares.Shares, "__init__", spy)
    return started


def test_shares_give_one_process_typestate(tmp_path: Path, forks: list[int],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "job.py"
    path.write_text(JOB)
    targets = Z3Backend.targets

    def noting(self, source, method):  # a finding and an unknown noted while answering, as fallback does
        self._extra_findings.append(Finding(FindingKind.INCOMPLETE, f"{method} from {sorted(source)}", method=method))
        self._unknowns[(method, 1, "noted")] = Unknown(method, 1, "noted", "")
        return targets(self, source, method)

    monkeypatch.setattr(Z3Backend, "targets", noting)  # the workers, forked, answer with it too
    one = infer(f"{path}:Job", InferOptions(backend="z3", jobs=1))
    two = infer(f"{path}:Job", InferOptions(backend="z3", jobs=2))
    assert forks == [2]
    assert shape(two) == shape(one)
    assert any(t.certainty == "may" for t in one.transitions)
    assert any(u.construct != "noted" for u in one.unknowns)
    kinds = [f.kind for f in one.findings]
    assert FindingKind.MAY_RAISE in kinds and kinds.count(FindingKind.INCOMPLETE) > 3


def test_a_parallel_run_is_the_same_every_time(tmp_path: Path) -> None:
    """Fresh processes, as `contractor infer` runs: the witnesses too."""
    path = tmp_path / "job.py"
    path.write_text(BIG_JOB)
    assert sum(shares.weights(load_model(f"{path}:Job")).values()) >= parallel.MIN_WEIGHT  # it forks
    texts = []
    for jobs, out in (("2", "a"), ("2", "b"), ("1", "c")):
        done = subprocess.run([sys.executable, "-m", "contractor", "infer", f"{path}:Job", "--backend", "z3",
                               "--jobs", jobs, "--out", str(tmp_path / out), "--quiet", "--no-svg", "--no-html"],
                              capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode in (0, 1), done.stderr
        data = json.loads((tmp_path / out / "typestate.json").read_text())
        data.pop("stats")
        texts.append(data)
    assert texts[0] == texts[1]
    strip = [{**t, "transitions": [{**x, "witness": None, "reason": None} for x in t["transitions"]],
              "findings": [(f["kind"], f.get("method")) if f["kind"] == "may_raise" else {**f, "counterexample": None}
                           for f in t["findings"]]} for t in texts]
    assert strip[0] == strip[2]


def test_a_worker_past_the_budget_ends_the_run_partial(tmp_path: Path, forks: list[int],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "job.py"
    path.write_text(JOB)
    targets = Z3Backend.targets

    def stuck(self, source, method):  # a worker's z3 deaf to the deadline (no watchdog there)
        if method == "start":
            time.sleep(60)
        return targets(self, source, method)

    monkeypatch.setattr(Z3Backend, "targets", stuck)
    started = time.monotonic()
    ts = infer(f"{path}:Job", InferOptions(backend="z3", jobs=2, budget=3.0))
    assert time.monotonic() - started < 20
    assert forks == [2] and not ts.complete
    assert not multiprocessing.active_children()


def test_small_classes_stay_in_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "job.py"
    path.write_text(JOB)
    started: list[int] = []
    monkeypatch.setattr(shares.Shares, "__init__", lambda *args: started.append(1))
    infer(f"{path}:Job", InferOptions(backend="z3", jobs=2))
    assert not started

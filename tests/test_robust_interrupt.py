"""Ctrl-C and --budget through the real command line: SIGINT at several moments of a run
whose z3 queries are long (z3 used to swallow SIGINT inside them) always ends the process
within the bound with status 130, a partial typestate or nothing, and no temporary file."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from robust_support import contractor, env, leftovers

# a sum of three cubes equal to 42: z3 cannot decide it, every query runs to its timeout
CUBES = '''
class Cubes:
    def __init__(self) -> None:
        self.a = 0
        self.b = 0
        self.c = 0

    def set(self, a: int, b: int, c: int) -> None:
        """
        pre: a * a * a + b * b * b + c * c * c == 42 and a != b
        """
        self.a = a
        self.b = b
        self.c = c

    def bump(self) -> None:
        """
        pre: self.a * self.a * self.a + self.b * self.b * self.b + self.c * self.c * self.c == 42
        """
        self.a += 1

    def reset(self) -> None:
        self.a = 0
'''

STOP_BOUND = 2.5  # seconds from the (last) SIGINT to the end of the process
HARD_LIMIT = 60  # a run that lasts this long is a hang


def interrupted_run(tmp_path, delays: list[float], name: str) -> tuple[subprocess.CompletedProcess, float]:
    """Start infer on Cubes, send SIGINT after each delay (seconds from the start), return
    the result and the seconds from the last SIGINT to the end."""
    (tmp_path / "cubes.py").write_text(CUBES)
    process = subprocess.Popen(
        [sys.executable, "-m", "contractor", "infer", "cubes.py:Cubes", "--backend", "z3", "--timeout", "30",
         "--no-svg", "--no-html", "--out", name], cwd=tmp_path, env=env(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    start = time.monotonic()
    for delay in delays:
        time.sleep(max(0.0, start + delay - time.monotonic()))
        process.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        out, err = process.communicate(timeout=HARD_LIMIT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"SIGINT at {delays} s: the run did not end within {HARD_LIMIT} s")
    elapsed = time.monotonic() - sent
    return subprocess.CompletedProcess(process.args, process.returncode, out, err), elapsed


def check_interrupted(tmp_path, result: subprocess.CompletedProcess, elapsed: float, name: str,
                      died_of_sigint: bool = False) -> bool:
    """The common promises; True if a partial typestate was written. `died_of_sigint`: a
    second SIGINT landing while the interpreter shuts down ends it by the signal (status
    -2 here, 130 in a shell), which is fine once everything is written."""
    assert result.returncode == 130 or died_of_sigint and result.returncode == -signal.SIGINT, result.stderr
    assert elapsed < STOP_BOUND, f"ended {elapsed:.1f} s after SIGINT"
    assert "Traceback" not in result.stderr, result.stderr
    assert not leftovers(tmp_path)
    written = tmp_path / name / "typestate.json"
    if written.exists():
        assert json.loads(written.read_text())["complete"] is False
        assert "PARTIAL" in result.stderr
        return True
    assert "nothing written" in result.stderr
    return False


def test_ctrl_c_inside_a_long_z3_query_writes_the_partial_typestate(tmp_path):
    # at 4 s the run is inside its first 30 s query on an idle machine; on a loaded one it
    # may still be starting (at load 4.5 it was: nothing written, which every promise
    # allows), so the signal comes later then, still inside a query
    for i, delay in enumerate([4.0, 8.0, 12.0]):
        result, elapsed = interrupted_run(tmp_path, [delay], f"out{i}")
        if check_interrupted(tmp_path, result, elapsed, f"out{i}"):
            return
    pytest.fail("no SIGINT up to 12 s from the start landed in the exploration")


@pytest.mark.slow  # about 30 s: many runs
def test_ctrl_c_at_any_moment_ends_the_run_within_the_bound(tmp_path):
    partial = 0
    for i, delay in enumerate([0.5, 1.0, 2.0, 3.0, 4.5, 6.0]):
        result, elapsed = interrupted_run(tmp_path, [delay], f"out{i}")
        partial += check_interrupted(tmp_path, result, elapsed, f"out{i}")
    assert partial >= 2  # the later ones land in the exploration


@pytest.mark.slow  # about 15 s
def test_a_second_ctrl_c_exits_130_at_once_leaving_nothing(tmp_path):
    for i, delays in enumerate([[4.0, 4.05], [4.0, 4.3], [1.0, 1.01]]):
        result, elapsed = interrupted_run(tmp_path, delays, f"out{i}")
        check_interrupted(tmp_path, result, elapsed, f"out{i}", died_of_sigint=True)


# The quick loop has the same run with the budget from pyproject.toml (test_default_budget)
# and --budget parsed (--budget 0 there); the full suite (CI) runs this one too.
@pytest.mark.slow
def test_budget_bounds_the_run_and_the_result_is_partial(tmp_path):
    (tmp_path / "cubes.py").write_text(CUBES)
    start = time.monotonic()
    result = contractor("infer", "cubes.py:Cubes", "--backend", "z3", "--timeout", "30", "--budget", "3",
                        "--format", "json", "--no-svg", "--no-html", cwd=tmp_path, timeout=HARD_LIMIT)
    took = time.monotonic() - start
    assert result.returncode == 0, result.stderr
    (data,) = json.loads(result.stdout)["typestates"]
    assert data["complete"] is False and any("--budget" in f["message"] for f in data["findings"])
    assert took < 3 + 5 + 3  # the budget, start-up (z3 translation), writing


def test_library_callers_get_a_catchable_interrupt_with_the_partial_typestate(tmp_path):
    """Ctrl-C inside a long z3 query of contractor.api.infer: ExplorationInterrupted, a
    KeyboardInterrupt carrying the partial typestate (z3 no longer swallows it)."""
    import os
    import threading

    from contractor.api import InferOptions, infer
    from contractor.explore import ExplorationInterrupted

    (tmp_path / "cubes.py").write_text(CUBES)
    timer = threading.Timer(3.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as stopped:
            infer(f"{tmp_path}/cubes.py:Cubes", InferOptions(backend="z3", timeout=30))
    finally:
        timer.cancel()
    assert time.monotonic() - start < 3.0 + STOP_BOUND + 3  # translation may still be running at 3 s
    if isinstance(stopped.value, ExplorationInterrupted):  # else: interrupted before exploring
        assert stopped.value.typestate.complete is False
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler

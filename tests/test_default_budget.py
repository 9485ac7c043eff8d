"""No run is unbounded: `contractor infer` has a time budget per class by default
(DEFAULT_BUDGET seconds; `--budget 0` or `budget = 0` in pyproject.toml for none), after
which the typestate found so far is written, partial and saying so, with exit 0."""

from __future__ import annotations

import json
import time

import pytest
from cli_runs import contractor as in_process
from robust_support import contractor
from test_robust_interrupt import CUBES

from contractor.cli_options import infer_options
from contractor.settings import DEFAULT_BUDGET, Settings

JSON = ("--format", "json", "--no-svg", "--no-html")

DOOR = '''
class Door:
    def __init__(self) -> None:
        self.open = False

    def push(self) -> None:
        if self.open:
            raise ValueError("already open")
        self.open = True

    def pull(self) -> None:
        if not self.open:
            raise ValueError("already closed")
        self.open = False
'''


def test_the_settings_bound_every_run_and_zero_means_no_limit():
    assert 0 < DEFAULT_BUDGET <= 120
    assert infer_options(Settings()).budget == DEFAULT_BUDGET
    assert infer_options(Settings(budget=0)).budget is None
    assert infer_options(Settings(budget=2.5)).budget == 2.5


def test_the_help_names_the_default(tmp_path):
    result = in_process(tmp_path, "infer", "--help")
    assert f"default: {DEFAULT_BUDGET:g}; 0: no limit" in " ".join(result.stdout.split())


def _partial(result) -> dict:
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)["typestates"][0]
    assert data["complete"] is False
    assert any(f["kind"] == "incomplete" and "--budget" in f["message"] for f in data["findings"])
    return data


def test_a_budget_from_pyproject_ends_an_undecidable_run_partial(tmp_path):
    """...and the next class of the same process is analysed as usual (the budget's last
    interrupt of z3 used to stay pending: "push canceled", exit 70)."""
    (tmp_path / "cubes.py").write_text(CUBES)
    (tmp_path / "door.py").write_text(DOOR)
    (tmp_path / "pyproject.toml").write_text("[tool.contractor]\nbudget = 1\n")
    start = time.monotonic()
    result = in_process(tmp_path, "infer", "cubes.py:Cubes", "door.py:Door", "--jobs", "1", "--backend", "z3",
                        "--timeout", "30", *JSON)
    assert time.monotonic() - start < 1 + 10  # the budget, start-up, writing
    _partial(result)
    door = json.loads(result.stdout)["typestates"][1]
    assert door["complete"] is True and len(door["states"]) == 2


def test_budget_zero_runs_to_the_end(tmp_path):
    (tmp_path / "door.py").write_text(DOOR)
    result = in_process(tmp_path, "infer", "door.py:Door", "--backend", "z3", "--budget", "0", *JSON)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)["typestates"][0]
    assert data["complete"] is True and len(data["states"]) == 2


@pytest.mark.slow  # the default budget itself (a minute)
def test_without_any_budget_option_an_undecidable_run_ends_at_the_default_budget(tmp_path):
    (tmp_path / "cubes.py").write_text(CUBES)
    start = time.monotonic()
    result = contractor("infer", "cubes.py:Cubes", "--backend", "z3", "--timeout", "30", *JSON, cwd=tmp_path,
                        timeout=DEFAULT_BUDGET + 60)
    took = time.monotonic() - start
    _partial(result)
    assert DEFAULT_BUDGET - 1 < took < DEFAULT_BUDGET + 15


def test_the_reported_time_includes_translating_the_class(tmp_path, monkeypatch):
    """A run whose budget went on translating the class (before any query) reported
    "time: 0.00 s": the time counted the exploration only."""
    import contractor.api as api

    (tmp_path / "door.py").write_text(DOOR)
    real = api.make_backend

    def slow_backend(*args, **kwargs):
        time.sleep(0.3)  # stands for a long translation
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "make_backend", slow_backend)
    ts = api.infer(f"{tmp_path / 'door.py'}:Door", api.InferOptions(backend="z3"))
    assert ts.stats.seconds >= 0.3


def test_budget_spent_while_checking_findings_is_said_not_an_internal_error(tmp_path, monkeypatch):
    """The watchdog's interrupt at the deadline stays pending in z3 and fails the next call
    on a model ("canceled"; zipfile's CompleteDirs under --budget 5): past the deadline the
    findings end with an unknown finding saying the budget ran out; before it, the error
    is a real one and propagates."""
    import z3

    from contractor.api import InferOptions, load_model
    from contractor.typestate import FindingKind
    from contractor.z3backend import Z3Backend, checks

    path = tmp_path / "door.py"
    path.write_text(DOOR)
    model = load_model(f"{path}:Door", InferOptions(backend="z3"))

    def canceled(b):
        raise z3.Z3Exception(b"canceled")

    monkeypatch.setattr(checks, "method_findings", canceled)
    spent = Z3Backend(model, deadline=time.monotonic() + 60)
    spent.deadline = time.monotonic() - 1  # built within the budget, checked after it
    [finding] = spent.findings()
    assert finding.kind is FindingKind.UNKNOWN and "budget" in finding.message
    with pytest.raises(z3.Z3Exception):
        Z3Backend(model).findings()

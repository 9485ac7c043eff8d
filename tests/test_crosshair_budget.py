"""Under the auto backend CrossHair has a budget of its own per class (--crosshair-budget,
DEFAULT_CROSSHAIR_BUDGET seconds from its first question): past it, what z3 left
undecided stays may, the run goes on with z3 and ends complete, and a finding says so.
Under --backend crosshair alone only the run's --budget applies."""

from __future__ import annotations

import json
import time

import pytest
from robust_support import contractor

from contractor.cli_options import infer_options
from contractor.settings import DEFAULT_BUDGET, DEFAULT_CROSSHAIR_BUDGET, Settings

JSON = ("--format", "json", "--no-svg", "--no-html", "--no-cache")

# z3 unrolls the loop 8 times and leaves `step` may; CrossHair searches k up to 1000 with a
# loop of up to ~1000 iterations per path: it does not finish within its per-query timeout
SPIN = '''
class Spin:
    def __init__(self) -> None:
        self.n = 0

    def step(self, k: int) -> None:
        """pre: 0 <= k <= 1000 and self.n == 0"""
        i = 0
        while i * i < k * k + 7 * k:
            i += 1
        if i * i == k * k + 7 * k:
            self.n = 1

    def reset(self) -> None:
        """pre: self.n == 1"""
        self.n = 0
'''


def test_the_settings_pass_crosshairs_own_budget():
    assert 0 < DEFAULT_CROSSHAIR_BUDGET < DEFAULT_BUDGET
    assert infer_options(Settings()).crosshair_options["budget"] == DEFAULT_CROSSHAIR_BUDGET
    assert "budget" not in infer_options(Settings(crosshair_budget=0)).crosshair_options
    assert infer_options(Settings(crosshair_budget=2.5)).crosshair_options["budget"] == 2.5
    assert "budget" not in infer_options(Settings(backend="crosshair")).crosshair_options


def test_the_help_names_the_default(tmp_path):
    result = contractor("infer", "--help", cwd=tmp_path)
    assert f"default: {DEFAULT_CROSSHAIR_BUDGET:g}; 0: only --budget" in " ".join(result.stdout.split())


def _run(tmp_path, *options: str) -> tuple[dict, float]:
    (tmp_path / "spin.py").write_text(SPIN)
    start = time.monotonic()
    result = contractor("infer", "spin.py:Spin", "--timeout", "20", *JSON, *options, cwd=tmp_path)
    took = time.monotonic() - start
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["typestates"][0], took


@pytest.mark.slow  # about 5 s: CrossHair's start-up and its 2 s
def test_crosshairs_budget_leaves_z3s_may_and_the_run_complete(tmp_path):
    data, took = _run(tmp_path, "--crosshair-budget", "2")
    assert took < 2 + 15  # the budget, the worker's start-up and stop, z3, writing
    assert data["complete"] is True
    steps = {(t["target"], t["certainty"]) for t in data["transitions"] if t["method"] == "step"}
    assert any(c == "may" for _, c in steps), steps  # undecided: kept, never dropped
    notes = [f["message"] for f in data["findings"] if f["kind"] == "crosshair_unavailable"]
    assert notes and "--crosshair-budget" in notes[0], data["findings"]


@pytest.mark.slow  # about 5 s
def test_crosshairs_budget_from_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.contractor]\ncrosshair-budget = 2\n")
    data, took = _run(tmp_path)
    assert took < 2 + 15 and data["complete"] is True
    assert any("--crosshair-budget" in f["message"] for f in data["findings"])


@pytest.mark.slow  # about 5 s
def test_crosshair_alone_is_bounded_by_the_run_budget_only(tmp_path):
    # alone, CrossHair's own budget does not apply: a 1 s crosshair-budget would otherwise
    # stop it before the 4 s run budget
    data, took = _run(tmp_path, "--backend", "crosshair", "--crosshair-budget", "1", "--budget", "4")
    assert took > 3.5
    assert data["complete"] is False

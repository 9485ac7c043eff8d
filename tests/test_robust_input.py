"""Hostile input through the command line: every problem is a clear message (file,
line, construct) with exit status 2 and nothing half-written, an internal error is exit 70,
and reports say what rests on may-transitions."""

from __future__ import annotations

import json
import subprocess
import sys

import cli_runs
import pytest
from robust_support import ROOT, contractor, counter_class, env, leftovers


def in_process(*args: str, cwd) -> subprocess.CompletedProcess[str]:
    """The command line run in this process (cli_runs.py), for the tests about what it reports
    rather than about the process (the deep expressions' recursion, an internal error)."""
    return cli_runs.contractor(cwd, *args, env={"CONTRACTOR_CACHE_DIR": None})


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_3000_term_expression_is_an_input_error_naming_file_and_line(tmp_path):
    write(tmp_path, "deep.py", counter_class("Deep", "self.x + " + " + ".join(["self.x"] * 3000) + " >= 0"))
    result = contractor("infer", "deep.py:Deep", "--backend", "z3", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "deep.py:8:" in result.stderr and "nested too deeply" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "output").exists()


def test_an_expression_deeper_than_the_analysis_follows_is_an_input_error(tmp_path):
    write(tmp_path, "deep.py", counter_class("Deep", " + ".join(["self.x"] * 400) + " >= 0"))
    result = contractor("infer", "deep.py:Deep", "--backend", "z3", cwd=tmp_path)
    assert result.returncode == 2 and "deep.py:8:" in result.stderr and "levels deep" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "output").exists()


def test_a_deep_expression_in_a_method_body_is_an_input_error(tmp_path):
    body = "        self.x = " + " + ".join(["1"] * 400) + "\n"
    source = counter_class("Deep", "self.x >= 0", extra_method="\n    def big(self) -> None:\n" + body)
    write(tmp_path, "deep.py", source)
    result = contractor("infer", "deep.py:Deep", "--backend", "z3", cwd=tmp_path)
    assert result.returncode == 2 and "deep.py:19:" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow  # ~6 s: translating 5,000 comparisons
def test_a_5000_term_and_precondition_finishes_fast(tmp_path):
    pre = " and ".join(f"self.x != {i + 1000}" for i in range(5000))
    write(tmp_path, "wide.py", counter_class("Wide", pre))
    result = contractor("infer", "wide.py:Wide", "--backend", "z3", "--format", "json", "--no-svg",
                        "--no-html", cwd=tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)["typestates"][0]
    assert data["complete"] and data["stats"]["seconds"] < 30
    # the big state's invariant is the plain conjunction, not a search result
    assert any("self.x != 5999" in s["invariant"] for s in data["states"])


def test_a_folder_named_typestate_json_in_the_output_is_an_input_error_leaving_nothing(tmp_path):
    out = tmp_path / "out"
    (out / "typestate.json").mkdir(parents=True)
    result = in_process("infer", f"{ROOT}/samples/door.py:Door", "--backend", "z3", "--out", str(out),
                        cwd=tmp_path)
    assert result.returncode == 2 and "typestate.json" in result.stderr and "Traceback" not in result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["typestate.json"] and not leftovers(out)


def test_an_internal_error_exits_70_and_says_where_to_report(tmp_path):
    code = ("import sys, contractor.api as api\n"
            "def boom(*a, **k):\n    raise RuntimeError('a bug')\n"
            "api.load_resolved = boom\n"
            "from contractor.cli import main\n"
            "sys.argv = ['contractor', 'infer', 'door.py:Door']\nmain()\n")
    (tmp_path / "door.py").write_text((ROOT / "samples" / "door.py").read_text())
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env(), capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 70
    assert "RuntimeError: a bug" in result.stderr and "report" in result.stderr


@pytest.mark.slow  # the quick loop's slowest (pytest --durations, issue 12)
def test_max_states_stops_at_exactly_n(tmp_path):
    for n in (1, 2, 3):
        result = contractor("infer", f"{ROOT}/samples/door.py:Door", "--backend", "z3", "--max-states", str(n),
                            "--format", "json", "--no-svg", "--no-html", "--out", str(tmp_path / "o"),
                            cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        data = json.loads(result.stdout)["typestates"][0]
        explored = [s for s in data["states"] if not s.get("unexplored")]
        # the n explored states, and the one 'unexplored' state that stands for the rest (unexplored.py)
        assert len(explored) == n and data["complete"] is False
        assert [s["id"] for s in data["states"] if s.get("unexplored")] == ["unexplored"]
        ids = {s["id"] for s in data["states"]}
        assert all(t["source"] in ids and t["target"] in ids for t in data["transitions"])
        assert any(f["kind"] == "incomplete" and "--max-states" in f["message"] for f in data["findings"])


def test_an_undefined_name_in_a_precondition_is_a_finding(tmp_path):
    write(tmp_path, "undef.py", counter_class("Undef", "self.x >= LIMIT"))
    result = in_process("infer", "undef.py:Undef", "--backend", "z3", "--format", "json", "--no-svg",
                        "--no-html", cwd=tmp_path)
    findings = json.loads(result.stdout)["typestates"][0]["findings"]
    (undefined,) = [f for f in findings if f["kind"] == "undefined_name"]
    assert undefined["method"] == "inc" and undefined["line"] == 8 and "'LIMIT'" in undefined["message"]


def test_defined_names_are_no_finding(tmp_path):
    top = "import math\nfrom os import sep as SEP\nLIMIT = 3\n"
    write(tmp_path, "names.py", counter_class(
        "Names", "self.x < LIMIT and math.floor(1.5) == 1 and len(SEP) == 1 and all(i >= 0 for i in [self.x])",
        top=top))
    result = in_process("infer", "names.py:Names", "--backend", "z3", "--format", "json", "--no-svg",
                        "--no-html", cwd=tmp_path)
    assert not [f for f in json.loads(result.stdout)["typestates"][0]["findings"] if f["kind"] == "undefined_name"]


def test_a_state_enabling_only_undecided_methods_may_be_stuck(tmp_path):
    # inc's precondition names an undefined LIMIT: its enabledness is undecided, so the
    # state of x == 0 enables only inc? (it raises NameError there: really stuck)
    write(tmp_path, "undef.py", counter_class("Undef", "self.x >= LIMIT"))
    result = in_process("infer", "undef.py:Undef", "--backend", "z3", "--format", "json", "--no-svg",
                        "--no-html", cwd=tmp_path)
    data = json.loads(result.stdout)["typestates"][0]
    (first,) = [s for s in data["states"] if s["initial"]]
    assert first["enabled"] == first["undecided"] == ["inc"]
    stuck = [f for f in data["findings"] if f["kind"] == "no_enabled_method"]
    assert [(f["state"], "objects in it may be stuck" in f["message"]) for f in stuck] == [(first["id"], True)]


def test_a_stuck_state_reached_only_by_may_transitions_says_so(tmp_path):
    # inc's `global` is not translated: after it x may be anything, so the stuck state
    # x < 0 is reached by a may-transition only
    write(tmp_path, "undef.py", counter_class("Undef", "self.x == 0", top="G = 0\n").replace(
        "        self.x += 1", "        global G\n        self.x += 1"))
    result = in_process("infer", "undef.py:Undef", "--backend", "z3", "--format", "json", "--no-svg",
                        "--no-html", cwd=tmp_path)
    data = json.loads(result.stdout)["typestates"][0]
    stuck = [f for f in data["findings"] if f["kind"] == "no_enabled_method"]
    assert stuck
    for finding in stuck:
        arrivals = [t["certainty"] for t in data["transitions"] + data["initializations"]
                    if t["target"] == finding["state"]]
        assert set(arrivals) == {"may"} and "only through may-transitions" in finding["message"]


def test_a_stuck_state_reached_by_a_must_transition_is_stated_as_fact(tmp_path):
    write(tmp_path, "stuck.py", counter_class("Stuck", "self.x < 1 and self.x > 5"))
    result = in_process("infer", "stuck.py:Stuck", "--backend", "z3", "--format", "json", "--no-svg",
                        "--no-html", cwd=tmp_path)
    (stuck,) = [f for f in json.loads(result.stdout)["typestates"][0]["findings"] if f["kind"] == "no_enabled_method"]
    assert "objects in it are stuck" in stuck["message"] and "may" not in stuck["message"]


def test_an_output_folder_that_cannot_be_created_is_an_input_error(tmp_path):
    # /proc refuses new folders even to root, so this holds whoever runs the tests
    result = in_process("infer", f"{ROOT}/samples/door.py:Door", "--backend", "z3", "--out", "/proc/contractor-out",
                        cwd=tmp_path)
    assert result.returncode == 2 and "/proc/contractor-out" in result.stderr
    assert "Traceback" not in result.stderr

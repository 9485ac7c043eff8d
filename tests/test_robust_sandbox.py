"""The sandbox through the real command line: the user's module runs only in CrossHair's
worker, behind the side-effect wall, its output kept off contractor's; a module that does not
import, a worker that hangs, or an unwritable cache leave z3's answer standing, with a finding."""

from __future__ import annotations

import json
import time

import pytest
from robust_support import contractor

# z3 does not translate re.fullmatch: under auto, CrossHair is asked about `rename`
REGEX_CLASS = '''
class Named:
    def __init__(self) -> None:
        self.name = ""

    def rename(self, name: str) -> None:
        """
        pre: re.fullmatch("[a-z]", name) is not None
        """
        print("renaming to", name)
        self.name = name

    def clear(self) -> None:
        """
        pre: len(self.name) > 0
        """
        self.name = ""
'''


def side_effect_module(tmp_path) -> str:
    marker = tmp_path / "written_at_import"
    return (f"import re\nprint('printed at import')\nopen({str(marker)!r}, 'w').write('x')\n" + REGEX_CLASS)


def run_json(tmp_path, *args: str, **kwargs):
    result = contractor("infer", *args, "--format", "json", "--no-svg", "--no-html", "--no-progress",
                        cwd=tmp_path, **kwargs)
    assert result.returncode == 0, result.stderr
    (typestate,) = json.loads(result.stdout)["typestates"]  # stdout is JSON and nothing else
    return typestate, result


@pytest.mark.slow  # ~20 s: three backends, CrossHair's start-up
@pytest.mark.parametrize("backend", ["z3", "crosshair", "auto"])
def test_a_module_with_top_level_side_effects_writes_nothing_and_prints_nothing(tmp_path, backend):
    (tmp_path / "named.py").write_text(side_effect_module(tmp_path))
    data, result = run_json(tmp_path, "named.py:Named", "--backend", backend, "--timeout", "5")
    assert not (tmp_path / "written_at_import").exists()
    assert "printed at import" not in result.stdout + result.stderr
    if backend != "z3":  # CrossHair was needed: the import was blocked, z3's answers stand
        (failure,) = [f for f in data["findings"] if f["kind"] == "crosshair_unavailable"]
        assert "named.py" in failure["message"] and "blocked" in failure["message"]
        assert data["transitions"]


def test_the_z3_backend_never_imports_the_module(tmp_path):
    (tmp_path / "named.py").write_text(side_effect_module(tmp_path))
    data, _ = run_json(tmp_path, "named.py:Named", "--backend", "z3")
    assert not (tmp_path / "written_at_import").exists()
    assert not [f for f in data["findings"] if f["kind"] == "crosshair_unavailable"]


@pytest.mark.slow  # the quick loop's slowest (pytest --durations, issue 12)
def test_a_module_that_cannot_be_imported_keeps_z3s_answer_under_auto(tmp_path):
    (tmp_path / "named.py").write_text("import re\nimport a_package_that_is_not_installed\n" + REGEX_CLASS)
    z3_data, _ = run_json(tmp_path, "named.py:Named", "--backend", "z3")
    data, _ = run_json(tmp_path, "named.py:Named", "--backend", "auto", "--no-cache")
    (failure,) = [f for f in data["findings"] if f["kind"] == "crosshair_unavailable"]
    assert "a_package_that_is_not_installed" in failure["message"]
    # z3 alone bounds rename's undecided bit (`rename?`); auto splits on it, as CrossHair
    # would decide it: the same typestate once that bit is left out, and no must of its own
    undecided = {m for s in z3_data["states"] for m in s.get("undecided", ())}
    assert undecided == {"rename"}

    def shown(ts: dict) -> dict[tuple, set[str]]:
        decided = {s["id"]: frozenset(s["enabled"]) - undecided for s in ts["states"]}
        out: dict[tuple, set[str]] = {}
        for t in ts["transitions"]:
            out.setdefault((decided[t["source"]], t["method"], decided[t["target"]]), set()).add(t["certainty"])
        return out

    auto, alone = shown(data), shown(z3_data)
    assert auto.keys() == alone.keys()
    assert all("must" not in auto[k] or "must" in alone[k] for k in auto)


@pytest.mark.slow  # ~20 s: CrossHair runs twice
def test_the_workers_output_is_shown_with_verbose_only(tmp_path):
    (tmp_path / "named.py").write_text("import re\nprint('printed at import')\n" + REGEX_CLASS)
    _, quiet = run_json(tmp_path, "named.py:Named", "--backend", "auto", "--timeout", "3", "--no-cache")
    assert "printed at import" not in quiet.stdout + quiet.stderr
    _, verbose = run_json(tmp_path, "named.py:Named", "--backend", "auto", "--timeout", "3", "--no-cache", "-v")
    assert "printed at import" in verbose.stderr and "printed at import" not in verbose.stdout


@pytest.mark.slow  # ~15 s: a worker is killed twice
def test_a_worker_spinning_past_its_timeout_is_killed_and_z3s_answer_stands(tmp_path):
    spin = "import re\n\ndef spin(n: int) -> bool:\n    while True:\n        n += 1\n\n"
    source = spin + REGEX_CLASS.replace('re.fullmatch("[a-z]", name) is not None', "spin(len(name))")
    (tmp_path / "named.py").write_text(source)
    start = time.monotonic()
    data, _ = run_json(tmp_path, "named.py:Named", "--backend", "crosshair", "--timeout", "1", "--no-cache",
                       timeout=120)
    assert time.monotonic() - start < 60
    causes = [f["message"] for f in data["findings"] if f["kind"] == "crosshair_unavailable"]
    assert any("stopped after" in c for c in causes)
    assert data["transitions"] and data["stats"]["queries_by_backend"]["z3"] > 0


@pytest.mark.slow  # ~15 s
def test_a_budget_ends_a_spinning_worker(tmp_path):
    spin = "import re\n\ndef spin(n: int) -> bool:\n    while True:\n        n += 1\n\n"
    source = spin + REGEX_CLASS.replace('re.fullmatch("[a-z]", name) is not None', "spin(len(name))")
    (tmp_path / "named.py").write_text(source)
    start = time.monotonic()
    data, _ = run_json(tmp_path, "named.py:Named", "--backend", "auto", "--budget", "4", "--no-cache",
                       timeout=120)
    assert time.monotonic() - start < 4 + 15  # the budget, start-up, one second of grace, writing
    assert data["complete"] is False  # the budget ended the run: partial, and not a hang
    assert any("budget" in f["message"] for f in data["findings"])


@pytest.mark.slow  # CrossHair without its cache: the quick loop's slowest (pytest --durations, issue 12)
def test_an_unwritable_working_folder_runs_without_the_cache(tmp_path):
    (tmp_path / "named.py").write_text("import re\n" + REGEX_CLASS)
    data, _ = run_json("/proc", f"{tmp_path}/named.py:Named", "--backend", "auto", "--timeout", "3",
                            "--out", str(tmp_path / "out"))
    (note,) = [f for f in data["findings"] if f["kind"] == "cache_disabled"]
    assert "cache" in note["message"] and (tmp_path / "out" / "typestate.json").exists()


@pytest.mark.slow  # ~15 s
def test_a_blocked_call_in_a_contract_is_a_finding(tmp_path):
    source = "import subprocess\n" + REGEX_CLASS.replace(
        're.fullmatch("[a-z]", name) is not None', 'subprocess.run(["true"]).returncode == len(name)')
    (tmp_path / "named.py").write_text(source)
    data, _ = run_json(tmp_path, "named.py:Named", "--backend", "crosshair", "--timeout", "3", "--no-cache",
                       timeout=180)
    (blocked,) = [f for f in data["findings"] if f["kind"] == "blocked_call"]
    assert blocked["method"] == "rename" and "subprocess" in blocked["message"]

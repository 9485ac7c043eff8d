"""Finding kinds are a closed vocabulary, and infer's findings become diagnostics with a place,
a severity per kind and the kind as code."""

from __future__ import annotations

import json

import pytest

from contractor.typestate import Finding, FindingKind, Typestate


def test_a_finding_kind_is_an_enum_member_whatever_it_was_given_as():
    f = Finding("never_enabled", "m is never enabled", "m")
    assert f.kind is FindingKind.NEVER_ENABLED
    assert Finding(FindingKind.MAY_RAISE, "x").kind is FindingKind.MAY_RAISE
    with pytest.raises(ValueError):
        Finding("no_such_kind", "x")


def test_finding_kinds_survive_typestate_json(tmp_path):
    from contractor.typestate import Stats

    ts = Typestate("C", "c.py", ("m",), ("__init__",), (), (), (),
                   (Finding(FindingKind.BREAKS_INVARIANT, "m() can break the class invariant", "m", line=3),),
                   (), Stats())
    text = json.dumps(ts.to_dict())
    assert '"kind": "breaks_invariant"' in text
    back = Typestate.from_dict(json.loads(text))
    assert back.findings[0].kind is FindingKind.BREAKS_INVARIANT


# ---- through the CLI: formats and --fail-on ----

import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import jsonschema  # noqa: E402
from cli_runs import contractor  # noqa: E402

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json").read_text())

FAULTY = '''\
class Tank:
    """inv: self.level >= 0"""

    def __init__(self) -> None:
        self.level = 0

    def fill(self) -> None:
        self.level += 1

    def drain(self) -> None:
        self.level -= 1

    def jam(self) -> None:
        """pre: self.level < 0"""
        self.level = 0
'''


def _infer(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "tank.py").write_text(FAULTY)
    return contractor(tmp_path, "infer", "tank.py:Tank", "--backend", "z3", "--out", "out", "--no-svg", "--no-html",
                      *args)  # the command line, in this process (cli_runs.py)


def test_text_output_prints_each_finding_as_path_line_col_severity_message_kind(tmp_path):
    run = _infer(tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert ("tank.py:10:5: error: Tank: drain() can break the class invariant [breaks_invariant]"
            in lines), run.stdout
    assert ("tank.py:13:5: warning: Tank: jam() is never enabled: its precondition is unsatisfiable "
            "for objects meeting the invariant [never_enabled]") in lines
    note = lines[lines.index("tank.py:10:5: error: Tank: drain() can break the class invariant "
                             "[breaks_invariant]") + 1]
    assert note.startswith("tank.py:10:5: note: counterexample: ") and "level=0" in note


@pytest.mark.slow  # several subprocess runs: the quick loop's slowest (pytest --durations, issue 12)
def test_fail_on_exits_1_only_when_a_finding_is_that_severe(tmp_path):
    assert _infer(tmp_path, "--fail-on", "error").returncode == 1
    assert _infer(tmp_path, "--fail-on", "warning").returncode == 1
    assert _infer(tmp_path).returncode == 0
    (tmp_path / "tank.py").write_text(FAULTY)
    clean = subprocess.run([sys.executable, "-m", "contractor", "infer",
                            str(Path(__file__).parent.parent / "samples" / "door.py") + ":Door",
                            "--backend", "z3", "--out", "out", "--no-svg", "--no-html", "--fail-on", "warning"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert clean.returncode == 0, clean.stderr


def test_sarif_output_is_a_valid_sarif_log_with_one_result_per_finding(tmp_path):
    run = _infer(tmp_path, "--format", "sarif")
    assert run.returncode == 0, run.stderr
    log = json.loads(run.stdout)  # nothing but the log on stdout
    jsonschema.validate(log, SCHEMA)
    results = log["runs"][0]["results"]
    assert sorted(r["ruleId"] for r in results) == ["breaks_invariant", "never_enabled"]
    broken = next(r for r in results if r["ruleId"] == "breaks_invariant")
    assert broken["level"] == "error"
    region = broken["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (10, 5)
    assert broken["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "tank.py"
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert "class invariant" in rules["breaks_invariant"]["shortDescription"]["text"]


def test_github_output_is_one_workflow_annotation_per_finding(tmp_path):
    run = _infer(tmp_path, "--format", "github", "--fail-on", "error")
    assert run.returncode == 1
    assert sorted(run.stdout.splitlines()) == [
        "::error file=tank.py,line=10,col=5,title=breaks_invariant::Tank: drain() can break the class invariant"
        "%0Atank.py:10:5: counterexample: fields: level=0; args: -; after: level=-1",
        "::warning file=tank.py,line=13,col=5,title=never_enabled::Tank: jam() is never enabled: its "
        "precondition is unsatisfiable for objects meeting the invariant",
    ]


def test_json_output_is_still_the_typestate(tmp_path):
    run = _infer(tmp_path, "--format", "json")
    (data,) = json.loads(run.stdout)["typestates"]
    assert data["class"] == "Tank"
    assert {f["kind"] for f in data["findings"]} == {"breaks_invariant", "never_enabled"}


# ---- the findings skip what the exploration's witnesses already showed ----

UNSATISFIABLE = '''\
class Never:
    """inv: self.n > 0 and self.n < 0"""

    def __init__(self) -> None:
        self.n = 1

    def tick(self) -> None:
        self.n += 1
'''


@pytest.mark.parametrize("source, cls", [(FAULTY, "Tank"), (UNSATISFIABLE, "Never"),
                                         ((Path(__file__).parent.parent / "samples" / "door.py").read_text(), "Door")])
def test_findings_after_exploring_are_those_asked_afresh_with_fewer_queries(tmp_path, source, cls):
    from contractor.api import load_model
    from contractor.explore import explore
    from contractor.z3backend.backend import Z3Backend

    (tmp_path / "m.py").write_text(source)
    model = load_model(f"{tmp_path / 'm.py'}:{cls}")
    explored = Z3Backend(model)
    explore(model, explored)
    before = explored.n_queries
    after_exploring = explored.findings()
    fresh = Z3Backend(model)
    assert after_exploring == fresh.findings()
    if cls == "Door":  # every method enabled in a witnessed state, the invariant met, the
        # constructor's object witnessed: 8 fewer queries
        assert explored.invariant_shown and explored.shown_enabled == set(model.actions)
        assert explored.constructed == {"__init__"}
        assert explored.n_queries - before == fresh.n_queries - 8
    if cls == "Tank":
        assert "jam" not in explored.shown_enabled
        assert any(f.kind is FindingKind.NEVER_ENABLED and f.method == "jam" for f in after_exploring)
    if cls == "Never":
        assert [f.kind for f in after_exploring] == [FindingKind.UNSATISFIABLE_INVARIANT]

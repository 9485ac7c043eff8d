"""The project workflow through the CLI: [tool.contractor] in pyproject.toml (the command line
overriding it, per-class tables, clear errors), several targets and whole folders per run,
output folders by module path, and the pre-commit hook definition."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import cli_runs
import pytest

from contractor.settings import DEFAULT_BUDGET, PartialSettings, Settings, may_configure_contractor, overlay

REPO = Path(__file__).resolve().parent.parent


def contractor(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return cli_runs.contractor(cwd, *args)  # the command line, in this process


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with two classes named BoundedStack (samples/stack.py, lib/stack.py) and the door."""
    (tmp_path / "samples").mkdir()
    (tmp_path / "lib").mkdir()
    shutil.copy(REPO / "samples" / "stack.py", tmp_path / "samples" / "stack.py")
    shutil.copy(REPO / "samples" / "door.py", tmp_path / "samples" / "door.py")
    shutil.copy(REPO / "samples" / "stack.py", tmp_path / "lib" / "stack.py")
    (tmp_path / "samples" / "plain.py").write_text("class Plain:\n    def go(self) -> None:\n        pass\n")
    return tmp_path


def states(folder: Path) -> int:
    return len(json.loads((folder / "typestate.json").read_text())["states"])


def test_overlay_later_layers_win_and_none_keeps_the_value_below():
    merged = overlay(Settings(), PartialSettings(backend="z3", timeout=3.0), PartialSettings(timeout=None, unroll=2))
    assert (merged.backend, merged.timeout, merged.unroll, merged.budget) == ("z3", 3.0, 2, DEFAULT_BUDGET)


def test_a_folder_infers_every_class_with_contracts_into_its_own_folder(project):
    run = contractor(project, "infer", "samples/", "lib/stack.py", "--backend", "z3", "--no-svg", "--no-html")
    assert run.returncode == 0, run.stderr
    out = project / "output"
    assert sorted(p.name for p in out.iterdir()) == [
        "lib.stack.BoundedStack", "samples.door.Door", "samples.stack.BoundedStack"]  # Plain has no contracts
    assert states(out / "samples.door.Door") == 6
    assert states(out / "lib.stack.BoundedStack") == states(out / "samples.stack.BoundedStack")
    assert run.stdout.count("Wrote output/") == 3


def test_a_folder_leaves_out_test_classes_and_raises_of_nested_functions(project):
    """A test case is not a protocol (icontract's own tests gave 2,048-state partial
    typestates of unittest's assert methods), and a raise in a function a method defines
    guards nothing of the method."""
    (project / "samples" / "more.py").write_text(
        "import unittest\n\n\n"
        "class TestDoor(unittest.TestCase):\n"
        "    def test_open(self) -> None:\n"
        "        assert 1 + 1 == 2\n\n\n"
        "class Maker:\n"
        "    def make(self) -> None:\n"
        "        def check(x: int) -> None:\n"
        "            if x < 0:\n"
        "                raise ValueError(x)\n"
        "        check(1)\n\n\n"
        "class Guarded:\n"
        "    def __init__(self) -> None:\n"
        "        self.open = False\n\n"
        "    def read(self) -> None:\n"
        "        if not self.open:\n"
        "            raise ValueError('closed')\n")
    run = contractor(project, "infer", "samples/more.py", "--backend", "z3", "--no-svg", "--no-html")
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in (project / "output").iterdir()) == ["samples.more.Guarded"]
    explicit = contractor(project, "infer", "samples/more.py:Maker", "--backend", "z3", "--format", "json")
    assert explicit.returncode == 0, explicit.stderr  # named, a class is analysed whatever it holds


@pytest.mark.slow  # the quick loop's slowest (pytest --durations, issue 12)
def test_pyproject_settings_apply_and_the_command_line_overrides_them(project):
    (project / "pyproject.toml").write_text(
        '[tool.contractor]\nbackend = "z3"\ntargets = ["samples/door.py:Door"]\nout = "report"\n'
        'html = false\nsvg = false\nfail-on = "warning"\n\n'
        '[tool.contractor.classes."samples.door.Door"]\nexclude = ["alarm", "safe"]\n')
    run = contractor(project, "infer")  # the targets come from the file too
    assert run.returncode == 0, run.stderr
    written = project / "report"  # one class: `out` is its folder
    data = json.loads((written / "typestate.json").read_text())
    assert data["methods"] == ["close", "open", "start", "stop"] and data["stats"]["backend"] == "z3"
    assert not (written / "report.html").exists()
    again = contractor(project, "infer", "--exclude", "alarm", "--out", "other", "--format", "json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["typestates"][0]["methods"] == ["close", "open", "safe", "start", "stop"]


@pytest.mark.parametrize("text, message", [
    ('[tool.contractor]\nbakend = "z3"\n', "has no option 'bakend'; did you mean 'backend'?"),
    ('[tool.contractor]\ntimeout = "soon"\n', "timeout must be a number"),
    ('[tool.contractor]\nbackend = "z4"\n', "backend must be one of z3, crosshair, auto"),
    ('[tool.contractor\n', "not TOML"),
])
def test_a_bad_pyproject_is_an_input_error_naming_the_file(project, text, message):
    (project / "pyproject.toml").write_text(text)
    run = contractor(project, "infer", "samples/door.py:Door")
    assert run.returncode == 2 and message in run.stderr and "pyproject.toml" in run.stderr
    assert not (project / "output").exists()


def test_no_target_and_none_configured_is_a_usage_error(project):
    run = contractor(project, "infer")
    assert run.returncode == 2 and "no target" in run.stderr


def test_a_folder_without_classes_with_contracts_is_an_error(project):
    (project / "empty").mkdir()
    (project / "empty" / "x.py").write_text("X = 1\n")
    run = contractor(project, "infer", "empty")
    assert run.returncode == 2 and "no class with contracts" in run.stderr


def test_pre_commit_hook_runs_contractor_infer_and_fails_on_errors():
    lines = [line for line in (REPO / ".pre-commit-hooks.yaml").read_text().splitlines()
             if line and not line.lstrip().startswith("#")]
    keys = dict(line.lstrip("- ").split(": ", 1) for line in lines)
    assert keys["id"] == "contractor" and keys["language"] == "python"
    entry = keys["entry"].split()
    assert entry[:2] == ["contractor", "infer"] and "--fail-on" in entry
    from contractor.cli import main  # the options the hook passes exist

    for option in (o for o in entry if o.startswith("--")):
        assert any(option in p.opts for p in main.commands["infer"].params), option


TOML_DOCUMENTS = [
    '[tool.contractor]\nbackend = "z3"\n', '[ tool . "contractor" ]\nunroll = 3\n', "[tool.'contractor'.classes.x]\n",
    '[tool]\ncontractor = { backend = "z3" }\n', '[tool] # tools\ncontractor.backend = "z3"\n',
    'tool.contractor.backend = "z3"\n', 'tool = { contractor = { backend = "z3" } }\n',
    '"tool".contractor = { unroll = 2 }\n', '[[tool.contractor.x]]\ny = 1\n',
    '[project]\nname = "contractor"\n[project.scripts]\ncontractor = "contractor.entry:run"\n'
    '[tool.setuptools.package-data]\ncontractor = ["py.typed"]\n[tool.ruff]\nline-length = 120\n',
    '[project]\nname = "other"\n', 'x = "[tool.contractor]"\n',
]


@pytest.mark.parametrize("text", TOML_DOCUMENTS)
def test_a_pyproject_is_parsed_wherever_it_can_configure_contractor(text):
    import tomllib

    assert may_configure_contractor(text) or "contractor" not in tomllib.loads(text).get("tool", {})


def test_a_pyproject_naming_contractor_elsewhere_is_not_parsed():
    assert not may_configure_contractor((REPO / "pyproject.toml").read_text())  # spares tomllib (3 ms)
    assert may_configure_contractor(TOML_DOCUMENTS[0])

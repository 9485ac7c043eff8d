"""`contractor infer --format json` prints one shape whatever the number of classes
(`{"schema", "typestates", "errors"}`), and every JSON output is strict: no NaN or Infinity
(a solver's witness can be a NaN float; it is written as `{"__float__": "nan"}`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner, Result

from contractor.cli import main

REPO = Path(__file__).resolve().parent.parent

NANNY = '''\
class Nanny:
    def __init__(self) -> None:
        self.bad = False

    def poison(self, x: float) -> None:
        """pre: x != x and not self.bad"""
        self.bad = True

    def heal(self) -> None:
        """pre: self.bad"""
        self.bad = False
'''

BROKEN = '''\
class Broken:
    def go(self) -> None:
        """pre: self.x >"""
'''


def _infer(cwd: Path, *args: str, fmt: str = "json") -> Result:
    """`contractor infer` in this process (stdout and stderr apart), run in `cwd`."""
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, ["infer", *args, "--format", fmt, "--backend", "z3", "--no-svg",
                                         "--no-html", "--no-progress", "--no-cache"])
    finally:
        os.chdir(previous)


def _strict(text: str):
    def refuse(constant: str):
        raise AssertionError(f"non-strict JSON constant {constant}")
    return json.loads(text, parse_constant=refuse)


def test_one_shape_for_one_class_several_and_failures(tmp_path):
    door, turnstile = str(REPO / "samples" / "door.py") + ":Door", str(REPO / "samples" / "turnstile.py")
    one = _infer(tmp_path, door)
    assert one.exit_code == 0, one.stderr
    data = _strict(one.stdout)
    assert list(data) == ["schema", "typestates", "errors"] and data["errors"] == []
    assert [t["class"] for t in data["typestates"]] == ["Door"]
    two = _strict(_infer(tmp_path, door, turnstile).stdout)
    assert [t["class"] for t in two["typestates"]] == ["Door", "Turnstile"] and two["errors"] == []
    (tmp_path / "broken.py").write_text(BROKEN)
    mixed = _infer(tmp_path, door, "broken.py:Broken")
    assert mixed.exit_code == 2
    data = _strict(mixed.stdout)
    assert [t["class"] for t in data["typestates"]] == ["Door"]
    (error,) = data["errors"]
    assert error["target"] == "broken.Broken" and "does not parse" in error["message"]
    failed = _infer(tmp_path, "broken.py:Broken")
    assert failed.exit_code == 2
    assert _strict(failed.stdout) == {"schema": 1, "typestates": [], "errors": [
        {"target": "broken.Broken", "message": error["message"]}]}


def test_a_nan_witness_is_written_as_strict_json(tmp_path):
    """poison() is enabled only by a NaN argument: its witness is a NaN float."""
    (tmp_path / "nanny.py").write_text(NANNY)
    run = _infer(tmp_path, "nanny.py:Nanny", "--out", "o")
    assert run.exit_code == 0, run.stderr
    printed = _strict(run.stdout)
    written = _strict((tmp_path / "o" / "typestate.json").read_text())
    assert printed["typestates"] == [written]
    poisons = [t for t in written["transitions"] if t["method"] == "poison"]
    assert poisons and all(t["witness"]["args"]["x"] == {"__float__": "nan"} for t in poisons), poisons
    _strict(_infer(tmp_path, "nanny.py:Nanny", "--out", "s", fmt="sarif").stdout)

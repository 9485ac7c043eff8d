"""The README's example output is what `contractor infer` prints (`...` stands for any text)."""

from __future__ import annotations

import re
from pathlib import Path

from cli_runs import contractor

REPO = Path(__file__).resolve().parent.parent


def _example(command: str) -> list[str]:
    text = (REPO / "README.md").read_text()
    block = text.split(f"$ {command}\n", 1)[1].split("```", 1)[0]
    return block.rstrip("\n").splitlines()


def _matches(pattern: str, line: str) -> bool:
    return re.fullmatch(".*".join(map(re.escape, pattern.split("..."))), line) is not None


def test_the_readme_example_is_the_real_output(tmp_path):
    expected = _example("contractor infer samples/door.py:Door")
    run = contractor(REPO, "infer", "samples/door.py:Door", "--out", str(tmp_path / "out"))  # in this process
    assert run.returncode == 0, run.stderr
    got = run.stdout.rstrip("\n").splitlines()
    got[-1] = got[-1].replace(str(tmp_path / "out"), "output/samples.door.Door")  # the README's default folder
    assert len(got) == len(expected), "\n".join(got)
    bad = [(e, g) for e, g in zip(expected, got) if not _matches(e, g)]
    assert bad == []


def test_no_figure_is_left_as_a_placeholder():
    """A figure still to be measured was once written as a bare NAME_FIGURES line and landed."""
    text = (REPO / "README.md").read_text()
    assert re.findall(r"\b[A-Z]+_FIGURES\b|\bTODO\b|\bTBD\b", text) == []

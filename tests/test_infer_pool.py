"""`contractor infer FOLDER` analyses its classes in a process pool (--jobs), with the
output of the sequential run: same summary on stdout, same files, same exit status."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from contractor import infer_run
from contractor.cli import main

ROOT = Path(__file__).resolve().parent.parent
CLASSES = ("elevator.py", "file.py", "linear.py", "microwave.py")
ANALYSE_CLASS = infer_run.analyse_class
TIME = re.compile(rb"(time</th><td>|time: |\"seconds\": )[0-9.]+")


@pytest.fixture
def package(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for name in CLASSES:
        shutil.copy(ROOT / "benchmarks" / "contractor_net" / name, src / name)
    (src / "broken.py").write_text("class Broken:\n    def f(self) -> None:\n        '''pre: self.x >'''\n")
    return src


def _run(package: Path, out: Path, jobs: str, monkeypatch: pytest.MonkeyPatch, pids: Path
         ) -> tuple[int, bytes, dict[str, bytes]]:
    def recording(*args, **kwargs):  # type: ignore[no-untyped-def]
        with pids.open("a") as f:
            f.write(f"{os.getpid()}\n")
        return ANALYSE_CLASS(*args, **kwargs)

    monkeypatch.setattr(infer_run, "analyse_class", recording)
    result = CliRunner().invoke(main, ["infer", str(package), "--out", str(out), "--jobs", jobs])
    stdout = TIME.sub(rb"\1T", result.stdout_bytes.replace(str(out).encode(), b"OUT"))
    files = {str(p.relative_to(out)): TIME.sub(rb"\1T", p.read_bytes()) for p in sorted(out.rglob("*")) if p.is_file()}
    return result.exit_code, stdout, files


def test_pool_output_equals_the_sequential_run(package: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    seq_pids, pool_pids = tmp_path / "seq.txt", tmp_path / "pool.txt"
    sequential = _run(package, tmp_path / "seq", "1", monkeypatch, seq_pids)
    pooled = _run(package, tmp_path / "pool", "2", monkeypatch, pool_pids)
    assert sequential[0] == pooled[0] == 2  # the broken class is an error in both
    assert sequential[1] == pooled[1]
    assert sequential[2] == pooled[2]
    assert len(sequential[2]) == 5 * len(CLASSES)
    assert set(seq_pids.read_text().split()) == {str(os.getpid())}
    workers = set(pool_pids.read_text().split())
    assert str(os.getpid()) not in workers and 1 <= len(workers) <= 2

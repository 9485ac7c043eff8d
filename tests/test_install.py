"""The wheel installs as users install it: built from the repository, installed into a fresh
virtual environment, and `contractor infer` and `contractor strengthen` run from there on a
sample, with nothing of the repository on the path.

To stay fast and offline, the fresh environment gets contractor's dependencies from the
running interpreter's site-packages (a path entry, so that folder's own `.pth` files, among
them the editable install of the repository, are not processed); contractor itself comes
only from the wheel. `.ci/run` does the same with a plain `pip install` of the wheel.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{args} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin/ folder of a fresh venv with the wheel built from this repository installed."""
    base = tmp_path_factory.mktemp("install")
    source = base / "source"  # a clean copy: the build must not depend on local leftovers
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "output", "build", "dist", "*.egg-info", "__pycache__",
        ".contractor-cache", ".pytest_cache", ".hypothesis"))
    env = _clean_env()
    wheels = base / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(source)], base, env)
    (wheel,) = wheels.glob("contractor-*.whl")
    venv = base / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], base, env)
    python = venv / "bin" / "python"
    purelib = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                        base, env).stdout.strip())
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
          "-q", str(wheel)], base, env)
    # Only now (pip would otherwise see the runner's contractor as already installed):
    (purelib / "deps-from-test-runner.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return venv / "bin"


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["CONTRACTOR_CACHE_DIR"] = ""
    return env


def test_the_wheel_carries_the_templates_and_the_package_comes_from_it(installed: Path, tmp_path: Path):
    where = _run([str(installed / "python"), "-c",
                  "import contractor, contractor.resources as r; print(contractor.__file__); "
                  "print(sorted(p.name for p in r.templates_dir().rglob('*.*')))"],
                 tmp_path, _clean_env()).stdout
    assert str(installed.parent) in where.splitlines()[0]
    assert "report.css" in where and "method.py.j2" in where and "view.html.j2" in where


def test_infer_and_strengthen_run_from_the_installed_wheel(installed: Path, tmp_path: Path):
    shutil.copy(REPO / "samples" / "door.py", tmp_path / "door.py")
    env = _clean_env()
    infer = _run([str(installed / "contractor"), "infer", "door.py:Door", "--backend", "z3",
                  "--out", "out"], tmp_path, env)
    assert "6 states, 15 transitions" in infer.stdout
    assert {"typestate.json", "report.html", "typestate.mmd"} <= {p.name for p in (tmp_path / "out").iterdir()}
    _run([str(installed / "contractor"), "strengthen", "door.py:Door", "--out", "strong"], tmp_path, env)
    (written,) = (tmp_path / "strong").glob("*.py")
    client = (f"import sys; sys.path.insert(0, {str(written.parent)!r})\n"
              f"from {written.stem} import Door\n"
              "d = Door(); d.start(); d.alarm(); d.safe(); d.stop()\n"
              "try:\n    d.open()\nexcept AssertionError as e:\n    print('refused:', type(e).__name__)\n")
    run = _run([str(installed / "python"), "-c", client], tmp_path, env)
    assert "refused: TypestateError" in run.stdout


def test_the_wheel_carries_the_view_page_and_its_assets(installed: Path, tmp_path: Path):
    code = ("import pathlib, contractor.view, contractor.resources as r\n"
            "static = pathlib.Path(contractor.view.__file__).parent / 'static'\n"
            "print(sorted(p.name for p in static.iterdir()))\n"
            "print(r.jinja_env().get_template('view.html.j2').render(root='x').count('/static/view.'))\n")
    out = _run([str(installed / "python"), "-c", code], tmp_path, _clean_env()).stdout.splitlines()
    assert out == ["['view.css', 'view.js']", "2"]

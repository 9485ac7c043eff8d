"""This checkout of contractor under several z3-solver releases, end to end through the CLI,
interleaved: the evidence behind the exact z3 pin in pyproject.toml.

Each release gets its own virtual environment (made once, under --venvs) holding that
z3-solver and contractor's other runtime dependencies, read from pyproject.toml; contractor
itself runs from this checkout through PYTHONPATH, so every release runs the same code.
Each round runs `python -m contractor infer TARGET --backend z3 -q` once per release, one
fresh process after the other. Printed per target and release: medians of wall and CPU time
(user + system), the typestate's states, transitions, may-transitions and whether it is
complete (a release that changes them changes the answers, not only the speed), and the
median of the per-round CPU ratios to the first release given. CPU time is the figure to
trust when the machine is shared; the load is printed.

    python benchmarks/bench_z3_versions.py 4.16.0.0 5.4.1.0 [--runs 3] [--target T ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from bench_trees import facts, run_cli  # same folder

ROOT = Path(__file__).resolve().parent.parent
TARGETS = ["asyncio.locks:Lock", "wave:Wave_write", "zipfile:ZipFile", "http.client:HTTPConnection",
           "smtplib:SMTP"]


def runtime_dependencies() -> list[str]:
    """pyproject.toml's dependencies without z3-solver (each release brings its own)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [d for d in project["dependencies"] if not d.replace("_", "-").startswith("z3-solver")]


def environment(release: str, venvs: Path) -> Path:
    """The interpreter of a virtual environment with z3-solver==release (made if missing)."""
    venv = venvs / f"z3-{release}"
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"making {venv} ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"z3-solver=={release}",
                        *runtime_dependencies()], check=True)
    return python


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("releases", nargs="+", help="z3-solver versions, e.g. 4.16.0.0 (the first is the baseline)")
    parser.add_argument("--runs", type=int, default=3, help="rounds (medians reported)")
    parser.add_argument("--target", action="append", dest="targets", help=f"default: {' '.join(TARGETS)}")
    parser.add_argument("--venvs", type=Path, default=Path(tempfile.gettempdir()) / "contractor-z3-venvs",
                        help="where the per-release environments are made and kept")
    args = parser.parse_args()
    pythons = {r: environment(r, args.venvs) for r in args.releases}
    loads = []
    with tempfile.TemporaryDirectory() as tmp:
        for target in args.targets or TARGETS:
            rounds = []
            for i in range(args.runs):
                loads.append(os.getloadavg()[0])
                rounds.append([run_cli(str(pythons[r]), str(ROOT), target, None, Path(tmp) / f"{k}-{i}")
                               for k, r in enumerate(args.releases)])
            print(target, flush=True)
            for k, release in enumerate(args.releases):
                wall = statistics.median(r[k][0] for r in rounds)
                cpu = statistics.median(r[k][1] for r in rounds)
                ratio = statistics.median(r[k][1] / r[0][1] for r in rounds)
                print(f"  z3 {release:10} {wall:6.2f} s wall {cpu:6.2f} s CPU  x{ratio:.2f}  {facts(rounds[-1][k][2])}")
    print(f"load (1-minute average) during the runs: median {statistics.median(loads):.1f}, "
          f"max {max(loads):.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()

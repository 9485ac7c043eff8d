"""Run `contractor infer` on every class found under some folders, as a new user would, and tabulate.

For trying contractor on code nobody here wrote (the installed standard library, public
contract-annotated projects fetched elsewhere): each class runs in its own subprocess
with a wall-clock limit, and the table gives the exit code, states, transitions (may),
findings, unknowns and seconds. Nothing is copied; the classes are analysed in place.

    python benchmarks/survey.py PATH... [--backend z3] [--limit SECONDS] [--budget SECONDS] [--jobs N] [--out DIR]
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Outcome:
    target: str
    exit_code: int | None  # None: killed at the limit
    seconds: float
    states: int | None = None
    transitions: int | None = None
    may: int | None = None
    findings: int | None = None
    unknowns: int | None = None
    complete: bool | None = None
    error: str = ""


def classes_in(path: Path) -> list[str]:
    """`file.py:Class` for each top-level class of each Python file under `path`."""
    files = [path] if path.is_file() else sorted(path.rglob("*.py"))
    targets = []
    for f in files:
        try:
            tree = ast.parse(f.read_bytes())
        except (SyntaxError, ValueError):
            continue
        targets.extend(f"{f}:{node.name}" for node in tree.body if isinstance(node, ast.ClassDef))
    return targets


def run_one(target: str, backend: str, limit: float, out: Path, budget: float | None = None) -> Outcome:
    cmd = [sys.executable, "-m", "contractor", "infer", target, "--backend", backend,
           *(["--budget", str(budget)] if budget is not None else []),
           "--format", "json", "--quiet", "--no-svg", "--no-html",
           "--out", str(out / target.replace("/", "_").replace(":", "_"))]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return Outcome(target, None, round(time.perf_counter() - start, 2), error="time limit")
    seconds = round(time.perf_counter() - start, 2)
    if proc.returncode not in (0, 1):
        last = (proc.stderr.strip().splitlines() or [""])[-1]
        return Outcome(target, proc.returncode, seconds, error=last[:160])
    try:
        ts = json.loads(proc.stdout)["typestates"][0]
    except (json.JSONDecodeError, KeyError, IndexError):
        return Outcome(target, proc.returncode, seconds, error="stdout is not JSON")
    return Outcome(
        target, proc.returncode, seconds,
        states=len(ts["states"]), transitions=len(ts["transitions"]),
        may=sum(t["certainty"] == "may" for t in ts["transitions"]),
        findings=len(ts["findings"]), unknowns=len(ts["unknowns"]), complete=ts["complete"],
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--backend", default="z3")
    parser.add_argument("--limit", type=float, default=60.0, help="wall-clock seconds per class")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--budget", type=float, default=None, help="contractor's --budget per class")
    parser.add_argument("--out", type=Path, default=None, help="where the outputs go (default: a temp dir)")
    args = parser.parse_args()
    targets = [t for p in args.paths for t in classes_in(p)]
    out = args.out or Path(tempfile.mkdtemp(prefix="contractor-survey-"))
    with ThreadPoolExecutor(args.jobs) as pool:
        outcomes = list(pool.map(lambda t: run_one(t, args.backend, args.limit, out, args.budget), targets))
    print(f"{'target':70} {'exit':>4} {'s':>6} {'states':>6} {'trans':>6} {'may':>4} {'find':>4} {'unk':>4}")
    for o in outcomes:
        code = "kill" if o.exit_code is None else str(o.exit_code)
        print(f"{o.target[-70:]:70} {code:>4} {o.seconds:6.2f} {o.states or '':>6} {o.transitions or '':>6} "
              f"{o.may if o.may is not None else '':>4} {o.findings if o.findings is not None else '':>4} "
              f"{o.unknowns if o.unknowns is not None else '':>4} {o.error}")
    by_code: dict[str, int] = {}
    for o in outcomes:
        key = "killed" if o.exit_code is None else f"exit {o.exit_code}"
        by_code[key] = by_code.get(key, 0) + 1
    print(f"\n{len(outcomes)} classes: " + ", ".join(f"{v} {k}" for k, v in sorted(by_code.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

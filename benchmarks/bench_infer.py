"""Speed of `contractor infer` with the z3 backend (issue 2's figures).

1. The train door end to end: a new process per run, from start to exit, SVG included.
2. The scaling family: N independent flags with set_i/clear_i (2^N states, N*2^N
   transitions), analysed in-process; queries per (state, method) pair count only the
   exploration's own queries.

Figures are medians of --runs runs. Usage: python benchmarks/bench_infer.py [--runs 5] [--max-n 10]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from flags import flags_source  # noqa: E402


def door_end_to_end(runs: int) -> list[float]:
    exe = shutil.which("contractor", path=str(Path(sys.executable).parent)) or shutil.which("contractor")
    cmd = [exe] if exe else [sys.executable, "-m", "contractor"]
    # as on a user's machine: bytecode cached (one uncounted warm-up run writes it)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times = []
    with tempfile.TemporaryDirectory() as out:
        for i in range(runs + 1):
            start = time.perf_counter()
            subprocess.run(cmd + ["infer", "samples/door.py:Door", "--backend", "z3", "--out", out, "--quiet"],
                           cwd=ROOT, check=True, env=env)
            if i:
                times.append(time.perf_counter() - start)
        assert (Path(out) / "typestate.svg").exists()
    return times


def flags(n: int, runs: int):
    from contractor.api import InferOptions, infer

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"flags{n}.py"
        path.write_text(flags_source(n))
        times, ts = [], None
        for _ in range(runs):
            start = time.perf_counter()
            ts = infer(f"{path}:Flags{n}", InferOptions(backend="z3"))
            times.append(time.perf_counter() - start)
    assert ts.stats.states == 2 ** n and ts.stats.transitions == n * 2 ** n, ts.stats
    return times, ts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--min-n", type=int, default=4)
    parser.add_argument("--max-n", type=int, default=10)
    args = parser.parse_args()

    t = door_end_to_end(args.runs)
    print(f"door end to end (process start to exit, SVG included), {args.runs} runs: "
          f"median {statistics.median(t):.3f} s, min {min(t):.3f} s, max {max(t):.3f} s")
    print()
    print(f"{'N':>3} {'states':>7} {'transitions':>11} {'median s':>9} {'queries':>8} "
          f"{'explore q':>9} {'q/pair':>7} {'runs':>4}")
    for n in range(args.min_n, args.max_n + 1):
        runs = args.runs if n <= 8 else 1
        times, ts = flags(n, runs)
        pairs = sum(len(s.enabled) for s in ts.states)
        print(f"{n:>3} {ts.stats.states:>7} {ts.stats.transitions:>11} {statistics.median(times):>9.2f} "
              f"{ts.stats.queries:>8} {ts.stats.exploration_queries:>9} "
              f"{ts.stats.exploration_queries / pairs:>7.2f} {runs:>4}", flush=True)


if __name__ == "__main__":
    main()

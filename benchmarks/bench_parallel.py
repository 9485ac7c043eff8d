"""Parallel exploration against one process (contractor.parallel), on two families:

- budget N: N counters in 0..2 whose sum is bounded by one invariant, so no part of a
  query is shared between states and every (state, method) pair is real solver work;
- flags N: N independent flags, where reuse makes every pair a cache hit (the workers
  should then not start at all: --jobs 0 must cost nothing).

Each run is `infer` in this process with --jobs 1 and then --jobs 2 (the default, one
per CPU, on this 2-core machine); the ratio is taken per pair of runs. Medians of --runs.
With --folder, also `contractor infer FOLDER` through the CLI (a fresh process, default
outputs), --jobs 1 against --jobs 2 (the class pool), output compared.

    python benchmarks/bench_parallel.py [--runs 3] [--budget 5] [--flags 10]
                                        [--folder benchmarks/contractor_net]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from flags import flags_source  # noqa: E402


def budget_source(n: int) -> str:
    total = " + ".join(f"self.x{i}" for i in range(n))
    bound = 2 * n - 2
    lines = ["class Budget:", '    """', "    inv: " + " and ".join(f"0 <= self.x{i} <= 2" for i in range(n)),
             f"    inv: {total} <= {bound}", '    """', "", "    def __init__(self) -> None:"]
    lines += [f"        self.x{i} = 0" for i in range(n)]
    for i in range(n):
        lines += ["", f"    def inc_{i}(self) -> None:", f'        """pre: self.x{i} < 2 and {total} < {bound}"""',
                  f"        self.x{i} += 1", "", f"    def dec_{i}(self) -> None:",
                  f'        """pre: self.x{i} > 0"""', f"        self.x{i} -= 1"]
    return "\n".join(lines) + "\n"


def run(target: str, jobs: int):
    from contractor.api import InferOptions, infer

    start = time.perf_counter()
    ts = infer(target, InferOptions(backend="z3", jobs=jobs))
    return time.perf_counter() - start, ts


def compare(label: str, target: str, runs: int) -> None:
    pairs, last = [], None
    for _ in range(runs):
        one, ts1 = run(target, 1)
        two, ts2 = run(target, 2)
        assert [(t.source, t.method, t.target, t.certainty) for t in ts1.transitions] == \
            [(t.source, t.method, t.target, t.certainty) for t in ts2.transitions]
        pairs.append((one, two))
        last = ts1
    print(f"{label}: {last.stats.states} states, {last.stats.transitions} transitions; "
          f"--jobs 1 median {statistics.median(p[0] for p in pairs):.2f} s, "
          f"--jobs 2 median {statistics.median(p[1] for p in pairs):.2f} s, "
          f"speed-up (median of per-run ratios) {statistics.median(p[0] / p[1] for p in pairs):.2f}x, "
          f"{runs} runs", flush=True)


def folder(path: str, runs: int) -> None:
    """`contractor infer FOLDER` end to end with --jobs 1 and --jobs 2 (the class pool)."""
    import os
    import re
    import subprocess

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))

    def once(jobs: int) -> tuple[float, str]:
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "contractor", "infer", path, "--out", out, "--jobs",
                                   str(jobs)], cwd=ROOT, env=env, capture_output=True, text=True)
            wall = time.perf_counter() - start
        return wall, re.sub(r"time: [0-9.]+ s", "", done.stdout.replace(out, "OUT"))

    pairs = []
    for _ in range(runs):
        (one, text1), (two, text2) = once(1), once(2)
        assert text1 == text2, "the pool printed another summary than the sequential run"
        pairs.append((one, two))
    classes = text1.count("Wrote ")
    print(f"contractor infer {path} ({classes} classes, CLI, default outputs): --jobs 1 median "
          f"{statistics.median(p[0] for p in pairs):.2f} s, "
          f"--jobs 2 median {statistics.median(p[1] for p in pairs):.2f} s, "
          f"speed-up (median of per-run ratios) {statistics.median(p[0] / p[1] for p in pairs):.2f}x, "
          f"{runs} runs; same summary", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--budget", type=int, default=5, help="N of the budget family (0: skip it)")
    parser.add_argument("--flags", type=int, default=10, help="N of the flags family (0: skip it)")
    parser.add_argument("--folder", help="also time `contractor infer FOLDER` with --jobs 1 and 2")
    args = parser.parse_args()
    if args.folder:
        folder(args.folder, args.runs)
    with tempfile.TemporaryDirectory() as d:
        if args.budget:
            budget = Path(d) / "budget.py"
            budget.write_text(budget_source(args.budget))
            compare(f"budget N={args.budget}", f"{budget}:Budget", args.runs)
        if args.flags:
            flags = Path(d) / "flags.py"
            flags.write_text(flags_source(args.flags))
            compare(f"flags N={args.flags}", f"{flags}:Flags{args.flags}", args.runs)


if __name__ == "__main__":
    main()

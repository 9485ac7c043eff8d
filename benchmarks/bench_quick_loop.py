"""The quick test loop's cost: `pytest -q -m "not slow"` run several times, as the README says.

    python benchmarks/bench_quick_loop.py [--runs 3] [-- extra pytest arguments]

Prints, per run and as medians: the wall-clock seconds, the CPU seconds of pytest and every
process it waited for (user + system), the tests passed, and the 1-minute load average of
the machine before and after (other jobs share the cores: the wall time depends on them,
the CPU time hardly). Exits 1 if a run fails.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMAND = [sys.executable, "-m", "pytest", "-q", "-m", "not slow", "-p", "no:cacheprovider"]


def one_run(extra: list[str]) -> dict[str, float]:
    load_before = os.getloadavg()[0]
    before = os.times()
    start = time.monotonic()
    done = subprocess.run([*COMMAND, *extra], cwd=ROOT, capture_output=True, text=True)
    wall = time.monotonic() - start
    after = os.times()
    if done.returncode != 0:
        sys.stdout.write(done.stdout[-3000:] + done.stderr[-2000:])
        raise SystemExit(1)
    passed = re.search(r"(\d+) passed", done.stdout)
    return {"wall": wall,
            "cpu": (after.children_user - before.children_user) + (after.children_system - before.children_system),
            "passed": float(passed.group(1)) if passed else 0.0,
            "load_before": load_before, "load_after": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("extra", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs; command: {' '.join(COMMAND[1:])} {' '.join(args.extra)}".rstrip())
    runs = []
    for i in range(args.runs):
        r = one_run(args.extra)
        runs.append(r)
        print(f"run {i + 1}: {r['wall']:.1f} s wall, {r['cpu']:.1f} s CPU, {r['passed']:.0f} passed, "
              f"load {r['load_before']:.1f} -> {r['load_after']:.1f}", flush=True)
    print(f"median of {args.runs}: {statistics.median(r['wall'] for r in runs):.1f} s wall, "
          f"{statistics.median(r['cpu'] for r in runs):.1f} s CPU, "
          f"load {statistics.median(r['load_before'] for r in runs):.1f} at the starts")


if __name__ == "__main__":
    main()

"""Two installs of contractor against each other on one class, interleaved (issue 14).

Each round runs, as fresh processes one after the other: `python -c "import z3"` and the
class end to end through the CLI (`python -m contractor infer FILE:CLASS`, default
outputs) with install A, then the same with install B. Each interpreter's environment must
have contractor installed, not editable (`pip install --no-deps .` of each tree); runs
happen outside the source tree and without PYTHONPATH, as a user's install does. Printed:
medians of wall and CPU time (user + system) of each, each install's ratio to its own
`import z3` (median of per-round ratios), and B/A (median of per-round ratios).

    python benchmarks/bench_ab.py A_VENV/bin/python B_VENV/bin/python [--runs 15] [--target FILE:CLASS]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from bench_floor import timed  # wall and CPU time of one run (same folder)

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="install A's interpreter")
    parser.add_argument("b", help="install B's interpreter")
    parser.add_argument("--runs", type=int, default=15, help="rounds (medians reported)")
    parser.add_argument("--target", default=f"{ROOT / 'samples' / 'door.py'}:Door")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    cwd = Path(tempfile.gettempdir())
    with tempfile.TemporaryDirectory() as out:
        steps = [(name, [py, "-c", "import z3"], [py, "-m", "contractor", "infer", args.target, "--out", out, "-q"])
                 for name, py in (("A", args.a), ("B", args.b))]
        for _, floor, run in steps:  # warm-up: bytecode written, caches filled
            timed(floor, env, cwd)
            timed(run, env, cwd)
        rounds = [[(timed(floor, env, cwd), timed(run, env, cwd)) for _, floor, run in steps]
                  for _ in range(args.runs)]
    print(f"{args.target}; medians of {args.runs} interleaved rounds; load {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores (CPU time is the measure to trust under load)")
    for i, (name, _, _) in enumerate(steps):
        floor = [r[i][0] for r in rounds]
        run = [r[i][1] for r in rounds]
        print(f"  {name} ({[args.a, args.b][i]}): run {1000 * statistics.median(w for w, _ in run):.0f} ms wall, "
              f"{1000 * statistics.median(c for _, c in run):.0f} ms CPU; import z3 "
              f"{1000 * statistics.median(c for _, c in floor):.0f} ms CPU; run / import z3: "
              f"{statistics.median(r[1] / f[1] for f, r in zip(floor, run)):.2f}x CPU, "
              f"{statistics.median(r[0] / f[0] for f, r in zip(floor, run)):.2f}x wall")
    print(f"  B / A: {statistics.median(r[1][1][1] / r[0][1][1] for r in rounds):.3f} CPU, "
          f"{statistics.median(r[1][1][0] / r[0][1][0] for r in rounds):.3f} wall (medians of per-round ratios)")


if __name__ == "__main__":
    main()

"""Two source trees of contractor against each other on standard-library classes, end to
end through the CLI, interleaved (issue 8's speed: the exploration after the guards are read).

Each round runs, as fresh processes one after the other, `python -m contractor infer
TARGET --backend z3 -q` with PYTHONPATH set to tree A, then to tree B (the same
interpreter and installed packages; PYTHONPATH makes each tree's `contractor` win).
Printed per target and tree: medians of wall and CPU time (user + system of the
process), the typestate's states, transitions, may-transitions and whether it is
complete, the solver queries, and the exploration's queries per (state, method) pair
(`q/pair`: the queries the explorer asked, over the pairs it explored, i.e. the enabled
methods summed over the states; the rest of the queries are readable invariants and
findings); then B / A as medians of the per-round ratios. The load is printed: CPU time
is the figure to trust when the machine is shared.

Before the first round each tree runs once uncounted, with bytecode writing on whatever
the shell says, so both trees run from their bytecode cache as an installed package does.

    python benchmarks/bench_trees.py TREE_A TREE_B [--runs 3] [--budget S] [TARGET ...]

A tree is a directory holding the `contractor` package (a checkout, or `git archive`
of a commit unpacked).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_floor import timed  # wall and CPU time of one run (same folder)

TARGETS = ["asyncio.locks:Lock", "wave:Wave_write", "zipfile:ZipFile"]


def run(tree: str, target: str, budget: float | None, out: Path) -> tuple[float, float, dict[str, Any]]:
    return run_cli(sys.executable, tree, target, budget, out)


def run_cli(python: str, tree: str, target: str, budget: float | None,
            out: Path) -> tuple[float, float, dict[str, Any]]:
    """Wall and CPU time of `python -m contractor infer target` from `tree`, and its typestate."""
    env = tree_env(tree)
    cmd = [python, "-m", "contractor", "infer", target, "--backend", "z3", "-q", "--out", str(out)]
    if budget is not None:
        cmd += ["--budget", str(budget)]
    wall, cpu = timed(cmd, env, Path(tempfile.gettempdir()))
    return wall, cpu, json.loads((out / "typestate.json").read_text())


def tree_env(tree: str) -> dict[str, str]:
    """The environment of a run from `tree`: its `contractor` first on the path, and bytecode
    written and read as an installed package's is (without it, a shell exporting
    PYTHONDONTWRITEBYTECODE makes a fresh tree compile its 160 modules in every run: 0.15 s)."""
    env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def warm(python: str, tree: str, out: Path) -> None:
    """One uncounted run from `tree`, which writes its bytecode cache."""
    run_cli(python, tree, TARGETS[0], None, out)


def facts(ts: dict[str, Any]) -> str:
    st = ts["stats"]
    pairs = sum(len(s["enabled"]) for s in ts["states"])
    may = sum(t["certainty"] == "may" for t in ts["transitions"])
    per_pair = st["exploration_queries"] / pairs if pairs else 0.0
    return (f"{st['states']:3} states {st['transitions']:4} transitions ({may:4} may) complete={ts['complete']!s:5} "
            f"queries {st['queries']:5} q/pair {per_pair:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="tree A (before)")
    parser.add_argument("b", help="tree B (after)")
    parser.add_argument("--runs", type=int, default=3, help="rounds (medians reported)")
    parser.add_argument("--budget", type=float, default=None, help="--budget of each run (default: the CLI's)")
    parser.add_argument("targets", nargs="*", default=TARGETS)
    args = parser.parse_intermixed_args()
    loads = []
    with tempfile.TemporaryDirectory() as tmp:
        for tree in (args.a, args.b):
            warm(sys.executable, tree, Path(tmp) / "warm")
        for target in args.targets:
            rounds = []
            for i in range(args.runs):
                loads.append(os.getloadavg()[0])
                rounds.append([run(tree, target, args.budget, Path(tmp) / f"{name}{i}")
                               for name, tree in (("a", args.a), ("b", args.b))])
            print(target, flush=True)
            for k, name in enumerate("AB"):
                wall = statistics.median(r[k][0] for r in rounds)
                cpu = statistics.median(r[k][1] for r in rounds)
                print(f"  {name}: {wall:6.2f} s wall {cpu:6.2f} s CPU  {facts(rounds[-1][k][2])}")
            print(f"  B / A: {statistics.median(r[1][1] / r[0][1] for r in rounds):.3f} CPU, "
                  f"{statistics.median(r[1][0] / r[0][0] for r in rounds):.3f} wall "
                  f"(medians of {args.runs} per-round ratios)", flush=True)
    print(f"load (1-minute average) during the runs: median {statistics.median(loads):.1f}, "
          f"max {max(loads):.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()

"""Reading the raise guards (the class's z3 semantics, ClassSemantics, no budget) with two
source trees of contractor, interleaved: each round builds the semantics of each target
in a fresh process with tree A, then with tree B (PYTHONPATH), and records the CPU time
(process_time) of the build alone and the z3 queries it made. Printed per target: the
median CPU seconds of each tree and the median of the per-round ratios B / A. CPU time
is the figure to trust on a shared machine (bench_trees.py times whole runs).

    python benchmarks/bench_guard_trees.py TREE_A TREE_B [--runs 5] [TARGET ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

TARGETS = ["http.client:HTTPConnection", "zipfile:ZipFile", "wave:Wave_write"]

# run in the child: the semantics of argv[1], its CPU seconds printed last
CHILD = """
import sys, time
from contractor.api import InferOptions, load_model
from contractor.z3backend.semantics import ClassSemantics
model = load_model(sys.argv[1], InferOptions(backend="z3"))
start = time.process_time()
ClassSemantics(model)
print(time.process_time() - start)
"""


def one(tree: str, target: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve()), "PYTHONHASHSEED": "0"}
    out = subprocess.run([sys.executable, "-c", CHILD, target], env=env, check=True, capture_output=True,
                         text=True, cwd=tree)
    return float(out.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("tree_a")
    parser.add_argument("tree_b")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("targets", nargs="*", default=TARGETS)
    args = parser.parse_intermixed_args()
    print(f"{'target':28} {'A cpu s':>8} {'B cpu s':>8} {'B / A':>6}")
    for target in args.targets:
        a, b = [], []
        for _ in range(args.runs):
            a.append(one(args.tree_a, target))
            b.append(one(args.tree_b, target))
        ratio = statistics.median(y / x for x, y in zip(a, b))
        print(f"{target:28} {statistics.median(a):8.2f} {statistics.median(b):8.2f} {ratio:6.2f}", flush=True)


if __name__ == "__main__":
    main()

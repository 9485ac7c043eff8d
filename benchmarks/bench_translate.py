"""The translation layer of two source trees against each other (issue 8's speed: the
time spent building z3 terms before the exploration asks anything), interleaved.

Each round runs, as fresh processes one after the other, a child with tree A first on
PYTHONPATH, then tree B, that loads TARGET's class model and times (CPU time of the
process, `time.process_time`, and wall time) what the z3 backend does before its first
query: `ClassSemantics` (the invariant, every method's translation and raise guards,
their eliminations) and the constructors' translations. Printed per target and tree:
the medians of each stage, then B / A as the median of the per-round ratios of the
total CPU time. End-to-end figures are bench_trees.py's.

    python benchmarks/bench_translate.py TREE_A TREE_B [--runs 5] [TARGET ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGETS = ["zipfile:ZipFile", "http.client:HTTPConnection", "wave:Wave_write", "asyncio.locks:Lock"]


def child(target: str) -> None:
    from contractor.api import InferOptions, load_model
    from contractor.errors import UnsupportedConstruct
    from contractor.z3backend.semantics import ClassSemantics

    model = load_model(target, InferOptions(backend="z3"))
    c0, w0 = time.process_time(), time.perf_counter()
    sem = ClassSemantics(model, 8)
    c1 = time.process_time()
    for name in model.constructors:
        try:
            sem.construct(model.methods[name], f"{name}@")
        except UnsupportedConstruct:
            pass
    c2, w2 = time.process_time(), time.perf_counter()
    print(json.dumps({"semantics": c1 - c0, "constructors": c2 - c1, "total": c2 - c0, "wall": w2 - w0}))


def run(tree: str, target: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}
    me = str(Path(__file__).resolve())
    done = subprocess.run([sys.executable, me, "--child", target], env=env, capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", nargs="?", help="tree A (before)")
    parser.add_argument("b", nargs="?", help="tree B (after)")
    parser.add_argument("targets", nargs="*", help=f"default: {' '.join(TARGETS)}")
    parser.add_argument("--runs", type=int, default=5, help="rounds (medians reported)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    for target in args.targets or TARGETS:
        runs: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
        for _ in range(args.runs):
            runs["A"].append(run(args.a, target))
            runs["B"].append(run(args.b, target))
        print(target)
        for tree in ("A", "B"):
            med = {k: statistics.median(r[k] for r in runs[tree]) for k in runs[tree][0]}
            print(f"  {tree}: semantics {med['semantics']:6.2f} s  constructors {med['constructors']:6.2f} s  "
                  f"total {med['total']:6.2f} s CPU ({med['wall']:6.2f} s wall)")
        ratio = statistics.median(b["total"] / a["total"] for a, b in zip(runs["A"], runs["B"]))
        print(f"  B / A: {ratio:.3f} CPU (median of {args.runs} per-round ratios)", flush=True)


if __name__ == "__main__":
    main()

"""The translation layer of two source trees against each other (issue 8's speed: the
time spent building z3 terms before the exploration asks anything), interleaved.

Each round runs, as fresh processes one after the other, a child with tree A first on
PYTHONPATH, then tree B (PYTHONHASHSEED fixed, 0 unless given), that loads TARGET's
class model and times (CPU time of the process, `time.process_time`, and wall time)
what the z3 backend does before its first query: `ClassSemantics` (the invariant, every
method's translation and raise guards, their eliminations) and the constructors'
translations. Printed per target and tree: the medians of each stage, then B / A of the
semantics and of the total CPU time, as medians of the per-round ratios. End-to-end
figures are bench_trees.py's.

    python benchmarks/bench_translate.py TREE_A TREE_B [--runs 5] [--seed 0] [TARGET ...]

The `semantics` column is the raise guards' reading alone (what bench_guard_trees.py,
folded into this script, timed).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from treechild import interleaved, ratio  # the two trees' children (same folder)

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", nargs="?", help="tree A (before)")
    parser.add_argument("b", nargs="?", help="tree B (after)")
    parser.add_argument("targets", nargs="*", help=f"default: {' '.join(TARGETS)}")
    parser.add_argument("--runs", type=int, default=5, help="rounds (medians reported)")
    parser.add_argument("--seed", default="0", help="PYTHONHASHSEED of every child")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_intermixed_args()
    if args.child:
        child(args.child)
        return
    for target in args.targets or TARGETS:
        runs = interleaved(__file__, args.a, args.b, target, args.runs, args.seed)
        print(target)
        for tree in ("A", "B"):
            med = {k: statistics.median(r[k] for r in runs[tree]) for k in runs[tree][0]}
            print(f"  {tree}: semantics {med['semantics']:6.2f} s  constructors {med['constructors']:6.2f} s  "
                  f"total {med['total']:6.2f} s CPU ({med['wall']:6.2f} s wall)")
        print(f"  B / A: semantics {ratio(runs, 'semantics'):.3f}, total {ratio(runs, 'total'):.3f} CPU "
              f"(medians of {args.runs} per-round ratios)", flush=True)


if __name__ == "__main__":
    main()

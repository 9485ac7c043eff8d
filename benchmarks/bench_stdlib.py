"""Time `contractor infer` (z3 backend, end to end in-process) on standard-library classes
analysed in place; prints the median of --runs runs per class.

    python benchmarks/bench_stdlib.py --runs 3
"""

from __future__ import annotations

import argparse
import statistics
import time

from contractor.api import InferOptions, infer

TARGETS = ["asyncio.locks:Lock", "wave:Wave_write"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("targets", nargs="*", default=TARGETS)
    args = parser.parse_args()
    print(f"{'target':32} {'median s':>9} {'states':>7} {'transitions':>12} {'may':>5}")
    for target in args.targets:
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            ts = infer(target, InferOptions(backend="z3"))
            times.append(time.perf_counter() - start)
        may = sum(t.certainty == "may" for t in ts.transitions)
        print(f"{target:32} {statistics.median(times):9.2f} {len(ts.states):7} {len(ts.transitions):12} {may:5}")


if __name__ == "__main__":
    main()

"""Benchmark of the CrossHair path: time, queries and decided transitions for each CrossHair
sample, and the time of `--backend auto` against `--backend crosshair` on the z3-subset
samples. Queries run in-process; the disk cache is off so every run does the work.

    python benchmarks/bench_crosshair.py [--timeout SECONDS] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from contractor.api import InferOptions, infer

ROOT = Path(__file__).resolve().parent.parent
CROSSHAIR_SAMPLES = ["crosshair/stack.py:BoundedStack", "crosshair/listitr.py:ListItr",
                     "crosshair/textfile.py:TextFile", "crosshair/pool.py:ConnectionPool"]
Z3_SUBSET = ["door.py:Door", "turnstile.py:Turnstile", "int_queue.py:IntQueue", "stack.py:BoundedStack",
             "loop_counter.py:Countdown", "account.py:Account"]


def measure(target: str, backend: str, timeout: float) -> dict:
    options = InferOptions(backend=backend, timeout=timeout, crosshair_options={"cache": False})
    start = time.perf_counter()
    ts = infer(f"{ROOT}/samples/{target}", options)
    seconds = time.perf_counter() - start
    musts = sum(t.certainty == "must" for t in ts.transitions)
    return {"target": target, "backend": backend, "seconds": round(seconds, 2),
            "queries": ts.stats.queries_by_backend, "states": len(ts.states),
            "transitions": len(ts.transitions), "must": musts, "complete": ts.complete}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per query (CPU time)")
    parser.add_argument("--json", type=Path, help="also write the measurements to this file")
    args = parser.parse_args()
    rows = []
    print(f"{'sample':40} {'backend':9} {'seconds':>8} {'states':>6} {'trans':>5} {'must':>4}  queries")
    for target in CROSSHAIR_SAMPLES:
        rows.append(measure(target, "crosshair", args.timeout))
    ratios = []
    for target in Z3_SUBSET:
        auto, crosshair = measure(target, "auto", args.timeout), measure(target, "crosshair", args.timeout)
        rows += [auto, crosshair]
        ratios.append({"target": target, "auto/crosshair": round(auto["seconds"] / crosshair["seconds"], 3)})
    for r in rows:
        print(f"{r['target']:40} {r['backend']:9} {r['seconds']:8.2f} {r['states']:6} {r['transitions']:5} "
              f"{r['must']:4}  {r['queries']}")
    print()
    for r in ratios:
        print(f"{r['target']:40} auto/crosshair time ratio {r['auto/crosshair']}")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "ratios": ratios}, indent=2))


if __name__ == "__main__":
    main()

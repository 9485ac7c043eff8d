"""Benchmark of the CrossHair path: time, queries and decided transitions for each sample
under `--backend crosshair` and `--backend auto`, and the ratio of auto's time to
CrossHair's (per run, then the median). Times are medians over --runs runs. CrossHair's
queries run in its sandboxed worker process; the disk cache is off so every run does the work.

    python benchmarks/bench_crosshair.py [--runs N] [--timeout SECONDS] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
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
    parser.add_argument("--runs", type=int, default=3, help="runs per sample and backend (median reported)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per query")
    parser.add_argument("--json", type=Path, help="also write the measurements to this file")
    args = parser.parse_args()
    rows, ratios = [], []
    print(f"{'sample':40} {'backend':9} {'median s':>8} {'states':>6} {'trans':>5} {'must':>4}  queries")
    for target in CROSSHAIR_SAMPLES + Z3_SUBSET:
        runs = {"auto": [], "crosshair": []}
        for _ in range(args.runs):
            for backend in runs:
                runs[backend].append(measure(target, backend, args.timeout))
        for backend, measured in runs.items():
            row = dict(measured[-1], seconds=round(statistics.median(m["seconds"] for m in measured), 2),
                       runs=[m["seconds"] for m in measured])
            rows.append(row)
            print(f"{row['target']:40} {backend:9} {row['seconds']:8.2f} {row['states']:6} "
                  f"{row['transitions']:5} {row['must']:4}  {row['queries']}", flush=True)
        ratio = statistics.median(a["seconds"] / c["seconds"] for a, c in zip(runs["auto"], runs["crosshair"]))
        ratios.append({"target": target, "auto/crosshair": round(ratio, 3)})
    print()
    for r in ratios:
        print(f"{r['target']:40} auto/crosshair time ratio (median of per-run ratios) {r['auto/crosshair']}")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "ratios": ratios}, indent=2))


if __name__ == "__main__":
    main()

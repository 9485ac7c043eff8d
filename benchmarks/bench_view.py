"""Latency of `contractor view` against `contractor infer` (issue 13): how soon the first
state reaches the page and how much later than an in-process `infer` the final typestate
arrives (the worker is a fresh process: Python start-up and imports are included).

Measured per class, as medians of --runs runs, with the z3 backend:
1. infer: `api.infer` in-process (imports already paid);
2. first state: from asking the view's session to analyse to the first state event;
3. done: to the `done` event (final typestate and final diagram drawn);
4. redraws: diagrams drawn during the run (render interval 0.3 s).
Usage: python benchmarks/bench_view.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from flags import flags_source  # noqa: E402

from contractor import api  # noqa: E402
from contractor.view.session import Session  # noqa: E402

Z3 = api.InferOptions(backend="z3")


def one_view_run(session: Session, target: str) -> tuple[float, float, int]:
    start = time.perf_counter()
    run = session.start(target)
    first = done = None
    seen = run.first_seq
    while done is None:
        for event in session.log.since(seen):
            seen = event["seq"] + 1
            if event["type"] == "state" and first is None:
                first = time.perf_counter() - start
            if event["type"] == "done":
                done = time.perf_counter() - start
            if event["type"] == "error":
                raise RuntimeError(event["message"])
        time.sleep(0.002)
    redraws = sum(e["type"] == "diagram" for e in session.log.since(run.first_seq))
    return first, done, redraws


def measure(target: str, root: Path, runs: int) -> dict[str, float]:
    os.chdir(root)
    infer = []
    for _ in range(runs):
        began = time.perf_counter()
        ts = api.infer(target, Z3)
        infer.append(time.perf_counter() - began)
    session = Session(root, Z3, watch=False)
    try:
        results = [one_view_run(session, target) for _ in range(runs)]
    finally:
        session.close()
    return {"states": len(ts.states), "transitions": len(ts.transitions),
            "infer": statistics.median(infer),
            "first": statistics.median(r[0] for r in results),
            "done": statistics.median(r[1] for r in results),
            "redraws": statistics.median(r[2] for r in results)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-view-"))
    for n in (4, 6):
        (work / f"flags{n}.py").write_text(flags_source(n))
    (work / "door.py").write_text((ROOT / "samples" / "door.py").read_text())
    print(f"medians of {args.runs} runs (seconds); z3 backend")
    print(f"{'class':<10} {'states':>6} {'trans':>6} {'infer':>7} {'first':>7} {'done':>7} {'redraws':>7}")
    for target in ("door.py:Door", "flags4.py:Flags4", "flags6.py:Flags6"):
        r = measure(target, work, args.runs)
        print(f"{target.split(':')[1]:<10} {r['states']:>6} {r['transitions']:>6} {r['infer']:>7.2f} "
              f"{r['first']:>7.2f} {r['done']:>7.2f} {r['redraws']:>7.0f}")


if __name__ == "__main__":
    main()

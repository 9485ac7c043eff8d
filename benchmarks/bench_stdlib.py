"""Time `contractor infer` (z3 backend, end to end in-process) on the standard-library classes
of issue 8, analysed in place; prints per class the median seconds of --runs runs, and the
states, transitions, may-transitions and whether the run finished within the budget
(`complete`: no; the typestate is then partial, as the CLI's default budget makes it).

Also, less dependent on the machine's load: the solver queries of the last run, and the
seconds of reading the raise guards alone (translating each method and eliminating its
arguments and outside values: the class's z3 semantics built once, within the same
budget). `over s`: how far the slowest run went past its budget (0 within it).

    python benchmarks/bench_stdlib.py --runs 3 [--budget SECONDS] [TARGET ...]
"""

from __future__ import annotations

import argparse
import statistics
import time

from contractor.api import InferOptions, infer, load_model
from contractor.settings import DEFAULT_BUDGET
from contractor.z3backend.semantics import ClassSemantics

TARGETS = ["asyncio.locks:Lock", "wave:Wave_write", "smtplib:SMTP", "zipfile:ZipFile",
           "http.client:HTTPConnection"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET, help="seconds per run (0: none)")
    parser.add_argument("targets", nargs="*", default=TARGETS)
    args = parser.parse_args()
    print(f"{'target':28} {'median s':>9} {'states':>7} {'transitions':>12} {'may':>5} {'complete':>9} "
          f"{'queries':>8} {'guards s':>9} {'over s':>7}")
    for target in args.targets:
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            ts = infer(target, InferOptions(backend="z3", budget=args.budget or None))
            times.append(time.perf_counter() - start)
        may = sum(t.certainty == "may" for t in ts.transitions)
        model = load_model(target, InferOptions(backend="z3"))
        start = time.perf_counter()
        ClassSemantics(model, deadline=time.monotonic() + args.budget if args.budget else None)
        guards = time.perf_counter() - start
        over = max(0.0, max(times) - args.budget) if args.budget else 0.0
        print(f"{target:28} {statistics.median(times):9.2f} {len(ts.states):7} {len(ts.transitions):12} "
              f"{may:5} {str(ts.complete):>9} {ts.stats.queries:8} {guards:9.2f} {over:7.2f}", flush=True)


if __name__ == "__main__":
    main()

"""Reading the raise guards of a class, method by method (no budget): the seconds (wall and
CPU) each action's enabledness takes (its translation and the elimination of its
arguments and outside values) and whether it came out exact, then the totals; medians
of --runs runs. CPU time is less dependent on the machine's load than wall time.

    python benchmarks/bench_guards.py [--runs 3] [--methods a,b] [TARGET ...]   (default: http.client:HTTPConnection)

--methods reads only those actions' guards (smtplib.SMTP's all take minutes).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from collections import defaultdict

from contractor.api import InferOptions, load_model
from contractor.z3backend import semantics as S


def one_run(target: str, methods: list[str] | None = None) -> tuple[dict[str, tuple[float, float]], dict[str, bool],
                                                                     float, float]:
    model = load_model(target, InferOptions(backend="z3"))
    if methods:
        model = dataclasses.replace(model, actions=tuple(m for m in model.actions if m in methods))
    times: dict[str, tuple[float, float]] = {}
    enabledness = S.ClassSemantics.enabledness

    def timed(self: S.ClassSemantics, method):  # type: ignore[no-untyped-def]
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return enabledness(self, method)
        finally:
            times[method.name] = (time.perf_counter() - wall, time.process_time() - cpu)

    S.ClassSemantics.enabledness = timed  # type: ignore[method-assign]
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        sem = S.ClassSemantics(model)
        total = (time.perf_counter() - wall, time.process_time() - cpu)
    finally:
        S.ClassSemantics.enabledness = enabledness  # type: ignore[method-assign]
    exact = {m: not any(k.startswith(f"{m}:") for k in sem.inexact) for m in model.actions}
    return times, exact, total[0], total[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--methods", default="", help="comma-separated actions to read (default: all)")
    parser.add_argument("targets", nargs="*", default=["http.client:HTTPConnection"])
    args = parser.parse_args()
    for target in args.targets:
        per: dict[str, list[tuple[float, float]]] = defaultdict(list)
        totals: list[tuple[float, float]] = []
        exact: dict[str, bool] = {}
        for _ in range(args.runs):
            times, exact, wall, cpu = one_run(target, [m for m in args.methods.split(",") if m])
            for m, t in times.items():
                per[m].append(t)
            totals.append((wall, cpu))
        print(f"{target}: raise guards, medians of {args.runs} run(s)")
        print(f"  {'method':24} {'wall s':>7} {'cpu s':>7}  exact")
        for m, ts in per.items():
            print(f"  {m:24} {statistics.median(t[0] for t in ts):7.2f} {statistics.median(t[1] for t in ts):7.2f}"
                  f"  {'yes' if exact.get(m) else 'no'}")
        print(f"  {'total':24} {statistics.median(t[0] for t in totals):7.2f} "
              f"{statistics.median(t[1] for t in totals):7.2f}  {sum(exact.values())}/{len(exact)} exact", flush=True)


if __name__ == "__main__":
    main()

"""The CPU time a z3 run spends outside z3's search, two source trees against each other,
interleaved (issue 8's speed: translation and term work, apart from the solver).

Each round runs, as fresh processes one after the other, a child with tree A first on
PYTHONPATH, then tree B (PYTHONHASHSEED fixed, 0 unless given), that imports what
`api.infer` uses and then times one `api.infer(TARGET)` call with the z3 backend and one
job: its CPU time (`time.process_time`), and the CPU time inside z3's searches (the C
calls `Z3_solver_check_assumptions`, `Z3_solver_check`, `Z3_solver_get_consequences` and
`Z3_tactic_apply`, each timed where z3's Python module calls it). The rest is the
figure this measures: translating the class, building and walking terms, models,
simplification, the exploration's own work. Printed per target and tree: medians of
the call's CPU, the solver's and the rest, and the typestate's states, transitions and
may-transitions; then B / A of the rest and of the total as medians of the per-round
ratios.

    python benchmarks/bench_nonsolver.py TREE_A TREE_B [--runs 5] [--seed 0] [TARGET ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from typing import Any

from treechild import interleaved, ratio  # the two trees' children (same folder)

TARGETS = ["http.client:HTTPConnection", "zipfile:ZipFile", "wave:Wave_write"]
SEARCHES = ("Z3_solver_check_assumptions", "Z3_solver_check", "Z3_solver_get_consequences", "Z3_tactic_apply")


def child(target: str) -> None:
    import z3
    import z3.z3 as z3py

    import contractor.explore
    import contractor.z3backend  # noqa: F401  (z3's main context too)
    from contractor import api

    spent = [0.0]

    def timed(fn: Any) -> Any:
        def call(*args: Any) -> Any:
            t = time.process_time()
            try:
                return fn(*args)
            finally:
                spent[0] += time.process_time() - t
        return call

    for name in SEARCHES:
        setattr(z3py, name, timed(getattr(z3py, name)))
    z3.main_ctx()
    cpu = time.process_time()
    ts = api.infer(target, api.InferOptions(backend="z3", jobs=1))
    cpu = time.process_time() - cpu
    may = sum(str(getattr(t.certainty, "value", t.certainty)) == "may" for t in ts.transitions)
    print(json.dumps({"cpu": cpu, "solver": spent[0], "rest": cpu - spent[0], "states": len(ts.states),
                      "transitions": len(ts.transitions), "may": may}))


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
        runs = interleaved(__file__, args.a, args.b, target, args.runs, args.seed, cwd=tempfile.gettempdir())
        print(target)
        for tree in ("A", "B"):
            med = {k: statistics.median(r[k] for r in runs[tree]) for k in ("cpu", "solver", "rest")}
            last = runs[tree][-1]
            print(f"  {tree}: total {med['cpu']:6.2f} s CPU  solver {med['solver']:6.2f} s  rest {med['rest']:6.2f} s"
                  f"   {last['states']:.0f} states {last['transitions']:.0f} transitions ({last['may']:.0f} may)")
        print(f"  B / A: rest {ratio(runs, 'rest'):.3f}, total {ratio(runs, 'cpu'):.3f} CPU "
              f"(medians of {args.runs} per-round ratios); "
              f"load {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()

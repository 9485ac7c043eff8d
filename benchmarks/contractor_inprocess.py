"""contractor's side of bench_aalpy.py's in-process comparison: one `contractor.api.infer`
call, timed after the imports a run needs.

In a fresh process: import what `api.infer` uses (the API, the contract reader, the z3
backend with z3 and its main context, the exploration), then time one
`api.infer("FILE:CLASS")` call (find and parse the file, read the contracts, explore,
findings, state invariants; no file written), as aalpy_learn.py times AALpy's learning.
Prints one JSON object: the call's seconds (wall and CPU), the typestate's size and
queries, and any contractor module the call still had to import (none expected).

    python benchmarks/contractor_inprocess.py FILE CLASS
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    path, cls = sys.argv[1], sys.argv[2]
    import z3

    import contractor.contracts
    import contractor.crosshair_backend.auto
    import contractor.explore
    import contractor.parallel
    import contractor.runguard
    import contractor.state_tests
    import contractor.target
    import contractor.z3backend  # noqa: F401  (imports z3's main context too)
    import contractor.z3backend.checks  # the findings' module, imported by the backend when first asked
    import contractor.z3backend.oneread  # noqa: F401  (imported by the semantics when a method is first read)
    from contractor import api

    z3.main_ctx()
    before = set(sys.modules)
    wall, cpu = time.perf_counter(), time.process_time()
    ts = api.infer(f"{path}:{cls}", root=ROOT)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    imported = sorted(m for m in set(sys.modules) - before if m.startswith("contractor"))
    print(json.dumps({"seconds": wall, "cpu": cpu, "states": len(ts.states), "transitions": len(ts.transitions),
                      "queries": ts.stats.queries, "imported_during_call": imported}))


if __name__ == "__main__":
    main()

"""The findings stage (Z3Backend.findings: checks.method_findings) of two source trees,
interleaved: CPU seconds and solver queries of that stage alone, and the findings' kinds
and methods (which must be the same), per target.

Each round runs `python -m contractor infer TARGET --backend z3 -q` as a fresh process
with tree A, then tree B, first on PYTHONPATH; the stage is timed inside the process
(time.process_time around the backend's findings call, which holds no other work).
Medians over the rounds are printed; the exploration before it is the same code in both
trees when only the findings differ, but its wall-clock limits make it vary under load.

    python benchmarks/bench_findings.py TREE_A TREE_B [--runs 3] [TARGET ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TARGETS = ["zipfile:ZipFile", "http.client:HTTPConnection", "wave:Wave_write"]

PROBE = r"""
import json, sys, time
from contractor.z3backend import backend as B
real = B.Z3Backend.findings
seen = {}
def findings(self):
    q, t = self.n_queries, time.process_time()
    out = real(self)
    seen.update(cpu=time.process_time() - t, queries=self.n_queries - q,
                findings=sorted([f.kind.value, f.method or ""] for f in out))
    return out
B.Z3Backend.findings = findings
from contractor.cli import main
try:
    main(sys.argv[2:], standalone_mode=False)
finally:
    open(sys.argv[1], "w").write(json.dumps(seen))
"""


def run(tree: str, target: str, out: Path) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}
    report = out / "findings.json"
    subprocess.run([sys.executable, "-c", PROBE, str(report), "infer", target, "--backend", "z3", "-q",
                    "--out", str(out)], env=env, cwd=tempfile.gettempdir(), check=True, capture_output=True)
    found: dict[str, object] = json.loads(report.read_text())
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="tree A (before)")
    parser.add_argument("b", help="tree B (after)")
    parser.add_argument("--runs", type=int, default=3, help="rounds (medians reported)")
    parser.add_argument("targets", nargs="*", default=TARGETS)
    args = parser.parse_intermixed_args()
    with tempfile.TemporaryDirectory() as tmp:
        for target in args.targets:
            rounds = []
            for i in range(args.runs):
                rounds.append([run(tree, target, Path(tmp) / f"{name}{i}")
                               for name, tree in (("a", args.a), ("b", args.b))])
            print(target, flush=True)
            for k, name in enumerate("AB"):
                cpu = statistics.median(float(r[k]["cpu"]) for r in rounds)  # type: ignore[arg-type]
                queries = statistics.median(int(r[k]["queries"]) for r in rounds)  # type: ignore[call-overload]
                print(f"  {name}: findings {cpu:6.3f} s CPU  {queries:5.1f} queries  "
                      f"{len(rounds[-1][k]['findings'])} findings")  # type: ignore[arg-type]
            same = all(r[0]["findings"] == r[1]["findings"] for r in rounds)
            print(f"  same findings (kinds and methods) in every round: {same}", flush=True)


if __name__ == "__main__":
    main()

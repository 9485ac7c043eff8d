"""Benchmark of comprehensions, sum/min/max/sorted, any/all and set algebra in the z3
backend: end-to-end `contractor infer` time (the CLI in a subprocess, CrossHair cache
off) on the classes of tests/semantic_collection_cases.py, each with its case's --unroll.
Median of --runs runs, with states, transitions and may-transitions of the last run.

    python benchmarks/bench_collections.py [--runs N] [--backend z3|auto] [--tree DIR] [--limit S]

--tree runs another checkout of contractor (e.g. one before this work, made with
`git archive <commit> | tar -x -C DIR`) on the same classes, for before/after figures;
a run over --limit seconds is stopped and reported as such.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from semantic_collection_cases import COLLECTION_CASES  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from cli_run import infer_once  # noqa: E402


def run_once(path: Path, unroll: int, backend: str, tree: Path, limit: float) -> dict:
    return infer_once(f"{path}:C", ["--backend", backend, "--unroll", str(unroll)], tree, limit)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--backend", default="z3")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the contractor checkout to run")
    parser.add_argument("--limit", type=float, default=300.0, help="seconds before a run is stopped")
    args = parser.parse_args()
    print(f"contractor from {args.tree}, --backend {args.backend}; {args.runs} runs each; "
          "median end-to-end seconds")
    with tempfile.TemporaryDirectory() as folder:
        for case in COLLECTION_CASES:
            path = Path(folder) / f"{case.name}.py"
            path.write_text(textwrap.dedent(case.source).lstrip())
            runs = [run_once(path, case.unroll, args.backend, args.tree, args.limit) for _ in range(args.runs)]
            times = [r["seconds"] for r in runs if r["seconds"] is not None]
            last = runs[-1]
            if not times:
                print(f"{case.name:28} stopped after {args.limit:.0f} s or failed {last.get('error', '')}")
                continue
            print(f"{case.name:28} {statistics.median(times):7.2f} s  {last.get('states')} states, "
                  f"{last.get('transitions')} transitions, {last.get('may')} may")


if __name__ == "__main__":
    main()

"""Benchmark of the dict encoding: end-to-end `contractor infer --backend z3` (the CLI in a
subprocess, the default 60 s budget) on the dict and set classes of tests/semantic_cases.py
(dict_operations, dict_removal_after_setdefault, set_removal_after_add), two checkouts
interleaved run by run (before, after, before, after, ...). Median seconds of --runs runs,
with states, transitions and may-transitions of the last run, and whether it was partial.

    python benchmarks/bench_dicts.py --before DIR [--after DIR] [--runs N] [--limit S]

DIR: a checkout of contractor (e.g. `git worktree add /tmp/before main`); --after defaults
to this one.
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
sys.path.insert(0, str(ROOT / "benchmarks"))

from cli_run import infer_once  # noqa: E402
from semantic_cases import CASES  # noqa: E402

NAMES = ("dict_operations", "dict_removal_after_setdefault", "set_removal_after_add")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, default=ROOT)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--limit", type=float, default=200.0)
    args = ap.parse_args()
    cases = [c for c in CASES if c.name in NAMES]
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            path = Path(tmp) / f"{case.name}.py"
            path.write_text(textwrap.dedent(case.source).lstrip())
            seconds: dict[str, list[float]] = {"before": [], "after": []}
            last: dict[str, dict] = {}
            for _ in range(args.runs):
                for label, tree in (("before", args.before), ("after", args.after)):
                    r = infer_once(f"{path}:C", ["--backend", "z3"], tree.resolve(), args.limit)
                    last[label] = r
                    seconds[label].append(r["seconds"] if r["seconds"] is not None else float("inf"))
            for label in ("before", "after"):
                r = last[label]
                shape = f"{r.get('states')} states, {r.get('transitions')} transitions, {r.get('may')} may"
                print(f"{case.name:32} {label:6} median {statistics.median(seconds[label]):7.2f} s "
                      f"(runs {', '.join(f'{s:.2f}' for s in seconds[label])}); {shape}", flush=True)


if __name__ == "__main__":
    main()

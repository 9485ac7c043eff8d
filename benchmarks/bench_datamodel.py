"""Benchmark of the Python data model in the z3 backend: end-to-end `contractor infer` time
(the CLI in a subprocess, default backend `auto`, CrossHair cache off) on the samples it
made decidable by z3: the text buffer (str slicing), the connection pool (a dict), the
MP3 player (class constants), the session pool (a dict of str), the tag set (a set of str)
and the router (a dict, a tuple constant, startswith, all() in the invariant). Median of
--runs runs, with states, transitions, may-transitions and queries per backend of the last
run.

    python benchmarks/bench_datamodel.py [--runs N] [--tree DIR] [--limit SECONDS]

--tree runs another checkout of contractor (e.g. one before this work, made with
`git archive <commit> | tar -x -C DIR`) on the same sample files, for before/after figures;
a run over --limit seconds is stopped and reported as such. --only NAME... restricts the
samples (by class name).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from cli_run import infer_once  # noqa: E402

SAMPLES = ["samples/text_buffer.py:TextBuffer", "samples/crosshair/pool.py:ConnectionPool",
           "samples/player.py:Mp3Player", "samples/session_pool.py:SessionPool", "samples/tag_set.py:TagSet",
           "samples/router.py:Router"]


def run_once(target: str, tree: Path, limit: float) -> dict:
    return infer_once(str(ROOT / target), [], tree, limit)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tree", type=Path, default=ROOT, help="the contractor checkout to run")
    parser.add_argument("--limit", type=float, default=300.0, help="seconds before a run is stopped")
    parser.add_argument("--only", nargs="*", default=None, help="class names to run (default: all)")
    args = parser.parse_args()
    print(f"contractor from {args.tree}; {args.runs} runs each; median end-to-end seconds")
    for target in SAMPLES:
        if args.only and target.split(":")[1] not in args.only:
            continue
        runs = [run_once(target, args.tree, args.limit) for _ in range(args.runs)]
        times = [r["seconds"] for r in runs if r["seconds"] is not None]
        last = runs[-1]
        shown = f"{statistics.median(times):7.2f} s" if len(times) == len(runs) else f"> {args.limit:.0f} s or failed"
        extra = {k: v for k, v in last.items() if k != "seconds"}
        print(f"{target:45} {shown}  {extra}")


if __name__ == "__main__":
    main()

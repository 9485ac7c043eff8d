"""Benchmark of the CrossHair sandbox: what running CrossHair in a worker process costs.

For each CrossHair sample: the time of `--backend crosshair` through the sandboxed worker
(contractor.api.infer, the way the command line runs it) and through the in-process engine
the worker runs (explore over CrosshairBackend), and the worker's start-up alone (process,
CrossHair import, the module behind the wall, CrossHair's warm-up). Medians over --runs
runs; the disk cache is off.

    python benchmarks/bench_sandbox.py [--runs N] [--timeout SECONDS]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from contractor.api import InferOptions, infer, load_model
from contractor.crosshair_backend.backend import CrosshairBackend
from contractor.crosshair_backend.sandbox import Worker
from contractor.explore import explore

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ["crosshair/stack.py:BoundedStack", "crosshair/listitr.py:ListItr", "account.py:Account"]


def sandboxed(target: str, timeout: float) -> float:
    start = time.perf_counter()
    infer(target, InferOptions(backend="crosshair", timeout=timeout, crosshair_options={"cache": False}))
    return time.perf_counter() - start


def in_process(target: str, timeout: float) -> float:
    start = time.perf_counter()
    model = load_model(target)
    explore(model, CrosshairBackend(model, timeout=timeout))
    return time.perf_counter() - start


def start_up(target: str, timeout: float) -> float:
    model = load_model(target)
    with tempfile.TemporaryFile() as log:
        start = time.perf_counter()
        worker = Worker(model, timeout, log)
        message = worker.receive(120, None, "start-up")
        seconds = time.perf_counter() - start
        worker.close()
    assert message[0] == "ready", message
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per sample (median reported)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per query")
    args = parser.parse_args()
    print(f"| sample | sandboxed | in-process | worker start-up |  (medians of {args.runs} runs)")
    print("|---|---|---|---|")
    for sample in SAMPLES:
        target = f"{ROOT}/samples/{sample}"
        row = [statistics.median(f(target, args.timeout) for _ in range(args.runs))
               for f in (sandboxed, in_process, start_up)]
        print(f"| `{sample}` | " + " | ".join(f"{s:.2f} s" for s in row) + " |")


if __name__ == "__main__":
    main()

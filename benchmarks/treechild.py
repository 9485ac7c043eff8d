"""Two source trees of contractor timed by a benchmark's own child process, interleaved:
shared by bench_translate.py and bench_nonsolver.py, whose children time a stage inside
the process and print one JSON object as their last line."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any


def child_json(script: str, tree: str, target: str, seed: str, cwd: str | None = None) -> dict[str, Any]:
    """Run `python SCRIPT --child TARGET` with `tree` first on PYTHONPATH and PYTHONHASHSEED
    `seed`; the JSON object it printed last."""
    env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve()), "PYTHONHASHSEED": seed}
    done = subprocess.run([sys.executable, str(Path(script).resolve()), "--child", target], env=env,
                          capture_output=True, text=True, check=True, cwd=cwd)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def interleaved(script: str, a: str, b: str, target: str, runs: int, seed: str,
                cwd: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """`runs` rounds, each tree A's child then tree B's: their results per tree, in order."""
    out: dict[str, list[dict[str, Any]]] = {"A": [], "B": []}
    for _ in range(runs):
        out["A"].append(child_json(script, a, target, seed, cwd))
        out["B"].append(child_json(script, b, target, seed, cwd))
    return out


def ratio(runs: dict[str, list[dict[str, Any]]], key: str) -> float:
    """B / A of `key`, the median of the per-round ratios."""
    return statistics.median(b[key] / a[key] for a, b in zip(runs["A"], runs["B"]))

"""One timed `contractor infer` run in a subprocess, JSON out: shared by the end-to-end
benchmarks (bench_collections.py, bench_datamodel.py), so they time the same thing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def infer_once(target: str, options: list[str], tree: Path, limit: float) -> dict:
    """{"seconds", "states", "transitions", "may", "queries"} of one run of the checkout
    `tree` (no outputs but JSON, no cache), or {"seconds": None} past `limit` seconds
    (with "error" when the run failed)."""
    with tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        cmd = [sys.executable, "-m", "contractor", "infer", target, "--format", "json", "--out", out,
               "--no-svg", "--no-html", "--quiet", "--no-cache", *options]
        start = time.perf_counter()
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=limit, cwd=out)
        except subprocess.TimeoutExpired:
            return {"seconds": None}
        seconds = time.perf_counter() - start
        if proc.returncode != 0:
            return {"seconds": None, "error": proc.stderr.strip().splitlines()[-1:]}
        data = json.loads(proc.stdout)
    ts = data["typestates"][0] if "typestates" in data else data  # the document, or an older tree's class
    return {"seconds": seconds, "states": ts["stats"]["states"], "transitions": ts["stats"]["transitions"],
            "may": sum(t["certainty"] == "may" for t in ts["transitions"]),
            "queries": ts["stats"].get("queries_by_backend")}

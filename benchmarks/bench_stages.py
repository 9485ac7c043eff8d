"""Where a `contractor infer` run spends its time, stage by stage (issue 14's figures).

Each run is a fresh process doing what `contractor infer` does, timing each stage as it
goes (imports happen where the CLI would pay them): start-up (the interpreter, measured
as the process's wall time minus the stages; the process ends as the CLI does, without
tearing the interpreter down), imports (contractor's API, contract reader and target
modules), parse (find and parse the file), contracts (read them into the class model),
z3 imports (z3, its main context and the z3 backend's modules, which the CLI imports when
the exploration starts), explore (the backend's queries, findings and state invariants),
and outputs (JSON, DOT, Mermaid, SVG, HTML each, then writing the files). Then the door end to end through the real CLI
against `python -c "import z3"`, interleaved, with the ratio taken per pair of runs (wall
time and CPU time).

Figures are medians of --runs runs. Bytecode is cached as on a user's machine (one
uncounted warm-up run writes it).

    python benchmarks/bench_stages.py [--runs 5] [--flags 10] [--pairs 15] [--backend auto]
        [--python OTHER_VENV/bin/python]   # also as a non-editable install runs
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

STAGES = ("start-up", "imports", "parse", "contracts", "z3 imports", "explore",
          "json", "dot", "mermaid", "svg", "html", "write")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(extra)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def child(target: str, backend: str, out: str) -> None:
    """One run in this process: print the stage times (seconds) as JSON."""
    start = time.perf_counter()
    times: dict[str, float] = {}

    def lap(stage: str) -> None:
        nonlocal start
        now = time.perf_counter()
        times[stage] = now - start
        start = now

    from contractor import api
    from contractor.contracts import read_class
    from contractor.target import resolve

    lap("imports")
    options = api.InferOptions(backend=backend)
    resolved = resolve(target, ROOT)
    lap("parse")
    model = read_class(resolved)
    lap("contracts")
    import contractor.z3backend  # noqa: F401 - z3, its context and the backend: paid here, not in explore

    lap("z3 imports")
    ts = api.infer_model(model, options)
    lap("explore")
    from contractor.outputs.writer import write_artifacts

    write_artifacts(ts, out, timings=times)
    times["write"] = time.perf_counter() - start - sum(times[s] for s in ("json", "dot", "mermaid", "svg", "html"))
    print(json.dumps({"times": times, "states": ts.stats.states, "transitions": ts.stats.transitions,
                      "queries": ts.stats.queries, "exploration_queries": ts.stats.exploration_queries,
                      "pairs": sum(len(s.enabled) for s in ts.states)}))


def one_run(target: str, backend: str) -> dict:
    with tempfile.TemporaryDirectory() as out:
        began = time.perf_counter()
        done = subprocess.run([sys.executable, __file__, "--child", target, "--backend", backend, "--out", out],
                              cwd=ROOT, env=_env(), check=True, capture_output=True, text=True)
        wall = time.perf_counter() - began
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["times"]["start-up"] = wall - sum(result["times"].values())
    result["wall"] = wall
    return result


def stages(label: str, target: str, backend: str, runs: int) -> None:
    one_run(target, backend)  # warm-up: bytecode and caches written, as on a user's machine
    results = [one_run(target, backend) for _ in range(runs)]
    last = results[-1]
    wall = statistics.median(r["wall"] for r in results)
    outputs = statistics.median(sum(r["times"][s] for s in STAGES[6:]) / r["wall"] for r in results)
    print(f"\n{label}: {last['states']} states, {last['transitions']} transitions, "
          f"{last['queries']} queries ({last['exploration_queries']} exploring, "
          f"{last['exploration_queries'] / max(last['pairs'], 1):.2f} per (state, method) pair); "
          f"median of {runs} runs, backend {backend}")
    for stage in STAGES:
        t = statistics.median(r["times"][stage] for r in results)
        print(f"  {stage:10} {t:8.3f} s  {100 * t / wall:5.1f} %")
    print(f"  {'total':10} {wall:8.3f} s   (outputs: {100 * outputs:.1f} % of the run)")


def timed(cmd: list[str], installed: bool = False, **env: str) -> tuple[float, float]:
    """Wall time and CPU time (user + system, of the child) of one run of `cmd`; `installed`:
    as a user's install runs it (no PYTHONPATH, not in the source tree, whose `contractor`
    `python -m` would import first)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    if installed:
        plain = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
        subprocess.run(cmd, cwd=tempfile.gettempdir(), env={**plain, **env}, check=True, stdout=subprocess.DEVNULL)
    else:
        subprocess.run(cmd, cwd=ROOT, env=_env(**env), check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def door_vs_z3(runs: int, backend: str, python: str | None = None) -> None:
    """The door through the CLI against `import z3`, with the user cache (an unchanged
    diagram is not redrawn) and without it (CONTRACTOR_USER_CACHE=0: Graphviz starts;
    wasmtime's own compilation cache still applies). Wall time, and CPU time, which
    other jobs on the machine disturb less. `python`: another environment's interpreter
    with contractor installed (not editable), both commands run as a user's install runs."""
    installed = python is not None
    exe = python or sys.executable
    for label, env in (("user cache on", {}), ("user cache off", {"CONTRACTOR_USER_CACHE": "0"})):
        with tempfile.TemporaryDirectory() as out:
            door = [exe, "-m", "contractor", "infer", f"{ROOT / 'samples' / 'door.py'}:Door", "--out", out,
                    "--quiet", "--backend", backend]
            z3 = [exe, "-c", "import z3"]
            timed(door, installed, **env), timed(z3, installed)  # warm-up
            pairs = [(timed(door, installed, **env), timed(z3, installed)) for _ in range(runs)]
        for k, kind in ((0, "wall"), (1, "CPU")):
            d = statistics.median(p[0][k] for p in pairs)
            z = statistics.median(p[1][k] for p in pairs)
            r = statistics.median(p[0][k] / p[1][k] for p in pairs)
            print(f"{'' if k else chr(10)}door end to end (CLI, default outputs, backend {backend}, {label}"
                  f"{', ' + exe if installed else ''}), "
                  f"{kind} time: median {d:.3f} s; python -c 'import z3': median {z:.3f} s; "
                  f"ratio (median of per-pair ratios) {r:.2f}x, {runs} pairs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (median reported)")
    parser.add_argument("--flags", type=int, default=10, help="N of the flags family (0: skip it)")
    parser.add_argument("--flags-runs", type=int, default=None, help="runs for the flags family [default: --runs]")
    parser.add_argument("--pairs", type=int, default=15, help="door/import-z3 pairs (median of per-pair ratios)")
    parser.add_argument("--backend", default="auto", choices=["z3", "auto"])
    parser.add_argument("--python", help="also time door/import-z3 with this interpreter, whose environment "
                        "has contractor installed (not editable: `pip install --no-deps .`)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.backend, args.out)
        sys.stdout.flush()
        os._exit(0)  # as the CLI ends (contractor/entry.py): no interpreter teardown counted
    stages("door", "samples/door.py:Door", args.backend, args.runs)
    if args.flags:
        from flags import flags_source

        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / f"flags{args.flags}.py"
            path.write_text(flags_source(args.flags))
            stages(f"flags N={args.flags}", f"{path}:Flags{args.flags}", args.backend,
                   args.flags_runs or args.runs)
    door_vs_z3(args.pairs, args.backend)
    if args.python:
        door_vs_z3(args.pairs, args.backend, args.python)


if __name__ == "__main__":
    main()

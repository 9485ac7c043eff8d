"""contractor against an active-automata-learning baseline (AALpy), class by class.

The inputs are the door (samples/door.py) and the 14 classes ported from Contractor.NET's
examples (benchmarks/contractor_net/). For each class, in the same run and interleaved:
- contractor end to end: `python -m contractor infer FILE:CLASS --out TMP -q`, default
  outputs (JSON, DOT, Mermaid, SVG, HTML), a fresh process;
- AALpy end to end: a fresh process of the benchmark's own environment
  (benchmarks/.venv-aalpy, made by --setup: `python -m venv` + `pip install aalpy`; AALpy
  is no dependency of contractor) running benchmarks/aalpy_learn.py: L* (or KV) over the
  same methods, with concrete argument values, a membership oracle that runs the
  preconditions on live objects, AALpy's query cache on, a seeded random W-method
  equivalence oracle.
Printed per class: medians of --runs runs of both wall times, their ratio (median of the
per-run ratios), contractor's inference time and AALpy's learning time (in-process), and
whether the learned model equals contractor's typestate: `lang` compares the languages of
call sequences (both automata over method names, determinised; a shortest difference is
shown), `epa` compares the two quotiented by enabled-method sets.

    python benchmarks/bench_aalpy.py --setup          # once: make benchmarks/.venv-aalpy
    python benchmarks/bench_aalpy.py [--runs 5] [--algorithm lstar|kv] [--only Door,ATM]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from automata_compare import epa_edges, from_learned, from_typestate, language_difference  # noqa: E402

VENV = ROOT / "benchmarks" / ".venv-aalpy"
PYTHON = VENV / "bin" / "python"
NET = "benchmarks/contractor_net"
CLASSES = [("samples/door.py", "Door")] + [(f"{NET}/{f}.py", c) for f, c in (
    ("finite_stack", "FiniteStack"), ("linear", "Linear"), ("vending_machine", "VendingMachine"),
    ("atm", "ATM"), ("linked_list", "LinkedList"), ("generic_stack", "GenericStack"),
    ("bounded_stack", "BoundedStack"), ("elevator", "Elevator"), ("file", "File"),
    ("microwave", "Microwave"), ("mp3_player", "Mp3Player"), ("stack_simple", "StackSimple"),
    ("enriched_door", "EnrichedDoor"), ("card_reader", "CardReader"))]


def setup() -> None:
    """Make the benchmark's own environment with AALpy (idempotent)."""
    if not PYTHON.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run([str(PYTHON), "-m", "pip", "install", "--quiet", "aalpy"], check=True)
    subprocess.run([str(PYTHON), "-c", "import aalpy"], check=True)
    print(f"AALpy installed in {VENV}")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def run_contractor(path: str, cls: str) -> tuple[float, dict]:
    with tempfile.TemporaryDirectory() as out:
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "contractor", "infer", f"{path}:{cls}", "--out", out, "-q"],
                       cwd=ROOT, env=_env(), check=True)
        wall = time.perf_counter() - began
        return wall, json.loads((Path(out) / "typestate.json").read_text())


def run_aalpy(path: str, cls: str, algorithm: str, timeout: float | None) -> tuple[float, dict | None]:
    """AALpy's wall time and result; None past `timeout` (the time is then the timeout)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    began = time.perf_counter()
    try:
        done = subprocess.run([str(PYTHON), "benchmarks/aalpy_learn.py", path, cls, "--algorithm", algorithm],
                              cwd=ROOT, env=env, check=True, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return float(timeout or 0), None
    return time.perf_counter() - began, json.loads(done.stdout)


def compare(typestate: dict, learned: dict) -> tuple[str, str]:
    ours, theirs = from_typestate(typestate), from_learned(learned)
    diff = language_difference(ours, theirs)
    lang = "equal" if diff is None else "differ: " + ".".join(diff)
    e_ours, e_theirs = epa_edges(ours), epa_edges(theirs)
    if e_ours == e_theirs:
        epa = "equal"
    elif e_theirs < e_ours:
        epa = f"contractor has {len(e_ours - e_theirs)} more"
    else:
        epa = f"{len(e_ours - e_theirs)} only contractor, {len(e_theirs - e_ours)} only AALpy"
    return lang, epa


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setup", action="store_true", help="make benchmarks/.venv-aalpy with AALpy, then exit")
    parser.add_argument("--runs", type=int, default=5, help="runs per class and tool (medians reported)")
    parser.add_argument("--algorithm", choices=["lstar", "kv"], default="lstar")
    parser.add_argument("--aalpy-timeout", type=float, default=60.0,
                        help="seconds after which AALpy's warm-up run is stopped and the class reported as such")
    parser.add_argument("--only", default="", help="comma-separated class names")
    args = parser.parse_args()
    if args.setup:
        setup()
        return
    if not PYTHON.exists():
        sys.exit(f"no AALpy environment: run `python {Path(__file__).name} --setup` first")
    only = set(filter(None, args.only.split(",")))
    print(f"{'class':15} {'contractor':>10} {'AALpy':>8} {'ratio':>6} {'infer':>7} {'learn':>7} "
          f"{'states':>7} {'queries':>8}  lang / epa")
    ratios: list[float] = []
    capped: list[float] = []  # ratios of classes AALpy did not finish (bounds)
    for path, cls in CLASSES:
        if only and cls not in only:
            continue
        run_contractor(path, cls)  # warm-up: bytecode as a user has it
        if run_aalpy(path, cls, args.algorithm, args.aalpy_timeout)[1] is None:
            wall, typestate = run_contractor(path, cls)
            ratios.append(wall / args.aalpy_timeout)
            capped.append(ratios[-1])
            print(f"{cls:15} {wall:9.3f}s {'>' + str(args.aalpy_timeout):>7}s {'<' + format(ratios[-1], '.2f'):>6} "
                  f"{typestate['stats']['seconds']:6.3f}s {'-':>7} {typestate['stats']['states']:>5}/? "
                  f"{typestate['stats']['queries']:>6}/?  AALpy still learning after {args.aalpy_timeout} s "
                  f"(1 run)", flush=True)
            continue
        pairs = [(run_contractor(path, cls), run_aalpy(path, cls, args.algorithm, None))
                 for _ in range(args.runs)]
        c_wall = statistics.median(p[0][0] for p in pairs)
        a_wall = statistics.median(p[1][0] for p in pairs)
        ratio = statistics.median(p[0][0] / p[1][0] for p in pairs)
        ratios.append(ratio)
        typestate, learned = pairs[-1][0][1], pairs[-1][1][1]
        infer = statistics.median(p[0][1]["stats"]["seconds"] for p in pairs)
        learn = statistics.median(p[1][1]["seconds"] for p in pairs)
        lang, epa = compare(typestate, learned)
        states = f"{typestate['stats']['states']}/{len(learned['states']) - 1}"
        queries = f"{typestate['stats']['queries']}/{learned['queries']}"
        print(f"{cls:15} {c_wall:9.3f}s {a_wall:7.3f}s {ratio:6.2f} {infer:6.3f}s {learn:6.3f}s "
              f"{states:>7} {queries:>8}  {lang} / {epa}", flush=True)
    if ratios:
        geo = math.exp(statistics.fmean(math.log(r) for r in ratios))
        finished = [r for r in ratios if r not in capped]
        geo_finished = math.exp(statistics.fmean(math.log(r) for r in finished)) if finished else math.nan
        print(f"\nratio = contractor / AALpy wall time (< 1: contractor faster); geometric mean {geo:.2f} "
              f"(a class AALpy did not finish counts with its time limit), {geo_finished:.2f} over the "
              f"{len(finished)} classes AALpy learned; "
              f"contractor faster on {sum(r < 1 for r in ratios)} of {len(ratios)} classes; {args.runs} runs, "
              f"algorithm {args.algorithm}. states: contractor's / AALpy's (without the pre-constructor state); "
              f"queries: solver queries / membership queries.")


if __name__ == "__main__":
    main()

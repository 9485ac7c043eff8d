"""contractor against an active-automata-learning baseline (AALpy), class by class.

The inputs are the door (samples/door.py) and the 14 classes ported from Contractor.NET's
examples (benchmarks/contractor_net/). For each class, --runs rounds, each running these
fresh processes one after the other (interleaved):
- contractor end to end: `python -m contractor infer FILE:CLASS --out TMP -q`. Its time
  covers the interpreter's start, every import (click, contractor, z3 and z3's context),
  reading the class, the analysis, and writing the default outputs (JSON, DOT, Mermaid,
  SVG, HTML);
- contractor in process: benchmarks/contractor_inprocess.py, which imports what a run
  needs, then times one `contractor.api.infer` call (parse, read the contracts, explore,
  findings, state invariants; nothing written);
- AALpy: a fresh process of the benchmark's own environment (benchmarks/.venv-aalpy, made
  by --setup: `python -m venv` + `pip install aalpy`; AALpy is no dependency of
  contractor) running benchmarks/aalpy_learn.py: L* (or KV) over the same methods, with
  concrete argument values, a membership oracle that runs the preconditions on live
  objects, AALpy's query cache on, a seeded W-method then random W-method equivalence
  oracle. The process's time (end to end) covers the interpreter's start, AALpy's import,
  loading the class's module, learning and printing the model as JSON (no file
  written); inside it, the `learn` call (load the class, build the alphabet, learn) is
  timed as the in-process figure.
Printed per class: end to end (medians of wall time; ratio contractor/AALpy as the median
of per-round ratios, of wall and of CPU time) and in process (the same for the two calls),
and whether the learned model equals contractor's typestate: `lang` compares the languages
of call sequences (both automata over method names, determinised; a shortest difference is
shown), `epa` compares the two quotiented by enabled-method sets.

    python benchmarks/bench_aalpy.py --setup          # once: make benchmarks/.venv-aalpy
    python benchmarks/bench_aalpy.py [--runs 5] [--algorithm lstar|kv] [--only Door,ATM]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Contractor:
    """How contractor's processes run: this interpreter with the source tree on PYTHONPATH,
    or (--python) another interpreter whose environment has contractor installed, not
    editable, run outside the source tree as a user's install is (an editable install's
    import finder costs every process start about 8 ms that AALpy's environment does not pay)."""

    python: str
    env: dict[str, str]
    cwd: Path


def contractor_runner(python: str | None) -> Contractor:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if python is not None:
        env.pop("PYTHONPATH", None)
        return Contractor(python, env, Path(tempfile.gettempdir()))
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return Contractor(sys.executable, env, ROOT)


def _timed(cmd: list[str], env: dict[str, str], timeout: float | None = None,
           cwd: Path = ROOT) -> tuple[float, float, str]:
    """Wall time, CPU time (user + system) and standard output of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def run_contractor(c: Contractor, path: str, cls: str) -> tuple[float, float, dict]:
    """contractor end to end: wall time, CPU time and typestate.json."""
    with tempfile.TemporaryDirectory() as out:
        wall, cpu, _ = _timed([c.python, "-m", "contractor", "infer", f"{ROOT / path}:{cls}", "--out", out, "-q"],
                              c.env, cwd=c.cwd)
        return wall, cpu, json.loads((Path(out) / "typestate.json").read_text())


def run_contractor_inprocess(c: Contractor, path: str, cls: str) -> dict:
    """contractor's `api.infer` call timed inside a fresh process, after its imports."""
    script = ROOT / "benchmarks" / "contractor_inprocess.py"
    _, _, stdout = _timed([c.python, str(script), str(ROOT / path), cls], c.env, cwd=c.cwd)
    return json.loads(stdout)


def run_aalpy(path: str, cls: str, algorithm: str, timeout: float | None) -> tuple[float, float, dict | None]:
    """AALpy's process: wall time, CPU time and result; None past `timeout` (the time is then the timeout)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    try:
        wall, cpu, stdout = _timed([str(PYTHON), "benchmarks/aalpy_learn.py", path, cls, "--algorithm", algorithm],
                                   env, timeout)
    except subprocess.TimeoutExpired:
        return float(timeout or 0), float(timeout or 0), None
    return wall, cpu, json.loads(stdout)


def _geo(xs: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(x) for x in xs)) if xs else math.nan


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
    parser.add_argument("--runs", type=int, default=5, help="rounds per class (medians reported)")
    parser.add_argument("--algorithm", choices=["lstar", "kv"], default="lstar")
    parser.add_argument("--aalpy-timeout", type=float, default=60.0,
                        help="seconds after which AALpy's warm-up run is stopped and the class reported as such")
    parser.add_argument("--only", default="", help="comma-separated class names")
    parser.add_argument("--python", help="contractor's interpreter: its environment has contractor installed, "
                                         "not editable (default: this one, with the source tree on PYTHONPATH)")
    args = parser.parse_args()
    if args.setup:
        setup()
        return
    if not PYTHON.exists():
        sys.exit(f"no AALpy environment: run `python {Path(__file__).name} --setup` first")
    only = set(filter(None, args.only.split(",")))
    c = contractor_runner(args.python)
    print(f"contractor: {c.python}{' (installed, not editable)' if args.python else ' (source tree)'}")
    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {args.runs} interleaved rounds per class; "
          "ratio = contractor / AALpy (< 1: contractor faster), median of per-round ratios")
    print(f"{'':15} {'end to end (fresh processes)':^38} | {'in process (after imports)':^38} |")
    print(f"{'class':15} {'contractor':>10} {'AALpy':>8} {'wall':>6} {'CPU':>6}     | {'contractor':>10} {'AALpy':>8} "
          f"{'wall':>6} {'CPU':>6}     | {'states':>7} {'queries':>8}  lang / epa")
    kinds = ("e2e wall", "e2e CPU", "in-process wall", "in-process CPU")
    ratios: dict[str, list[float]] = {k: [] for k in kinds}
    unfinished = []
    for path, cls in CLASSES:
        if only and cls not in only:
            continue
        run_contractor(c, path, cls)  # warm-up: bytecode as a user has it
        if run_aalpy(path, cls, args.algorithm, args.aalpy_timeout)[2] is None:
            wall, cpu, typestate = run_contractor(c, path, cls)
            inside = run_contractor_inprocess(c, path, cls)
            unfinished.append(cls)
            print(f"{cls:15} {wall:9.3f}s {'>' + format(args.aalpy_timeout, '.0f'):>7}s {'-':>6} {'-':>6}     | "
                  f"{inside['seconds']:9.3f}s {'-':>8} {'-':>6} {'-':>6}     | "
                  f"{typestate['stats']['states']:>5}/? {typestate['stats']['queries']:>6}/?  "
                  f"AALpy still learning after {args.aalpy_timeout:.0f} s (1 run)", flush=True)
            continue
        rounds = [(run_contractor(c, path, cls), run_contractor_inprocess(c, path, cls),
                   run_aalpy(path, cls, args.algorithm, None)) for _ in range(args.runs)]
        per = {
            "e2e wall": [c[0] / a[0] for c, _, a in rounds],
            "e2e CPU": [c[1] / a[1] for c, _, a in rounds],
            "in-process wall": [i["seconds"] / a[2]["call_seconds"] for _, i, a in rounds],
            "in-process CPU": [i["cpu"] / a[2]["call_cpu"] for _, i, a in rounds],
        }
        med = {k: statistics.median(v) for k, v in per.items()}
        for k in kinds:
            ratios[k].append(med[k])
        c_wall = statistics.median(c[0] for c, _, _ in rounds)
        a_wall = statistics.median(a[0] for _, _, a in rounds)
        c_in = statistics.median(i["seconds"] for _, i, _ in rounds)
        a_in = statistics.median(a[2]["call_seconds"] for _, _, a in rounds)
        typestate, learned = rounds[-1][0][2], rounds[-1][2][2]
        lang, epa = compare(typestate, learned)
        states = f"{typestate['stats']['states']}/{len(learned['states']) - 1}"
        queries = f"{typestate['stats']['queries']}/{learned['queries']}"
        print(f"{cls:15} {c_wall:9.3f}s {a_wall:7.3f}s {med['e2e wall']:6.2f} {med['e2e CPU']:6.2f}     | "
              f"{c_in:9.3f}s {a_in:7.3f}s {med['in-process wall']:6.2f} {med['in-process CPU']:6.2f}     | "
              f"{states:>7} {queries:>8}  {lang} / {epa}", flush=True)
    learned_n = len(ratios["e2e wall"])
    print(f"\nover the {learned_n} classes AALpy learned (geometric mean of the ratios; faster: ratio < 1); "
          f"contractor is also faster on the {len(unfinished)} AALpy did not learn within "
          f"{args.aalpy_timeout:.0f} s ({', '.join(unfinished) or '-'}):")
    for k in kinds:
        faster = sum(r < 1 for r in ratios[k]) + len(unfinished)
        print(f"  {k:16} geometric mean {_geo(ratios[k]):.2f}; contractor faster on {faster} of "
              f"{learned_n + len(unfinished)} classes")
    print(f"algorithm {args.algorithm}. states: contractor's / AALpy's (without the pre-constructor state); "
          "queries: solver queries / membership queries.")


if __name__ == "__main__":
    main()

"""Whether two source trees of contractor write the same outputs (issue 14: a speed-up
must not change what is written).

For every file of samples/ and samples/crosshair/ and the door and 14 Contractor.NET
classes of bench_aalpy.py, runs `python -m contractor infer TARGET --jobs 1` with each
tree first on PYTHONPATH (fresh processes, working folder the tree itself), and compares
what each wrote (typestate.json, typestate.dot, typestate.mmd, typestate.svg,
report.html) and printed (the summary), byte for byte, after masking the run's time
(`"seconds": ...` in the JSON, `N.NN s` in the summary and report). Query counts are
compared apart: a speed-up that asks fewer queries changes them, and only them.

    python benchmarks/same_outputs.py BEFORE_TREE AFTER_TREE [--only door,Linear] [--shape]
        [--targets zipfile:ZipFile,wave:Wave_write --backend z3] [--after-jobs 2]

    python benchmarks/same_outputs.py TREE --seeds 0,1,2,3,4 [--targets ...] [--backend z3] [--shape]

With --after-jobs N, the AFTER tree runs with --jobs N (BEFORE with 1): the same tree
twice compares a parallel exploration with one process's.

With --seeds and one tree, runs the tree once per PYTHONHASHSEED and compares every run
with the first seed's (the analysis must not depend on string hashing).

Prints one line per target (same / differs, with the first differing line of each file)
and exits 1 when any output differs beyond the masked time and the query counts.

With --shape, a target whose outputs differ is also compared by its typestate's shape
(typestate.json's states with their enabled methods, transitions with their certainty,
initializations, completeness, the findings' kinds and methods, and the unknowns): a change of term ids
(a memo that makes fewer terms) may make z3 pick other witnesses, and only those. Then
only a differing shape makes the exit status 1.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_aalpy import CLASSES  # noqa: E402

SECONDS = [(re.compile(r'"seconds": [0-9.e-]+'), '"seconds": T'),
           (re.compile(r"\b\d+(\.\d+)? ?(s|ms)\b"), "T s")]
QUERIES = [(re.compile(r"(quer(?:y|ies)(?:</th><td>|[\": ]){1,12})\d+"), r"\1Q"),
           (re.compile(r"\b(z3|crosshair|exploration_queries)(\"?): \d+"), r"\1\2: Q")]


def targets() -> list[str]:
    files = sorted(str(p.relative_to(ROOT)) for d in ("samples", "samples/crosshair") for p in (ROOT / d).glob("*.py"))
    return files + [f"{path}:{cls}" for path, cls in CLASSES if not path.startswith("samples/")]


def run(tree: Path, target: str, out: Path, backend: str | None = None, seed: str | None = None,
        jobs: str = "1") -> dict[str, str]:
    """What one run wrote and printed: file name -> text (`<stdout>` the summary)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    if seed is not None:
        env["PYTHONHASHSEED"] = seed
    where = str(tree / target) if target.split(":")[0].endswith(".py") else target  # or package.module:Class
    done = subprocess.run([sys.executable, "-m", "contractor", "infer", where, "--out", str(out), "--jobs", jobs,
                           *(["--backend", backend] if backend else [])],
                          cwd=tree, env=env, capture_output=True, text=True)
    found = {"<stdout>": done.stdout.replace(str(tree), "TREE").replace(str(out), "OUT"),
             "<status>": str(done.returncode)}
    for p in sorted(out.rglob("*")):
        if p.is_file():
            found[str(p.relative_to(out))] = p.read_text(errors="replace").replace(str(tree), "TREE")
    return found


def mask(text: str, rules: list[tuple[re.Pattern[str], str]]) -> str:
    for pattern, replacement in rules:
        text = pattern.sub(replacement, text)
    return text


def shape(found: dict[str, str]) -> object:
    """The typestate's shape (see --shape), or the run's status where it wrote none."""
    text = found.get("typestate.json")
    if text is None:
        return found.get("<status>")
    ts = json.loads(text)
    return ([(s["id"], sorted(s["enabled"])) for s in ts["states"]],
            sorted((t["source"], t["method"], t["target"], t["certainty"]) for t in ts["transitions"]),
            sorted((t["constructor"], t["target"], t["certainty"]) for t in ts["initializations"]),
            ts["complete"], sorted((f["kind"], f.get("method")) for f in ts["findings"]),
            [(u["method"], u["line"], u["construct"], u["detail"]) for u in ts.get("unknowns", [])])


def first_difference(a: str, b: str) -> str:
    for line in difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0):
        if line.startswith(("-", "+")) and not line.startswith(("---", "+++")):
            return line[:160]
    return "?"


def compare(before: dict[str, str], after: dict[str, str], with_shape: bool) -> tuple[list[str], int, int]:
    """Notes on what differs; how many files differ beyond the time and query counts, and
    whether the shapes differ (with_shape)."""
    notes, differ, shapes_differ = [], 0, 0
    for name in sorted(set(before) | set(after)):
        x, y = mask(before.get(name, "<missing>"), SECONDS), mask(after.get(name, "<missing>"), SECONDS)
        if x == y:
            continue
        if mask(x, QUERIES) == mask(y, QUERIES):
            notes.append(f"{name}: query counts only")
            continue
        differ += 1
        notes.append(f"{name} DIFFERS: {first_difference(x, y)}")
    if with_shape and notes and any("DIFFERS" in n for n in notes):
        same_shape = shape(before) == shape(after)
        shapes_differ += not same_shape
        notes.insert(0, "SAME SHAPE (states, transitions, certainties, findings)" if same_shape
                     else "SHAPE DIFFERS")
    return notes, differ, shapes_differ


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path, nargs="?")
    parser.add_argument("--only", default="", help="comma-separated substrings of targets")
    parser.add_argument("--shape", action="store_true", help="fail only where the typestates' shapes differ")
    parser.add_argument("--targets", default="", help="comma-separated targets instead of the samples and "
                        "Contractor.NET classes (FILE.py:CLASS or package.module:CLASS)")
    parser.add_argument("--backend", default=None, help="--backend of every run (default: the CLI's)")
    parser.add_argument("--after-jobs", default="1", help="--jobs of the AFTER tree's runs (the BEFORE tree's: 1); "
                        "give the same tree twice to compare a parallel run with one process")
    parser.add_argument("--seeds", default="", help="comma-separated PYTHONHASHSEEDs: one tree, run once per seed")
    args = parser.parse_args()
    seeds = [s for s in args.seeds.split(",") if s]
    if (args.after is None) != bool(seeds):
        parser.error("give two trees, or one tree and --seeds")
    only = [s for s in args.only.split(",") if s]
    differ = shapes_differ = 0
    for target in [t for t in args.targets.split(",") if t] or targets():
        if only and not any(s in target for s in only):
            continue
        notes: list[str] = []
        if seeds:
            with tempfile.TemporaryDirectory() as a:
                first = run(args.before.resolve(), target, Path(a), args.backend, seeds[0])
            for seed in seeds[1:]:
                with tempfile.TemporaryDirectory() as b:
                    found, n, m = compare(first, run(args.before.resolve(), target, Path(b), args.backend, seed),
                                          args.shape)
                notes += [f"seed {seed}: {note}" for note in found]
                differ, shapes_differ = differ + n, shapes_differ + m
        else:
            assert args.after is not None
            with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
                before = run(args.before.resolve(), target, Path(a), args.backend)
                after = run(args.after.resolve(), target, Path(b), args.backend, jobs=args.after_jobs)
            notes, n, m = compare(before, after, args.shape)
            differ, shapes_differ = differ + n, shapes_differ + m
        print(f"{target:48} {'same' if not notes else '; '.join(notes)}", flush=True)
    print(f"{differ} output file(s) differ beyond the run's time and query counts")
    if args.shape:
        print(f"{shapes_differ} typestate shape(s) differ")
        sys.exit(1 if shapes_differ else 0)
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()

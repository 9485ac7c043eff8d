"""Speed of `contractor check` (issue 11's figure): 15,000 lines of generated, correct
client code of the train door, checked with the typestate loaded from typestate.json.

Measured, as medians of --runs runs:
1. parse: reading and `ast.parse`-ing the same files (the floor);
2. check: the same files checked in-process end to end (load typestate.json, find and
   parse the files, analyse, render the text output);
3. the command: `contractor check FOLDER --typestate ...` in a new process (Python's
   start-up and imports included).

The generated code uses every construct the checker follows: branches, loops, helpers
with summaries, aliasing, try/finally, fields, early returns. The target: check under
1 s and within 4x of parse. Usage: python benchmarks/bench_check.py [--runs 5] [--lines 15000]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from contractor import api  # noqa: E402 (after the sys.path insertion above)
from contractor.check import check, load_protocols  # noqa: E402
from contractor.diagnostics import OutputFormat, render  # noqa: E402

FUNCTIONS = [
    '''def shut_{i}(door: Door) -> None:
    if door is None:
        raise ValueError("no door")
    door.close()
''',
    '''def client_{i}(flag: bool, n: int) -> int:
    door = Door()
    total = 0
    if flag:
        door.open()
        shut_{i}(door)
    else:
        door.alarm()
        door.safe()
        shut_{i}(door)
    for k in range(n):
        total += k * 2
        door.start()
        door.stop()
    other = door
    other.open()
    door.close()
    return total
''',
    '''def loop_{i}(items: list, limit: int) -> str:
    door = Door()
    names = []
    while limit > 0:
        door.start()
        if len(items) > limit:
            door.alarm()
            door.stop()
            door.safe()
            door.close()
        else:
            door.stop()
        names.append(str(limit))
        limit -= 1
    try:
        door.open()
    finally:
        door.close()
    return ",".join(names)
''',
    '''class Carriage_{i}:
    def __init__(self, size: int) -> None:
        self.door = Door()
        self.size = size
        self.door.open()
        self.door.close()

    def leave(self, fast: bool) -> None:
        door = Door()
        if fast:
            door.start()
            return
        door.open()
        door.close()
''',
]


def generate(folder: Path, lines: int) -> int:
    """Write modules of about 500 lines each until `lines` lines; the number written."""
    written, module, i = 0, 0, 0
    while written < lines:
        parts = ["from door import Door\n\n"]
        size = 2
        while size < 500 and written + size < lines:
            for template in FUNCTIONS:
                text = template.format(i=i) + "\n\n"
                parts.append(text)
                size += text.count("\n")
            i += 1
        (folder / f"client_{module}.py").write_text("".join(parts), encoding="utf-8")
        written += size
        module += 1
    return written


def timed(runs: int, f) -> tuple[list[float], list[float]]:
    """(wall-clock seconds, CPU seconds of this process) of each run."""
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        f()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lines", type=int, default=15000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "clients"
        folder.mkdir()
        lines = generate(folder, args.lines)
        ts = api.infer(f"{ROOT / 'samples' / 'door.py'}:Door", api.InferOptions(backend="z3"))
        ts_file = Path(tmp) / "typestate.json"
        ts_file.write_text(json.dumps(ts.to_dict()), encoding="utf-8")
        files = sorted(folder.glob("*.py"))

        def parse() -> None:
            for f in files:
                ast.parse(f.read_text(encoding="utf-8"))

        findings: list = []

        def run_check() -> None:
            protocols = load_protocols(typestates=[ts_file])
            found = check([folder], protocols)
            render(found, OutputFormat.TEXT)
            findings[:] = found

        parse()  # warm the file cache
        parse_times, parse_cpu = timed(args.runs, parse)
        check_times, check_cpu = timed(args.runs, run_check)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-m", "contractor", "check", str(folder), "--typestate", str(ts_file)]
        subprocess.run(cmd, env=env, capture_output=True, check=False)  # warm-up: bytecode written
        cli_times, _ = timed(args.runs, lambda: subprocess.run(cmd, env=env, capture_output=True, check=False))
    p, c, e = (statistics.median(t) for t in (parse_times, check_times, cli_times))
    pc, cc = statistics.median(parse_cpu), statistics.median(check_cpu)
    print(f"client code: {lines} lines in {len(files)} files; findings: {len(findings)} (expected 0)")
    print(f"parse (ast) : {p:.3f} s  ({lines / p:,.0f} lines/s)")
    print(f"check       : {c:.3f} s  ({lines / c:,.0f} lines/s), {c / p:.2f}x parse")
    print(f"command     : {e:.3f} s  ({lines / e:,.0f} lines/s), new process incl. start-up")
    print(f"CPU time    : parse {pc:.3f} s, check {cc:.3f} s ({lines / cc:,.0f} lines/s), {cc / pc:.2f}x parse")
    print(f"load average: {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    print(f"medians of {args.runs} runs; target check < 1 s and <= 4x parse: wall clock "
          f"{'met' if c < 1.0 and c <= 4 * p else 'NOT met'}, "
          f"CPU time {'met' if cc < 1.0 and cc <= 4 * pc else 'NOT met'}")


if __name__ == "__main__":
    main()

"""How close the door's run is to its floor: the fixed costs every `contractor infer` pays
before and besides the analysis, each measured as a fresh process (issue 14).

Interleaved, one round after another, as fresh interpreters:
- `python -c pass`: the interpreter with its site packages (an editable install's import
  finder included, where there is one);
- `python -c "import z3"`: the floor issue 14 compares with;
- `import z3` plus z3's main context (every z3 term lives in one; contractor makes it when
  its z3 backend is imported);
- `import contractor.cli`: the command line's own imports (click, the model, settings);
- every module a door run imports (listed by running the door once), nothing run;
  these two import as the console script's process does (contractor/entry.py: the
  dataclass code cache routed in first, the process ended by `os._exit`, without the
  interpreter's teardown), so that the door's run minus the second is its own work;
- the door end to end through the CLI, default outputs.
Printed: median wall and CPU time (user + system) of each, and each step's difference to
the one before, so the imports, z3's context and the run itself can be told apart.

    python benchmarks/bench_floor.py [--runs 11] [--python OTHER_VENV/bin/python]

With --python, that interpreter's environment must have contractor installed (not
editable); it then runs outside the source tree and without PYTHONPATH, as a user's
install does.
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
DOOR = f"{ROOT / 'samples' / 'door.py'}:Door"
LIST_MODULES = """
import json, sys
sys.argv = ["contractor", "infer", sys.argv[1], "--out", sys.argv[2], "--quiet"]
from contractor.cli import main
try:
    main(prog_name="contractor")
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.startswith("contractor"))))
"""


AS_THE_CLI = "from contractor import classcode; classcode.install(); import {}; import os; os._exit(0)"


def environment(installed: bool) -> tuple[dict[str, str], Path]:
    """The environment and working folder of the runs (see the module docstring)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if installed:
        env.pop("PYTHONPATH", None)
        return env, Path(tempfile.gettempdir())
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env, ROOT


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run of `cmd`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11, help="rounds (medians reported)")
    parser.add_argument("--python", help="an interpreter whose environment has contractor installed, not editable")
    args = parser.parse_args()
    python = args.python or sys.executable
    env, cwd = environment(args.python is not None)
    with tempfile.TemporaryDirectory() as out:
        listed = subprocess.run([python, "-c", LIST_MODULES, DOOR, out], cwd=cwd, env=env, check=True,
                                capture_output=True, text=True)
        modules = json.loads(listed.stdout.strip().splitlines()[-1])
        steps = [
            ("python -c pass", [python, "-c", "pass"]),
            ("import z3", [python, "-c", "import z3"]),
            ("import z3; z3.main_ctx()", [python, "-c", "import z3; z3.main_ctx()"]),
            ("import contractor.cli", [python, "-c", AS_THE_CLI.format("contractor.cli")]),
            (f"import the door run's {len(modules)} contractor modules",
             [python, "-c", AS_THE_CLI.format(", ".join(modules))]),
            ("the door end to end (CLI, default outputs)",
             [python, "-m", "contractor", "infer", DOOR, "--out", out, "--quiet"]),
        ]
        for _, cmd in steps:  # warm-up: bytecode written, caches filled
            timed(cmd, env, cwd)
        rounds = [[timed(cmd, env, cwd) for _, cmd in steps] for _ in range(args.runs)]
    load = os.getloadavg()[0]
    print(f"{python}{' (installed, not editable)' if args.python else ''}; medians of {args.runs} "
          f"interleaved rounds; load {load:.1f} on {os.cpu_count()} cores")
    wall = [statistics.median(r[i][0] for r in rounds) for i in range(len(steps))]
    cpu = [statistics.median(r[i][1] for r in rounds) for i in range(len(steps))]
    print(f"{'':58} {'wall':>8} {'CPU':>8}")
    for i, (label, _) in enumerate(steps):
        print(f"{label:58} {1000 * wall[i]:6.0f}ms {1000 * cpu[i]:6.0f}ms")
    parts = [("interpreter and site", cpu[0]), ("z3's import", cpu[1] - cpu[0]), ("z3's main context", cpu[2] - cpu[1]),
             ("contractor.cli's imports (click, model, settings, ...)", cpu[3] - cpu[0]),
             ("the door run's other contractor modules", cpu[4] - cpu[3] - (cpu[2] - cpu[0])),
             ("the run itself (parse, analysis, outputs)", cpu[5] - cpu[4])]
    print("CPU time by part (differences of the medians above):")
    for label, t in parts:
        print(f"  {label:56} {1000 * t:6.0f}ms")
    ratios = [(r[-1][0] / r[1][0], r[-1][1] / r[1][1]) for r in rounds]
    print(f"door / import z3: {statistics.median(x for x, _ in ratios):.2f}x wall, "
          f"{statistics.median(y for _, y in ratios):.2f}x CPU (medians of per-round ratios); "
          f"3x would be {3000 * cpu[1]:.0f} ms CPU")

if __name__ == "__main__":
    main()

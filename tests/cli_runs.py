"""`contractor ARGS` run inside the test process, with the result a subprocess run would give.

A fresh interpreter costs about half a second of CPU (Python, click, z3) before the command
starts; a test about what the command does (its options, output and exit code), not about
the process (signals, start-up, imports, the console script), runs it here instead, with
click's CliRunner, in the folder `cwd` (as the subprocess's working folder).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from click.testing import CliRunner

from contractor.cli import main


def contractor(cwd: Path, *args: str, env: dict[str, str | None] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `contractor ARGS` in `cwd`; `env`: variables to set (None: to unset) meanwhile.
    Like the command line, an internal error exits 70 with its traceback on stderr."""
    before = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)
    finally:
        os.chdir(before)
    return subprocess.CompletedProcess(["contractor", *args], result.exit_code, result.stdout, result.stderr)

"""Helpers of the robustness tests: run the real command line in a subprocess, and write
small hostile classes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def env(**extra: str) -> dict[str, str]:
    """The environment of a contractor subprocess: this checkout's package first."""
    result = dict(os.environ)
    result["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    result.pop("CONTRACTOR_CACHE_DIR", None)
    result.update(extra)
    return result


def contractor(*args: str, cwd: Path, timeout: float = 120, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "contractor", *args], cwd=cwd, env=env(**extra),
                          capture_output=True, text=True, timeout=timeout)


def counter_class(name: str, pre: str, *, top: str = "", extra_method: str = "") -> str:
    """A class with a counter, an `inc` guarded by `pre`, and a `dec` guarded by x > 0."""
    return f'''{top}
class {name}:
    def __init__(self) -> None:
        self.x = 0

    def inc(self) -> None:
        """
        pre: {pre}
        """
        self.x += 1

    def dec(self) -> None:
        """
        pre: self.x > 0
        """
        self.x -= 1
{extra_method}'''


def leftovers(folder: Path) -> list[Path]:
    """Temporary files a run left behind."""
    return [p for p in folder.rglob("*") if p.name.endswith(".tmp")]

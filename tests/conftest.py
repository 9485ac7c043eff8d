"""Test-wide settings: the per-user cache (contractor.usercache) is off unless a test
turns it on in a folder of its own, so runs neither read nor leave state in ~/.cache; the
quick loop (`-m "not slow"`) loads the "quick" Hypothesis profile (tests/hypothesis_profiles.py);
results several modules compare against are computed once per session (tests/shared_runs.py);
SIGINT is delivered even when the suite was started in the background."""

from __future__ import annotations

import os
import signal

os.environ.setdefault("CONTRACTOR_USER_CACHE", "0")  # before contractor is imported (contractor.classcode)

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402
from hypothesis_profiles import QUICK, wants_quick  # noqa: E402
from shared_runs import SequentialRuns  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        # started in the background (`pytest &`, nohup): SIGINT ignored, here and in every
        # subprocess, would hang the Ctrl-C tests; they need it delivered
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if wants_quick(config.option.markexpr or "", config.getoption("hypothesis_profile", None)):
        settings.load_profile(QUICK)


@pytest.fixture(scope="session")
def sequential_z3() -> SequentialRuns:
    """The sequential z3 exploration of a class, computed once per session (shared_runs.py)."""
    return SequentialRuns()


def pytest_report_header(config: pytest.Config) -> str:
    return f"hypothesis profile: {settings.get_current_profile_name()} (tests/hypothesis_profiles.py)"

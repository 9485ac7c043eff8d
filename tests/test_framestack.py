"""framestack.deep: the call's result and exceptions as they are, and no frame-stack chunk
mapped per call under it (CPython's data stack, Linux's fault counter)."""

from __future__ import annotations

import resource
import sys

import pytest

from contractor.framestack import deep


def _depth(n: int) -> int:
    return 0 if n == 0 else _depth(n - 1) + 1


def test_deep_returns_and_raises_as_the_call_does() -> None:
    assert deep(lambda: 42) == 42
    with pytest.raises(SystemExit) as done:
        deep(lambda: sys.exit(3))
    assert done.value.code == 3
    with pytest.raises(ZeroDivisionError):
        deep(lambda: 1 // 0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="minor page faults as Linux counts them")
def test_recursion_under_deep_maps_no_chunk_per_call() -> None:
    def climb() -> int:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(2000):
            for depth in range(100, 400, 50):  # across any 16 KB chunk's edge
                _depth(depth)
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

    assert deep(climb) < 500  # a chunk mapped per crossing faults once or more each time: 2,000+


def test_an_inference_runs_on_the_large_chunk() -> None:
    from pathlib import Path

    from contractor.api import infer_model, load_model
    from contractor.framestack import SLOTS

    def under_deep() -> bool:
        frame = sys._getframe()
        while frame is not None:
            if frame.f_code.co_stacksize >= SLOTS:
                return True
            frame = frame.f_back  # type: ignore[assignment]
        return False

    seen: list[bool] = []
    samples = Path(__file__).resolve().parent.parent / "samples"
    ts = infer_model(load_model(f"{samples}/door.py:Door"), on_event=lambda _: seen.append(under_deep()))
    assert seen and all(seen) and ts.states

"""A solver cancelled by the run guard may raise instead of answering "unknown" (z3's
"canceled" from a model or a simplification): once the guard says stop, such an error is
the stop itself (a partial typestate), and without a stop it stays an error."""

from __future__ import annotations

from pathlib import Path

import pytest
import z3

from contractor import api
from contractor.explore import ExplorationInterrupted, explore
from contractor.runguard import Stop
from contractor.z3backend import Z3Backend

DOOR = Path(__file__).resolve().parent.parent / "samples" / "door.py"
Z3 = api.InferOptions(backend="z3")


class CancelledAfter(Z3Backend):
    """The door's z3 backend whose fourth `targets` call fails as a cancelled z3 call does."""

    def __init__(self, model, stopping: list[Stop | None]):
        super().__init__(model)
        self.calls = 0
        self.stopping = stopping

    def targets(self, source, method):
        self.calls += 1
        if self.calls == 4:
            self.stopping[0] = self.stopping[1]  # the guard fires while the query runs
            raise z3.Z3Exception("canceled")
        return super().targets(source, method)


@pytest.mark.parametrize("why", [Stop.BUDGET, Stop.INTERRUPT])
def test_a_cancelled_query_after_the_stop_gives_the_partial_typestate(why):
    model = api.load_model(f"{DOOR}:Door", Z3)
    stopping: list[Stop | None] = [None, why]
    backend = CancelledAfter(model, stopping)
    if why is Stop.BUDGET:
        ts = explore(model, backend, stop=lambda: stopping[0])
    else:
        with pytest.raises(ExplorationInterrupted) as info:
            explore(model, backend, stop=lambda: stopping[0])
        ts = info.value.typestate
    assert ts is not None and not ts.complete
    assert len(ts.transitions) >= 1
    assert any(f.kind == "incomplete" for f in ts.findings)


def test_the_same_error_without_a_stop_is_not_swallowed():
    model = api.load_model(f"{DOOR}:Door", Z3)
    backend = CancelledAfter(model, [None, None])
    with pytest.raises(z3.Z3Exception):
        explore(model, backend, stop=lambda: None)

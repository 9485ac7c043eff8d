"""A solver cancelled by the run guard may raise instead of answering "unknown" (z3's
"canceled" from a model or a simplification): once the guard says stop, such an error is
the stop itself (a partial typestate), and without a stop it stays an error."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pytest
import z3

from contractor import api
from contractor.errors import BudgetSpent
from contractor.explore import ExplorationInterrupted, carries_interrupt, explore
from contractor.runguard import Stop
from contractor.unexplored import UNEXPLORED
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


class SpentAt(Z3Backend):
    """The door's z3 backend whose budget runs out at its n-th solver query (as the run's
    deadline passing between two queries of one all-SAT enumeration)."""

    def __init__(self, model, n: int, spent: list[bool]):
        super().__init__(model, reuse=False)
        self.n, self.spent = n, spent

    def check(self, solver, *extra):
        if self.n_queries + 1 >= self.n:
            self.spent[0] = True
            raise BudgetSpent("the run's budget was used up")
        return super().check(solver, *extra)


def test_targets_found_before_the_budget_ran_out_are_kept():
    """The initial state found by the first query of the constructor's enumeration is in the
    partial typestate (it was dropped with the whole question: SMTP ended with no state);
    so are the transitions of a question the budget cut short."""
    model = api.load_model(f"{DOOR}:Door", Z3)
    full = explore(model, Z3Backend(model, reuse=False))
    spent = [False]
    ts = explore(model, SpentAt(model, 2, spent), stop=lambda: Stop.BUDGET if spent[0] else None)
    # the constructor's question was cut short: the rest of its answer may be `unexplored`
    assert not ts.complete and ts.initial == ("S1", UNEXPLORED)
    assert ts.state("S1").enabled == full.state(full.initial[0]).enabled
    assert [i.certainty for i in ts.initializations] == ["must", "may"]
    counts = []
    for n in range(3, 12):
        spent = [False]
        partial = explore(model, SpentAt(model, n, spent), stop=lambda s=spent: Stop.BUDGET if s[0] else None)
        found = {(partial.state(t.source).enabled, t.method, partial.state(t.target).enabled)
                 for t in partial.transitions if UNEXPLORED not in (t.source, t.target)}
        real = {(full.state(t.source).enabled, t.method, full.state(t.target).enabled) for t in full.transitions}
        assert found <= real
        counts.append(len([t for t in partial.transitions if t.target != UNEXPLORED]))
    assert counts == sorted(counts) and counts[-1] > 0  # a later stop keeps what an earlier one had


class CtypesInterrupted(Z3Backend):
    """The door's z3 backend whose third `targets` call meets Ctrl-C inside ctypes' argument
    conversion of a z3 call, before the run guard's watchdog counted the signal."""

    def __init__(self, model):
        super().__init__(model)
        self.calls = 0

    def targets(self, source, method):
        self.calls += 1
        if self.calls == 3:
            raise ctypes.ArgumentError("argument 2: KeyboardInterrupt: ")
        return super().targets(source, method)


def test_ctrl_c_disguised_by_ctypes_is_an_interrupt_not_an_internal_error():
    """(A slow Ctrl-C test exited 70 under load: the interrupt landed in encoding.instantiate.)"""
    model = api.load_model(f"{DOOR}:Door", Z3)
    with pytest.raises(ExplorationInterrupted) as info:
        explore(model, CtypesInterrupted(model), stop=lambda: None)
    assert info.value.typestate is not None and not info.value.typestate.complete
    assert carries_interrupt(ctypes.ArgumentError("argument 1: KeyboardInterrupt: "))
    assert not carries_interrupt(ctypes.ArgumentError("argument 1: TypeError: wrong type"))

"""The shared incremental solver of a method's queries (z3backend/incremental.py).

Each method's all-SAT enumerations share one solver: the source pattern, the phase's
condition and the blocking clauses are asked as assumptions behind guard literals, so
the solver keeps what it learnt from one source state to the next. That history must
change no answer: every (state, method) pair of an exploration is asked again of a
backend that never asked anything else (its method solver fresh), and gives the same
targets with the same certainty. Where the shared solver answers unknown the query is
asked afresh (the same typestate); where every query is unknown, each transition of the
reference is still there, as a may-transition.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import z3

from contractor.api import InferOptions, load_model
from contractor.explore import explore
from contractor.model import ClassModel
from contractor.typestate import Typestate
from contractor.z3backend import Z3Backend

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 30.0  # generous: a query timing out under load would be a difference of load

# untranslated constructs (a second phase), a bound on the invariant (a phase past it),
# quantified enabledness refined per model, plain classes with several sources per method
SAMPLES = ["untyped.py", "loop_past_bound.py", "player.py", "stack.py", "int_queue.py", "turnstile.py"]


def models(sample: str) -> list[ClassModel]:
    import ast

    path = ROOT / "samples" / sample
    names = [n.name for n in ast.parse(path.read_text()).body if isinstance(n, ast.ClassDef)]
    found = [load_model(f"{path}:{n}", InferOptions(backend="z3")) for n in names]
    return [m for m in found if m.actions]


def transitions(ts: Typestate) -> list[tuple]:
    return [(t.source, t.method, t.target, t.certainty) for t in ts.transitions]


def shape(ts: Typestate) -> tuple:
    return ts.states, transitions(ts), [(i.constructor, i.target, i.certainty) for i in ts.initializations]


class SharedUnknown(Z3Backend):
    """Every check of a method's shared solver answers unknown (as past INCREMENTAL's resource units)."""

    def check(self, solver: z3.Solver, *extra: z3.BoolRef) -> z3.CheckSatResult:
        if any(prepared[0] is solver for prepared in self._solvers.values()):
            self.n_queries += 1
            return z3.unknown
        return super().check(solver, *extra)


class AllUnknown(Z3Backend):
    """Every check answers unknown: each enumeration falls back, and the fallback's
    candidates are undecided (every pattern of the bits, as may)."""

    def check(self, solver: z3.Solver, *extra: z3.BoolRef) -> z3.CheckSatResult:
        self.n_queries += 1
        return z3.unknown


class Recording(Z3Backend):
    """Keeps each answer the exploration got: (source, method) -> targets."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.answers: dict[tuple[frozenset[str], str], list[tuple[list[str], str]]] = {}

    def targets(self, source, method):  # type: ignore[no-untyped-def]
        found = super().targets(source, method)
        self.answers[(source, method)] = sorted((sorted(t.enabled), t.certainty) for t in found)
        return found


@pytest.mark.parametrize("sample", SAMPLES)
def test_each_pair_is_answered_as_by_a_solver_without_history(sample: str) -> None:
    for model in models(sample):
        shared = Recording(model, timeout=TIMEOUT, reuse=False)
        explore(model, shared)
        assert len(shared.answers) > 1
        for (source, method), answer in shared.answers.items():
            alone = Z3Backend(model, timeout=TIMEOUT, reuse=False)
            alone.sem = shared.sem  # one translation (quantifier elimination has a time limit)
            got = sorted((sorted(t.enabled), t.certainty) for t in alone.targets(source, method))
            assert got == answer, f"{model.name}.{method} from {sorted(source)}"


def _beside_reference(model, kind: type[Z3Backend]) -> tuple[Z3Backend, Z3Backend]:
    """The reference backend and one of `kind` sharing its translation."""
    reference = Z3Backend(model, timeout=TIMEOUT, reuse=False)
    other = kind(model, timeout=TIMEOUT, reuse=False)
    other.sem = reference.sem  # one translation (quantifier elimination has a time limit)
    return reference, other


@pytest.mark.parametrize("sample", SAMPLES)
def test_an_unknown_of_the_shared_solver_is_asked_afresh(sample: str) -> None:
    for model in models(sample):
        reference, flaky = _beside_reference(model, SharedUnknown)
        assert shape(explore(model, flaky)) == shape(explore(model, reference))


@pytest.mark.parametrize("sample", SAMPLES)
def test_where_every_query_is_unknown_no_transition_is_dropped(sample: str) -> None:
    for model in models(sample):
        reference, lost = _beside_reference(model, AllUnknown)
        want, got = explore(model, reference), explore(model, lost)
        got_states = {s.id: s.enabled for s in got.states}
        want_states = {s.id: s.enabled for s in want.states}
        kept = {(got_states[t.source], t.method, got_states[t.target]): t.certainty for t in got.transitions}
        assert want.transitions
        for t in want.transitions:
            key = (want_states[t.source], t.method, want_states[t.target])
            assert kept.get(key) == "may", f"{model.name}: {key} {t.certainty} -> {kept.get(key)}"

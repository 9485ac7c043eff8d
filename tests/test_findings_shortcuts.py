"""Findings' queries left out because their answer is known (checks.py): the same findings
as asking them, and fewer queries.

- "breaks the invariant" asks about the part of the invariant a run can break (the declared
  conditions and the typed fields' ranges), not an untyped field's well-formedness (None
  is falsy and has None's identity), which every Python value has;
- "cannot produce a valid object" is not asked of a constructor some model of the
  exploration showed building one, a may-answer resting on outside code's results too;
- the merged query is not asked where outside code may raise (it is then sat).

The semantic case declared_invariant_on_an_untyped_field_is_checked (semantic_outside_cases.py)
checks the declared invariant of an untyped field against concrete runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from contractor import api
from contractor.typestate import Typestate
from contractor.z3backend import checks
from contractor.z3backend.backend import Z3Backend
from contractor.z3backend.split import conjuncts

REPO = Path(__file__).resolve().parent.parent
Z3 = api.InferOptions(backend="z3")

UNTYPED = '''\
import os


class C:
    """inv: self.sock is not None"""

    def __init__(self, sock) -> None:
        if sock is None:
            raise ValueError("no socket")
        self.sock = sock
        self.pid = os.getpid()
        self.log = None

    def swap(self, other) -> None:
        self.sock = other

    def reopen(self) -> None:
        self.sock = os.fdopen(3)
        self.log = self.sock

    def close(self) -> None:
        self.log = None
'''


def _findings(ts: Typestate) -> list[tuple[str, str | None, str, object]]:
    return [(f.kind.value, f.method, f.message, f.counterexample) for f in ts.findings]


def _checks(ts: Typestate) -> int:
    return ts.stats.queries - ts.stats.exploration_queries


@pytest.fixture
def untyped(tmp_path: Path) -> str:
    path = tmp_path / "untyped_fields.py"
    path.write_text(UNTYPED)
    return f"{path}:C"


@pytest.mark.parametrize("target", ["samples/untyped.py:Printer", "samples/guards.py:Channel", "untyped"])
def test_the_breakable_invariant_gives_the_findings_of_the_whole_one(target: str, untyped: str,
                                                                     monkeypatch: pytest.MonkeyPatch):
    target = untyped if target == "untyped" else f"{REPO / target}"
    shown = api.infer(target, Z3)
    monkeypatch.setattr(Z3Backend, "breakable_after", Z3Backend.invariant_after)
    whole = api.infer(target, Z3)
    assert _findings(shown) == _findings(whole)
    assert _checks(shown) <= _checks(whole)


def test_a_declared_invariant_on_untyped_fields_is_still_checked(untyped: str):
    ts = api.infer(untyped, Z3)
    broken = sorted(f.method for f in ts.findings if f.kind.value == "breaks_invariant")
    assert broken == ["reopen", "swap"]  # `other` may be None, and so may outside code's result


def test_untyped_fields_well_formedness_is_not_what_a_method_breaks(untyped: str):
    model = api.load_model(untyped)
    b = Z3Backend(model)
    # the declared condition only: sock, pid and log are untyped (opaque) values
    breakable = [str(c) for c in conjuncts(checks.breakable_invariant(b.sem))]
    assert "Not(none(sock))" in breakable and not [c for c in breakable if "pid" in c or "log" in c]
    assert [c for c in map(str, conjuncts(b.sem.post_invariant)) if "oid(pid)" in c]


def _asked_again(target: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Typestate, Typestate]:
    """The run, and the run again with the constructors the exploration showed forgotten."""
    shown = api.infer(target, Z3)
    real = Z3Backend.initial_targets

    def forgetting(self: Z3Backend, constructor: str) -> object:
        found = real(self, constructor)
        self.constructed.clear()
        return found

    monkeypatch.setattr(Z3Backend, "initial_targets", forgetting)
    return shown, api.infer(target, Z3)


def test_a_constructor_with_a_must_initial_state_is_not_asked_again(monkeypatch: pytest.MonkeyPatch):
    shown, asked = _asked_again(f"{REPO}/benchmarks/contractor_net/linear.py:Linear", monkeypatch)
    assert shown.initializations and all(i.certainty == "must" for i in shown.initializations)
    assert _checks(asked) == _checks(shown) + 1 and _findings(asked) == _findings(shown)


def test_a_constructor_with_a_may_initial_state_is_not_asked_again(untyped: str, monkeypatch: pytest.MonkeyPatch):
    shown, asked = _asked_again(untyped, monkeypatch)
    assert shown.initializations and all(i.certainty == "may" for i in shown.initializations)
    assert _checks(asked) == _checks(shown) + 1 and _findings(asked) == _findings(shown)


def test_the_merged_query_is_not_asked_where_outside_code_may_raise(untyped: str, monkeypatch: pytest.MonkeyPatch):
    asked: list[object] = []
    real = checks._all_hold

    def counting(b: Z3Backend, methods: list) -> bool:  # type: ignore[type-arg]
        asked.append(methods)
        return real(b, methods)

    monkeypatch.setattr(checks, "_all_hold", counting)
    ts = api.infer(untyped, Z3)
    assert any(str((f.counterexample or {}).get("exception", "")).startswith("an exception from")
               for f in ts.findings)
    assert not asked


def test_the_merged_query_is_cut_by_resource_units(monkeypatch: pytest.MonkeyPatch):
    target = f"{REPO}/benchmarks/contractor_net/linear.py:Linear"
    answers: list[bool] = []
    real = checks._all_hold

    def recording(b: Z3Backend, methods: list) -> bool:  # type: ignore[type-arg]
        answers.append(real(b, methods))
        return answers[-1]

    monkeypatch.setattr(checks, "_all_hold", recording)
    proven = api.infer(target, Z3)
    monkeypatch.setattr(checks, "MERGED", checks.Effort(rlimit=1, cap_ms=checks.MERGED.cap_ms))
    cut = api.infer(target, Z3)
    assert answers == [True, False]  # one unit is too few: unknown, each check asked alone
    assert _findings(cut) == _findings(proven) and _checks(cut) > _checks(proven)

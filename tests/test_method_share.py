"""Under a run's budget no one method takes the whole of it: its translation (semantics.
METHOD_SHARE_STATEMENTS, counted statements) and the elimination of its raise guard's values
(guards.GUARD_SHARE, in z3's resource units) have a share each; past it that method is
untranslated or its guard unknown (may-answers, named), and the run goes on with the others."""

from __future__ import annotations

import textwrap

from semantic_outside_cases import OUTSIDE_CASES

from contractor.api import InferOptions, infer
from contractor.z3backend import guards, semantics

LOOP = next(c for c in OUTSIDE_CASES if c.name == "reply_loop_that_outside_code_keeps_going")


def _infer(tmp_path, budget: float | None):
    path = tmp_path / "loop.py"
    path.write_text(textwrap.dedent(LOOP.source).lstrip())
    return infer(f"{path}:C", InferOptions(backend="z3", unroll=4, budget=budget))


def test_a_method_past_its_translation_share_is_untranslated_not_the_run(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(semantics, "METHOD_SHARE_STATEMENTS", 0)
    ts = _infer(tmp_path, 60)
    assert ts.complete  # the run itself had time
    assert any("share of the budget" in u.construct for u in ts.unknowns if u.method == "getreply")
    assert all(t.certainty == "may" for t in ts.transitions if t.method == "getreply")
    assert any("getreply" in s.enabled for s in ts.states)  # unknown: may be enabled


def test_without_a_budget_there_is_no_share(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(semantics, "METHOD_SHARE_STATEMENTS", 0)
    ts = _infer(tmp_path, None)
    assert not any("share" in u.construct for u in ts.unknowns)


def test_a_guard_past_its_elimination_share_is_unknown(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(guards, "GUARD_SHARE", 0)
    ts = _infer(tmp_path, None)
    assert any(u.method == "getreply" and "share of z3's resource units" in (u.detail or "") for u in ts.unknowns)
    assert any("getreply" in s.enabled for s in ts.states)


def test_a_share_above_the_statements_run_changes_nothing(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(semantics, "METHOD_SHARE_STATEMENTS", 10_000)
    ts = _infer(tmp_path, 60)
    assert not any("share" in u.construct for u in ts.unknowns)
    assert ts.complete


CALLER = '''
class C:
    def __init__(self) -> None:
        self.n = 0
        self.open = False

    def big(self) -> None:
        if self.open:
            raise ValueError("open")
        self.n += 1
        self.n += 2
        self.n += 3
        self.n += 4
        self.n += 5
        self.open = True

    def caller(self) -> None:
        self.big()

    def close(self) -> None:
        self.open = False
'''


def test_a_call_of_a_method_past_its_share_stops_the_caller_too(tmp_path, monkeypatch) -> None:
    # big runs 7 statements: past a share of 4 (as a root), and caller's one statement
    # calls it: caller is untranslated at the call, its answers may, not one of them dropped
    monkeypatch.setattr(semantics, "METHOD_SHARE_STATEMENTS", 4)
    path = tmp_path / "caller.py"
    path.write_text(CALLER)
    ts = infer(f"{path}:C", InferOptions(backend="z3", budget=60))
    assert ts.complete
    why = {u.method: u.construct for u in ts.unknowns}
    assert "share of the budget" in why["big"]
    assert "calls big()" in why["caller"]
    assert "close" not in why
    # concretely caller raises where open is True and sets it True otherwise: both may
    calls = [t for t in ts.transitions if t.method == "caller"]
    assert calls and all(t.certainty == "may" for t in calls)
    assert all("caller" in s.enabled for s in ts.states)

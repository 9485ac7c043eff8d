"""What translating a method costs is bounded. The run's budget bounds it: a method whose
translation is still running at the deadline is given up as a whole (untranslated: its
enabledness an unknown, its answers may), not followed statement by statement nor
expression by expression past the budget (tarfile's TarFile once took 18 s under
--budget 10, inside one method's translation). And nested calls to outside code are
translated once each (`f(g(x))` read g's call twice, so depth d cost 2^d)."""

from __future__ import annotations

import time

import pytest

from contractor.api import InferOptions, infer
from contractor.z3backend import outside

NESTED = "x"
for _ in range(60):
    NESTED = f"ext({NESTED})"  # one statement, sixty calls to code outside the source

SLOW = f'''
class Slow:
    def __init__(self) -> None:
        self.n = 0

    def long(self, x: int) -> None:
        if self.n > 3:
            raise ValueError("too many")
        y = {NESTED}
        self.n = self.n + 1

    def reset(self) -> None:
        self.n = 0
'''
PAUSE = 0.05  # seconds each outside call takes to translate here: 3 s for the statement


@pytest.fixture
def slow_outside_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    translate = outside.OutsideEvaluator.outside_call

    def slowly(self, target, node, *evaluated):  # type: ignore[no-untyped-def]
        time.sleep(PAUSE)
        return translate(self, target, node, *evaluated)

    monkeypatch.setattr(outside.OutsideEvaluator, "outside_call", slowly)


def test_a_translation_running_past_the_budget_ends_near_it(tmp_path, slow_outside_calls) -> None:
    path = tmp_path / "slow.py"
    path.write_text(SLOW)
    budget = 1.0
    start = time.monotonic()
    ts = infer(f"{path}:Slow", InferOptions(backend="z3", budget=budget, jobs=1))
    took = time.monotonic() - start
    assert took < budget + 1.0, took  # the statement alone would take 3 s
    # the translation stopped at the guards' share of the budget (semantics.GUARDS_SHARE);
    # the exploration may then finish in the rest, with `long` unknown
    assert any("budget ran out while translating" in u.construct and u.method == "long" for u in ts.unknowns)
    # once, where the translation stopped (the `y = ...` line), though both its raise guards
    # and its transitions were cut (each noted one before)
    cut = [u for u in ts.unknowns if u.method == "long"]
    assert len(cut) == 1 and cut[0].line == 9 and "raise guards" in cut[0].detail, cut
    assert all(t.certainty == "may" for t in ts.transitions if t.method == "long")
    assert all("long" in s.undecided for s in ts.states if "long" in s.enabled)


def test_without_a_budget_the_same_method_is_translated(tmp_path, monkeypatch) -> None:
    """The cut is the budget's, not the method's: unbounded, the guard is read exactly."""
    path = tmp_path / "slow.py"
    path.write_text(SLOW)
    ts = infer(f"{path}:Slow", InferOptions(backend="z3", budget=None, jobs=1))
    assert ts.complete
    assert not any("budget" in u.construct for u in ts.unknowns)
    # long raises once n > 3: after four calls it is disabled, reset enables it again
    states = {s.enabled for s in ts.states}
    assert ("reset",) in states and ("long", "reset") in states


def test_nested_outside_calls_are_translated_once_each(tmp_path, monkeypatch) -> None:
    path = tmp_path / "nested.py"
    path.write_text(SLOW.replace(NESTED, "ext(len(ext(ext(x))))"))
    calls: list[str] = []
    translate = outside.OutsideEvaluator.outside_call

    def counted(self, target, node, *evaluated):  # type: ignore[no-untyped-def]
        calls.append(getattr(target, "name", "?"))
        return translate(self, target, node, *evaluated)

    monkeypatch.setattr(outside.OutsideEvaluator, "outside_call", counted)
    ts = infer(f"{path}:Slow", InferOptions(backend="z3", budget=None, jobs=1))
    assert sorted(calls) == ["ext", "ext", "ext", "len"]  # len of an untyped value: outside code
    assert {s.enabled for s in ts.states} >= {("reset",), ("long", "reset")}


SLOW_FIRST = f'''
class Slow:
    def __init__(self) -> None:
        self.n = 0
        self.open = True

    def a_long(self, x: int) -> None:
        y = {NESTED}
        self.n = self.n + 1

    def close(self) -> None:
        if not self.open:
            raise ValueError("closed")
        self.open = False

    def reset(self) -> None:
        if self.open:
            raise ValueError("open")
        self.n = 0
'''


def test_under_a_budget_the_cheapest_guards_are_read_first(tmp_path, slow_outside_calls) -> None:
    """guardorder.py: an expensive guard first in the alphabet (its translation takes 3 s
    here) does not use the budget the cheap ones need; read alphabetically, close's and
    reset's guards were unknown too."""
    path = tmp_path / "slow_first.py"
    path.write_text(SLOW_FIRST)
    ts = infer(f"{path}:Slow", InferOptions(backend="z3", budget=2.0, jobs=1))
    unread = {u.method for u in ts.unknowns if "budget" in u.construct}
    assert "a_long" in unread
    assert not unread & {"close", "reset"}, ts.unknowns


def test_cheapest_first_estimates_the_inlined_size() -> None:
    from contractor.api import load_model
    from contractor.z3backend.guardorder import cheapest_first

    model = load_model("smtplib:SMTP", InferOptions(backend="z3"))
    order = cheapest_first(model, model.actions)
    # send_message inlines sendmail, which inlines ehlo_or_helo_if_needed, mail, rcpt, data
    assert order.index("send_message") > order.index("sendmail") > order.index("mail") > order.index("send")
    assert order[0] == "set_debuglevel"

"""What the raise guards of socket-style code read exactly (smtplib and http.client shapes):
`sys.audit(..., self)` observes, a reply loop that outside code keeps going is cut after
a few rounds without making the guard unknown, a local `[]` of untyped lines, and a
helper's result unpacked where the helper returns on some paths only. Each source is a
semantic case (semantic_outside_cases.py), checked against concrete runs there; here: the
answers are exact where they were unknown."""

from __future__ import annotations

import textwrap

import pytest
from semantic_outside_cases import OUTSIDE_CASES

from contractor.api import InferOptions, infer

CASES = {c.name: c for c in OUTSIDE_CASES}


def _infer(name: str, tmp_path):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(CASES[name].source).lstrip())
    return infer(f"{path}:C", InferOptions(backend="z3", unroll=4))


def test_audit_hooks_leave_the_guards_exact(tmp_path) -> None:
    ts = _infer("audit_hooks_observe_self", tmp_path)
    assert not ts.unknowns
    (initial,) = ts.initial
    assert set(ts.state(initial).enabled) == {"close", "connect"}  # send: not connected
    assert {frozenset(s.enabled) for s in ts.states} == {frozenset({"close", "connect"}),
                                                         frozenset({"close", "connect", "send"})}
    # close() leaves the object unconnected, for sure
    assert all(t.certainty == "must" and "send" not in ts.state(t.target).enabled
               for t in ts.transitions if t.method == "close")


@pytest.mark.parametrize("method", ["getreply"])
def test_a_reply_loop_outside_code_keeps_going_leaves_the_guard_exact(tmp_path, method: str) -> None:
    ts = _infer("reply_loop_that_outside_code_keeps_going", tmp_path)
    assert [u.construct for u in ts.unknowns] == [
        "loop running more than 2 iterations, each decided by code outside the analysed source"]
    assert all(u.method == "_reply" for u in ts.unknowns)  # not a guard: the transitions' answers
    assert {frozenset(s.enabled) for s in ts.states} == {frozenset({"close", method}), frozenset({"close"})}
    closed = [s.id for s in ts.states if method not in s.enabled]
    assert all(t.certainty == "must" for t in ts.transitions if t.method == "close" and t.target in closed)

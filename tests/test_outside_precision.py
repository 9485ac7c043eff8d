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


SNIFF = '''
import socket


class Sender:
    def __init__(self) -> None:
        self.sent = 0

    def send(self) -> None:
        data = b"x"
        if isinstance(data, socket.socket):
            raise TypeError("a socket")
        self.sent = 1

    def reset(self) -> None:
        if self.sent == 0:
            raise ValueError("nothing sent")
        self.sent = 0
'''


def test_isinstance_against_a_standard_class_does_not_depend_on_earlier_imports(tmp_path) -> None:
    """`isinstance(b"x", socket.socket)` is decided (False) in a fresh interpreter that has
    not imported socket, as in one that has: the answer was a may before, where socket
    was not yet in sys.modules (pytypes.DECIDED_MODULES)."""
    import json
    import subprocess
    import sys

    (tmp_path / "sniff.py").write_text(SNIFF)
    run = ("import sys, json; {pre}from contractor.api import infer, InferOptions; "
           "ts = infer('sniff.py:Sender', InferOptions(backend='z3')); "
           "print(json.dumps([[t.method, t.certainty] for t in ts.transitions]))")
    answers = []
    for pre in ("", "import socket; "):
        out = subprocess.run([sys.executable, "-c", run.format(pre=pre)], cwd=tmp_path, capture_output=True,
                             text=True, check=True).stdout
        answers.append(json.loads(out))
    assert answers[0] == answers[1]
    assert all(c == "must" for _, c in answers[0]) and ["send", "must"] in answers[0]

"""`self` handed out (z3backend/escape.py): once a class stores `self` where an untyped value
can bring it back, a call on an untyped value may change the object's own fields. Before,
such a call havocked only the untyped value, and the transition it made was lost.

Checked by running call sequences on the real class: every step must be a transition of
the typestate (the brute force cannot: its domain objects never hold themselves).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bruteforce import Runner
from runtime_contracts import load_class, read_contracts
from typestate_check import tool_initial, tool_transitions

from contractor.api import InferOptions, infer

PARENT = '''from typing import Any


class C:
    def __init__(self) -> None:
        self.parent{annotation} = None
        self.n = 0

    def link(self) -> None:
        self.parent = self

    def poke(self) -> None:
        if self.parent is None:
            raise ValueError("no parent")
        self.parent.bump()

    def bump(self) -> None:
        self.n = 1

    def reset(self) -> None:
        if self.n == 0:
            raise ValueError("zero")
        self.n = 0
'''

HANDLER = '''class Handler:
    def __init__(self, owner) -> None:
        self.owner = owner

    def fire(self) -> None:
        self.owner.n = 1


class C:
    def __init__(self) -> None:
        self.handler = Handler(self)
        self.n = 0

    def poke(self) -> None:
        self.handler.fire()

    def reset(self) -> None:
        if self.n == 0:
            raise ValueError("zero")
        self.n = 0
'''

# the object compared with 1 through an untyped field that holds it: its own __eq__ runs
EQUALS = '''class C:
    def __init__(self) -> None:
        self.parent = None
        self.n = 0

    def link(self) -> None:
        self.parent = self

    def poke(self) -> None:
        if self.parent == 1:
            raise ValueError("one")

    def __eq__(self, other) -> bool:
        self.n = 1
        return False

    __hash__ = object.__hash__

    def reset(self) -> None:
        if self.n == 0:
            raise ValueError("zero")
        self.n = 0
'''
PLAIN = EQUALS.replace("""    def __eq__(self, other) -> bool:
        self.n = 1
        return False

    __hash__ = object.__hash__

""", "")

CASES = {
    "field_set_to_self_untyped": (PARENT.format(annotation=""), ("link", "poke", "reset")),
    "operator_of_the_class_on_itself": (EQUALS, ("link", "poke", "reset")),
    "field_set_to_self_any": (PARENT.format(annotation=": Any"), ("link", "poke", "reset")),
    "handler_holding_self": (HANDLER, ("poke", "reset", "poke")),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_call_on_an_untyped_value_may_change_the_object_once_self_escaped(name: str, tmp_path: Path) -> None:
    source, sequence = CASES[name]
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    ts = infer(f"{path}:C", InferOptions(backend="z3"))
    cls = load_class(path, "C")
    runner = Runner(read_contracts(cls, actions=tuple(ts.methods), preconditions=ts.preconditions), {})
    obj = cls()
    before = runner.state(obj)
    assert before in tool_initial(ts)
    transitions = tool_transitions(ts)
    for method in sequence:
        after = runner.run(method, obj, {})
        assert after is not None, f"{method} raised"
        now = runner.state(after)
        assert (before, method, now) in transitions, \
            f"{sorted(before)} --{method}--> {sorted(now)} is missing; {sorted(transitions)}"
        obj, before = after, now
    assert any("handed out" in u.construct for u in ts.unknowns), ts.unknowns


def test_a_handle_returned_to_the_caller_is_not_an_escape(tmp_path: Path) -> None:
    """`return Writer(self)` (zipfile's open): the caller holds the handle; calls on untyped
    values inside the class's methods still cannot reach the object, and are followed."""
    path = tmp_path / "handle.py"
    path.write_text('''class Writer:
    def __init__(self, owner) -> None:
        self.owner = owner


class C:
    def __init__(self, fp) -> None:
        self.fp = fp
        self.n = 0

    def open(self):
        self.n = 1
        return Writer(self)

    def write(self) -> None:
        if self.n == 0:
            raise ValueError("not open")
        self.fp.write(b"x")
''')
    ts = infer(f"{path}:C", InferOptions(backend="z3"))
    assert not any("handed out" in u.construct for u in ts.unknowns), ts.unknowns
    assert not any(u.method == "write" for u in ts.unknowns), ts.unknowns  # fp.write is followed


def test_an_operator_the_class_does_not_define_is_followed_though_self_escaped(tmp_path: Path) -> None:
    """Where `self` escaped, an untyped operand of `==` may be the object; without an `__eq__`
    of the class, comparing it runs none of its code (object's), so the path is followed."""
    assert "__eq__" not in PLAIN and "self.parent = self" in PLAIN
    path = tmp_path / "plain.py"
    path.write_text(PLAIN)
    ts = infer(f"{path}:C", InferOptions(backend="z3"))
    assert not [u for u in ts.unknowns if u.method == "poke"], ts.unknowns
    poke = [t for t in ts.transitions if t.method == "poke"]  # may: `==` is the untyped value's answer
    assert poke and not any("handed out" in (t.reason or "") for t in poke), [t.reason for t in poke]

"""Readable states: the simplest equivalent invariant (an equality where the bounds leave one
value), no display-only forms in the text outputs, and --state-names used the same way in
every output."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import z3

from contractor import api
from contractor.outputs import to_mermaid, to_text
from contractor.state_names import derived_name
from contractor.z3backend.readable import prefer_equalities

REPO = Path(__file__).resolve().parent.parent
Z3 = api.InferOptions(backend="z3")


def invariants(target: str) -> list[str]:
    return [s.invariant for s in api.infer(str(REPO / "samples" / target), Z3).states]


def test_bounds_leaving_one_value_read_as_equalities():
    assert "len(self.items) == 0" in invariants("int_queue.py:IntQueue")
    assert "self.mode == Mode.LOCKED" in invariants("turnstile.py:Turnstile")
    stack = invariants("stack.py:BoundedStack")
    assert any("self.size == 0" in i for i in stack) and any("self.capacity == self.size" in i for i in stack)
    assert not any("<= 0" in i for i in stack + invariants("int_queue.py:IntQueue"))


def test_prefer_equalities_keeps_the_conjunction_equivalent():
    n, m, cap = z3.Ints("n m cap")
    context = z3.And(n >= 0, n <= cap, m >= 0, m <= 2)
    solver = z3.Solver()
    solver.add(context)
    cases = [[n <= 0], [z3.Not(n > 0), m >= 1], [m != 0, m != 1], [cap <= n, n > 0], [n < 3, cap > 5]]
    for lits in cases:
        simpler = prefer_equalities(lits, solver, lambda: None)
        prover = z3.Solver()
        prover.add(context, z3.Not(z3.And(*lits) == z3.And(*simpler)))
        assert prover.check() == z3.unsat, (lits, simpler)
    (only,) = prefer_equalities([m != 0, m != 1], solver, lambda: None)
    assert only.decl().kind() == z3.Z3_OP_EQ and {str(a) for a in only.children()} == {"m", "2"}


@pytest.mark.parametrize("target", ["door.py:Door", "stack.py:BoundedStack", "account.py:Account",
                                    "turnstile.py:Turnstile", "int_queue.py:IntQueue", "loop_counter.py:Countdown",
                                    "crosshair/textfile.py:TextFile", "crosshair/listitr.py:ListItr",
                                    "untyped.py:Printer"])
def test_no_display_only_forms_in_the_text_outputs(target):
    model = api.load_model(str(REPO / "samples" / target), Z3)
    ts = api.infer_model(model, Z3)
    for text in (to_text(ts, model), to_mermaid(ts)):
        assert "enabled(" not in text and "True and" not in text and "exists " not in text
        assert not re.search(r"not [\w.]+ is None", text), text  # `x is not None`, as Python style has it


def test_a_negated_none_test_reads_is_not_none():
    printer = invariants("untyped.py:Printer")
    assert any("self.job is not None" in i for i in printer), printer
    assert derived_name("self.job is not None and self.owner is None") == "job_set_owner_none"


def test_derived_names():
    assert derived_name("self.closed and not self.moving") == "closed_not_moving"
    assert derived_name("self.mode == Mode.UNLOCKED and self.credit < 3") == "unlocked_credit_lt_3"
    assert derived_name("len(self.items) == 0") == "items_empty"
    assert derived_name("self.x is None") == "x_none"
    assert derived_name("(some n: n > 0)") is None and derived_name("self.a or self.b") is None


@pytest.mark.slow  # several subprocess runs: the quick loop's slowest (pytest --durations, issue 12)
def test_state_names_are_the_ids_in_every_output(tmp_path):
    door = str(REPO / "samples" / "door.py") + ":Door"
    run = subprocess.run([sys.executable, "-m", "contractor", "infer", door, "--backend", "z3", "--state-names",
                          "--out", "out", "--no-svg"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    data = json.loads((tmp_path / "out" / "typestate.json").read_text())
    ids = [s["id"] for s in data["states"]]
    assert ids[0] == "closed_not_moving" and len(set(ids)) == 6
    assert data["initial"] == ["closed_not_moving"]
    assert {t["source"] for t in data["transitions"]} | {t["target"] for t in data["transitions"]} == set(ids)
    for name in ("typestate.mmd", "typestate.dot", "report.html"):
        assert "closed_not_moving" in (tmp_path / "out" / name).read_text()
    assert "  closed_not_moving (initial): alarm, open, start" in run.stdout
    turnstile = str(REPO / "samples" / "turnstile.py") + ":Turnstile"
    strong = subprocess.run([sys.executable, "-m", "contractor", "strengthen", turnstile, "--backend", "z3",
                             "--state-names", "--out", "strong"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=120)
    assert strong.returncode == 0, strong.stderr
    client = ("import turnstile_strengthened as m\nt = m.Turnstile()\nassert t._typestate is m.TurnstileState.locked\n"
              "try:\n    t.push()\nexcept AssertionError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", client], cwd=tmp_path / "strong", capture_output=True, text=True)
    assert "not enabled in state locked" in out.stdout, out.stderr


def test_precondition_invariants_say_each_fact_once(tmp_path):
    """The fallback invariant (CrossHair's, or z3's where nothing better prints): `not
    self.on` enabling start and disabling stop is said once, and an enabled method's
    preconditions are facts of their own."""
    from contractor.state_invariants import precondition_invariant

    path = tmp_path / "meter.py"
    path.write_text('''class Meter:
    def __init__(self) -> None:
        self.on = False
        self.n = 0

    def start(self) -> None:
        """pre: not self.on"""
        self.on = True

    def stop(self) -> None:
        """pre: self.on"""
        self.on = False

    def bump(self) -> None:
        """
        pre: self.on
        pre: self.n < 3
        """
        self.n += 1
''')
    model = api.load_model(f"{path}:Meter")
    assert precondition_invariant(model, {"start"}).text == "not (self.on and self.n < 3) and not self.on"
    assert precondition_invariant(model, {"stop", "bump"}).text == "self.on and self.n < 3"
    off = precondition_invariant(model, {"stop"})
    assert off.text == off.python == "not (self.on and self.n < 3) and self.on"


def test_raise_guard_states_that_z3_cannot_print_are_not_false(tmp_path):
    """Raise guards z3 could only read as unknown predicates: the state is named by its
    enabled and disabled methods, never `False and False` (which no object satisfies)."""
    path = tmp_path / "opt.py"
    path.write_text('''from typing import Optional


class C:
    def __init__(self) -> None:
        self.items: Optional[list["C"]] = []  # may hold the object itself: not modelled

    def take(self) -> None:
        if not self.items:
            raise ValueError("empty")
        self.items = []

    def drop(self) -> None:
        self.items = None
''')
    ts = api.infer(f"{path}:C", Z3)
    # z3 alone bounds take's unknown guard ("can be enabled": everywhere): one state, take?
    assert [(s.enabled, s.undecided, s.invariant) for s in ts.states] == [(("drop", "take"), ("take",), "True")]
    # split on it (as under auto, beside CrossHair's real enabled sets): z3's literals, the
    # untranslatable ones named by their method (drop, enabled in every state, needs no literal)
    from contractor.explore import explore
    from contractor.z3backend import Z3Backend

    model = api.load_model(f"{path}:C", Z3)
    split = explore(model, Z3Backend(model, merged=False))
    texts = {s.enabled: s.invariant for s in split.states}
    assert texts[("drop",)] == "take() disabled"
    assert all("False" not in t for t in texts.values()), texts


def test_the_readable_form_stops_at_its_budget(monkeypatch):
    """Making state invariants readable has a time share for the whole run; once it is
    spent, no further search starts (on a class of 1,024 states it took minutes past
    --budget): the remaining states get the form read off the preconditions."""
    from contractor.state_invariants import precondition_invariant
    from contractor.z3backend import invtext
    from contractor.z3backend.reuse import Reuse

    def no_search(*args, **kwargs):
        raise AssertionError("a readable form was searched for after the budget")

    monkeypatch.setattr(invtext, "READABLE_SECONDS", 0.0)
    monkeypatch.setattr(Reuse, "state_literals", no_search)
    typestate = api.infer(str(REPO / "samples" / "door.py:Door"), Z3)
    model = api.load_model(str(REPO / "samples" / "door.py:Door"), Z3)
    assert len(typestate.states) == 6
    for s in typestate.states:
        assert s.invariant == precondition_invariant(model, frozenset(s.enabled)).text


def test_the_readable_form_stops_at_the_runs_deadline():
    """The time share for readable invariants never reaches past the run's --budget
    deadline (sunau's Au_read under --budget 10 took 17 s: 5 s of it making invariants
    readable after the exploration had used the budget)."""
    import time

    from contractor.z3backend.readable import Budget, OutOfTime

    with pytest.raises(OutOfTime):
        Budget(5.0, time.monotonic() - 0.1).left_ms()
    assert Budget(5.0, time.monotonic() + 0.5).left_ms() <= 500
    assert Budget(5.0).left_ms() == 5000


def test_atoms_too_big_to_print_are_not_printed(monkeypatch):
    """An atom that written out as a tree has more nodes than z3's printer visits is not
    printed to order the atoms (codecs.StreamReader: 16 atoms of ~200 shared nodes, a
    second each to print cut short, 13 s past --budget 3): the states get the form read
    off the preconditions, within the budget."""
    from contractor.state_invariants import precondition_invariant
    from contractor.z3backend import readable

    target = str(REPO / "samples" / "door.py:Door")
    model = api.load_model(target, Z3)
    readable_forms = [s.invariant for s in api.infer(target, Z3).states]
    monkeypatch.setattr(readable, "PRINTED_NODES", 0)  # every atom is too big
    typestate = api.infer(target, Z3)
    assert len(typestate.states) == 6
    for s in typestate.states:
        assert s.invariant == precondition_invariant(model, frozenset(s.enabled)).text
    assert [s.invariant for s in typestate.states] != readable_forms


def test_atoms_are_printed_only_while_the_budget_lasts():
    """Ordering atoms prints each new one (up to most of a second for a big one, and a
    formula has up to MAX_ATOMS): past the budget, OutOfTime instead of the next print;
    atoms printed before are still ordered from the run's memo."""
    import time

    from contractor.z3backend.readable import AtomOrder, Budget, OutOfTime, atoms

    x, y = z3.Ints("x y")
    formula = z3.And(x > 0, y < 3, x + y == 2)
    order = AtomOrder()
    spent = Budget(5.0, time.monotonic() - 0.1)
    with pytest.raises(OutOfTime):
        atoms(formula, None, order, spent)
    ordered = atoms(formula, None, order, Budget(5.0))
    assert [str(a) for a in ordered] == ["x + y == 2", "x > 0", "y < 3"]
    assert atoms(formula, None, order, spent) == ordered  # every atom's key is in the memo now


CAPTURE = '''class Capture:
    def __init__(self) -> None:
        self._state = "initialized"

    def start(self) -> None:
        assert self._state in ("initialized",)
        self._state = "started"

    def suspend(self) -> None:
        assert self._state in ("started", "suspended")
        if self._state == "suspended":
            return
        self._state = "suspended"

    def resume(self) -> None:
        assert self._state in ("started", "suspended")
        if self._state == "started":
            return
        self._state = "started"
'''


def test_state_invariants_hold_of_the_objects_the_transitions_reach(tmp_path):
    """pytest's FDCapture protocol: `started` and `suspended` enable the same methods, so they
    are one state. z3's consequences, asked on the solver shared by every state, claimed
    `_state == "started"` implied by that state's pattern, and the invariant printed was
    `self._state == 'started'`, false for an object after suspend() (its own witness).
    Each invariant's executable form is now checked on objects run through the methods."""
    src = tmp_path / "capture.py"
    src.write_text(CAPTURE)
    ts = api.infer(f"{src}:Capture", Z3)
    namespace: dict = {}
    exec(compile(CAPTURE, str(src), "exec"), namespace)
    obj = namespace["Capture"]()
    for calls in ([], ["start"], ["suspend"], ["resume"], ["suspend"]):
        for name in calls:
            getattr(obj, name)()
        enabled = set()
        for m in ("start", "suspend", "resume"):
            probe = namespace["Capture"]()
            probe._state = obj._state
            try:
                getattr(probe, m)()
            except AssertionError:
                continue
            enabled.add(m)
        (state,) = [s for s in ts.states if set(s.enabled) == enabled]
        assert eval(state.executable, {"self": obj}), (obj._state, state.invariant)

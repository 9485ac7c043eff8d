"""A stopped exploration (budget, --max-states, Ctrl-C) is still a sound typestate: every call it
did not ask about may lead to the state `unexplored`, where every method may be enabled
(contractor.unexplored). Checked against the door run on concrete objects, stopped before
each of its queries in turn, and through the CLI and the client checker."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from bruteforce import brute_force_typestate
from classgen import UNROLL, Generated, classes
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from runtime_contracts import load_class
from typestate_check import differences

from contractor import api
from contractor.cli import main
from contractor.explore import explore
from contractor.runguard import Stop
from contractor.typestate import Typestate
from contractor.unexplored import UNEXPLORED
from contractor.z3backend import Z3Backend

DOOR = Path(__file__).resolve().parent.parent / "samples" / "door.py"
BOOLS = [False, True]


def _stopped_after(asked: int):
    """A stop that lets `asked` questions through (each constructor and each (state, method)
    pair is asked once) and then says the budget is spent."""
    calls = [0]

    def stop() -> Stop | None:
        calls[0] += 1
        return Stop.BUDGET if calls[0] > asked else None
    return stop


@pytest.fixture(scope="module")
def door_brute():
    cls = load_class(DOOR, "Door")
    return brute_force_typestate(cls, {"closed": BOOLS, "moving": BOOLS, "danger": BOOLS})


def test_stopped_before_each_question_the_door_loses_no_transition(door_brute) -> None:
    model = api.load_model(f"{DOOR}:Door", api.InferOptions(backend="z3"))
    full = explore(model, Z3Backend(model))
    assert full.complete and all(not s.unexplored for s in full.states)
    asked = 1 + sum(len(s.enabled) for s in full.states)  # the constructor, then every pair
    for k in range(asked):
        ts = explore(model, Z3Backend(model), stop=_stopped_after(k))
        assert not ts.complete
        assert differences(ts, door_brute, exact=False) == [], k
        rest = ts.state(UNEXPLORED)
        assert rest.unexplored and rest.enabled == rest.undecided == tuple(sorted(model.actions))
        # every pair of a found state not answered goes there, may; the answered ones kept their targets
        for s in ts.states:
            for m in s.enabled:
                out = [t for t in ts.outgoing(s.id) if t.method == m]
                assert out, (k, s.id, m)
                assert all(t.certainty == "may" and "not explored" in (t.reason or "")
                           for t in out if t.target == UNEXPLORED)
        assert (k == 0) == (ts.initial == (UNEXPLORED,))
    # once every question is answered, nothing is added
    assert explore(model, Z3Backend(model), stop=_stopped_after(asked)).complete


def test_max_states_through_the_cli(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["infer", f"{DOOR}:Door", "--backend", "z3", "--max-states", "2",
                                       "--out", str(out), "-q"])
    assert result.exit_code == 0, result.output
    data = json.loads((out / "typestate.json").read_text())
    assert not data["complete"]
    rest = [s for s in data["states"] if s["unexplored"]]
    assert [s["id"] for s in rest] == [UNEXPLORED]
    assert sum(not s["unexplored"] for s in data["states"]) == 2
    assert any(t["target"] == UNEXPLORED and t["certainty"] == "may" for t in data["transitions"])
    ts = Typestate.from_dict(data)
    assert ts.state(UNEXPLORED).unexplored
    # the diagram and summary show it; no "may be stuck" finding about it
    dot = (out / "typestate.dot").read_text()
    (node,) = [line for line in dot.splitlines() if line.strip().startswith(f'"{UNEXPLORED}" [id="state-')]
    assert 'class="state unexplored"' in node and 'style="dashed"' in node
    assert not any(f.state == UNEXPLORED for f in ts.findings)


CLIENT = '''
from door import Door

def use() -> None:
    d = Door()
    d.open()
    d.close()
    d.start()
    d.stop()
'''


def test_the_checker_follows_objects_into_the_unexplored_state(tmp_path: Path) -> None:
    """A client on a typestate stopped after the constructor: the calls past the explored
    states may not be enabled (sound mode says so), instead of the object being lost."""
    (tmp_path / "door.py").write_text(DOOR.read_text())
    (tmp_path / "client.py").write_text(CLIENT)
    model = api.load_model(f"{tmp_path / 'door.py'}:Door", api.InferOptions(backend="z3"))
    ts = explore(model, Z3Backend(model), stop=_stopped_after(1))
    assert ts.initial == ("S1",)
    path = tmp_path / "typestate.json"
    path.write_text(json.dumps(ts.to_dict()))
    result = CliRunner().invoke(main, ["check", str(tmp_path / "client.py"), "--typestate", str(path)])
    assert result.exit_code == 1, result.output
    # open leads to `unexplored`, where close may not be enabled, and the message says why
    assert "close() may not be enabled" in result.output and "the typestate is partial" in result.output
    complete = explore(model, Z3Backend(model))
    path.write_text(json.dumps(complete.to_dict()))
    result = CliRunner().invoke(main, ["check", str(tmp_path / "client.py"), "--typestate", str(path)])
    assert result.exit_code == 0, result.output


def test_always_enabled_is_read_over_the_explored_states(tmp_path: Path) -> None:
    """`start` is enabled in the three states found before --max-states: it is listed once,
    as enabled in every explored state, and `unexplored` still shows it undecided."""
    model = api.load_model(f"{DOOR}:Door", api.InferOptions(backend="z3"))
    ts = explore(model, Z3Backend(model), max_states=3)
    assert ts.always_enabled == ("start",) and ts.always_where == "every explored state"
    rest = ts.state(UNEXPLORED)
    assert ts.shown_labels(rest) == ("alarm?", "close?", "open?", "safe?", "start?", "stop?")
    loops = [t for t in ts.transitions if t.source == t.target == UNEXPLORED and t.method == "start"]
    assert loops and not ts.hides(loops[0])
    from contractor.outputs.summary import to_text
    assert "always enabled: start (in every explored state;" in to_text(ts)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(classes(), st.integers(min_value=0, max_value=40))
def test_generated_classes_stopped_anywhere_contain_the_brute_force(generated: Generated, asked: int) -> None:
    """The random classes of the differential test (loops past the bound, inheritance,
    collections), stopped after `asked` questions: what the brute force reaches is still in
    the typestate, through the `unexplored` state where the exploration did not go."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "generated.py"
        path.write_text(generated.source)
        options = api.InferOptions(backend="z3", unroll=UNROLL)
        model = api.load_model(f"{path}:C", options)
        ts = explore(model, Z3Backend(model, unroll=UNROLL), stop=_stopped_after(asked))
        cls = load_class(path, "C")
        brute = brute_force_typestate(cls, generated.domains, generated.param_domains,
                                      preconditions=ts.preconditions)
        assert differences(ts, brute, exact=False) == [], (generated.source, ts.complete)

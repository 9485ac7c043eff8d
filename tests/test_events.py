"""The exploration's live events (`on_event`): replayed in order they rebuild exactly the
typestate `infer` returns, and a callback raising Interrupted stops with a partial result."""

from __future__ import annotations

from pathlib import Path

from contractor import api
from contractor.events import InitializationFound, StateFound, TransitionFound
from contractor.explore import Interrupted

DOOR = Path(__file__).resolve().parent.parent / "samples" / "door.py"
Z3 = api.InferOptions(backend="z3")


def test_events_replay_to_the_final_typestate():
    events = []
    ts = api.infer_model(api.load_model(f"{DOOR}:Door", Z3), Z3, on_event=events.append)
    states = [(e.id, e.enabled) for e in events if isinstance(e, StateFound)]
    assert states == [(s.id, s.enabled) for s in ts.states]
    assert [e.transition for e in events if isinstance(e, TransitionFound)] == list(ts.transitions)
    assert [e.initialization for e in events if isinstance(e, InitializationFound)] == list(ts.initializations)
    announced: set[str] = set()
    for e in events:  # every state is announced before an edge uses it
        if isinstance(e, StateFound):
            announced.add(e.id)
        elif isinstance(e, TransitionFound):
            assert {e.transition.source, e.transition.target} <= announced
        else:
            assert e.initialization.target in announced
    assert (len(states), len(ts.transitions)) == (6, 15)


def test_a_callback_can_stop_the_exploration():
    seen = []

    def stop_after_three(event):
        seen.append(event)
        if sum(isinstance(e, TransitionFound) for e in seen) == 3:
            raise Interrupted

    ts = api.infer_model(api.load_model(f"{DOOR}:Door", Z3), Z3, on_event=stop_after_three)
    assert not ts.complete
    # the three found; the calls left unasked may lead to `unexplored` (contractor.unexplored)
    assert len([t for t in ts.transitions if t.target != "unexplored"]) == 3
    assert {t.certainty for t in ts.transitions if t.target == "unexplored"} == {"may"}
    assert any(f.kind == "incomplete" for f in ts.findings)

"""Z3Backend.covers: an enumeration that has found every state an object meeting the
invariant can be in stops without the final unsatisfiable check. Where no method's effect
was unknown, those states are listed once an enumeration has COVER_FROM targets; the
explorations are the same as without the listing (no transition dropped, the same
certainty), and a class with more states than COVER_STATES is never cut short."""

from __future__ import annotations

from pathlib import Path

import pytest
from explored_shapes import class_models, shape
from outside_conn import CONN

from contractor.model import ClassModel
from contractor.z3backend import Z3Backend
from contractor.z3backend import backend as B

ROOT = Path(__file__).resolve().parent.parent


def _compare(model: ClassModel, monkeypatch: pytest.MonkeyPatch) -> Z3Backend:
    listing = Z3Backend(model, timeout=30.0, reuse=False)
    got = shape(model, listing)
    with monkeypatch.context() as m:
        m.setattr(B, "COVER_FROM", 10**6)  # never listed
        plain = Z3Backend(model, timeout=30.0, reuse=False)
        plain.sem = listing.sem
        assert got == shape(model, plain)
    return listing


def test_outside_code_reaching_every_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "conn.py"
    path.write_text(CONN)
    (model,) = class_models(path)
    backend = _compare(model, monkeypatch)
    assert backend._every  # listed (`open` reaches all 6 states from each source)


def test_more_states_than_listed_are_never_cut_short(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "conn.py"
    path.write_text(CONN)
    (model,) = class_models(path)
    monkeypatch.setattr(B, "COVER_STATES", 3)
    backend = _compare(model, monkeypatch)
    assert backend._every == frozenset()  # stopped short: covers answers no


@pytest.mark.parametrize("sample", ["untyped.py", "player.py", "door.py", "text_buffer.py"])
def test_samples(sample: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for model in class_models(ROOT / "samples" / sample):
        _compare(model, monkeypatch)

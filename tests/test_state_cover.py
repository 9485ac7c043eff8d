"""Answers the z3 backend no longer asks again (backend.py): the states an untranslated
method can reach (havoc_states: the same from every source state, listed once), the
checks after an enumeration found every state an object can be in (Z3Backend.covers),
and a phase of a method's enumeration that has no model from any source state
(incremental.Guards.empty, asked where the shared solver lost its way).

Each is a pure speed-up: the typestate is the one of a backend asking everything, with
the same certainty and reason on every transition, in fewer queries.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import z3
from test_incremental import SharedUnknown

from contractor.api import InferOptions, load_model
from contractor.backend import Enabled
from contractor.explore import explore
from contractor.model import ClassModel
from contractor.typestate import Typestate
from contractor.z3backend import Z3Backend, backend, semantics
from contractor.z3backend.semantics import Outcome

TIMEOUT = 30.0  # generous: a query timing out under load would be a difference of load

HEAD = '''class C:
    def __init__(self) -> None:
        self.a = False
        self.b = False

    def anything(self, a: bool, b: bool) -> None:
        self.a = a
        self.b = b

    def need_a(self) -> None:
        if not self.a:
            raise ValueError("no a")

    def set_a(self, v: bool) -> None:
        if self.b:
            raise ValueError("b set")
        self.a = v

'''
# weird stands for a method whose outcome does not translate (Untranslated: as
# smtplib.SMTP's sendmail, whose return value is a dict of opaque keys): its effect is
# havoc, from every state
UNTRANSLATED = HEAD + '''    def weird(self) -> None:
        self.a = not self.a
'''
# a call to setattr on every path: no translated path ends normally, from any state
NO_EXACT_PATH = HEAD + '''    def poke(self, v: bool) -> None:
        setattr(self, "a", v)
'''


def model_of(source: str, tmp_path: Path) -> ClassModel:
    path = tmp_path / "c.py"
    path.write_text(source)
    return load_model(f"{path}:C", InferOptions(backend="z3"))


def shape(ts: Typestate) -> tuple:
    return (ts.states, [(t.source, t.method, t.target, t.certainty, t.reason) for t in ts.transitions],
            [(i.constructor, i.target, i.certainty) for i in ts.initializations],
            sorted((f.kind.value, f.method or "", f.message) for f in ts.findings))


class Untranslated(Z3Backend):
    """`weird`'s outcome is not translated (base answers None): its targets are havoc."""

    def base(self, name: str) -> tuple[list[z3.BoolRef], Outcome] | None:
        return None if name == "weird" else super().base(name)


class Relisting(Untranslated):
    """Lists the states of an untranslated method's effect again for every query."""

    def havoc_states(self) -> tuple[list[Enabled], str | None]:
        self._havoc = None
        return super().havoc_states()


class Uncovered(Relisting):
    """Never knows every state an object can be in: each enumeration ends on an unsat check."""

    def covers(self, found: object) -> bool:
        return False


def _pair(model: ClassModel, kind: type[Z3Backend],
          base: type[Z3Backend] = Z3Backend) -> tuple[Z3Backend, Z3Backend]:
    """A `base` backend and one of `kind` sharing its translation (quantifier elimination
    has a time limit), both asking whole queries (reuse.py answers parts without enumerating)."""
    ours = base(model, timeout=TIMEOUT, reuse=False)
    other = kind(model, timeout=TIMEOUT, reuse=False)
    other.sem = ours.sem
    return ours, other


def test_an_untranslated_methods_states_are_listed_once(tmp_path: Path) -> None:
    model = model_of(UNTRANSLATED, tmp_path)
    ours, reference = _pair(model, Relisting, Untranslated)
    got, want = explore(model, ours), explore(model, reference)
    assert sum(t.method == "weird" and t.reason == "untranslated method" for t in got.transitions) == 16
    assert shape(got) == shape(want)
    assert got.stats.queries < want.stats.queries


def test_an_enumeration_that_found_every_state_asks_no_more(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the states listed by an untranslated method's havoc only (not listed beforehand for
    # covers' own sake, test_covers.py: Relisting would list them twice)
    monkeypatch.setattr(backend, "COVER_FROM", 10**6)
    model = model_of(UNTRANSLATED, tmp_path)
    ours, reference = _pair(model, Uncovered, Relisting)  # the listing's own queries on both
    got, want = explore(model, ours), explore(model, reference)
    # `anything` reaches all 4 states from each of the 4: 16 transitions, and the
    # enumerations after weird's listing stop at their 4th target
    assert sum(t.method == "anything" for t in got.transitions) == 16
    assert len(got.states) == 4
    assert shape(got) == shape(want)
    assert got.stats.queries < want.stats.queries


class LostOnce(SharedUnknown):
    """The shared solver answers unknown on every check (as past its resource units);
    records the phases found empty for every source state."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.emptied: list[str] = []

    def _empty_phase(self, shared: z3.Solver, phase: z3.BoolRef) -> bool:
        empty = super()._empty_phase(shared, phase)
        if empty:
            self.emptied.append(str(phase))
        return empty


def test_a_phase_without_a_model_from_any_source_is_asked_once(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    # poke's only statement is untranslated: deadends.py proves its exact phase empty and
    # the exploration skips it; here the phase is asked, as where that proof does not apply
    monkeypatch.setattr(semantics, "no_followed_normal_end", lambda *_: False)
    model = model_of(NO_EXACT_PATH, tmp_path)
    reference, lost = _pair(model, LostOnce)
    assert isinstance(lost, LostOnce)
    got, want = explore(model, lost), explore(model, reference)
    assert any(t.method == "poke" for t in want.transitions)
    assert len(lost.emptied) == 1  # poke's exact phase, from its second source state on
    assert shape(got) == shape(want)

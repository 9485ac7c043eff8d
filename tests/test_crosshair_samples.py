"""The CrossHair samples (samples/crosshair/): each sample's full typestate, derived by hand
from its contracts, and every witness replayed on the real class with its run-time contracts.

Stack and ListItr are decided completely. The text file (str slicing) and the pool (a
dict with symbolic keys) have queries CrossHair cannot always finish within the timeout:
there the tests require the hand-derived transitions and allow the others only as may.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from contractor.api import InferOptions, infer
from contractor.typestate import Typestate

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples" / "crosshair"


def S(*names: str) -> frozenset[str]:
    return frozenset(names)


def load_class(file: str, name: str):
    spec = importlib.util.spec_from_file_location(f"xh_sample_{file}", SAMPLES / f"{file}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def transitions(ts: Typestate) -> dict[tuple, str]:
    enabled = {s.id: frozenset(s.enabled) for s in ts.states}
    return {(enabled[t.source], t.method, enabled[t.target]): t.certainty for t in ts.transitions}


def initial(ts: Typestate) -> set[frozenset[str]]:
    return {frozenset(ts.state(i.target).enabled) for i in ts.initializations}


def run(file: str, name: str, tmp_path, timeout: float) -> Typestate:
    options = InferOptions(backend="crosshair", timeout=timeout, crosshair_options={"cache_dir": str(tmp_path)})
    return infer(f"{SAMPLES / file}.py:{name}", options)


def replay_witnesses(ts: Typestate, cls, oracle, decode=lambda fields: fields) -> int:
    """Build each must-witness's object on the real class (contracts checked at run time by
    icontract/deal), call the method, and compare fields and enabled sets with the typestate."""
    enabled = {s.id: frozenset(s.enabled) for s in ts.states}
    checked = 0
    for t in ts.transitions:
        if t.certainty != "must":
            continue
        obj = object.__new__(cls)
        for field, value in decode(dict(t.witness["fields"])).items():
            object.__setattr__(obj, field, value)
        assert oracle(obj) == enabled[t.source], (t, oracle(obj))
        getattr(obj, t.method)(**t.witness["args"])
        assert decode(dict(t.witness["after"])) == {f: getattr(obj, f) for f in t.witness["after"]}
        assert oracle(obj) == enabled[t.target], (t, oracle(obj))
        checked += 1
    for i in ts.initializations:
        if i.certainty == "must":
            obj = cls(**i.witness["args"])
            assert oracle(obj) == enabled[i.target]
            checked += 1
    return checked


# -- bounded stack ---------------------------------------------------------------------------
EMPTY, PART, FULL = S("push"), S("peek", "pop", "push"), S("peek", "pop")
STACK = {
    (EMPTY, "push", PART), (EMPTY, "push", FULL),
    (PART, "push", PART), (PART, "push", FULL), (PART, "pop", EMPTY), (PART, "pop", PART),
    (PART, "peek", PART),
    (FULL, "pop", EMPTY), (FULL, "pop", PART), (FULL, "peek", FULL),
}


def stack_oracle(s):
    return S(*(["push"] if len(s.items) < s.capacity else []), *(["pop", "peek"] if s.items else []))


def test_bounded_stack(tmp_path):
    ts = run("stack", "BoundedStack", tmp_path, 5)
    assert initial(ts) == {EMPTY}
    assert transitions(ts) == {t: "must" for t in STACK}
    assert ts.complete and not [f for f in ts.findings if f.kind == "unknown"]
    assert {t.backend for t in ts.transitions} == {"crosshair"}
    assert replay_witnesses(ts, load_class("stack", "BoundedStack"), stack_oracle) == 11


# -- ListItr -------------------------------------------------------------------------------------
H, HN, HR, HNR = S("has_next"), S("has_next", "next"), S("has_next", "remove"), S("has_next", "next", "remove")
LISTITR = {
    (H, "has_next", H),
    (HN, "has_next", HN), (HN, "next", HR), (HN, "next", HNR),
    (HR, "has_next", HR), (HR, "remove", H),
    (HNR, "has_next", HNR), (HNR, "next", HR), (HNR, "next", HNR), (HNR, "remove", HN),
}


def listitr_oracle(it):
    return S("has_next", *(["next"] if it.cursor < len(it.items) else []),
             *(["remove"] if it.last_ret >= 0 else []))


def test_listitr(tmp_path):
    ts = run("listitr", "ListItr", tmp_path, 5)
    assert initial(ts) == {H, HN}
    assert transitions(ts) == {t: "must" for t in LISTITR}
    assert ts.complete and not [f for f in ts.findings if f.kind == "unknown"]
    assert replay_witnesses(ts, load_class("listitr", "ListItr"), listitr_oracle) == 12


# -- text file and connection pool (may-transitions allowed where CrossHair times out) -----------
def check_partly_decided(ts: Typestate, expected: set, states: set) -> None:
    found = transitions(ts)
    assert {frozenset(s.enabled) for s in ts.states} == states
    assert expected <= set(found), expected - set(found)
    wrong_must = {t for t, c in found.items() if c == "must"} - expected
    assert not wrong_must
    for t in ts.transitions:
        if t.certainty == "may":
            assert t.reason


AT_END, BEFORE_END, CLOSED = S("close", "seek", "write"), S("close", "read", "seek", "write"), S()
TEXTFILE = {
    (AT_END, "close", CLOSED), (AT_END, "seek", AT_END), (AT_END, "seek", BEFORE_END), (AT_END, "write", AT_END),
    (BEFORE_END, "close", CLOSED), (BEFORE_END, "read", AT_END), (BEFORE_END, "read", BEFORE_END),
    (BEFORE_END, "seek", AT_END), (BEFORE_END, "seek", BEFORE_END), (BEFORE_END, "write", AT_END),
}


def textfile_oracle(f):
    if f.closed:
        return S()
    return S("close", "seek", "write", *(["read"] if f.pos < len(f.buffer) else []))


@pytest.mark.slow
def test_text_file(tmp_path):
    ts = run("textfile", "TextFile", tmp_path, 2)
    assert initial(ts) == {AT_END}
    check_partly_decided(ts, TEXTFILE, {AT_END, BEFORE_END, CLOSED})
    assert replay_witnesses(ts, load_class("textfile", "TextFile"), textfile_oracle) >= 5


NONE_OPEN, SOME_OPEN, ALL_OPEN = S("open_session"), S("close_all", "close_session", "open_session"), \
    S("close_all", "close_session")
POOL = {
    (NONE_OPEN, "open_session", SOME_OPEN), (NONE_OPEN, "open_session", ALL_OPEN),
    (SOME_OPEN, "open_session", SOME_OPEN), (SOME_OPEN, "open_session", ALL_OPEN),
    (SOME_OPEN, "close_session", NONE_OPEN), (SOME_OPEN, "close_session", SOME_OPEN),
    (SOME_OPEN, "close_all", NONE_OPEN),
    (ALL_OPEN, "close_session", NONE_OPEN), (ALL_OPEN, "close_session", SOME_OPEN),
    (ALL_OPEN, "close_all", NONE_OPEN),
}


def pool_oracle(p):
    return S(*(["open_session"] if len(p.sessions) < p.limit else []),
             *(["close_all", "close_session"] if p.sessions else []))


def pool_fields(fields):
    if isinstance(fields.get("sessions"), dict):  # CrossHair: JSON object keys are strings
        fields["sessions"] = {int(k): v for k, v in fields["sessions"].items()}
    elif "sessions" in fields:  # z3: a list of [key, value] pairs
        fields["sessions"] = {k: v for k, v in fields["sessions"]}
    return fields


@pytest.mark.slow
def test_connection_pool(tmp_path):
    ts = run("pool", "ConnectionPool", tmp_path, 3)
    assert initial(ts) == {NONE_OPEN}
    check_partly_decided(ts, POOL, {NONE_OPEN, SOME_OPEN, ALL_OPEN})
    assert replay_witnesses(ts, load_class("pool", "ConnectionPool"), pool_oracle, pool_fields) >= 5


# -- the z3 backend on the same samples: sound (never drops a transition), never a crash -----
@pytest.mark.parametrize("file, name, expected", [
    ("stack", "BoundedStack", STACK), ("listitr", "ListItr", LISTITR),
    ("textfile", "TextFile", TEXTFILE), ("pool", "ConnectionPool", POOL),
])
def test_z3_backend_over_approximates_the_crosshair_samples(file, name, expected):
    ts = infer(f"{SAMPLES / file}.py:{name}", InferOptions(backend="z3"))
    found = transitions(ts)
    assert expected <= set(found), expected - set(found)
    wrong_must = {t for t, c in found.items() if c == "must"} - expected
    assert not wrong_must


# -- auto: z3 first, CrossHair only for what z3 leaves undecided ------------------------------
@pytest.mark.parametrize("file, name, expected, init, oracle", [
    ("stack", "BoundedStack", STACK, {EMPTY}, stack_oracle),
    ("listitr", "ListItr", LISTITR, {H, HN}, listitr_oracle),
    ("textfile", "TextFile", TEXTFILE, {AT_END}, textfile_oracle),
])
def test_auto_decides_the_crosshair_samples_exactly(file, name, expected, init, oracle, tmp_path):
    options = InferOptions(backend="auto", timeout=5, crosshair_options={"cache_dir": str(tmp_path)})
    ts = infer(f"{SAMPLES / file}.py:{name}", options)
    assert initial(ts) == init
    assert transitions(ts) == {t: "must" for t in expected}
    assert ts.complete and not [f for f in ts.findings if f.kind == "unknown"]
    assert replay_witnesses(ts, load_class(file, name), oracle) == len(expected) + len(ts.initializations)


def test_auto_on_the_text_file_needs_no_crosshair(tmp_path):
    # z3 translates str slicing: every transition is decided without CrossHair
    options = InferOptions(backend="auto", timeout=5, crosshair_options={"cache_dir": str(tmp_path)})
    ts = infer(f"{SAMPLES}/textfile.py:TextFile", options)
    assert {t.backend for t in ts.transitions} == {"z3"}
    assert ts.stats.queries_by_backend.get("crosshair", 0) == 0


@pytest.mark.slow  # the quick loop's slowest (pytest --durations, issue 12)
def test_z3_alone_decides_the_connection_pool():
    ts = infer(f"{SAMPLES}/pool.py:ConnectionPool", InferOptions(backend="z3"))
    assert initial(ts) == {NONE_OPEN}
    assert transitions(ts) == {t: "must" for t in POOL}
    assert not ts.unknowns
    assert replay_witnesses(ts, load_class("pool", "ConnectionPool"), pool_oracle, pool_fields) == len(POOL) + 1


def test_z3_alone_decides_the_text_file():
    ts = infer(f"{SAMPLES}/textfile.py:TextFile", InferOptions(backend="z3"))
    assert initial(ts) == {AT_END}
    assert transitions(ts) == {t: "must" for t in TEXTFILE}
    assert not ts.unknowns
    assert replay_witnesses(ts, load_class("textfile", "TextFile"), textfile_oracle) == len(TEXTFILE) + 1


@pytest.mark.slow
def test_auto_on_the_connection_pool_is_sound(tmp_path):
    # z3 does not model dicts: its enabled sets come from untranslated preconditions, and
    # where CrossHair cannot finish, z3's states bound the answer as may-transitions
    options = InferOptions(backend="auto", timeout=3, crosshair_options={"cache_dir": str(tmp_path)})
    ts = infer(f"{SAMPLES}/pool.py:ConnectionPool", options)
    found = transitions(ts)
    assert initial(ts) == {NONE_OPEN}
    assert POOL <= set(found), POOL - set(found)
    assert not {t for t, c in found.items() if c == "must"} - POOL
    assert replay_witnesses(ts, load_class("pool", "ConnectionPool"), pool_oracle, pool_fields) >= 8

"""Full typestates of the samples, through the CLI, against expectations derived by hand.

Each expectation lists every state (by enabled set), the initial ones and every
transition with its certainty; the reasoning is in the comment above it. The same
expectation is checked against the brute force (the real class run on a bounded
domain), so a wrong hand derivation cannot hide behind a wrong tool.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from bruteforce import brute_force_typestate, show, show_triple
from click.testing import CliRunner
from runtime_contracts import load_class
from typestate_check import witness_problems

from contractor.cli import main
from contractor.typestate import Typestate

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


@dataclass(frozen=True)
class Expected:
    target: str  # file:Class under samples/
    states: dict[str, tuple[str, ...]]  # a short name -> the enabled methods
    initial: tuple[str, ...]
    transitions: tuple[tuple[str, str, str, str], ...]  # (source, method, target, certainty)
    domains: dict[str, list[Any]] = field(default_factory=dict)  # for the brute force
    params: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    preconditions: str = "declared"  # the --preconditions mode the default picks for the class

    def enabled(self, name: str) -> frozenset[str]:
        return frozenset(self.states[name])

    def triples(self) -> set[tuple[frozenset, str, frozenset]]:
        return {(self.enabled(s), m, self.enabled(t)) for s, m, t, _ in self.transitions}


def _must(*edges: str) -> tuple[tuple[str, str, str, str], ...]:
    """"A method B" edges, all must-transitions."""
    return tuple((*e.split(), "must") for e in edges)


BOOLS = [False, True]

EXPECTED = {
    # The paper's door: 6 states, 15 transitions (BACKGROUND.md); closed, moving, danger.
    "door": Expected(
        "door.py:Door",
        {"CS": ("alarm", "open", "start"),  # closed, still
         "OS": ("alarm", "close", "start"),  # open, still, no danger
         "CM": ("alarm", "stop"),  # closed, moving
         "OM": ("alarm", "close", "stop"),  # open, moving, no danger
         "DS": ("safe", "start"),  # danger (so open), still
         "DM": ("safe", "stop")},  # danger, moving
        ("CS",),
        _must("CS open OS", "CS start CM", "CS alarm DS",
              "OS close CS", "OS start CM", "OS alarm DS",
              "CM stop CS", "CM alarm DM",
              "OM close CM", "OM stop OS", "OM alarm DM",
              "DS safe OS", "DS start DM",
              "DM safe OM", "DM stop DS"),
        {"closed": BOOLS, "moving": BOOLS, "danger": BOOLS}),
    # size 0 / between / == capacity (capacity >= 1 from the constructor, never changed).
    # push from empty reaches full iff capacity is 1; pop from full reaches empty likewise.
    "stack": Expected(
        "stack.py:BoundedStack",
        {"E": ("clear", "push"), "P": ("clear", "peek", "pop", "push"), "F": ("clear", "peek", "pop")},
        ("E",),
        _must("E clear E", "E push P", "E push F",
              "P clear E", "P peek P", "P pop E", "P pop P", "P push P", "P push F",
              "F clear E", "F peek F", "F pop E", "F pop P"),
        {"capacity": [0, 1, 2, 3], "size": [0, 1, 2, 3]}, {"__init__": {"capacity": [1, 2, 3]}}),
    # open & empty / open & positive balance / frozen (closed or not) / closed & unfrozen.
    # Frozen-and-closed objects satisfy the invariant, so unfreeze can lead to Closed.
    "account": Expected(
        "account.py:Account",
        {"Empty": ("available", "close", "deposit", "freeze"),
         "Funded": ("available", "deposit", "freeze", "withdraw"),
         "Frozen": ("available", "unfreeze"),
         "Closed": ("available",)},
        ("Empty",),
        _must("Empty available Empty", "Empty close Closed", "Empty deposit Funded", "Empty freeze Frozen",
              "Funded available Funded", "Funded deposit Funded", "Funded freeze Frozen",
              "Funded withdraw Empty", "Funded withdraw Funded",
              "Frozen available Frozen", "Frozen unfreeze Empty", "Frozen unfreeze Funded",
              "Frozen unfreeze Closed",
              "Closed available Closed"),
        {"balance": [0, 1, 2, 3], "frozen": BOOLS, "closed": BOOLS},
        {"deposit": {"amount": [1, 2]}, "withdraw": {"amount": [1, 2, 3]}}),
    # locked / unlocked with credit < 3 / unlocked with credit >= 3 / maintenance. No
    # invariant: credit may be anything, so push from credit >= 4 stays in U3.
    "turnstile": Expected(
        "turnstile.py:Turnstile",
        {"L": ("coin", "service"), "U": ("coin", "push"), "U3": ("push",), "M": ("resume",)},
        ("L",),
        _must("L coin U", "L service M", "M resume L",
              "U coin U", "U coin U3", "U push L", "U push U",
              "U3 push U", "U3 push U3"),
        {"mode": ["Mode.LOCKED", "Mode.UNLOCKED", "Mode.MAINTENANCE"], "credit": list(range(-1, 6))},
        preconditions="implicit"),  # leading asserts only: read as raise guards (the same here)
    # n == 0 / 0 < n < 5 / n == 5; the constructor can start anywhere in 0..5.
    "loop_counter": Expected(
        "loop_counter.py:Countdown",
        {"Z": ("reload",), "M": ("reload", "tick", "tick_all"), "F": ("tick", "tick_all")},
        ("Z", "M", "F"),
        _must("Z reload M", "Z reload F",
              "M reload M", "M reload F", "M tick Z", "M tick M", "M tick_all Z",
              "F tick M", "F tick_all Z"),
        {"n": list(range(6))}, {"__init__": {"start": list(range(6))}, "reload": {"amount": list(range(1, 6))}}),
    # The same countdown up to 20: tick_all from n == 20 and reload by up to 20 from n == 0
    # loop past the default unroll bound (8). z3 gives those two transitions as may (the
    # paths past the bound are not followed; test_z3_unknowns checks that), and the default
    # backend (auto) has CrossHair confirm them, so all are must here.
    "loop_past_bound": Expected(
        "loop_past_bound.py:Countdown",
        {"Z": ("reload",), "M": ("reload", "tick", "tick_all"), "F": ("tick", "tick_all")},
        ("Z", "M", "F"),
        _must("Z reload M", "Z reload F", "M reload M", "M reload F", "M tick Z", "M tick M",
              "M tick_all Z", "F tick M", "F tick_all Z"),
        {"n": list(range(21))},
        {"__init__": {"start": list(range(21))}, "reload": {"amount": list(range(1, 21))}}),
    # Dimmer extends Light (same file): off / on and unlocked at level <= 1 / on and locked
    # (level <= 1 by Dimmer's invariant) / level 2 / level 3, off ones split by `locked`.
    # switch_on (overridden, with Light's precondition) always lands at level 1.
    "inherit_dimmer": Expected(
        "inherit_dimmer.py:Dimmer",
        {"OffU": ("switch_on",), "OffL": ("switch_on", "unlock"), "LowU": ("brighter", "switch_off"),
         "OnL": ("switch_off", "unlock"), "Mid": ("brighter", "dimmer", "switch_off"),
         "Top": ("dimmer", "switch_off")},
        ("OffU", "OffL"),
        _must("OffU switch_on LowU", "OffL switch_on OnL", "OffL unlock OffU",
              "LowU brighter LowU", "LowU brighter Mid", "LowU switch_off OffU",
              "OnL switch_off OffL", "OnL unlock LowU",
              "Mid brighter Top", "Mid dimmer LowU", "Mid switch_off OffU",
              "Top dimmer Mid", "Top switch_off OffU"),
        {"on": BOOLS, "level": [0, 1, 2, 3], "locked": BOOLS}, {"__init__": {"locked": BOOLS}}),
    # LoggedFile(Logged, Buffered), a diamond over Resource: closed / open and clean / open
    # with pending data; close runs the three close()s through super() in C3 order.
    "inherit_diamond": Expected(
        "inherit_diamond.py:LoggedFile",
        {"Closed": ("open",), "Clean": ("close", "write"), "Pending": ("close", "flush", "write")},
        ("Closed",),
        _must("Closed open Clean", "Clean close Closed", "Clean write Pending",
              "Pending close Closed", "Pending flush Clean", "Pending write Pending"),
        {"opened": BOOLS, "dirty": BOOLS, "pending": [0, 1, 2, 3], "closes": [0, 1, 2]},
        {"write": {"n": [1, 2]}}),
    # by length 0..3; contains is always enabled and changes nothing; rotate keeps the length.
    "int_queue": Expected(
        "int_queue.py:IntQueue",
        {"L0": ("contains", "enqueue"), "L1": ("contains", "dequeue", "enqueue"),
         "L2": ("contains", "dequeue", "enqueue", "rotate"), "L3": ("contains", "dequeue", "rotate")},
        ("L0",),
        _must("L0 contains L0", "L0 enqueue L1",
              "L1 contains L1", "L1 enqueue L2", "L1 dequeue L0",
              "L2 contains L2", "L2 enqueue L3", "L2 dequeue L1", "L2 rotate L2",
              "L3 contains L3", "L3 dequeue L2", "L3 rotate L3"),
        {"items": [list(t) for n in range(4) for t in itertools.product([0, 1], repeat=n)]},
        {"enqueue": {"x": [0, 1]}, "contains": {"x": [0, 1]}}),
    # class constants MAX_VOLUME = 3 and STEP = 1, a module tuple constant FORMATS: stopped
    # silent / stopped with volume / playing silent / playing 1..2 / playing at 3.
    "player": Expected(
        "player.py:Mp3Player",
        {"S0": ("play",), "SV": ("play", "quieter"), "P0": ("louder", "stop"),
         "PV": ("louder", "quieter", "stop"), "PM": ("quieter", "stop")},
        ("S0",),
        _must("S0 play P0", "P0 louder PV", "P0 stop S0",
              "PV louder PV", "PV louder PM", "PV quieter P0", "PV quieter PV", "PV stop SV",
              "PM quieter PV", "PM stop SV",
              "SV play PV", "SV play PM", "SV quieter S0", "SV quieter SV"),
        {"playing": BOOLS, "volume": list(range(5)), "format": ["mp3", "ogg", "wav"]},
        {"play": {"fmt": ["mp3", "ogg", "wav"]}}),
    # Raise guards (no contract library: implicit preconditions). Idle and open / started
    # with room for a header / started and full (headers == 3) / sent / closed (stuck:
    # start needs open, the others a request under way). receive from sent raises
    # ZeroDivisionError without headers (a finding, not a guard); reopen always raises.
    # Untyped (no annotation at all): idle / printing, by whether the owner is set, whether
    # a job is kept (after finish it is None, after refill it may be kept), and the pages
    # left (start needs pages < 2, feed pages < 3). feed appends to the opaque log: its
    # transitions depend on outside code, so they are may (the printer's fields are exact).
    "untyped": Expected(
        "untyped.py:Printer",
        {"CRS": ("claim", "refill", "start"), "RS": ("refill", "start"), "CFF": ("claim", "feed", "finish"),
         "FF": ("feed", "finish"), "CF": ("claim", "finish"), "CR": ("claim", "refill"), "F": ("finish",),
         "R": ("refill",), "CFRS": ("claim", "feed", "refill", "start"), "FRS": ("feed", "refill", "start"),
         "CFR": ("claim", "feed", "refill"), "FR": ("feed", "refill")},
        ("CRS",),
        tuple(tuple(e.split()) for e in (
            "CRS claim RS must", "CRS refill CRS must", "CRS start CFF must", "RS refill RS must",
            "RS start FF must", "CFF claim FF must", "CFF feed CF may", "CFF feed CFF may",
            "CFF finish CR must", "CFF finish CRS must", "FF feed F may", "FF feed FF may",
            "FF finish R must", "FF finish RS must", "CF claim F must", "CF finish CR must",
            "CF finish CRS must", "CR claim R must", "CR refill CRS must", "CR refill CFRS must",
            "F finish R must", "F finish RS must", "R refill RS must", "R refill FRS must",
            "CFRS claim FRS must", "CFRS feed CFR may", "CFRS feed CFRS may", "CFRS refill CFRS must",
            "CFRS start CFF must", "FRS feed FR may", "FRS feed FRS may", "FRS refill FRS must",
            "FRS start FF must", "CFR claim FR must", "CFR feed CR may", "CFR refill CFRS must",
            "FR feed R may", "FR refill FRS must")),
        {"name": ["n"], "_Printer__state": [0, 1], "pages": [0, 1, 2, 3], "job": [None, "j"],
         "log": [None, [], 0], "owner": [None, 1]},
        {"__init__": {"name": ["n"], "log": [None, [], 0]}, "start": {"job": ["j"]},
         "refill": {"amount": [0, 1]}, "claim": {"who": [1]}}, preconditions="implicit"),
    "guards": Expected(
        "guards.py:Channel",
        {"I": ("close", "start"), "X": (), "H": ("close", "header", "send"), "F": ("close", "send"),
         "R": ("close", "receive")},
        ("I",),
        _must("I close X", "I start H", "H close X", "H header H", "H header F", "H send R",
              "F close X", "F send R", "R close X", "R receive I"),
        {"state": ["idle", "started", "sent"], "headers": [0, 1, 2, 3], "open": BOOLS},
        {"header": {"count": [-1, 0, 1, 2, 3, 4]}}, preconditions="implicit"),
    # str slicing: empty / cursor at the start of some text / inside / at the end. Deleting
    # shortens text and cursor alike, so it never reaches the end from inside.
    "text_buffer": Expected(
        "text_buffer.py:TextBuffer",
        {"E": ("insert",), "S": ("insert", "right"), "I": ("delete", "insert", "left", "right"),
         "N": ("delete", "insert", "left")},
        ("E",),
        _must("E insert N", "N insert N", "N delete E", "N delete N", "N left S", "N left I",
              "S insert I", "S right N", "S right I",
              "I insert I", "I delete S", "I delete I", "I left S", "I left I", "I right N", "I right I"),
        {"text": ["".join(t) for n in range(4) for t in itertools.product("ab", repeat=n)],
         "cursor": list(range(4))},
        {"insert": {"s": ["", "a", "ab"]}}),
    # a dict with str keys and values, str parameters: empty / in use (below capacity) with
    # and without the "admin" session / full with and without it. Opening can add "admin"
    # or another name; closing "admin" leaves the admin states, closing another keeps them.
    "session_pool": Expected(
        "session_pool.py:SessionPool",
        {"E": ("open",), "U": ("close", "open"), "UA": ("audit", "close", "open"), "F": ("close",),
         "FA": ("audit", "close")},
        ("E",),
        _must("E open U", "E open UA", "E open F", "E open FA",
              "U open U", "U open UA", "U open F", "U open FA", "U close E", "U close U",
              "UA open UA", "UA open FA", "UA close E", "UA close U", "UA close UA", "UA audit UA",
              "F close E", "F close U",
              "FA close E", "FA close U", "FA close UA", "FA audit FA"),
        {"capacity": [1, 2, 3],
         "sessions": [{k: "u" for k in ks} for n in range(4) for ks in itertools.combinations(["admin", "a", "b"], n)]},
        {"__init__": {"capacity": [1, 2, 3]}, "open": {"name": ["admin", "a", "b"], "user": ["", "u"]},
         "close": {"name": ["admin", "a", "b"]}}),
    # a set of str: untagged / 1-2 tags without and with "pinned" / 3 tags (MAX_TAGS) without
    # and with it. Tagging an existing tag changes nothing; clear needs "pinned" gone.
    "tag_set": Expected(
        "tag_set.py:TagSet",
        {"E": ("tag",), "S": ("clear", "tag", "untag"), "SP": ("tag", "unpin", "untag"), "F": ("clear", "untag"),
         "FP": ("unpin", "untag")},
        ("E",),
        _must("E tag S", "E tag SP",
              "S clear E", "S tag S", "S tag F", "S tag SP", "S tag FP", "S untag S", "S untag E",
              "SP tag SP", "SP tag FP", "SP unpin S", "SP unpin E", "SP untag S", "SP untag SP", "SP untag E",
              "F clear E", "F untag S",
              "FP unpin S", "FP untag S", "FP untag SP"),
        {"tags": [set(c) for n in range(5) for c in itertools.combinations(["pinned", "a", "b", "c"], n)]},
        {"tag": {"t": ["", "pinned", "a", "b", "c"]}, "untag": {"t": ["pinned", "a", "b", "c"]}}),
    # a dict field, the tuple constant ALLOWED, startswith, all() over the routes in the
    # invariant: no routes / configured / running without and with a POST route.
    "router": Expected(
        "router.py:Router",
        {"E": ("add",), "C": ("add", "remove", "start"), "R": ("serve", "stop"), "RP": ("serve", "stop", "submit")},
        ("E",),
        _must("E add C", "C add C", "C remove C", "C remove E", "C start R", "C start RP",
              "R serve R", "R stop C", "RP serve RP", "RP stop C", "RP submit RP"),
        {"routes": [dict(zip(ks, ms)) for n in range(3) for ks in itertools.combinations(["/a", "/b"], n)
                    for ms in itertools.product(["GET", "POST"], repeat=n)],
         "running": BOOLS},
        {"add": {"path": ["/a", "/b", "x"], "method": ["GET", "POST", "PUT"]}, "remove": {"path": ["/a", "/b"]},
         "serve": {"path": ["/a", "/b"]}, "submit": {"path": ["/a", "/b"]}}),
}

# The data-model samples are decided by z3 alone, exactly (issue 9): every transition must.
Z3_ALONE = ("text_buffer", "player", "session_pool", "tag_set", "router")


def test_every_sample_has_an_expectation() -> None:
    assert {p.stem for p in SAMPLES.glob("*.py")} == set(EXPECTED)


def _run_cli(target: str, out: Path, *extra: str) -> dict:
    result = CliRunner().invoke(main, ["infer", target, "--format", "json", "--out", str(out),
                                       "--no-svg", "--no-html", "--quiet", *extra])
    assert result.exit_code == 0, result.output
    written = json.loads((out / "typestate.json").read_text())
    assert json.loads(result.stdout)["typestates"] == [written]
    return written


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_typestate(name: str, tmp_path: Path) -> None:
    data = _check_typestate(name, tmp_path)
    if name in Z3_ALONE:  # the default backend (auto) needed no CrossHair question
        assert data["stats"]["queries_by_backend"].get("crosshair", 0) == 0, data["stats"]
        assert data["stats"]["queries_by_backend"]["z3"] == data["stats"]["queries"], data["stats"]


# The same runs with --backend z3: auto asks z3 first and, above, asked CrossHair nothing,
# so the quick loop has these answers already; the full suite (CI) runs them too.
@pytest.mark.slow
@pytest.mark.parametrize("name", Z3_ALONE)
def test_datamodel_sample_z3_alone(name: str, tmp_path: Path) -> None:
    data = _check_typestate(name, tmp_path, "--backend", "z3")
    assert data["stats"]["queries_by_backend"] == {"z3": data["stats"]["queries"]}


def _check_typestate(name: str, tmp_path: Path, *extra: str) -> dict:
    expected = EXPECTED[name]
    file, cls = expected.target.split(":")
    data = _run_cli(f"{SAMPLES / file}:{cls}", tmp_path, *extra)
    enabled = {s["id"]: frozenset(s["enabled"]) for s in data["states"]}
    got_states = set(enabled.values())
    got_initial = {enabled[i] for i in data["initial"]}
    got = {(enabled[t["source"]], t["method"], enabled[t["target"]], t["certainty"]) for t in data["transitions"]}
    want = {(expected.enabled(s), m, expected.enabled(t), c) for s, m, t, c in expected.transitions}
    assert sorted(map(show, got_states)) == sorted(show(expected.enabled(s)) for s in expected.states)
    assert {show(s) for s in got_initial} == {show(expected.enabled(s)) for s in expected.initial}
    missing = sorted(f"{show_triple((s, m, t))} [{c}]" for s, m, t, c in want - got)
    extra = sorted(f"{show_triple((s, m, t))} [{c}]" for s, m, t, c in got - want)
    assert not missing and not extra, f"missing: {missing}\nextra: {extra}"
    assert (data["stats"]["states"], data["stats"]["transitions"]) == (len(expected.states), len(want))
    assert len({s["id"] for s in data["states"]}) == len(data["states"])
    assert data["preconditions"] == expected.preconditions
    problems = witness_problems(Typestate.from_dict(data), load_class(SAMPLES / file, cls), expected.params)
    assert not problems, "\n".join(problems)
    return data


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_expectation_agrees_with_brute_force(name: str) -> None:
    """The hand-derived typestate against the real class run on a bounded domain."""
    expected = EXPECTED[name]
    file, cls_name = expected.target.split(":")
    cls = load_class(SAMPLES / file, cls_name)
    namespace = vars(__import__("sys").modules[cls.__module__])

    def value(v: Any) -> Any:
        if isinstance(v, str) and "." in v:
            kind, member = v.split(".")
            return namespace[kind][member]
        return v

    domains = {n: [value(v) for v in vs] for n, vs in expected.domains.items()}
    brute = brute_force_typestate(cls, domains, expected.params, preconditions=expected.preconditions)
    states = {expected.enabled(s) for s in expected.states}
    initial = {expected.enabled(s) for s in expected.initial}
    # Where the domain is not closed under the methods (stack, account, turnstile, queue) it
    # is still chosen large enough to show every expected behaviour: equality either way.
    assert brute.states == states, brute.describe()
    assert brute.initial == initial, brute.describe()
    assert brute.transitions == expected.triples(), (
        f"brute only: {sorted(map(show_triple, brute.transitions - expected.triples()))}\n"
        f"expected only: {sorted(map(show_triple, expected.triples() - brute.transitions))}")

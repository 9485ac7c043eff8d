"""Enabledness bits z3 cannot decide are bounded, not split (z3backend/undecided.py): a state
is the vector of "can be enabled" bits, its undecided methods listed (`m?`). Checked
against the real class run on concrete objects reached by real call sequences."""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from collections import deque
from pathlib import Path

import pytest
from typestate_check import covers

from contractor.api import InferOptions, infer
from contractor.outputs.dot import to_dot
from contractor.outputs.html import to_html
from contractor.outputs.json_out import to_json
from contractor.outputs.mermaid import to_mermaid
from contractor.outputs.summary import to_text
from contractor.typestate import Typestate

# fa and fc: a `match` (not translated) decides their raise, each on a field of its own;
# fb: a loop past --unroll 4 decides it, and toggles `open` only after more than 4 rounds.
# Before, each undecided bit split every state: 2 (open or not) x 2^3 = 16 states, 384
# transitions, all may.
DEV = '''
class Dev:
    def __init__(self) -> None:
        self.a = 0
        self.b = 0
        self.c = 0
        self.open = False

    def start(self) -> None:
        if self.open:
            raise RuntimeError("already open")
        self.open = True

    def stop(self) -> None:
        if not self.open:
            raise RuntimeError("not open")
        self.open = False

    def fa(self) -> None:
        match self.a:
            case 3:
                raise ValueError("three")
        self.a += 1

    def fb(self) -> None:
        i = 0
        while i < self.b:
            i += 1
        if i == 6:
            raise ValueError("six")
        if i > 4:
            self.open = not self.open
        self.b += 1

    def fc(self) -> None:
        match self.c:
            case 2:
                raise ValueError("two")
        self.c += 1
'''
ACTIONS = ("fa", "fb", "fc", "start", "stop")
BOUND = 8  # concrete objects explored up to this value of each counter


def _load(path: Path, name: str) -> type:
    spec = importlib.util.spec_from_file_location(f"undecided_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return getattr(module, name)


def _run(obj: object, method: str) -> object | None:
    """The object after `method` on a copy, or None where the call ends in a raise (every
    raise of Dev is explicit: the raise guards' meaning of "not enabled")."""
    after = copy.deepcopy(obj)
    try:
        getattr(after, method)()
    except (RuntimeError, ValueError):
        return None
    return after


def _key(obj: object) -> tuple:
    return tuple(sorted(vars(obj).items()))


def _concrete(cls: type) -> tuple[list[object], list[tuple[frozenset[str], str, frozenset[str]]]]:
    """Objects reached from Dev() by real call sequences (counters up to BOUND), and each
    real step as (enabled before, method, enabled after)."""
    def enabled(o: object) -> frozenset[str]:
        return frozenset(m for m in ACTIONS if _run(o, m) is not None)

    start = cls()
    seen = {_key(start): start}
    queue = deque([start])
    steps = set()
    while queue:
        obj = queue.popleft()
        for m in ACTIONS:
            after = _run(obj, m)
            if after is None or max(after.a, after.b, after.c) > BOUND:
                continue
            steps.add((enabled(obj), m, enabled(after)))
            if _key(after) not in seen:
                seen[_key(after)] = after
                queue.append(after)
    return list(seen.values()), sorted(steps, key=lambda s: (sorted(s[0]), s[1], sorted(s[2])))


@pytest.fixture(scope="module")
def dev(tmp_path_factory: pytest.TempPathFactory) -> tuple[Typestate, type]:
    path = tmp_path_factory.mktemp("undecided") / "dev.py"
    path.write_text(DEV)
    return infer(f"{path}:Dev", InferOptions(backend="z3", unroll=4)), _load(path, "Dev")


def test_one_state_per_decided_bits_with_the_undecided_methods_listed(dev) -> None:
    ts, _ = dev
    assert ts.complete and ts.merged
    assert [(s.enabled, s.undecided) for s in ts.states] == [
        (("fa", "fb", "fc", "start"), ("fa", "fb", "fc")),
        (("fa", "fb", "fc", "stop"), ("fa", "fb", "fc")),
    ]
    # nothing is surely enabled in every state: fa, fb and fc are not "always enabled"
    assert ts.always_enabled == ()
    assert [s.executable for s in ts.states] == ["not self.open", "self.open"]


def test_every_concrete_object_and_step_is_in_the_typestate(dev) -> None:
    ts, cls = dev
    objects, steps = _concrete(cls)
    assert len(objects) > 100 and steps
    for obj in objects:
        real = frozenset(m for m in ACTIONS if _run(obj, m) is not None)
        # its state: the one whose invariant holds, exactly one; its decided bits are exact
        holding = [s for s in ts.states if eval(s.executable, {}, {"self": obj})]  # noqa: S307
        assert len(holding) == 1, vars(obj)
        assert covers(holding[0], real), (vars(obj), real, holding[0])
    for before, method, after in steps:
        assert any(t.method == method and covers(ts.state(t.source), before) and covers(ts.state(t.target), after)
                   for t in ts.transitions), (sorted(before), method, sorted(after))
    # the toggle after more than 4 rounds of fb's loop is real (b == 5), and kept
    assert any(m == "fb" and ("start" in b) != ("start" in a) for b, m, a in steps)


def test_followed_paths_give_must_unknown_paths_may(dev) -> None:
    ts, cls = dev
    fb = {(t.source, t.target): t for t in ts.transitions if t.method == "fb"}
    assert set(fb) == {("S1", "S1"), ("S1", "S2"), ("S2", "S1"), ("S2", "S2")}
    for s in ("S1", "S2"):
        stay = fb[(s, s)]  # a run of the loop within the bound: a real witness, though fb is undecided in s
        assert stay.certainty == "must" and stay.witness is not None
        obj = cls()
        for name, value in stay.witness["fields"].items():
            setattr(obj, name, value)
        after = _run(obj, "fb")
        assert after is not None and after.open == obj.open
    for move in (fb[("S1", "S2")], fb[("S2", "S1")]):  # only past the bound: may, saying why
        assert move.certainty == "may" and "loop" in (move.reason or "")
    # fa and fc are read through an untranslated `match`: may, naming it
    assert all(t.certainty == "may" and "Match" in (t.reason or "") for t in ts.transitions if t.method in ("fa", "fc"))
    assert all(t.certainty == "must" for t in ts.transitions if t.method in ("start", "stop"))


def test_outputs_mark_undecided_methods(dev) -> None:
    ts, _ = dev
    text = to_text(ts)
    assert "S1 (initial): fa?, fb?, fc?, start" in text and "m?: may be enabled" in text
    assert "always enabled" not in text
    assert "fa?, fb?, fc?, stop" in to_dot(ts) and "m?: may be enabled" in to_dot(ts)
    assert "S2 : fa?, fb?, fc?, stop" in to_mermaid(ts)
    page = to_html(ts, svg=None)
    assert "fa?, fb?, fc?, start" in page and "may be enabled" in page
    back = Typestate.from_dict(json.loads(to_json(ts)))
    assert [s.undecided for s in back.states] == [s.undecided for s in ts.states]
    assert json.loads(to_json(ts))["states"][0]["undecided"] == ["fa", "fb", "fc"]


def test_a_method_surely_enabled_in_some_states_is_undecided_only_in_the_others(tmp_path: Path) -> None:
    # go's guard: a raise past 3 rounds of a loop (unroll 3); within them it surely finishes
    path = tmp_path / "counter.py"
    path.write_text('''
class Counter:
    def __init__(self) -> None:
        self.n = 0

    def go(self) -> None:
        i = 0
        while i < self.n:
            i += 1
        if i == 7:
            raise ValueError("seven")
        self.n += 1

    def reset(self) -> None:
        if self.n == 0:
            raise ValueError("already reset")
        self.n = 0
''')
    ts = infer(f"{path}:Counter", InferOptions(backend="z3", unroll=3))
    by_enabled = {s.enabled: s for s in ts.states}
    assert set(by_enabled) == {("go", "reset"), ("go",)}
    assert by_enabled[("go",)].undecided == ()  # n == 0: go surely finishes
    assert by_enabled[("go", "reset")].undecided == ("go",)  # n > 3 possible: go's raise unknown
    assert ts.always_enabled == ()


def test_the_checker_treats_undecided_methods_as_possibly_disabled(tmp_path: Path) -> None:
    from contractor.check import CheckOptions, Mode, check, load_protocols

    (tmp_path / "dev.py").write_text(DEV)
    ts = infer(f"{tmp_path / 'dev.py'}:Dev", InferOptions(backend="z3", unroll=4))
    (tmp_path / "dev.typestate.json").write_text(to_json(ts))
    client = tmp_path / "client.py"
    client.write_text("from dev import Dev\n\n\ndef f() -> None:\n    d = Dev()\n    d.fc()\n    d.stop()\n")
    protocols = load_protocols(typestates=[tmp_path / "dev.typestate.json"])
    # sound: fc() may be disabled (undecided) and stop() is; complete: only stop(), disabled everywhere
    sound = sorted((d.line, d.message) for d in check([client], protocols, CheckOptions(Mode.SOUND)))
    assert [line for line, _ in sound] == [6, 7]
    assert "Dev.fc() may not be enabled" in sound[0][1] and "fc?" in sound[0][1]
    assert "Dev.stop() is not enabled" in sound[1][1]
    complete = check([client], protocols, CheckOptions(Mode.COMPLETE))
    assert [d.line for d in complete] == [7]

"""Untranslatable code must degrade to may-answers, never to dropped transitions or
spurious findings: checked against the real class run on concrete objects."""

import importlib.util
import sys

from typestate_check import covers

from contractor.api import InferOptions, infer

REGISTRY = '''
class Reg:
    def __init__(self) -> None:
        self.d: dict[str, list[int]] = {}  # dict values that are lists: not modelled by z3
        self.n = 0

    def put(self) -> None:
        self.d["k"] = [1]

    def take(self) -> None:
        """pre: "k" in self.d"""
        del self.d["k"]
'''


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def enabled(obj) -> frozenset:
    return frozenset(["put"] + (["take"] if "k" in obj.d else []))


def assert_covered(ts, concrete) -> None:
    """Each concrete step (enabled before, method, enabled after) is a transition of `ts`
    between states that may hold those objects (a method undecided there may be either)."""
    assert concrete
    for before, method, after in concrete:
        assert any(t.method == method and covers(ts.state(t.source), frozenset(before))
                   and covers(ts.state(t.target), frozenset(after)) for t in ts.transitions), (before, method, after)


def test_an_opaque_field_never_hides_a_transition(tmp_path):
    path = tmp_path / "reg.py"
    path.write_text(REGISTRY)
    ts = infer(f"{path}:Reg", InferOptions(backend="z3"))
    # take's precondition is not translated: its bit is "can be enabled", undecided (take?)
    # in the one state, not a free bit splitting it in two
    assert [(s.enabled, s.undecided) for s in ts.states] == [(("put", "take"), ("take",))]
    # concrete: put from the empty registry enables take; take from {k} disables it again
    Reg = load(path, "reg_concrete").Reg
    concrete = set()
    for start in ({}, {"k": 1}):
        for method in ("put", "take"):
            obj = Reg()
            obj.d = dict(start)
            before = enabled(obj)
            if method not in before:
                continue
            getattr(obj, method)()
            concrete.add((tuple(sorted(before)), method, tuple(sorted(enabled(obj)))))
    assert_covered(ts, concrete)
    # nothing about d is known to z3: take's transitions are may, with the reason (put's
    # certainty is what outside code's rules make it: every object is in the one state)
    assert all(t.certainty == "may" and t.reason for t in ts.transitions if t.method == "take")
    assert any(u.method == "take" and "self.d" in u.detail for u in ts.unknowns)


def test_an_untranslatable_constructor_is_not_called_unsatisfiable(tmp_path):
    path = tmp_path / "reg2.py"
    path.write_text(REGISTRY)
    ts = infer(f"{path}:Reg", InferOptions(backend="z3"))
    assert not [f for f in ts.findings if f.kind == "unsatisfiable_constructor"]
    assert ts.initial  # Reg() does produce an object


BOX = '''
class Box:
    def __init__(self) -> None:
        self.item: object = None

    def fill(self) -> None:
        self.item = 1

    def empty(self) -> None:
        self.item = None

    def take(self) -> None:
        """pre: self.item is not None"""
        self.item = None
'''


def test_a_translated_write_to_an_opaque_field_may_change_untranslated_conditions(tmp_path):
    # `item` is not modelled (type object), so `self.item is not None` is not translated;
    # fill() assigns it without any untranslatable statement: its effect must still be
    # able to change take()'s enabledness
    path = tmp_path / "box.py"
    path.write_text(BOX)
    ts = infer(f"{path}:Box", InferOptions(backend="z3"))
    Box = load(path, "box_concrete").Box
    concrete = set()
    for start in (None, 1):
        for method in ("empty", "fill", "take"):
            obj = Box()
            obj.item = start
            on = lambda o: tuple(sorted(["empty", "fill"] + (["take"] if o.item is not None else [])))  # noqa: E731
            before = on(obj)
            if method not in before:
                continue
            getattr(obj, method)()
            concrete.add((before, method, on(obj)))
    assert_covered(ts, concrete)


LATCH = '''
class Latch:
    def __init__(self) -> None:
        self.held = False

    async def take(self, waiter) -> None:
        if self.held:
            await waiter
        self.held = True

    def drop(self) -> None:
        if not self.held:
            raise RuntimeError("not held")
        self.held = False
'''


def test_an_unknown_met_by_the_guards_and_the_transitions_says_both(tmp_path):
    """asyncio.locks.Lock's `acquire` after its first await: one entry, and its detail names
    both readings (it said "in its raise guards", while the transitions were may by it too)."""
    path = tmp_path / "latch.py"
    path.write_text(LATCH)
    ts = infer(f"{path}:Latch", InferOptions(backend="z3"))
    take = [u for u in ts.unknowns if u.method == "take"]
    assert len(take) == 1 and "await" in take[0].construct, ts.unknowns
    assert take[0].detail == "in its raise guards and its transitions", take
    assert any(t.method == "take" and t.certainty == "may" and "await" in (t.reason or "") for t in ts.transitions)

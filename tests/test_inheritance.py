"""Inheritance through the public interface: bases in other modules found without
importing them, unreadable bases reported once and making only affected answers may,
inherited actions selectable by --methods, and the CrossHair backend on a subclass."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from bruteforce import brute_force_typestate
from click.testing import CliRunner
from runtime_contracts import load_class
from typestate_check import check, tool_transitions

from contractor.api import InferOptions, infer
from contractor.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
BOOLS = [False, True]

METER = textwrap.dedent('''\
    class Meter(dict):
        def __init__(self) -> None:
            super().__init__()
            self.on = False

        def start(self) -> None:
            """pre: not self.on"""
            self.on = True

        def stop(self) -> None:
            """pre: self.on"""
            self.on = False
    ''')

BASE = textwrap.dedent('''\
    class Valve:
        """inv: 0 <= self.flow <= 2"""

        def __init__(self) -> None:
            self.flow = 0

        def open_more(self) -> None:
            """pre: self.flow < 2"""
            self.flow += 1

        def shut(self) -> None:
            """pre: self.flow > 0"""
            self.flow = 0
    ''')

DERIVED = textwrap.dedent('''\
    from .base import Valve
    from . import base as b


    class Mixin:
        def purge(self) -> None:
            """pre: self.flow == 2 and not self.purged"""
            self.purged = True


    class SafeValve(Mixin, b.Valve):
        def __init__(self) -> None:
            Valve.__init__(self)
            self.purged = False

        def shut(self) -> None:
            super().shut()
            self.purged = False
    ''')


def test_unreadable_base_is_reported_once_and_only_affected_answers_are_may(tmp_path: Path) -> None:
    path = tmp_path / "meter.py"
    path.write_text(METER)
    ts = infer(f"{path}:Meter", InferOptions(backend="z3"))
    cls = load_class(path, "Meter")
    check(ts, brute_force_typestate(cls, {"on": BOOLS}), cls, {}, exact=False)
    bases = [u for u in ts.unknowns if u.construct.startswith("base class")]
    assert len(bases) == 1 and "dict" in bases[0].construct and bases[0].line == 1
    got = tool_transitions(ts)
    # start and stop do not reach dict's code: exact; the constructor does: may
    assert got[(frozenset({"start"}), "start", frozenset({"stop"}))] == "must"
    assert got[(frozenset({"stop"}), "stop", frozenset({"start"}))] == "must"
    assert all(i.certainty == "may" and "dict" in (i.reason or "") for i in ts.initializations)


RUNTIME_BASE = textwrap.dedent('''\
    def _make():
        class B:
            def __init__(self):
                self.ready = False
        return B


    Base = _make()


    class C(Base):
        def __init__(self) -> None:
            self.ready = True
            super().__init__()
            self.n = 0

        def prepare(self) -> None:
            self.ready = True

        def start(self) -> None:
            if not self.ready:
                raise RuntimeError("not ready")
            self.n = 1

        def finish(self) -> None:
            if self.n != 1:
                raise RuntimeError("not started")
            self.n = 2
    ''')


def test_super_call_into_an_unreadable_base_goes_on_with_fields_arbitrary(tmp_path: Path) -> None:
    """The base (bound at run time) sets `ready` behind z3's back: every field is arbitrary
    after the call, but the path goes on, so `n = 0` after it still holds (finish is
    disabled in every initial state), and the answers through the call are may, naming it."""
    path = tmp_path / "runtime_base.py"
    path.write_text(RUNTIME_BASE)
    ts = infer(f"{path}:C", InferOptions(backend="z3"))
    cls = load_class(path, "C")
    domains = {"ready": BOOLS, "n": [0, 1, 2]}
    check(ts, brute_force_typestate(cls, domains, preconditions="implicit"), cls, {}, exact=False)
    initial = {s.id: s.enabled for s in ts.states if s.initial}
    assert initial and all("finish" not in enabled for enabled in initial.values())
    assert any("start" not in enabled for enabled in initial.values())  # ready may be False
    assert all(i.certainty == "may" and "unreadable base class Base" in (i.reason or "")
               for i in ts.initializations)
    assert [u.construct for u in ts.unknowns if "Base" in u.construct] == [
        "base class Base cannot be read"]
    assert any(f.kind == "may_raise" and "Base.__init__" in f.message for f in ts.findings)


def _package(tmp_path: Path) -> Path:
    pkg = tmp_path / "plant"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(BASE)
    (pkg / "valves.py").write_text(DERIVED)
    return pkg


def test_bases_in_other_modules_are_read_without_importing(tmp_path: Path) -> None:
    pkg = _package(tmp_path)
    ts = infer("plant.valves:SafeValve", InferOptions(backend="z3"), root=tmp_path)
    assert "plant" not in sys.modules and "plant.base" not in sys.modules
    assert set(ts.methods) == {"open_more", "purge", "shut"} and not ts.unknowns
    sys.path.insert(0, str(tmp_path))
    try:
        cls = load_class(pkg / "valves.py", "SafeValve")
    except ImportError:  # a relative import needs the package: import it as the package's module
        import importlib
        cls = importlib.import_module("plant.valves").SafeValve
    finally:
        sys.path.remove(str(tmp_path))
    brute = brute_force_typestate(cls, {"flow": [0, 1, 2], "purged": BOOLS})
    check(ts, brute, cls, {}, exact=True)
    for name in [m for m in sys.modules if m == "plant" or m.startswith("plant.")]:
        del sys.modules[name]


def test_an_inherited_method_sees_its_own_module_constants(tmp_path: Path) -> None:
    """`LIMIT` in the base's method is the base module's (2), not the subclass module's
    (5): names resolve in the module that defines the function, as Python does."""
    pkg = tmp_path / "counters"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(textwrap.dedent('''\
        LIMIT = 2


        class Counter:
            def __init__(self) -> None:
                self.n = 0

            def up(self) -> None:
                if self.n >= LIMIT:
                    raise ValueError("full")
                self.n += 1
        '''))
    (pkg / "big.py").write_text(textwrap.dedent('''\
        from .base import Counter

        LIMIT = 5


        class Big(Counter):
            def reset(self) -> None:
                if self.n < LIMIT - 4:
                    raise ValueError("nothing to reset")
                self.n = 0
        '''))
    ts = infer("counters.big:Big", InferOptions(backend="z3"), root=tmp_path)
    sys.path.insert(0, str(tmp_path))
    try:
        import importlib
        cls = importlib.import_module("counters.big").Big
        brute = brute_force_typestate(cls, {"n": [-1, 0, 1, 2, 3]}, preconditions="implicit")
        check(ts, brute, cls, {}, exact=False)  # n is unbounded below
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "counters" or m.startswith("counters.")]:
            del sys.modules[name]
    assert {s.enabled for s in ts.states} == {("up",), ("reset", "up"), ("reset",)}


def test_methods_option_names_an_inherited_action(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["infer", f"{SAMPLES / 'inherit_dimmer.py'}:Dimmer", "--backend", "z3",
                                       "--methods", "switch_off,unlock", "--format", "json", "--quiet",
                                       "--out", str(tmp_path), "--no-svg", "--no-html"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["typestates"][0]["methods"] == ["switch_off", "unlock"]


def test_crosshair_backend_on_a_subclass_agrees_with_z3(tmp_path: Path) -> None:
    """It gave an empty typestate: the model had neither the bases' fields nor __init__."""
    target = f"{SAMPLES / 'inherit_diamond.py'}:LoggedFile"
    xh = infer(target, InferOptions(backend="crosshair", crosshair_options={"cache_dir": str(tmp_path)}))
    z3 = infer(target, InferOptions(backend="z3"))
    assert len(xh.states) == 3 and tool_transitions(xh) == tool_transitions(z3)


def test_strengthen_overrides_inherited_actions_and_leaves_the_base_alone(tmp_path: Path) -> None:
    """An inherited action gets an override in the subclass calling the base's through
    super(); the base class (used on its own too) is not edited."""
    out = tmp_path / "out"
    done = CliRunner().invoke(main, ["strengthen", f"{SAMPLES / 'inherit_dimmer.py'}:Dimmer", "--backend", "z3",
                                     "--out", str(out)])
    assert done.exit_code == 0, done.output
    written = out / "inherit_dimmer_strengthened.py"
    text = written.read_text()
    light = text[text.index("class Light"):text.index("class Dimmer")]
    assert "_typestate" not in light and "super().switch_off()" in text
    module = load_class(written, "Dimmer").__module__
    strengthened = sys.modules[module]
    dimmer = strengthened.Dimmer(False)
    dimmer.switch_on()
    dimmer.switch_off()
    with pytest.raises(AssertionError, match="switch_off\\(\\) is not enabled"):
        dimmer.switch_off()  # TypestateError: the inherited action is guarded too
    light = strengthened.Light()
    light.switch_on()
    light.switch_off()
    light.switch_off()  # the base class keeps its own behaviour


def test_crosshair_backend_on_a_subclass_of_a_c_class(tmp_path: Path) -> None:
    """Objects of a dict subclass are built with the class's own __new__ (object.__new__
    refuses them, and the typestate came out empty)."""
    path = tmp_path / "meter.py"
    path.write_text(METER)
    ts = infer(f"{path}:Meter", InferOptions(backend="crosshair", crosshair_options={"cache_dir": str(tmp_path)}))
    assert set(tool_transitions(ts)) == {(frozenset({"start"}), "start", frozenset({"stop"})),
                                         (frozenset({"stop"}), "stop", frozenset({"start"}))}



ICONTRACT_SNAPSHOT = '''
import abc

import icontract


class A(icontract.DBC):
    def __init__(self) -> None:
        self.items: list[int] = []

    @abc.abstractmethod
    @icontract.snapshot(lambda self: self.items[:], name="items")
    @icontract.ensure(lambda OLD, self: len(self.items) == len(OLD.items) + 1)
    def add(self, value: int) -> None:
        pass


class Good(A):
    @icontract.ensure(lambda OLD, self, value: self.items == OLD.items + [value])
    def add(self, value: int) -> None:
        self.items.append(value)


class Bad(A):
    # the snapshot of OLD.items is A's (icontract's README example, on a field)
    @icontract.ensure(lambda OLD, self, value: self.items == OLD.items + [value])
    def add(self, value: int) -> None:
        self.items.append(value)
        self.items.append(1984)
'''


@pytest.mark.parametrize("name", ["Good", "Bad"])
def test_an_icontract_override_uses_its_base_snapshot(tmp_path: Path, name: str) -> None:
    """With icontract.DBC an override's postcondition may read a base's `OLD.items` (it was
    refused: "OLD.items has no @snapshot"); the finding agrees with running the class under
    icontract itself."""
    import icontract

    path = tmp_path / "snap.py"
    path.write_text(ICONTRACT_SNAPSHOT)
    ts = infer(f"{path}:{name}", InferOptions(backend="z3"))
    assert not ts.unknowns
    broken = [f for f in ts.findings if f.kind.value == "breaks_postcondition" and f.method == "add"]
    obj = load_class(path, name)()
    if name == "Good":
        assert not broken
        obj.add(3)  # icontract checks both postconditions
        return
    assert broken and broken[0].counterexample is not None
    obj.items = list(broken[0].counterexample["fields"]["items"])
    with pytest.raises(icontract.ViolationError):
        obj.add(broken[0].counterexample["args"]["value"])

"""Python that contractor must accept as Python does: async methods (actions whose effect
after the first await is opaque), nested classes named Outer.Inner, and source files with
a UTF-8 BOM or a PEP 263 coding line."""

from __future__ import annotations

import asyncio
import copy
import importlib.util
import itertools
import json
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from typestate_check import tool_transitions

from contractor.api import InferOptions, infer
from contractor.cli import main

CONN = textwrap.dedent('''\
    import asyncio


    class Conn:
        def __init__(self) -> None:
            self.open = False
            self.sent = 0

        async def connect(self) -> None:
            """pre: not self.open"""
            self.open = True
            await asyncio.sleep(0)

        async def send(self) -> None:
            """pre: self.open and self.sent < 2"""
            await asyncio.sleep(0)
            self.sent += 1

        def close(self) -> None:
            """pre: self.open"""
            self.open = False
            self.sent = 0
    ''')

NESTED = textwrap.dedent('''\
    class Outer:
        class Inner:
            def __init__(self) -> None:
                self.n = 0

            def up(self) -> None:
                """pre: self.n < 2"""
                self.n += 1

        class Sub(Inner):
            def down(self) -> None:
                """pre: self.n > 0"""
                self.n -= 1
    ''')

LATIN = ('# -*- coding: latin-1 -*-\n'
         'class Caf\u00e9Door:\n'
         '    """La porte du caf\u00e9."""\n\n'
         '    def __init__(self) -> None:\n'
         '        self.closed = True\n\n'
         '    def open(self) -> None:\n'
         '        """pre: self.closed"""\n'
         '        self.closed = False\n\n'
         '    def close(self) -> None:\n'
         '        """pre: not self.closed"""\n'
         '        self.closed = True\n')


def _load(path: Path, name: str) -> type:
    spec = importlib.util.spec_from_file_location(f"_forms_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return getattr(module, name)


def test_async_methods_are_actions_and_keep_every_concrete_transition(tmp_path: Path) -> None:
    path = tmp_path / "conn.py"
    path.write_text(CONN)
    ts = infer(f"{path}:Conn", InferOptions(backend="z3"))
    assert ts.methods == ("close", "connect", "send")
    got = tool_transitions(ts)
    Conn = _load(path, "Conn")

    def enabled(o) -> frozenset[str]:
        return frozenset(m for m, ok in (("connect", not o.open), ("send", o.open and o.sent < 2),
                                         ("close", o.open)) if ok)

    for opened, sent in itertools.product([False, True], [0, 1, 2]):
        for method in ("close", "connect", "send"):
            obj = Conn.__new__(Conn)
            obj.open, obj.sent = opened, sent
            if method not in enabled(obj):
                continue
            after = copy.deepcopy(obj)
            result = getattr(after, method)()
            if asyncio.iscoroutine(result):
                asyncio.run(result)
            assert (enabled(obj), method, enabled(after)) in got, (opened, sent, method)
    # what runs after an await is not followed: those answers are may, with the reason
    sends = [t for t in ts.transitions if t.method == "send"]
    assert sends and all(t.certainty == "may" and "after its first await" in t.reason for t in sends)
    assert all(t.certainty == "must" for t in ts.transitions if t.method == "close")


def test_async_method_named_by_methods_and_refused_by_crosshair(tmp_path: Path) -> None:
    path = tmp_path / "conn.py"
    path.write_text(CONN)
    common = ["--out", str(tmp_path / "out"), "--no-svg", "--no-html", "--quiet"]
    named = CliRunner().invoke(main, ["infer", f"{path}:Conn", "--methods", "send", "--backend", "z3", *common])
    assert named.exit_code == 0, named.output
    refused = CliRunner().invoke(main, ["infer", f"{path}:Conn", "--backend", "crosshair", *common])
    assert refused.exit_code == 2 and "cannot run async methods (connect, send)" in refused.output
    auto = infer(f"{path}:Conn", InferOptions(backend="auto"))
    assert tool_transitions(auto) == tool_transitions(infer(f"{path}:Conn", InferOptions(backend="z3")))


def test_nested_classes_by_file_and_module(tmp_path: Path) -> None:
    (tmp_path / "shapes.py").write_text(NESTED)
    inner = infer(f"{tmp_path / 'shapes.py'}:Outer.Inner", InferOptions(backend="z3"))
    assert inner.class_name == "Inner" and inner.methods == ("up",) and len(inner.states) == 2
    sub = infer("shapes:Outer.Sub", InferOptions(backend="z3"), root=tmp_path)
    assert sub.methods == ("down", "up") and not sub.unknowns  # its base is the sibling Inner
    assert len(sub.states) == 3 and all(t.certainty == "must" for t in sub.transitions)
    missing = CliRunner().invoke(main, ["infer", f"{tmp_path / 'shapes.py'}:Outer.Nope", "--quiet"])
    assert missing.exit_code == 2 and "Outer.Inner" in missing.output


def test_bom_and_coding_line_are_read_as_python_reads_them(tmp_path: Path) -> None:
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + LATIN.split("\n", 1)[1].replace("Caf\u00e9Door", "Door").encode("utf-8"))
    latin = tmp_path / "latin.py"
    latin.write_bytes(LATIN.encode("latin-1"))
    for target in (f"{bom}:Door", f"{latin}:Caf\u00e9Door"):
        ts = infer(target, InferOptions(backend="z3"))
        assert len(ts.states) == 2 and len(ts.transitions) == 2
    out = tmp_path / "out"
    done = CliRunner().invoke(main, ["strengthen", f"{latin}:Caf\u00e9Door", "--backend", "z3", "--out", str(out)])
    assert done.exit_code == 0, done.output
    cls = _load(out / "latin_strengthened.py", "Caf\u00e9Door")
    assert cls.__doc__ == "La porte du caf\u00e9."
    door = cls()
    door.open()
    try:
        door.open()
    except AssertionError as exc:  # TypestateError
        assert "not enabled" in str(exc)
    else:
        raise AssertionError("open() twice was not refused")


def test_or_default_of_an_optional_list_is_a_typed_list(tmp_path: Path) -> None:
    """`self.items = items or []` with `items: Optional[list[int]]` types the field as a
    list, so every answer about it is must (before, the whole constructor was may); the
    semantic case of the same name checks the typestate against the brute force."""
    from semantic_collection_cases import COLLECTION_CASES

    (case,) = [c for c in COLLECTION_CASES if c.name == "or_default_types_a_list_field"]
    (tmp_path / "bag.py").write_text(case.source)
    ts = infer(f"{tmp_path / 'bag.py'}:C", InferOptions(backend="z3"))
    assert not ts.unknowns, ts.unknowns
    assert {t.certainty for t in ts.transitions} == {"must"}
    initial = {frozenset(ts.state(s).enabled) for s in ts.initial}
    assert initial == {frozenset({"add", *pop, *drop}) for pop in ((), ("pop",)) for drop in ((), ("drop_extra",))}


def test_self_on_one_path_and_another_value_on_another_is_an_unknown(tmp_path: Path) -> None:
    """A helper returning `self` on one path and an untyped value on another (zipfile's
    CompleteDirs.make): an untranslated construct whose answers are may, not an internal
    error (z3 5.4 refuses `==` between an object id and a term of another sort)."""
    src = tmp_path / "builder.py"
    src.write_text(textwrap.dedent('''\
        class Builder:
            def __init__(self, source) -> None:
                self.source = source
                self.done = False

            def pick(self, other):
                if other is None:
                    return self
                return other

            def finish(self, other) -> None:
                chosen = self.pick(other)
                if self.done:
                    raise ValueError("finished already")
                self.done = True
                self.last = chosen
        '''))
    result = CliRunner().invoke(main, ["infer", f"{src}:Builder", "--backend", "z3", "--format", "json",
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    ts = json.loads(result.stdout)["typestates"][0]
    assert {(u["method"], u["construct"]) for u in ts["unknowns"]} >= {
        ("pick", "a reference to different objects on different paths")}
    # a new Builder can finish (once): the transition is kept, as a may-answer
    initial = set(ts["initial"])
    assert any(t["source"] in initial and t["method"] == "finish" for t in ts["transitions"])
    assert all(t["certainty"] == "may" for t in ts["transitions"] if t["method"] == "finish")


FRAMER = textwrap.dedent('''\
    from typing import List, Optional


    class Framer:
        def __init__(self) -> None:
            self.closed = False

        def frame(self, last: bool) -> Optional[List[bytes]]:
            if self.closed:
                raise ValueError("closed")
            if last:
                self.closed = True
                return None
            parts: List[bytes] = []
            return parts

        def flush(self) -> None:
            self.frame(True)

        def count(self, last: bool) -> int:
            got = self.frame(last)
            return 0 if got is None else len(got)
    ''')


def test_return_values_z3_cannot_merge_are_untranslated_where_used(tmp_path: Path) -> None:
    """None on one path and a list of bytes (items z3 does not model) on another (h11's
    Connection.send_with_data_passthrough): only a use of the result is untranslated
    (count's line 21), not the method returning it (frame: every answer must; before, the
    whole of frame and of each caller was may), and the typestate is what running it does."""
    src = tmp_path / "framer.py"
    src.write_text(FRAMER)
    ts = infer(f"{src}:Framer", InferOptions(backend="z3"))
    assert {(u.method, u.line) for u in ts.unknowns} == {("count", 21)}, ts.unknowns
    assert {(t.method, t.certainty) for t in ts.transitions if t.method != "count"} == {
        ("frame", "must"), ("flush", "must")}
    (initial,) = ts.initial
    assert {"frame", "flush"} <= set(ts.state(initial).enabled)
    closed = {t.target for t in ts.transitions if t.method == "flush"}
    assert all(not {"frame", "flush"} & set(ts.state(s).enabled) for s in closed)
    framer_cls = _load(src, "Framer")
    obj = framer_cls()
    assert obj.frame(False) == [] and obj.count(False) == 0
    obj.flush()
    for call in (obj.flush, lambda: obj.frame(False)):
        try:
            call()
        except ValueError:
            continue
        raise AssertionError("a closed Framer ran")


def test_a_constructor_building_its_own_class_stops_at_the_inlining_bound(tmp_path: Path) -> None:
    """`__init__` building another object of its class (starlette's URL: `URL("").replace(
    **components)` where components were given) inlined that `__init__` again and again,
    without the depth bound and recursion check of method calls, until Python's recursion
    limit: an internal error (exit 70). Now the inner construction is an untranslated
    construct (may-answers) and seal's guard is still read; running it agrees."""
    src = tmp_path / "url.py"
    src.write_text(textwrap.dedent('''\
        class Url:
            def __init__(self, text: str = "", **parts) -> None:
                if parts:
                    text = Url("").text + "?"
                self.text = text
                self.sealed = False

            def seal(self) -> None:
                if self.sealed:
                    raise ValueError("sealed")
                self.sealed = True
        '''))
    result = CliRunner().invoke(main, ["infer", f"{src}:Url", "--backend", "z3", "--format", "json",
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    ts = json.loads(result.stdout)["typestates"][0]
    assert ("__init__", 4, "recursion deeper than the inlining bound") in {
        (u["method"], u["line"], u["construct"]) for u in ts["unknowns"]}
    unsealed = [s["id"] for s in ts["states"] if s["enabled"] == ["seal"]]
    assert unsealed and any(t["method"] == "seal" and t["source"] in unsealed for t in ts["transitions"])
    url_cls = _load(src, "Url")
    for url in (url_cls("a"), url_cls(port=1)):
        url.seal()
        try:
            url.seal()
        except ValueError:
            continue
        raise AssertionError("sealed twice")


def test_a_value_z3_does_not_model_is_named_readably(tmp_path: Path) -> None:
    """A field that may hold an object of the class (`dict[str, Group]`) is a value z3 does
    not model: handed to outside code (`sorted(self.children)`, click's Group.list_commands)
    the summary said "a any value handed to external code"."""
    src = tmp_path / "group.py"
    src.write_text(textwrap.dedent('''\
        from typing import Dict


        class Group:
            def __init__(self) -> None:
                self.children: Dict[str, "Group"] = {}

            def names(self) -> list:
                return sorted(self.children)
        '''))
    ts = infer(f"{src}:Group", InferOptions(backend="z3"))
    assert [(u.method, u.line, u.construct) for u in ts.unknowns] == [
        ("names", 9, "a value of a type the z3 backend does not model handed to external code")]


def test_a_variadic_tuple_compared_with_a_tuple_is_not_decided_false(tmp_path: Path) -> None:
    """`tuple[str, ...]` is read as a list of str, and a list never equals a tuple, so
    `allowed == ("a", "b")` was False: direct() and go() were `never_enabled` (stuck from the
    start), though both run. Now the comparison is untranslated (may-answers)."""
    source = textwrap.dedent('''\
        class C:
            def __init__(self) -> None:
                self.mode = "a"

            def _check(self, allowed: tuple[str, ...]) -> None:
                if allowed == ("a", "b"):
                    return
                raise ValueError("no")

            def go(self) -> None:
                self._check(("a", "b"))
                self.mode = "b"

            def direct(self, allowed: tuple[str, ...]) -> None:
                if allowed != ("x",):
                    raise ValueError("only x")
                self.mode = "x"
        ''')
    src = tmp_path / "modes.py"
    src.write_text(source)
    ts = infer(f"{src}:C", InferOptions(backend="z3"))
    assert not [f for f in ts.findings if f.kind == "never_enabled"], ts.findings
    (initial,) = ts.initial
    assert {"direct", "go"} <= set(ts.state(initial).enabled)
    namespace: dict = {}
    exec(compile(source, str(src), "exec"), namespace)
    obj = namespace["C"]()
    obj.go()
    obj.direct(("x",))
    assert obj.mode == "x"


MODE = textwrap.dedent('''\
    import enum


    class Mode(enum.IntEnum):
        OFF = 0
        ON = 1

    ''')


def test_an_int_enum_compared_with_its_value_is_not_decided_false(tmp_path: Path) -> None:
    """IntEnum (StrEnum, IntFlag, `class M(int, Enum)`) members equal their values, and
    equal() answered False for any enum against an int: check_on() was `never_enabled`
    though it runs after turn_on(). Now that comparison is untranslated (may-answers); a
    plain Enum member against an int is still False (check_plain always enabled)."""
    source = MODE + textwrap.dedent('''\

        class Plain(enum.Enum):
            A = 1
            B = 2


        class Switch:
            def __init__(self) -> None:
                self.mode = Mode.OFF
                self.plain = Plain.A

            def turn_on(self) -> None:
                self.mode = Mode.ON

            def check_on(self) -> None:
                if self.mode != 1:
                    raise ValueError("off")

            def check_plain(self) -> None:
                if self.plain == 1:
                    raise ValueError("never: a plain Enum member is not its value")
        ''')
    src = tmp_path / "switch.py"
    src.write_text(source)
    ts = infer(f"{src}:Switch", InferOptions(backend="z3"))
    assert not [f for f in ts.findings if f.kind == "never_enabled"], ts.findings
    assert [(u.method, u.construct) for u in ts.unknowns] == [
        ("check_on", "comparison of Mode (an enum whose members act as their values) and int")]
    assert "check_plain" in ts.always_enabled
    switch_cls = _load(src, "Switch")
    obj = switch_cls()
    obj.check_plain()
    obj.turn_on()
    obj.check_on()


def test_a_set_lookup_of_a_value_python_finds_by_value_is_not_decided_false(tmp_path: Path) -> None:
    """`Mode.ON in self.seen` (an IntEnum in a set[int]) and `1 in self.flags` (an int in a
    set[bool]) find their item in Python (1 == True, Mode.ON == 1), but coerce() refuses
    those types and contains() answered "another type: never equal": need() and
    need_flag() were `never_enabled`, though both run after add_on(). Now untranslated."""
    source = textwrap.dedent('''\
        import enum


        class Mode(enum.IntEnum):
            OFF = 0
            ON = 1


        class Bag:
            def __init__(self) -> None:
                self.seen: set[int] = set()
                self.flags: set[bool] = set()
                self.names: set[str] = set()

            def add_on(self) -> None:
                self.seen.add(1)
                self.flags.add(True)

            def need(self) -> None:
                if Mode.ON not in self.seen:
                    raise ValueError("no ON")

            def need_flag(self) -> None:
                if 1 not in self.flags:
                    raise ValueError("no flag")

            def never(self) -> None:
                if 1 not in self.names:
                    raise ValueError("an int is never a str")
        ''')
    src = tmp_path / "bag.py"
    src.write_text(source)
    ts = infer(f"{src}:Bag", InferOptions(backend="z3"))
    assert {(f.kind, f.method) for f in ts.findings if f.kind == "never_enabled"} == {("never_enabled", "never")}
    assert {u.method for u in ts.unknowns} == {"need", "need_flag"}
    bag_cls = _load(src, "Bag")
    obj = bag_cls()
    obj.add_on()
    obj.need()
    obj.need_flag()


def test_the_truth_of_an_enum_member_that_acts_as_its_value_is_not_decided_true(tmp_path: Path) -> None:
    """IntEnum's OFF = 0 and Flag's NONE = 0 are false in Python; every enum member was
    true, so `if self.mode: raise` made only_off() `never_enabled`, though it runs on a new
    object. Now their truth is untranslated; a plain Enum member is still true."""
    source = MODE + textwrap.dedent('''\

        class Perm(enum.Flag):
            NONE = 0
            READ = 1


        class Color(enum.Enum):
            RED = 0


        class Switch:
            def __init__(self) -> None:
                self.mode = Mode.OFF
                self.perm = Perm.NONE
                self.color = Color.RED

            def turn_on(self) -> None:
                self.mode = Mode.ON
                self.perm = Perm.READ

            def only_off(self) -> None:
                if self.mode:
                    raise ValueError("on")

            def no_perm(self) -> None:
                if self.perm:
                    raise ValueError("granted")

            def never(self) -> None:
                if self.color:
                    raise ValueError("a plain Enum member is true")
        ''')
    src = tmp_path / "switch.py"
    src.write_text(source)
    ts = infer(f"{src}:Switch", InferOptions(backend="z3"))
    assert {f.method for f in ts.findings if f.kind == "never_enabled"} == {"never"}
    assert {u.method for u in ts.unknowns} == {"only_off", "no_perm"}
    switch_cls = _load(src, "Switch")
    obj = switch_cls()
    obj.only_off()
    obj.no_perm()


def test_the_truth_of_an_object_of_a_class_with_len_is_not_decided_true(tmp_path: Path) -> None:
    """An object of the analysed class was always true, but a class defining __len__ (or
    __bool__) is false when empty: `other = Stack(); if other: raise` made copy_empty()
    `never_enabled` though it runs, and `if not self: raise` hid pop's guard. Now such
    truth values are untranslated (may-answers)."""
    source = textwrap.dedent('''\
        class Stack:
            def __init__(self) -> None:
                self.n = 0

            def __len__(self) -> int:
                return self.n

            def push(self) -> None:
                self.n += 1

            def pop(self) -> None:
                if not self:
                    raise IndexError("empty")
                self.n -= 1

            def copy_empty(self) -> None:
                other = Stack()
                if other:
                    raise ValueError("a new stack is empty")
        ''')
    src = tmp_path / "stack.py"
    src.write_text(source)
    ts = infer(f"{src}:Stack", InferOptions(backend="z3"))
    assert not [f for f in ts.findings if f.kind == "never_enabled"], ts.findings
    assert {(u.method, u.line) for u in ts.unknowns} == {("pop", 12), ("copy_empty", 18)}
    stack_cls = _load(src, "Stack")
    obj = stack_cls()
    obj.copy_empty()
    try:
        obj.pop()
    except IndexError:
        pass
    else:
        raise AssertionError("popped an empty stack")


def test_is_between_two_lists_asks_for_their_identity(tmp_path: Path) -> None:
    """`self.a is self.b` on two lists was read as equal contents: two fields set to `[]`
    made check() disabled from the start (invariant `self.a == self.b`), though it runs:
    they are two objects. Identity of lists, sets and dicts is now untranslated."""
    source = textwrap.dedent('''\
        class Two:
            def __init__(self) -> None:
                self.a: list[int] = []
                self.b: list[int] = []

            def check(self) -> None:
                if self.a is self.b:
                    raise ValueError("shared")
        ''')
    src = tmp_path / "two.py"
    src.write_text(source)
    ts = infer(f"{src}:Two", InferOptions(backend="z3"))
    (initial,) = ts.initial
    assert "check" in ts.state(initial).enabled
    assert [(u.method, u.line) for u in ts.unknowns] == [("check", 7)]
    namespace: dict = {}
    exec(compile(source, str(src), "exec"), namespace)
    namespace["Two"]().check()


# a base's constructor refusing abstract classes (read from a class-level value), and a leaf
GUARDED_BODY = textwrap.indent(textwrap.dedent('''\
    def __init__(self) -> None:
        if self.abstract:
            raise TypeError("abstract")
        self.done = False

    def finish(self) -> None:
        if self.done:
            raise ValueError("finished")
        self.done = True
    '''), "    ")
LEAF = "\n\nclass Leaf(Base):\n    pass\n"


def test_class_level_values_a_metaclass_may_change_are_not_read_from_the_source(tmp_path: Path) -> None:
    """jinja2's NodeType metaclass sets `abstract = False` on each Node subclass that does not
    say otherwise, and Node.__init__ raises `if self.abstract`: read from the source
    (`abstract = True` in Node), every subclass's constructor always raised, an
    `unsatisfiable_constructor` error and no state (shown once a tuple argument coerced to
    `tuple[str, ...]` let the constructor translate). Under a metaclass other than type,
    ABCMeta or icontract's, class-level values are now outside code's."""
    source = textwrap.dedent('''\
        class Meta(type):
            def __new__(mcs, name, bases, ns):
                ns.setdefault("abstract", False)
                return super().__new__(mcs, name, bases, ns)


        class Base(metaclass=Meta):
            abstract = True

        ''') + GUARDED_BODY + LEAF
    src = tmp_path / "meta.py"
    src.write_text(source)
    ts = infer(f"{src}:Leaf", InferOptions(backend="z3"))
    assert not [f for f in ts.findings if f.kind == "unsatisfiable_constructor"], ts.findings
    (initial,) = ts.initial
    assert ts.state(initial).enabled == ("finish",)
    leaf = _load(src, "Leaf")()
    leaf.finish()


def test_class_level_values_an_init_subclass_may_change_are_not_read_from_the_source(tmp_path: Path) -> None:
    """`__init_subclass__` may rebind a subclass's class attributes as a metaclass does
    (`cls.abstract = False`): read from the source, Leaf's constructor always raised (an
    `unsatisfiable_constructor` error, no state), though Leaf() runs."""
    source = textwrap.dedent('''\
        class Base:
            abstract = True

            def __init_subclass__(cls, **kw):
                super().__init_subclass__(**kw)
                cls.abstract = False

        ''') + GUARDED_BODY + LEAF
    src = tmp_path / "subclassed.py"
    src.write_text(source)
    ts = infer(f"{src}:Leaf", InferOptions(backend="z3"))
    assert not [f for f in ts.findings if f.kind == "unsatisfiable_constructor"], ts.findings
    assert any(s.enabled == ("finish",) for s in ts.states if s.initial)
    _load(src, "Leaf")().finish()


def test_a_variadic_tuple_compared_with_a_list_is_not_decided_by_its_items(tmp_path: Path) -> None:
    """`tuple[int, ...]` and `Sequence[int]` are read as lists of int, and `self.done == []`
    was decided by the items (true for an empty tuple), though `() == []` is False in
    Python: pop() was `never_enabled`, though it runs on every object. A list compared
    with a tuple literal stays decided (never equal); a tuple-typed value against a list,
    or a Sequence against anything read as a list, is untranslated (may-answers)."""
    source = textwrap.dedent('''\
        from typing import Sequence


        class C:
            def __init__(self, seq: Sequence[int]) -> None:
                self.done: tuple[int, ...] = ()
                self.seq = seq
                self.items: list[int] = []

            def pop(self) -> None:
                if self.done == []:
                    raise ValueError("never: a tuple is not a list")
                self.done = ()

            def check_seq(self) -> None:
                if self.seq == []:
                    raise ValueError("an empty list")

            def never(self) -> None:
                if self.items != ():
                    raise ValueError("always: a list is not a tuple")
        ''')
    src = tmp_path / "tuples.py"
    src.write_text(source)
    ts = infer(f"{src}:C", InferOptions(backend="z3"))
    never = {f.method for f in ts.findings if f.kind == "never_enabled"}
    assert never == {"never"}, ts.findings
    assert all("pop" in ts.state(s).enabled and "check_seq" in ts.state(s).enabled for s in ts.initial)
    C = _load(src, "C")
    for seq in ([], (), [1]):
        obj = C(seq)
        obj.pop()  # runs on every object
        with pytest.raises(ValueError):
            obj.never()
        if seq == []:
            with pytest.raises(ValueError):
                obj.check_seq()
        else:
            obj.check_seq()

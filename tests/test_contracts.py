"""Contract reading: each dialect, each normalisation rule, field typing, method kinds and
errors, as snippets (`read(source)` writes the snippet to a file and reads its last class)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from contractor.contracts import read_class
from contractor.errors import InputError
from contractor.model import BOOL, FLOAT, INT, NONE, OPAQUE, STR, TypeRef
from contractor.target import resolve

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


@pytest.fixture
def read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)

    def read(source: str, cls: str | None = None, **options):
        source = textwrap.dedent(source)
        (tmp_path / "snippet.py").write_text(source)
        name = cls or [n.name for n in ast.parse(source).body if isinstance(n, ast.ClassDef)][-1]
        return read_class(resolve(f"snippet.py:{name}", tmp_path), **options)

    return read


@pytest.fixture
def error(read):
    def error(source: str, **options) -> InputError:
        with pytest.raises(InputError) as info:
            read(source, **options)
        return info.value

    return error


def pre(model, method):
    return [ast.unparse(c.expr) for c in model.method(method).preconditions]


def post(model, method):
    return [ast.unparse(c.expr) for c in model.method(method).postconditions]


def inv(model):
    return [ast.unparse(c.expr) for c in model.invariants]


# ---- PEP 316 -------------------------------------------------------------------------

PEP316 = '''
class Door:
    """A door.

    inv: not self.danger or not self.closed
    inv:
        self.closed or not self.closed  # always
    """

    def __init__(self) -> None:
        self.closed = True
        self.danger = False

    def open(self, force: bool) -> int:
        """Open it.

        pre: self.closed
        pre:: implies(force, not self.danger)
        post[self]: __return__ == 1
        post:
            self.closed == __old__.self.closed and __old__.force == force
            # a comment line
        raises: ValueError, KeyError
        :raises OSError: never
        """
        self.closed = False
        return 1
'''


def test_pep316_clauses(read):
    m = read(PEP316)
    assert m.dialects == ("pep316",)
    assert inv(m) == ["not self.danger or not self.closed", "self.closed or not self.closed"]
    assert pre(m, "open") == ["self.closed", "not self.danger if force else True"]
    assert post(m, "open") == ["__return__ == 1",
                               "self.closed == __old__.self.closed and __old__.force == force"]
    assert m.method("open").raises == ("ValueError", "KeyError", "OSError")


def test_pep316_locations_and_text(read):
    m = read(PEP316)
    first = m.invariants[0]
    assert (first.location.path, first.location.line, first.location.col) == ("snippet.py", 5, 9)
    assert first.text == "not self.danger or not self.closed"
    assert (first.expr.lineno, first.expr.col_offset) == (5, 9)
    section = m.method("open").postconditions[1]
    assert section.location.line == 21 and section.location.col == 12
    assert all(getattr(n, "lineno", 21) == 21 for n in ast.walk(section.expr))
    assert [c.kind for c in m.method("open").postconditions] == ["post", "post"]
    assert m.invariants[0].kind == "inv" and m.invariants[0].dialect == "pep316"


def test_pep316_one_line_docstring(read):
    m = read('''
    class C:
        def __init__(self) -> None:
            self.x = 0
        def go(self) -> None:
            """pre: self.x > 0"""
            self.x -= 1
    ''')
    assert pre(m, "go") == ["self.x > 0"]


def test_pep316_docstrings_in_any_quotes(read):
    """A docstring is a docstring whatever its quotes (CrossHair reads its value): one in
    single quotes was skipped, and with it the precondition, silently."""
    m = read('''
    class C:
        'inv: self.x >= 0'

        def __init__(self) -> None:
            self.x = 0
        def go(self) -> None:
            "pre: self.x > 0"
            self.x -= 1
        def name(self) -> None:
            u"pre: self.x == 1 and 'a' != 'b'"
        def other(self) -> None:
            \'\'\'
            pre: self.x < 5
            post: self.x == __old__.self.x  # a "quoted" comment
            \'\'\'
    ''')
    assert inv(m) == ["self.x >= 0"]
    assert pre(m, "go") == ["self.x > 0"]
    assert pre(m, "name") == ["self.x == 1 and 'a' != 'b'"]
    assert pre(m, "other") == ["self.x < 5"]
    assert post(m, "other") == ["self.x == __old__.self.x"]
    assert m.invariants[0].location.col == 10


def test_pep316_syntax_error(error):
    e = error('''
    class C:
        def go(self) -> None:
            """
            pre: self.x >
            """
    ''')
    assert e.location.path == "snippet.py" and e.location.line == 5
    assert e.construct == "self.x >"
    assert "does not parse" in str(e)


def test_pep316_brackets_on_pre(error):
    e = error('''
    class C:
        def go(self) -> None:
            """
            pre[self]: True
            """
    ''')
    assert e.location.line == 5 and "brackets" in str(e)


# ---- icontract -----------------------------------------------------------------------

def test_icontract_forms_and_normalisation(read):
    m = read('''
    import icontract
    import icontract as ic
    from icontract import require as r, ensure, snapshot

    @icontract.invariant(lambda self: self.n >= 0, "never negative")
    class C:
        def __init__(self) -> None:
            self.n = 0
            self.items: list[int] = []

        @r(lambda self, k: k > 0)
        @ic.require(lambda k, self: k < 10, description="small")
        @snapshot(lambda self: self.items[:], name="items")
        @snapshot(lambda k: k)
        @ensure(lambda self, k, result, OLD: result == len(OLD.items) + OLD.k)
        def add(self, k: int) -> int:
            self.items.append(k)
            return len(self.items)
    ''')
    assert m.dialects == ("icontract",)
    assert inv(m) == ["self.n >= 0"] and m.invariants[0].description == "never negative"
    assert pre(m, "add") == ["k > 0", "k < 10"]
    assert [c.description for c in m.method("add").preconditions] == [None, "small"]
    assert post(m, "add") == ["__return__ == len(__old__.self.items[:]) + __old__.k"]
    assert m.method("add").postconditions[0].text == "result == len(OLD.items) + OLD.k"
    assert m.method("add").decorators == ("r", "ic.require", "snapshot", "snapshot", "ensure")


def test_icontract_keeps_lines_and_copies(read):
    m = read('''
    import icontract

    class C:
        @icontract.require(
            lambda self: self.ok)
        def go(self) -> None:
            pass
    ''')
    cond = m.method("go").preconditions[0]
    assert cond.location.line == 6 and cond.expr.lineno == 6
    lam = m.method("go").node.decorator_list[0].args[0]
    assert cond.expr is not lam.body


def test_icontract_disabled_contract_is_skipped(read):
    m = read('''
    import icontract

    class C:
        @icontract.require(lambda self: False, enabled=False)
        def go(self) -> None:
            pass
    ''')
    assert pre(m, "go") == [] and m.dialects == ("icontract",)


def test_icontract_non_lambda(error):
    e = error('''
    import icontract

    def positive(self):
        return True

    class C:
        @icontract.require(positive)
        def go(self) -> None:
            pass
    ''')
    assert e.location.line == 8 and "needs a lambda" in str(e) and "`positive`" in str(e)


def test_icontract_unknown_argument(error):
    e = error('''
    import icontract

    class C:
        @icontract.require(lambda self, amount: amount > 0)
        def go(self, x: int) -> None:
            pass
    ''')
    assert e.location.line == 5 and "'amount'" in str(e)


def test_icontract_old_without_snapshot(error):
    e = error('''
    import icontract

    class C:
        @icontract.ensure(lambda self, OLD: self.n > OLD.n)
        def go(self) -> None:
            pass
    ''')
    assert e.location.line == 5 and "OLD.n has no @snapshot" in str(e)


# ---- deal ----------------------------------------------------------------------------

def test_deal_positional_binding_and_forms(read):
    m = read('''
    import deal

    @deal.inv(lambda obj: obj.balance >= 0, message="not negative")
    class Account:
        def __init__(self) -> None:
            self.balance = 0

        @deal.pre(lambda acc, a: a > 0 and all(a > 0 for a in [acc.balance]))
        @deal.pre(lambda _: _.amount < 100 and _.self.balance < 1000)
        @deal.post(lambda r: r >= 0)
        @deal.ensure(lambda s, a, result: result == s.balance + a)
        @deal.raises(ValueError, KeyError)
        @deal.safe
        def deposit(self, amount: int) -> int:
            self.balance += amount
            return self.balance
    ''')
    assert m.dialects == ("deal",)
    assert inv(m) == ["self.balance >= 0"] and m.invariants[0].description == "not negative"
    assert pre(m, "deposit") == ["amount > 0 and all((a > 0 for a in [self.balance]))",
                                 "amount < 100 and self.balance < 1000"]
    assert post(m, "deposit") == ["__return__ >= 0", "__return__ == self.balance + amount"]
    assert m.method("deposit").raises == ("ValueError", "KeyError")
    assert "deal.safe" in m.method("deposit").decorators
    assert m.method("deposit").preconditions[0].text == "a > 0 and all(a > 0 for a in [acc.balance])"


def test_deal_short_form_invariant(read):
    m = read('''
    import deal

    @deal.inv(lambda _: _.n >= 0)
    class C:
        def __init__(self) -> None:
            self.n = 0
    ''')
    assert inv(m) == ["self.n >= 0"]


def test_deal_other_decorators_mark_the_dialect(read):
    m = read('''
    from deal import pure

    class C:
        @pure
        def get(self) -> int:
            return 1
    ''')
    assert m.dialects == ("deal",) and m.method("get").decorators == ("pure",)


def test_deal_too_many_arguments(error):
    e = error('''
    import deal

    class C:
        @deal.pre(lambda self, a, b: a > b)
        def go(self, a: int) -> None:
            pass
    ''')
    assert e.location.line == 5 and "takes 3 arguments" in str(e)


def test_deal_short_form_unknown_argument(error):
    e = error('''
    import deal

    class C:
        @deal.pre(lambda _: _.amount > 0)
        def go(self, a: int) -> None:
            pass
    ''')
    assert e.location.line == 5 and "_.amount" in str(e)


# ---- asserts -------------------------------------------------------------------------

def test_asserts_leading_only_and_kept_in_body(read):
    m = read('''
    class C:
        def __init__(self) -> None:
            self.n = 0

        def go(self, k: int) -> None:
            """Doc."""
            assert k > 0, "positive"
            assert self.n < 3
            self.n += 1
            assert self.n > 0
    ''')
    assert m.dialects == ("asserts",)
    assert pre(m, "go") == ["k > 0", "self.n < 3"]
    assert [c.description for c in m.method("go").preconditions] == ["positive", None]
    body = m.method("go").body
    assert [type(s).__name__ for s in body] == ["Assert", "Assert", "AugAssign", "Assert"]
    assert m.method("go").preconditions[0].location.line == 8


def test_dialects_in_order(read):
    m = read('''
    import deal
    import icontract

    @deal.inv(lambda s: s.n >= 0)
    class C:
        """inv: self.n < 10"""
        def __init__(self) -> None:
            self.n = 0

        @icontract.require(lambda self: self.n < 5)
        def go(self) -> None:
            assert self.n < 4
            self.n += 1
    ''')
    assert m.dialects == ("pep316", "icontract", "deal", "asserts")
    assert inv(m) == ["self.n < 10", "self.n >= 0"]
    assert pre(m, "go") == ["self.n < 5", "self.n < 4"]


# ---- fields and types ----------------------------------------------------------------

FIELDS = '''
from dataclasses import dataclass
from enum import Enum, auto
from typing import ClassVar, Dict, List, Optional, Set, Tuple, Union


class Color(Enum):
    RED = auto()
    GREEN = auto()


class Node:
    pass


class C:
    limit: ClassVar[int] = 3
    a: int
    b: "Optional[int]" = None
    c: int | None = None
    d: Union[str, None] = None
    e: List[int]
    f: tuple[int, bool]
    g: Dict[str, int]
    h: Set[float]
    i: Color
    j: Node
    k: "C"
    l: object
    m: tuple[int, ...]
    n: list

    def __init__(self, p: float, q, mode: Color) -> None:
        self.t: str = "x"
        self.u = p
        self.v = True
        self.w = 3
        self.x = 2.5
        self.y = -1
        self.z = Color.RED
        self.z2 = mode
        self.s = "s"
        self.k2 = 0
        self.k2 = 1.5
'''


def test_field_types(read):
    m = read(FIELDS)
    types = {name: f.type for name, f in m.fields.items()}
    color = TypeRef("enum", name="Color", members=("RED", "GREEN"))
    assert "limit" not in types
    assert types == {
        "a": INT, "b": TypeRef("optional", (INT,)), "c": TypeRef("optional", (INT,)),
        "d": TypeRef("optional", (STR,)), "e": TypeRef("list", (INT,)), "f": TypeRef("tuple", (INT, BOOL)),
        "g": TypeRef("dict", (STR, INT)), "h": TypeRef("set", (FLOAT,)), "i": color,
        "j": TypeRef("class", name="Node"), "k": TypeRef("class", name="C"), "l": TypeRef("any"),
        "m": TypeRef("list", (INT,)), "n": TypeRef("list", (TypeRef("any"),)),
        "t": STR, "u": FLOAT, "v": BOOL, "w": INT, "x": FLOAT, "y": INT, "z": color, "z2": color,
        "s": STR, "k2": FLOAT,
    }
    assert m.enums == {"Color": color}
    assert list(m.fields)[:3] == ["a", "b", "c"]
    assert m.fields["t"].location.line == 34 and m.fields["a"].location.line == 18


def test_param_types(read):
    m = read(FIELDS)
    params = m.method("__init__").params
    assert [(p.name, p.type) for p in params] == [
        ("p", FLOAT), ("q", OPAQUE), ("mode", TypeRef("enum", name="Color", members=("RED", "GREEN")))]


@pytest.mark.parametrize("value", ["[]", "None", "{}", "q", "self.other()", "compute()"])
def test_untypable_field_is_opaque_not_refused(read, value):
    """Untyped code is never refused: what cannot be typed is an opaque value."""
    m = read(f'''
    class C:
        def __init__(self, q) -> None:
            self.items = {value}
    ''')
    assert m.fields["items"].type == OPAQUE
    assert m.method("__init__").params[0].type == OPAQUE  # an untyped parameter


def test_conflicting_field_types_make_an_opaque_field(read):
    m = read('''
    class C:
        def __init__(self) -> None:
            self.x = 1
        def go(self) -> None:
            self.x = "one"
    ''')
    assert m.fields["x"].type == OPAQUE


@pytest.mark.parametrize("assigned, expected", [
    (["0", "None"], "Optional[int]"), (["None", "'a'"], "Optional[str]"), (["1", "2.5"], "float"),
    (["True", "0"], "int"), (["LIMIT", "0"], "int"), (["self.STEP"], "int"), (["k"], "int"),
    (["None"], "opaque"), (["0", "k2"], "opaque"),
    (["xs or []"], "list[int]"), (["k2 or []"], "opaque"), (["k2 or 0"], "opaque"),
    (["xs if k else []"], "opaque"), (["k if k2 else 'a'"], "opaque"), (["None if k2 else k"], "Optional[int]"),
])
def test_field_type_from_every_assignment(read, assigned, expected):
    """Literals, module and class constants, parameters with a literal default; None
    plus one other type is Optional; anything untyped makes the field opaque."""
    lines = "\n".join(f"            self.x = {v}" for v in assigned)
    m = read(f'''
    from typing import Optional
    LIMIT = 3
    class C:
        STEP = 1
        def __init__(self, k=5, k2=None, xs: Optional[list[int]] = None) -> None:
{lines}
    ''')
    assert str(m.fields["x"].type) == expected


def test_type_comment_types_a_field(read):
    m = read('''
    class C:
        def __init__(self, q) -> None:
            self.x = q  # type: int
            self.y = None  # type: Optional[str]
    ''')
    assert (str(m.fields["x"].type), str(m.fields["y"].type)) == ("int", "Optional[str]")


def test_only_self_assignments_make_fields(read):
    m = read('''
    class C:
        counter = 0
        other = 1

        def __init__(self) -> None:
            local = 5
            self.flag = local > 3
            self.done = not self.flag

        def go(self) -> None:
            self.counter += 1
    ''')
    assert list(m.fields) == ["flag", "done", "counter"]
    assert (m.fields["counter"].type, m.fields["flag"].type, m.fields["done"].type) == (INT, BOOL, BOOL)
    assert m.fields["counter"].location.line == 3


def test_none_type(read):
    m = read('''
    class C:
        x: None
    ''')
    assert m.fields["x"].type == NONE


# ---- methods and constructors --------------------------------------------------------

def test_method_kinds_and_constructors(read):
    m = read('''
    from typing import Self

    class C:
        def __init__(self, n: int = 0, *, flag: bool = False) -> None:
            self.n = n

        @classmethod
        def make(cls) -> "C":
            return cls()

        @classmethod
        def build(cls, n: int):
            return cls(n)

        @classmethod
        def zero(cls) -> Self:
            obj = C()
            return obj

        @classmethod
        def describe(cls) -> str:
            return "C"

        @staticmethod
        def util(x: int) -> int:
            return x

        @property
        def double(self) -> int:
            return 2 * self.n

        @double.setter
        def double(self, v: int) -> None:
            self.n = v // 2

        def _helper(self) -> None:
            pass

        def step(self) -> None:
            """Doc."""
            self.n += 1
    ''')
    kinds = {name: meth.kind for name, meth in m.methods.items()}
    assert kinds == {"__init__": "constructor", "make": "factory", "build": "factory", "zero": "factory",
                     "describe": "helper", "util": "helper", "double": "property", "_helper": "helper",
                     "step": "action"}
    assert m.constructors == ("__init__", "build", "make", "zero")
    assert m.actions == ("step",)
    init = m.method("__init__")
    assert [(p.name, p.type, ast.unparse(p.default)) for p in init.params] == [("n", INT, "0"), ("flag", BOOL, "False")]
    assert [p.name for p in m.method("util").params] == ["x"]
    assert m.method("double").returns == INT and m.method("double").node.lineno == 30
    assert [type(s).__name__ for s in m.method("step").body] == ["AugAssign"]


def test_dataclass_init_is_synthesised(read):
    m = read('''
    from dataclasses import dataclass, field

    @dataclass
    class Point:
        x: int
        y: int = 0
        seen: bool = field(default=False)
        hidden: int = field(default=7, init=False)

        def move(self) -> None:
            self.x += 1
    ''')
    init = m.method("__init__")
    assert init.kind == "constructor" and m.constructors == ("__init__",)
    assert [(p.name, p.type, p.default and ast.unparse(p.default)) for p in init.params] == [
        ("x", INT, None), ("y", INT, "0"), ("seen", BOOL, "False")]
    assert [ast.unparse(s) for s in init.body] == ["self.x = x", "self.y = y", "self.seen = seen", "self.hidden = 7"]
    assert compile(ast.Module([init.node], []), "s", "exec")
    assert init.location.line == 4 or init.location.line == 5


def test_plain_class_without_init_assigns_defaults(read):
    m = read('''
    class Light:
        on: bool = False
        level: int = 3
        note: str

        def toggle(self) -> None:
            self.on = not self.on
    ''')
    init = m.method("__init__")
    assert init.params == ()
    assert [ast.unparse(s) for s in init.body] == ["self.on = False", "self.level = 3"]
    assert all(hasattr(n, "lineno") for n in ast.walk(init.node) if "lineno" in n._attributes)


def test_methods_option_selects_and_excludes(read):
    src = '''
    class C:
        def __init__(self) -> None:
            self.n = 0
        def a(self) -> None: pass
        def b(self) -> None: pass
        def _c(self) -> None: pass
    '''
    assert read(src).actions == ("a", "b")
    assert read(src, methods=["b", "_c"]).actions == ("_c", "b")
    assert read(src, exclude=["a"]).actions == ("b",)


@pytest.mark.parametrize("options, expected", [
    ({"methods": ["aa"]}, "did you mean a"),
    ({"exclude": ["bb"]}, "did you mean b"),
    ({"methods": ["__init__"]}, "is a constructor"),
])
def test_methods_option_errors(error, options, expected):
    e = error('''
    class C:
        def __init__(self) -> None:
            self.n = 0
        def a(self) -> None: pass
        def b(self) -> None: pass
    ''', **options)
    assert expected in str(e) and e.location.path == "snippet.py"


# ---- samples -------------------------------------------------------------------------

@pytest.mark.parametrize("target, dialects, actions, fields", [
    ("door.py:Door", ("pep316",), ("alarm", "close", "open", "safe", "start", "stop"),
     {"closed": BOOL, "moving": BOOL, "danger": BOOL}),
    ("stack.py:BoundedStack", ("icontract",), ("clear", "peek", "pop", "push"), {"capacity": INT, "size": INT}),
    ("account.py:Account", ("deal",), ("available", "close", "deposit", "freeze", "unfreeze", "withdraw"),
     {"balance": INT, "frozen": BOOL, "closed": BOOL}),
    ("turnstile.py:Turnstile", ("asserts",), ("coin", "push", "resume", "service"),
     {"mode": TypeRef("enum", name="Mode", members=("LOCKED", "UNLOCKED", "MAINTENANCE")), "credit": INT}),
    ("loop_counter.py:Countdown", ("pep316",), ("reload", "tick", "tick_all"), {"n": INT}),
    ("int_queue.py:IntQueue", ("pep316",), ("contains", "dequeue", "enqueue", "rotate"),
     {"items": TypeRef("list", (INT,))}),
])
def test_samples_read(target, dialects, actions, fields):
    m = read_class(resolve(str(SAMPLES / target), SAMPLES))
    assert (m.dialects, m.actions, {k: f.type for k, f in m.fields.items()}) == (dialects, actions, fields)
    assert all(m.method(a).preconditions or m.method(a).postconditions for a in m.actions)


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.py")))
def test_every_sample_class_reads(sample):
    """Every top-level class of every sample (Enums and exceptions excepted) reads without
    error, with contracts or (without any) raise guards."""
    module = ast.parse((SAMPLES / sample).read_text())
    enums = {n.name for n in module.body if isinstance(n, ast.ClassDef)
             and any(ast.unparse(b).endswith(("Enum", "Exception", "Error")) for b in n.bases)}
    classes = [n.name for n in module.body if isinstance(n, ast.ClassDef) and n.name not in enums]
    assert classes, f"{sample} defines no class"
    for name in classes:
        model = read_class(resolve(f"{SAMPLES / sample}:{name}", SAMPLES))
        assert model.actions and (model.dialects or model.preconditions.guards)


def test_tuple_assignment_types_each_field(read, error):
    m = read('''
    class C:
        def __init__(self, k: int) -> None:
            self.a, self.b = k, "s"
    ''')
    assert (m.fields["a"].type, m.fields["b"].type) == (INT, STR)
    m = read('''
    class C:
        def __init__(self) -> None:
            self.a, self.b = divmod(7, 2)
    ''')
    assert m.fields["a"].type == m.fields["b"].type == OPAQUE


@pytest.mark.parametrize("decorators, expected", [
    ('@icontract.snapshot(lambda self, k: k)\n        @icontract.ensure(lambda OLD: OLD.k)', "needs name="),
    ('@icontract.ensure(lambda self, OLD: OLD is None)', "OLD can only be used as OLD.<snapshot name>"),
])
def test_icontract_snapshot_errors(error, decorators, expected):
    e = error(f'''
    import icontract

    class C:
        {decorators}
        def go(self, k: int) -> None:
            pass
    ''')
    assert e.location.path == "snippet.py" and e.location.line == 5 and expected in str(e)


def test_icontract_snapshot_default_name_is_its_argument(read):
    m = read('''
    import icontract

    class C:
        @icontract.snapshot(lambda lst: lst[:])
        @icontract.ensure(lambda lst, OLD: len(lst) == len(OLD.lst) + 1)
        def add(self, lst: list[int]) -> None:
            lst.append(1)
    ''')
    assert post(m, "add") == ["len(lst) == len(__old__.lst[:]) + 1"]

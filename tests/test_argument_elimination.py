"""The executable form of "some arguments satisfy the precondition" (parameters eliminated,
`contractor.argument_elimination`), checked against a brute-force search over arguments on
concrete objects: where a form is given it must agree with the search on every object."""

from __future__ import annotations

import enum
import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from contractor import api
from contractor.state_invariants import precondition_invariant


class Mode(enum.Enum):
    A = 1
    B = 2


MODULE = '''\
import enum

FORMATS = ("mp3", "ogg")


class Mode(enum.Enum):
    A = 1
    B = 2


class K:
    def __init__(self) -> None:
        self.count: int = 0
        self.limit: int = 0
        self.buf: str = ""
        self.items: list[int] = []
        self.d: dict[int, int] = {{}}
        self.closed: bool = False

    def m(self, {params}) -> None:
        """pre: {pre}"""
'''

INTS = list(range(-12, 13))
STRS = ["".join(p) for n in range(5) for p in itertools.product("ab", repeat=n)] + ["mp3", "ogg"]
DOMAINS = {"int": INTS, "str": STRS, "bool": [False, True], "float": [i / 2 for i in range(-24, 25)],
           "Mode": list(Mode)}

# (parameters, precondition, whether an exact form exists)
CASES = [
    ("n: int", "0 < n <= self.count", True),
    ("n: int", "n > 0 and self.count < len(self.buf)", True),
    ("off: int", "not self.closed and 0 <= off <= len(self.buf)", True),
    ("t: str", "len(t) > 0 and not self.closed", True),
    ("t: str", "len(t) <= self.count", True),
    ("t: str", "self.count < len(t) < self.limit", True),
    ("k: int", "k in self.d", True),
    ("k: int", "k in self.d and k > self.count", True),
    ("k: int", "k not in self.d and len(self.d) < 3", True),
    ("x: int", "x in self.items or x < self.count", True),
    ("x: int", "self.count < x < self.limit", True),
    ("x: int", "self.count < x <= self.limit and x != 5", False),
    ("x: int", "x != self.count and x > 2", True),
    ("flag: bool", "flag and self.count > 0 or not flag and self.count < 0", True),
    ("x: int", "x == self.count + 1 and x < 3", True),
    ("a: int, b: int", "self.count <= a and a < b and b <= 3", True),
    ("v: float", "0.0 < v < self.count", True),
    ("v: float", "self.limit <= v <= self.count", True),
    ("fmt: str", "not self.closed and fmt in FORMATS", True),
    ("s: str", "s in self.buf", False),
    ("x: int", "x * x == self.count", False),
    ("x: int", "not (x < self.count)", True),
    ("m: Mode", "m == Mode.A and self.count > 0 or m == Mode.B and self.limit > 0", True),
]


def _model(tmp_path: Path, params: str, pre: str):
    path = tmp_path / "k.py"
    path.write_text(MODULE.format(params=params, pre=pre))
    return api.load_model(f"{path}:K", api.InferOptions(backend="z3"))


def _brute(obj, params: str, pre: str, scope: dict) -> bool:
    names = [p.split(":")[0].strip() for p in params.split(",")]
    kinds = [p.split(":")[1].strip() for p in params.split(",")]
    code = compile(pre, "<pre>", "eval")
    return any(eval(code, {**scope, "self": obj, **dict(zip(names, values))})
               for values in itertools.product(*(DOMAINS[k] for k in kinds)))


class Obj:
    pass


objects = st.builds(
    dict, count=st.integers(-4, 4), limit=st.integers(-4, 4), buf=st.text("ab", max_size=3),
    items=st.lists(st.integers(-3, 3), max_size=4),
    d=st.dictionaries(st.integers(-3, 3), st.integers(0, 1), max_size=4),
    closed=st.booleans())


@pytest.mark.parametrize("params, pre, exact", CASES)
def test_the_executable_form_agrees_with_a_search_over_arguments(tmp_path, params, pre, exact):
    model = _model(tmp_path, params, pre)
    on, off = precondition_invariant(model, {"m"}), precondition_invariant(model, set())
    assert (on.python is not None) is exact, on
    assert (off.python is not None) is exact
    if not exact:
        return
    scope = {"FORMATS": ("mp3", "ogg"), "Mode": Mode}

    @settings(max_examples=examples(60), deadline=None, database=None)
    @given(objects)
    def check(fields):
        obj = Obj()
        vars(obj).update(fields)
        expected = _brute(obj, params, pre, scope)
        assert eval(on.python, {**scope, "self": obj}) is expected, (on.python, fields)
        assert eval(off.python, {**scope, "self": obj}) is (not expected), (off.python, fields)

    check()

"""Postconditions about list, dict and set arguments (z3backend/paramwrites.py).

A postcondition reads the argument objects after the call. The translation treats
containers as values, so a postcondition naming an argument the method may change in
place is an honest unknown (it was a wrong `breaks_postcondition`: `lst.append(value)`
with `ensure lst == OLD.lst + [value]` reported broken); one about an argument the
method only reads stays exact. Each verdict is compared with icontract running the class.
"""

from __future__ import annotations

import ast
from pathlib import Path

import icontract
import pytest
from runtime_contracts import load_class

from contractor.api import InferOptions, infer
from contractor.z3backend.paramwrites import changed_arguments

SOURCE = '''
from typing import List

import icontract


class Filler:
    @icontract.snapshot(lambda lst: lst[:])
    @icontract.ensure(lambda OLD, lst, value: lst == OLD.lst + [value])
    def fill(self, lst: List[int], value: int) -> None:
        lst.append(value)


class Sizer:
    @icontract.ensure(lambda lst, result: result == len(lst))
    def size(self, lst: List[int]) -> int:
        return len(lst)


class BadSizer:
    @icontract.ensure(lambda lst, result: result == len(lst))
    def size(self, lst: List[int]) -> int:
        if lst and lst[0] > 2:
            return len(lst) + 1
        return len(lst)
'''

SAMPLES = [[], [0], [3], [1, 5], [4, 4, 4]]


@pytest.fixture(scope="module")
def path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("params") / "params.py"
    p.write_text(SOURCE)
    return p


def _violates(obj: object, method: str, *args: object) -> bool:
    try:
        getattr(obj, method)(*args)
    except icontract.ViolationError:
        return True
    return False


def test_a_postcondition_about_a_changed_argument_is_unknown_not_broken(path: Path) -> None:
    ts = infer(f"{path}:Filler", InferOptions(backend="z3"))
    assert not [f for f in ts.findings if f.kind.value == "breaks_postcondition"]
    assert any(u.method == "fill" and "`lst`" in u.construct for u in ts.unknowns)
    obj = load_class(path, "Filler")()
    assert not any(_violates(obj, "fill", list(lst), 7) for lst in SAMPLES)  # icontract agrees: it holds


@pytest.mark.parametrize("name", ["Sizer", "BadSizer"])
def test_a_postcondition_about_a_read_argument_stays_exact(path: Path, name: str) -> None:
    ts = infer(f"{path}:{name}", InferOptions(backend="z3"))
    assert not ts.unknowns
    broken = [f for f in ts.findings if f.kind.value == "breaks_postcondition"]
    obj = load_class(path, name)()
    concrete = [lst for lst in SAMPLES if _violates(obj, "size", list(lst))]
    assert bool(broken) == bool(concrete)
    if broken:
        assert broken[0].counterexample is not None
        assert _violates(obj, "size", list(broken[0].counterexample["args"]["lst"]))


@pytest.mark.parametrize(("body", "changed"), [
    ("lst.append(1)", True),
    ("self._fill(lst)", True),
    ("lst[0] = 1", True),
    ("del lst[0]", True),
    ("lst += [1]", True),
    ("alias = lst", True),
    ("lst = []", True),
    ("x = lst[0]", False),
    ("n = len(lst) + lst.count(1)", False),
    ("for x in lst:\n    pass", False),
    ("y = [x for x in lst if x in lst]", False),
    ("ok = lst == [] or not lst", False),
])
def test_which_uses_may_change_an_argument(body: str, changed: bool) -> None:
    assert changed_arguments(ast.parse(body).body, {"lst"}) == ({"lst"} if changed else set())

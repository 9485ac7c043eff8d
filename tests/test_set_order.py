"""A for loop over a set iterates in CPython's hash order, not the order items were added:
the z3 backend lets the order be any permutation and answers may where two or more items
are iterated (a loop whose result depends on the order must not give a wrong must, nor
miss what the real order does). Compared with the brute force (the real class run)."""

from __future__ import annotations

import textwrap

from bruteforce import brute_force_typestate
from runtime_contracts import load_class
from typestate_check import check

from contractor.api import InferOptions, infer

# {2, 1} is built 2 first, but CPython iterates small ints by value: `first` becomes 1.
ORDER_DEPENDENT = '''
class C:
    """
    inv: 0 <= self.first <= 2
    """

    def __init__(self) -> None:
        self.first = 0

    def pick(self) -> None:
        """pre: self.first == 0"""
        s: set[int] = set()
        s.add(2)
        s.add(1)
        for x in s:
            self.first = x
            break

    def high(self) -> None:
        """pre: self.first == 2"""
        self.first = 0

    def low(self) -> None:
        """pre: self.first == 1"""
        self.first = 0
'''

# one item: the same transitions as the real class (may: a method iterating a set has its
# answers may as a whole, like one using any other value outside code chooses)
SINGLE = '''
class C:
    """
    inv: 0 <= self.n <= 3 and self.s == {3}
    """

    def __init__(self) -> None:
        self.n = 0
        self.s: set[int] = {3}

    def count(self) -> None:
        """pre: self.n == 0"""
        for x in self.s:
            self.n = x

    def reset(self) -> None:
        """pre: self.n == 3"""
        self.n = 0
'''


def _infer(source: str, tmp_path):
    path = tmp_path / "c.py"
    path.write_text(textwrap.dedent(source).lstrip())
    return path, infer(f"{path}:C", InferOptions(backend="z3"))


def test_a_set_loop_whose_result_depends_on_the_order_is_may_and_misses_nothing(tmp_path) -> None:
    path, ts = _infer(ORDER_DEPENDENT, tmp_path)
    cls = load_class(path, "C")
    brute = brute_force_typestate(cls, {"first": [0, 1, 2]}, {})
    check(ts, brute, cls, {}, exact=False)  # nothing missing; the must ones replay
    picks = [t for t in ts.transitions if t.method == "pick"]
    assert picks and all(t.certainty == "may" for t in picks)
    assert all("order of a set" in (t.reason or "") for t in picks), picks


def test_a_loop_over_a_one_item_set_is_exact(tmp_path) -> None:
    path, ts = _infer(SINGLE, tmp_path)
    cls = load_class(path, "C")
    brute = brute_force_typestate(cls, {"n": [0, 1, 2, 3], "s": [{3}]}, {})
    check(ts, brute, cls, {}, exact=True)  # no extra state or transition
    assert {t.certainty for t in ts.transitions if t.method == "reset"} == {"must"}

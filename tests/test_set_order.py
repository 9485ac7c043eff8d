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


# any(), all(), sum() and min()/max() of ints, and a set built from the items do not depend
# on the order: over a set of two or more items they stay exact (all must), compared with
# the real class on every set of 0..3 items drawn from {0, 1, 2}.
ORDER_FREE = '''
class C:
    """
    inv: len(self.s) <= 3 and all(0 <= x <= 2 for x in self.s)
    inv: any(x > 0 for x in self.s) or len(self.s) < 2
    """

    def __init__(self) -> None:
        self.s: set[int] = {0, 1}
        self.t = 0

    def grow(self, k: int) -> None:
        """pre: 0 <= k <= 2 and len(self.s) < 3"""
        self.s.add(k)

    def drop(self, k: int) -> None:
        """pre: k in self.s"""
        self.s.discard(k)
        if len(self.s) >= 2 and not any(x > 0 for x in self.s):
            self.s.add(2)

    def total(self) -> None:
        """pre: sum(x for x in self.s) >= 3 and all(x != 1 for x in self.s)"""
        self.t = max(self.s) - min(self.s)
        self.s = {x for x in self.s if x != 2}

    def reset(self) -> None:
        """pre: self.t > 0"""
        self.t = 0
'''

SUBSETS = [set(c) for n in range(4) for c in __import__("itertools").combinations(range(3), n)]


def test_order_free_readers_of_a_set_stay_exact(tmp_path) -> None:
    path, ts = _infer(ORDER_FREE, tmp_path)
    cls = load_class(path, "C")
    brute = brute_force_typestate(cls, {"s": SUBSETS, "t": [0, 1, 2]}, {"grow": {"k": [0, 1, 2]},
                                                                        "drop": {"k": [0, 1, 2]}})
    check(ts, brute, cls, {"grow": {"k": [0, 1, 2]}, "drop": {"k": [0, 1, 2]}}, exact=True)
    assert {t.certainty for t in ts.transitions} == {"must"}, [t for t in ts.transitions if t.certainty != "must"]
    assert not ts.unknowns


# the order does matter where reading an item has an effect: which item `_mark` records
# first depends on the order, so the answers stay may (the analysis cannot tell the
# effect is harmless here), and nothing is missed
ORDER_WITH_EFFECTS = '''
class C:
    """
    inv: 0 <= self.n <= 1 and self.s == {1, 2} and 0 <= self.last <= 2
    """

    def __init__(self) -> None:
        self.s: set[int] = {1, 2}
        self.n = 0
        self.last = 0

    def _mark(self, x: int) -> bool:
        self.last = x
        return x > 0

    def probe(self) -> None:
        """pre: self.n == 0"""
        if any(self._mark(x) for x in self.s):
            self.n = 1

    def reset(self) -> None:
        """pre: self.n == 1"""
        self.n = 0
'''


def test_a_set_reader_with_effects_keeps_every_order(tmp_path) -> None:
    path, ts = _infer(ORDER_WITH_EFFECTS, tmp_path)
    cls = load_class(path, "C")
    brute = brute_force_typestate(cls, {"s": [{1, 2}], "n": [0, 1], "last": [0, 1, 2]}, {})
    check(ts, brute, cls, {}, exact=False)
    probes = [t for t in ts.transitions if t.method == "probe"]
    assert probes and all(t.certainty == "may" for t in probes), probes
    assert all("order of a set" in (t.reason or "") for t in probes), probes

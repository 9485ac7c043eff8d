"""Semantic cases for collections built and consumed by expressions (issue 9): list, set
and dict comprehensions and generator expressions, sum/min/max/sorted, any/all read item
by item, and set algebra; each run against the brute force by tests/test_semantics.py."""

from __future__ import annotations

import itertools

from semantic_cases import BOOLS, Case

BITS3 = [list(t) for n in range(4) for t in itertools.product([0, 1], repeat=n)]
SUBSETS = [set(c) for n in range(4) for c in itertools.combinations([0, 1, 2], n)]
BITSETS = [set(c) for n in range(3) for c in itertools.combinations([0, 1], n)]
SMALL = [list(t) for n in range(3) for t in itertools.product([0, 1, 2], repeat=n)]
PAIRS = [dict(zip(ks, vs)) for n in range(3) for ks in itertools.combinations([0, 1, 2], n)
         for vs in itertools.product([0, 1], repeat=n)]

COLLECTION_CASES = [
    # list/set/dict comprehensions with filters, nested clauses, over lists, sets, dict
    # views and range; list() of a generator; all() over a list in the invariant and set
    # inclusion in the invariant
    Case("comprehensions_build_values", '''class C:
    """
    inv: len(self.xs) <= 3 and all(x in (0, 1) for x in self.xs)
    inv: self.s <= {0, 1, 2} and 0 <= self.n <= 3
    """

    def __init__(self) -> None:
        self.xs: list[int] = []
        self.s: set[int] = set()
        self.n = 0

    def keep(self) -> None:
        """pre: [x for x in self.xs if x == 1] != []"""
        self.xs = [1 - x for x in self.xs if x == 1 or len(self.xs) < 2]

    def collect(self) -> None:
        """pre: len(self.xs) >= 1"""
        self.s = {x + 1 for x in self.xs}

    def tally(self) -> None:
        d = {x: x * 2 for x in self.s}
        self.n = len(d) if 2 in d.values() or 0 in d else 0

    def pairs(self) -> None:
        self.n = len([(a, b) for a in self.xs for b in self.xs if a < b])

    def gen(self) -> None:
        """pre: self.n > 0"""
        self.xs = list(x % 2 for x in range(self.n))
''', {"xs": BITS3, "s": SUBSETS, "n": [0, 1, 2, 3]}, unroll=3, slow=True),
    # sum (with a start), min/max of one iterable (default=, ValueError when empty),
    # sorted (reverse=) as a value and in a loop
    Case("sum_min_max_sorted", '''class C:
    """
    inv: len(self.xs) <= 2 and all(0 <= x <= 2 for x in self.xs) and -1 <= self.n <= 3
    """

    def __init__(self) -> None:
        self.xs: list[int] = []
        self.n = 0

    def push(self, k: int) -> None:
        """pre: 0 <= k <= 2 and len(self.xs) < 2"""
        self.xs.append(k)

    def spread(self) -> None:
        """pre: sum(self.xs) >= 2"""
        self.n = max(self.xs) - min(self.xs, default=0)

    def top(self) -> None:
        self.n = max(x for x in self.xs if x > 1)

    def order(self) -> None:
        """pre: sorted(self.xs) != self.xs"""
        self.xs = sorted(self.xs, reverse=True)

    def walk(self) -> None:
        for x in sorted(set(self.xs)):
            self.n = x - 1

    def rest(self) -> None:
        self.n = sum((x for x in self.xs if x != 1), -1)
''', {"xs": SMALL, "n": [-1, 0, 1, 2, 3]}, {"push": {"k": [-1, 0, 1, 2, 3]}},
         findings=(("may_raise", "top"),), unroll=2),
    # | & - ^ and their augmented forms, <= < >= >, and the set methods (two cases: one
    # class with all of them takes z3 minutes on sequences)
    Case("set_operators", '''class C:
    """
    inv: len(self.a) <= 2 and len(self.b) <= 2 and self.a <= {0, 1} and self.b <= {0, 1}
    """

    def __init__(self) -> None:
        self.a: set[int] = set()
        self.b: set[int] = {0}

    def merge(self) -> None:
        """pre: not self.a <= self.b"""
        self.b = self.b | self.a

    def common(self) -> None:
        """pre: self.a & self.b != set()"""
        self.a -= self.b
        self.a |= {0}

    def flip(self) -> None:
        """pre: self.a.isdisjoint(self.b) or self.b < self.a"""
        self.a = self.a ^ self.b
''', {"a": BITSETS, "b": BITSETS}, unroll=2, slow=True),
    Case("set_methods", '''class C:
    """
    inv: len(self.a) <= 2 and len(self.b) <= 2 and self.a <= {0, 1} and self.b <= {0, 1}
    """

    def __init__(self) -> None:
        self.a: set[int] = set()
        self.b: set[int] = {0}
        self.flag = False

    def grow(self, k: int) -> None:
        """pre: k in {0, 1}"""
        self.b = self.b.union([k]).difference(self.a)
        self.a.update({k})
        self.flag = self.a.issubset({1})

    def meet(self) -> None:
        """pre: self.flag or self.a > self.b"""
        self.b.intersection_update(self.a)
        self.flag = self.b >= self.a and self.a.issuperset(self.b)
''', {"a": BITSETS, "b": BITSETS, "flag": [False, True]}, {"grow": {"k": [-1, 0, 1, 2]}}, unroll=2, slow=True),
    # any()/all() read item by item where the element can raise (stopping at the first
    # deciding item, as Python), tuple targets over d.items(), range(), iterating a dict
    Case("any_all_item_by_item", '''class C:
    """
    inv: len(self.d) <= 2 and all(0 <= k <= 2 and v in (0, 1) for k, v in self.d.items())
    inv: 0 <= self.n <= 2
    """

    def __init__(self) -> None:
        self.d: dict[int, int] = {}
        self.n = 0

    def check(self) -> None:
        """pre: not all(v == 1 for k, v in self.d.items())"""
        self.n = 2 if any(10 // v > 5 for v in self.d.values()) else 1

    def scan(self) -> None:
        """pre: any(self.d.get(i) == 0 for i in range(self.n + 1))"""
        self.d = {k: 1 - v for k, v in self.d.items() if k != self.n}

    def keys(self) -> None:
        self.n = len([k for k in self.d if k > 0])
''', {"d": PAIRS, "n": [0, 1, 2]}, findings=(("may_raise", "check"),)),
]

TUPLE_VALUES = [dict(zip(ks, vs)) for n in range(3) for ks in itertools.combinations([0, 1], n)
                for vs in itertools.product([(0, 0), (1, 0)], repeat=n)]

COLLECTION_CASES += [
    # dict.get() without a default on tuple values (None when absent), nested tuple
    # targets, dict() of a generator of pairs, sorted()/list() of a dict and its values
    # (no result depends on the keys' insertion order: the brute force's dicts have one)
    Case("dict_get_and_conversions", '''class C:
    """
    inv: len(self.d) <= 2 and all(0 <= k <= 1 and 0 <= a <= 1 and b == 0 for k, (a, b) in self.d.items())
    """

    def __init__(self) -> None:
        self.d: dict[int, tuple[int, int]] = {}

    def put(self, k: int) -> None:
        """pre: 0 <= k <= 1 and self.d.get(k) is None"""
        self.d[k] = (k, 0)

    def lower(self, k: int) -> None:
        """pre: self.d.get(k) == (1, 0)"""
        self.d[k] = (0, 0)

    def invert(self) -> None:
        self.d = dict((k, (1 - a, b)) for k, (a, b) in self.d.items())

    def reset(self) -> None:
        """pre: sorted(self.d, reverse=True)[:1] == [1] and len(list(self.d.values())) == 2"""
        self.d = {}
''', {"d": TUPLE_VALUES}, {"put": {"k": [-1, 0, 1, 2]}, "lower": {"k": [-1, 0, 1, 2]}}, unroll=2,
         slow=True),
]

COLLECTION_CASES += [
    # `items or []` from an Optional list parameter types the field as that list (an
    # Optional operand of `or` is taken only when truthy); `x if c else []` likewise
    Case("or_default_types_a_list_field", '''from typing import Optional


class C:
    def __init__(self, items: Optional[list[int]] = None, more: bool = False) -> None:
        self.items = items or []
        self.extra = [1] if more else []

    def add(self, x: int) -> None:
        self.items.append(x)

    def pop(self) -> int:
        if not self.items:
            raise IndexError("empty")
        return self.items.pop()

    def drop_extra(self) -> None:
        if not self.extra:
            raise ValueError("none")
        self.extra = []
''', {"items": [[], [1], [1, 1]], "extra": [[], [1]]},
         {"__init__": {"items": [None, [], [1]], "more": [False, True]}, "add": {"x": [1]}}, exact=False),
    # `x or []` with x untyped: the field stays untyped, `[]` is a new falsy object
    Case("or_default_of_an_untyped_parameter", '''class C:
    def __init__(self, items=None) -> None:
        self.items = items or []

    def flush(self) -> None:
        if not self.items:
            raise ValueError("empty")
        self.items = []
''', {"items": [[], [1]]}, {"__init__": {"items": [None, [], [1]]}}, exact=False),
]

COLLECTION_CASES.append(
    # `xs if k else []` with xs an Optional list: the field is untyped (it may be None)
    Case("conditional_default_of_an_optional_list", '''from typing import Optional


class C:
    def __init__(self, xs: Optional[list[int]] = None, k: bool = False) -> None:
        self.items = xs if k else []

    def pop(self) -> int:
        if not self.items:
            raise IndexError("empty")
        return self.items.pop()
''', {"items": [None, [], [1]]}, {"__init__": {"xs": [None, [], [1]], "k": [False, True]}}, exact=False))
COLLECTION_CASES.append(
    # `del name` unbinds a local where it runs: reading it afterwards raises
    # UnboundLocalError, a Python exception and not a raise guard (step is enabled where
    # flag is set, and never finishes there); a name bound again after `del` reads again
    Case("del_of_a_local_unbinds_it", '''class C:
    """inv: 0 <= self.n <= 2"""

    def __init__(self) -> None:
        self.n = 0
        self.flag = False

    def step(self) -> None:
        x = self.n
        if self.flag:
            del x
        if x >= 2:
            raise ValueError("full")
        self.n = x + 1

    def toggle(self) -> None:
        self.flag = not self.flag

    def again(self) -> None:
        y = 0
        del y
        y = self.n
        if y == 0:
            raise ValueError("empty")
        del y
        self.n = 0
''', {"n": [0, 1, 2], "flag": BOOLS}))
COLLECTION_CASES.append(
    # a local bound to a literal on some paths only (stores.literal): where it is unbound,
    # reading it raises UnboundLocalError (not a guard: pick is enabled where flag is off
    # and never finishes there); where bound, `in` and item reads follow the literal,
    # also in a loop's condition (zipfile.ZipFile's `modeDict`)
    Case("local_bound_to_a_literal_on_some_paths", '''class C:
    """inv: 0 <= self.n <= 2"""

    def __init__(self) -> None:
        self.n = 0
        self.flag = False
        self.code = ""

    def toggle(self) -> None:
        self.flag = not self.flag

    def pick(self, m: str) -> None:
        if self.flag:
            table = {"r": "rb", "w": "w+b", "w+b": "wb"}
        if m not in table:
            raise ValueError("unknown mode")
        code = table[m]
        while self.n < 2 and code in table:
            code = table[code]
            self.n += 1
        self.code = code

    def reset(self) -> None:
        if self.n == 0:
            raise ValueError("nothing to reset")
        self.n = 0
''', {"n": [0, 1, 2], "flag": BOOLS, "code": ["", "rb", "w+b", "wb"]}, {"pick": {"m": ["r", "w", "x"]}}))
COLLECTION_CASES.append(
    # `del xs[a:b]` (clamped as Python clamps it, never raising), `del xs[i]` (IndexError
    # where out of range, not a guard) and `del d[k]` (KeyError where absent)
    Case("del_of_list_slices_items_and_dict_keys", '''class C:
    """inv: len(self.items) <= 2 and len(self.seen) <= 1"""

    def __init__(self) -> None:
        self.items: list[int] = []
        self.seen: dict[int, bool] = {}

    def add(self, x: int) -> None:
        if len(self.items) >= 2:
            raise ValueError("full")
        self.items.append(x)
        self.seen = {x: True}

    def drop_head(self, k: int) -> None:
        del self.items[:k]

    def drop_tail(self) -> None:
        if not self.items:
            raise ValueError("empty")
        del self.items[-1:]

    def drop_at(self, i: int) -> None:
        del self.items[i]

    def forget(self, x: int) -> None:
        if not self.seen:
            raise ValueError("nothing seen")
        del self.seen[x]
''', {"items": [[], [0], [1], [0, 0], [0, 1], [1, 0], [1, 1]], "seen": [{}, {0: True}, {1: True}]},
        {"add": {"x": [0, 1]}, "drop_head": {"k": [-1, 0, 1, 3]}, "drop_at": {"i": [-3, -1, 0, 1]},
         "forget": {"x": [0, 1]}}))

# An invariant with an aggregate past --unroll (2 here, lists up to 4 items) is followed
# within the bound and unknown past it (invregion.py): calls on objects within the bound,
# before and after, are must; the rest may. Before, the whole invariant was an unknown
# predicate and every answer of the class was may.
BITS = [list(t) for n in range(5) for t in itertools.product([0, 1], repeat=n)]
COLLECTION_CASES.append(Case("invariant_aggregate_past_the_bound", '''
class C:
    """
    inv: self.total == sum(self.xs)
    inv: len(self.xs) <= 4
    """

    def __init__(self) -> None:
        self.xs: list[int] = []
        self.total = 0

    def add(self, k: int) -> None:
        """pre: 0 <= k <= 1 and len(self.xs) < 4"""
        self.xs.append(k)
        self.total += k

    def drop(self) -> None:
        """pre: len(self.xs) > 0"""
        self.total -= self.xs.pop()

    def full(self) -> None:
        """pre: len(self.xs) >= 3"""
        self.total = self.total + 0

    def rich(self) -> None:
        """pre: self.total >= 2"""
        self.xs = self.xs[1:]
        self.total = sum(self.xs)
''', {"xs": BITS, "total": [0, 1, 2, 3, 4]}, {"add": {"k": [-1, 0, 1, 2]}}, exact=False, unroll=2,
    unknown="more than 2 items"))

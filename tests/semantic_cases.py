"""The semantic rules of the z3 backend as a table: one small class `C` per rule, with
the domains the brute force enumerates (used by tests/test_semantics.py).

A case is a snippet, its field and parameter domains, and whether those domains are
closed (then the typestates must be equal; otherwise every concrete state and transition
must be in the tool's). Add a rule by adding a Case.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

BOOLS = [False, True]


@dataclass(frozen=True)
class Case:
    name: str
    source: str
    domains: dict[str, list[Any]]
    params: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    exact: bool = True  # the domains are finite and closed under the invariant
    findings: tuple[tuple[str, str], ...] = ()  # (kind, method) the tool must report
    unroll: int = 4
    slow: bool = False  # > 10 s (IEEE double queries are bit-blasted)
    unknown: str | None = None  # a construct the summary must name as not decided
    preconditions: str | None = None  # --preconditions; None: the default for the class


CASES = [
    # a `finally` (and a branch in it) runs under the try body's guard again, with the
    # body's raises undone: the body's dead end (after a call that always raises) must not
    # end it too (executor.live; the finally's `self.x = 1` was skipped: reset lost)
    Case("finally_after_a_body_that_always_raises", '''
class C:
    def __init__(self) -> None:
        self.x = 0
        self.y = 0

    def _fail(self) -> None:
        raise ValueError("always")

    def m(self) -> None:
        try:
            self._fail()
            if self.y == 0:
                self.x = 5
        except ValueError:
            pass
        finally:
            if self.y == 0:
                self.x = 1

    def reset(self) -> None:
        if self.x == 0:
            raise ValueError("nothing to reset")
        self.x = 0
''', {"x": [0, 1, 5], "y": [0, 1]}),
    # dead branches (executor.alive): one whose condition is false after an assignment
    # (seen: not run), and a contradiction nested in a branch (not seen by simplifying the
    # newest condition alone: run under a false path condition, which must change nothing)
    Case("dead_branches", '''
class C:
    def __init__(self) -> None:
        self.x = 0
        self.y = 0

    def m(self) -> None:
        self.y = 1
        if self.y == 0:
            raise ValueError("never")
        if self.x == 1:
            if self.x != 1:
                self.y = 0
                raise ValueError("never either")
            self.x = 2
        else:
            self.x = 1

    def reset(self) -> None:
        if self.x == 0:
            raise ValueError("nothing to reset")
        self.x = 0
        self.y = 0
''', {"x": [0, 1, 2], "y": [0, 1]}),
    # a callee entered where every path has raised already (executor.entry_guard takes a
    # callee's entry as alive): its body runs under a false path condition, changing nothing
    Case("callee_after_a_call_that_always_raises", '''
class C:
    def __init__(self) -> None:
        self.done = False

    def _fail(self) -> None:
        raise ValueError("always")

    def _set(self) -> None:
        if not self.done:
            self.done = True
        else:
            raise KeyError("set twice")

    def m(self) -> None:
        try:
            self._fail()
            self._set()
        except ValueError:
            pass

    def finish(self) -> None:
        if self.done:
            raise ValueError("done")
        self.done = True

    def reset(self) -> None:
        if not self.done:
            raise ValueError("not done")
        self.done = False
''', {"done": BOOLS}),
    # `&`, `|` and `^` on two bools are bools (opexprs.py); on ints they stay some int
    Case("bool_bitwise_operators", '''
class C:
    def __init__(self) -> None:
        self.a = False
        self.b = False

    def flip(self) -> None:
        self.a = self.a ^ True

    def differ(self) -> None:
        if not (self.a ^ self.b):
            raise ValueError("equal")
        self.b = self.b | self.a

    def both(self) -> None:
        if not (self.a & self.b):
            raise ValueError("not both")
        self.a = False
''', {"a": BOOLS, "b": BOOLS}),
    Case("bool_ops", '''
class C:
    def __init__(self) -> None:
        self.a = False
        self.b = False

    def both(self) -> None:
        """pre: self.a and self.b"""
        self.a = not self.a or self.b

    def either(self) -> None:
        """pre: self.a or not self.b"""
        self.b = self.a == self.b

    def differ(self) -> None:
        """pre: self.a != self.b"""
        t = self.a
        self.a = self.b
        self.b = t
''', {"a": BOOLS, "b": BOOLS}),
    Case("floor_division_and_modulo_on_negatives", '''
class C:
    """
    inv: -3 <= self.x <= 3
    """

    def __init__(self) -> None:
        self.x = -3

    def half(self) -> None:
        """pre: self.x // 2 == -1"""
        self.x = self.x % 3 - 7 // -2

    def odd(self) -> None:
        """pre: self.x % 2 == 1"""
        self.x = self.x // -2

    def negmod(self) -> None:
        """pre: self.x % -3 == -1"""
        self.x = (self.x - 5) // 3 + (-7) % 4
''', {"x": list(range(-3, 4))}),
    Case("abs_min_max", '''
class C:
    """
    inv: -2 <= self.x <= 2 and -2 <= self.y <= 2
    """

    def __init__(self) -> None:
        self.x = -2
        self.y = 1

    def fold(self) -> None:
        """pre: abs(self.x) == 2"""
        self.x = min(abs(self.x) - 1, self.y)

    def lift(self) -> None:
        """pre: max(self.x, self.y) < 2"""
        self.y = max(self.x, self.y) + 1

    def drop(self) -> None:
        """pre: min(self.x, self.y, 0) > -2"""
        self.x = -abs(self.y)
''', {"x": list(range(-2, 3)), "y": list(range(-2, 3))}),
    Case("chained_comparisons", '''
class C:
    """
    inv: 0 <= self.x <= 3 and 0 <= self.y <= 3
    """

    def __init__(self) -> None:
        self.x = 0
        self.y = 3

    def grow(self) -> None:
        """pre: 0 <= self.x < self.y <= 3"""
        self.x += 1

    def shrink(self) -> None:
        """pre: self.x == self.y != 0"""
        self.y -= 1

    def swap(self) -> None:
        """pre: 3 > self.y >= self.x > 0"""
        t = self.x
        self.x = self.y
        self.y = t
''', {"x": list(range(4)), "y": list(range(4))}),
    Case("conditional_expression_and_if_elif_else", '''
class C:
    """
    inv: 0 <= self.n <= 3
    """

    def __init__(self) -> None:
        self.n = 0
        self.up = True

    def step(self) -> None:
        self.n = self.n + 1 if self.up else self.n - 1
        if self.n == 3:
            self.up = False
        elif self.n == 0:
            self.up = True
        else:
            self.up = self.up

    def top(self) -> None:
        """pre: self.n == 3"""
        self.up = not self.up if self.n > 2 else self.up
''', {"n": list(range(4)), "up": BOOLS}),
    Case("augmented_assignment", '''
class C:
    """
    inv: 0 <= self.x <= 6
    """

    def __init__(self) -> None:
        self.x = 1

    def twice(self) -> None:
        """pre: self.x <= 3"""
        self.x *= 2

    def down(self) -> None:
        """pre: self.x >= 2"""
        self.x -= 2
        self.x //= 1

    def wrap(self) -> None:
        """pre: self.x % 2 == 1"""
        self.x += 3
        self.x %= 5
''', {"x": list(range(7))}),
    Case("early_return", '''
class C:
    """
    inv: 0 <= self.x <= 2
    """

    def __init__(self) -> None:
        self.x = 0
        self.done = False

    def advance(self) -> None:
        """pre: not self.done"""
        if self.x == 2:
            self.done = True
            return
        self.x += 1

    def reset(self) -> None:
        """pre: self.done"""
        self.done = False
        if self.x > 0:
            self.x = 0
            return
        self.done = True
''', {"x": [0, 1, 2], "done": BOOLS}),
    Case("raise_path_has_no_transition", '''
class C:
    """
    inv: 0 <= self.x <= 2
    """

    def __init__(self) -> None:
        self.x = 0

    def inc(self) -> None:
        """pre: self.x < 2"""
        if self.x == 1:
            raise ValueError("one is unlucky")
        self.x += 1

    def zero(self) -> None:
        """pre: self.x > 0"""
        self.x = 0
''', {"x": [0, 1, 2]}, findings=(("may_raise", "inc"),)),
    Case("assert_in_body", '''
class C:
    """
    inv: 0 <= self.x <= 3
    """

    def __init__(self) -> None:
        self.x = 0

    def inc(self) -> None:
        """pre: self.x < 3"""
        self.x += 1
        assert self.x != 2

    def back(self) -> None:
        """pre: self.x == 3"""
        self.x = 1
''', {"x": list(range(4))}, findings=(("may_raise", "inc"),)),
    Case("helper_call_is_inlined", '''
class C:
    """
    inv: 0 <= self.x <= 3
    """

    def __init__(self) -> None:
        self.x = 0
        self.flag = False

    def _bump(self, by: int) -> bool:
        if self.x + by > 3:
            return False
        self.x += by
        return True

    def add(self) -> None:
        """pre: not self.flag"""
        self.flag = not self._bump(2)

    def clear(self) -> None:
        """pre: self.flag or self.x == 3"""
        self._reset()

    def _reset(self) -> None:
        self.x = 0
        self.flag = False
''', {"x": list(range(4)), "flag": BOOLS}),
    Case("for_and_while_loops_within_the_bound", '''
class C:
    """
    inv: 0 <= self.x <= 3 and 0 <= self.y <= 3
    """

    def __init__(self) -> None:
        self.x = 3
        self.y = 0

    def drain(self) -> None:
        """pre: self.x > 0"""
        while self.x > 0:
            self.x -= 1
            self.y = min(self.y + 1, 3)

    def refill(self) -> None:
        """pre: self.x == 0"""
        for i in range(self.y):
            self.x += 1
        self.y = 0
''', {"x": list(range(4)), "y": list(range(4))}),
    Case("while_loop_beyond_the_bound_is_never_a_wrong_no", '''
class C:
    """
    inv: 0 <= self.x <= 9
    """

    def __init__(self) -> None:
        self.x = 9

    def drain(self) -> None:
        """pre: self.x > 0"""
        while self.x > 0:
            self.x -= 1

    def fill(self) -> None:
        """pre: self.x == 0"""
        self.x = 9
''', {"x": list(range(10))}, exact=False, unroll=3, unknown="loop"),
    # every normal end of `send` runs an untranslated statement last (a dict where a bool
    # is expected): its paths are may-paths, and the exact phase, proved empty by the
    # terms' shape (deadends.py), is not asked; the may-transitions must still hold every
    # concrete one (the object closed: `open` a falsy dict; still open: `n` not sent)
    Case("every_normal_end_untranslated", '''
class C:
    def __init__(self) -> None:
        self.open = False
        self.sent = 0

    def connect(self) -> None:
        self.open = True

    def send(self, n: int) -> None:
        if not self.open:
            raise ValueError("closed")
        if n > 1:
            raise ValueError("too many")
        self.sent = self.sent + n
        self.open = {}

    def flush(self) -> None:
        if self.sent == 0:
            raise ValueError("nothing sent")
        self.sent = 0
''', {"open": [False, True], "sent": [0, 1, 2, 3]}, {"send": {"n": [0, 1, 2]}}, exact=False,
        unknown="dict"),
    Case("float_fields_with_division", '''
class C:
    """
    inv: 0.0 <= self.r <= 2.0
    """

    def __init__(self) -> None:
        self.r = 1.0

    def halve(self) -> None:
        """pre: self.r > 0.25"""
        self.r = self.r / 2

    def double(self) -> None:
        """pre: self.r <= 1.0"""
        self.r = self.r * 2

    def invert(self) -> None:
        """pre: self.r >= 0.5"""
        self.r = 1 / self.r
''', {"r": [0.0, 0.125, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0]}, exact=False, slow=True),
    Case("str_fields", '''
class C:
    """
    inv: len(self.s) <= 3
    """

    def __init__(self) -> None:
        self.s = ""

    def add_a(self) -> None:
        """pre: len(self.s) < 3"""
        self.s = self.s + "a"

    def add_b(self) -> None:
        """pre: len(self.s) < 3 and not self.s.startswith("b")"""
        self.s += "b"

    def has_b(self) -> None:
        """pre: "b" in self.s"""
        self.s = "b"

    def reset(self) -> None:
        """pre: self.s != "" and self.s == self.s"""
        self.s = ""
''', {"s": ["", "a", "b", "aa", "ab", "ba", "bb", "aaa", "aab", "aba", "abb", "baa", "bab", "bba", "bbb"]},
        exact=False),
    Case("optional_int_field", '''
from typing import Optional


class C:
    """
    inv: self.v is None or 0 <= self.v <= 2
    """

    def __init__(self) -> None:
        self.v: Optional[int] = None

    def start(self) -> None:
        """pre: self.v is None"""
        self.v = 0

    def inc(self) -> None:
        """pre: self.v is not None and self.v < 2"""
        self.v += 1

    def stop(self) -> None:
        """pre: self.v is not None"""
        self.v = None if self.v == 2 else self.v
''', {"v": [None, 0, 1, 2]}),
    Case("enum_field", '''
from enum import Enum


class Light(Enum):
    RED = 1
    GREEN = 2
    AMBER = 3


class C:
    def __init__(self) -> None:
        self.light = Light.RED

    def go(self) -> None:
        """pre: self.light == Light.RED"""
        self.light = Light.GREEN

    def slow(self) -> None:
        """pre: self.light is Light.GREEN"""
        self.light = Light.AMBER

    def halt(self) -> None:
        """pre: self.light != Light.RED"""
        self.light = Light.RED if self.light == Light.AMBER else self.light
''', {"light": ["Light.RED", "Light.GREEN", "Light.AMBER"]}),
    Case("list_of_int_field", '''
class C:
    """
    inv: len(self.items) <= 2
    """

    def __init__(self) -> None:
        self.items: list[int] = []

    def push(self, v: int) -> None:
        """pre: 0 <= v <= 1 and len(self.items) < 2"""
        self.items.append(v)

    def pop(self) -> None:
        self.items.pop()

    def last_is_one(self) -> None:
        """pre: len(self.items) > 0 and self.items[-1] == 1"""
        self.items.pop()
        self.items.append(0)

    def has_zero(self) -> None:
        """pre: 0 in self.items"""
        if self.items[0] == 0:
            self.items.pop()
''', {"items": [[], [0], [1], [0, 0], [0, 1], [1, 0], [1, 1]]}, {"push": {"v": [0, 1]}}, exact=False,
        findings=(("may_raise", "pop"),)),
    Case("parameters_enable_when_some_argument_fits", '''
class C:
    """
    inv: 0 <= self.x <= 3
    """

    def __init__(self) -> None:
        self.x = 0

    def add(self, k: int) -> None:
        """pre: 1 <= k <= 2 and self.x + k <= 3"""
        self.x += k

    def set_if(self, on: bool) -> None:
        """pre: on or self.x == 3"""
        self.x = 0 if on else 1
''', {"x": list(range(4))}, {"add": {"k": [1, 2]}, "set_if": {"on": BOOLS}}),
    Case("constructor_with_parameter", '''
class C:
    """
    inv: 0 <= self.x <= 2
    """

    def __init__(self, start: int) -> None:
        """pre: 0 <= start <= 2"""
        self.x = start

    def inc(self) -> None:
        """pre: self.x < 2"""
        self.x += 1

    def dec(self) -> None:
        """pre: self.x > 0"""
        self.x -= 1
''', {"x": [0, 1, 2]}, {"__init__": {"start": [0, 1, 2]}}),
    Case("unsatisfiable_precondition_is_never_enabled", '''
class C:
    """
    inv: 0 <= self.x <= 3
    """

    def __init__(self) -> None:
        self.x = 0

    def inc(self) -> None:
        """pre: self.x < 3"""
        self.x += 1

    def impossible(self) -> None:
        """pre: self.x > 3"""
        self.x = 0
''', {"x": list(range(4))}, findings=(("never_enabled", "impossible"),)),
    Case("method_breaking_the_invariant", '''
class C:
    """
    inv: 0 <= self.x <= 3
    """

    def __init__(self) -> None:
        self.x = 0

    def inc(self) -> None:
        self.x += 1

    def reset(self) -> None:
        """pre: self.x > 1"""
        self.x = 0
''', {"x": list(range(4))}, findings=(("breaks_invariant", "inc"),)),
    Case("division_by_a_field_that_can_be_zero_raises", '''
class C:
    """
    inv: 0 <= self.x <= 3
    """

    def __init__(self) -> None:
        self.x = 2

    def split(self) -> None:
        self.x = 6 // self.x - 2

    def bump(self) -> None:
        """pre: self.x < 3"""
        self.x += 1
''', {"x": list(range(4))}, findings=(("may_raise", "split"),)),
    Case("truthiness_and_short_circuit", '''
class C:
    """
    inv: 0 <= self.x <= 3
    """
    def __init__(self) -> None:
        self.x = 0

    def fill(self) -> None:
        """pre: not self.x"""
        self.x = self.x or 2

    def half(self) -> None:
        """pre: self.x and self.x % 2 == 0"""
        self.x = self.x and self.x // 2

    def safe_div(self) -> None:
        """pre: self.x == 0 or 6 // self.x > 2"""
        self.x = 3 if self.x != 0 and 6 // self.x >= 6 else self.x + 1
''', {"x": list(range(4))}),
    Case("break_and_continue", '''
class C:
    """
    inv: 0 <= self.x <= 3
    """
    def __init__(self) -> None:
        self.x = 0
        self.b = False

    def scan(self) -> None:
        """pre: self.x < 3"""
        for i in range(4):
            if i < self.x:
                continue
            if self.b:
                break
            self.x = i
        self.b = not self.b

    def spin(self) -> None:
        """pre: self.x > 0"""
        while True:
            self.x -= 1
            if self.x <= 1:
                break
''', {"x": list(range(4)), "b": BOOLS}),
    Case("arithmetic_on_none_raises", '''
from typing import Optional


class C:
    """
    inv: self.v is None or 0 <= self.v <= 2
    """
    def __init__(self) -> None:
        self.v: Optional[int] = None
        self.b = False

    def bump(self) -> None:
        """pre: not self.b"""
        self.v = self.v + 1
        self.b = True

    def clear(self) -> None:
        """pre: self.b"""
        self.v = None if self.v == 2 else 0
        self.b = False
''', {"v": [None, 0, 1, 2], "b": BOOLS}, findings=(("may_raise", "bump"),)),
    Case("list_index_errors_and_extend", '''
class C:
    """
    inv: len(self.items) <= 2
    """
    def __init__(self) -> None:
        self.items: list[int] = []

    def push(self, v: int) -> None:
        """pre: 0 <= v <= 1 and len(self.items) < 2"""
        self.items.append(v)

    def third(self) -> None:
        """pre: len(self.items) > 0"""
        if self.items[-2] == 1:
            self.items.pop(0)

    def grow(self) -> None:
        """pre: len(self.items) == 1"""
        self.items += [self.items[0]]

    def front(self) -> None:
        """pre: 1 in self.items"""
        self.items.pop(0)
''', {"items": [[], [0], [1], [0, 0], [0, 1], [1, 0], [1, 1]]}, {"push": {"v": [0, 1]}}, exact=False,
         findings=(("may_raise", "third"),)),
    Case("bool_as_int", '''
class C:
    """
    inv: 0 <= self.x <= 3
    """
    def __init__(self) -> None:
        self.x = 0
        self.b = True

    def add(self) -> None:
        """pre: self.x + self.b <= 3"""
        self.x += self.b
        self.b = not self.b

    def mul(self) -> None:
        """pre: self.x * (not self.b) == 0"""
        self.x = int(self.b) * 3 - self.x
''', {"x": list(range(4)), "b": BOOLS}),
    Case("constructor_that_can_raise", '''
class C:
    """
    inv: 0 <= self.x <= 2
    """
    def __init__(self, start: int) -> None:
        """pre: 0 <= start <= 3"""
        if start == 1:
            raise ValueError("no")
        self.x = start

    def inc(self) -> None:
        """pre: self.x < 2"""
        self.x += 1
''', {"x": [0, 1, 2]}, {"__init__": {"start": [0, 1, 2, 3]}}),
    Case("str_ordering", '''
class C:
    def __init__(self) -> None:
        self.s = ""

    def low(self) -> None:
        """pre: self.s < "y" """
        self.s = self.s + "a"
''', {"s": ["", "a", "aa", "y", "ya", "z"]}, exact=False),
    # a list indexed by a parameter under a precondition mixing bool and list operands
    # (`... and self.items`): once ran > 60 s; the truth-value reading of `and` fixed it
    Case("list_indexed_by_a_parameter_under_a_mixed_and", '''class C:
    """
    inv: len(self.items) <= 2
    """
    def __init__(self) -> None:
        self.items: list[int] = []

    def push(self, v: int) -> None:
        """pre: 0 <= v <= 2 and len(self.items) < 2 and v not in self.items"""
        self.items.append(v)

    def at(self, k: int) -> None:
        """pre: 0 <= k <= 2 and self.items"""
        if self.items[k] == 0:
            self.items.pop()
''', {"items": [[], [0], [1], [2], [0, 1], [1, 0], [0, 2], [2, 0], [1, 2], [2, 1], [0, 0], [1, 1], [2, 2]]},
         {"push": {"v": [0, 1, 2]}, "at": {"k": [0, 1, 2]}}, exact=False,
         findings=(("may_raise", "at"),)),
    # the same with a precondition z3 does not translate (a tuple): may-answers, quickly
    Case("untranslatable_precondition_with_a_parameter", '''class C:
    """
    inv: len(self.items) <= 2
    """
    def __init__(self) -> None:
        self.items: list[int] = []

    def push(self, v: int) -> None:
        """pre: 0 <= v <= 2 and len(self.items) < 2 and v not in self.items"""
        self.items.append(v)

    def at(self, k: int) -> None:
        """pre: pow(k, 2) == k and self.items"""
        if self.items[k] == 0:
            self.items.pop()
''', {"items": [[], [0], [1], [2], [0, 1], [1, 0], [0, 2], [2, 0], [1, 2], [2, 1], [0, 0], [1, 1], [2, 2]]},
         {"push": {"v": [0, 1, 2]}, "at": {"k": [-1, 0, 1, 2]}}, exact=False, unknown="pow"),
    # an untranslated statement changes only what its method may write (z3backend/effects.py):
    # `note` cannot change n or closed, so the typestate stays exact
    Case("untranslated_statement_leaves_fields_the_method_never_writes", '''class C:
    """
    inv: 0 <= self.n <= 1
    """
    def __init__(self) -> None:
        self.log = ""
        self.closed = False
        self.n = 0

    def note(self) -> None:
        """pre: not self.closed"""
        self.log = (kept := self.log[-2:]) + "x"  # := is not translated

    def bump(self) -> None:
        """pre: not self.closed and self.n == 0"""
        self.n = 1

    def close(self) -> None:
        """pre: not self.closed and self.n == 1"""
        self.closed = True
''', {"log": ["", "x", "xx", "xxx"], "closed": BOOLS, "n": [0, 1]}, unknown="NamedExpr"),
    # the path stops at the untranslated helper, skipping `self.n = 0` after it: n must be
    # arbitrary too (the analysed method's write set, not the helper's)
    Case("untranslated_helper_then_a_write_in_the_caller", '''class C:
    """
    inv: 0 <= self.n <= 1
    """
    def __init__(self) -> None:
        self.log = ""
        self.n = 0

    def _trim(self) -> None:
        self.log = (kept := self.log[-2:])  # := is not translated

    def note(self) -> None:
        self._trim()
        self.n = 0

    def bump(self) -> None:
        """pre: self.n == 0"""
        self.n = 1
''', {"log": ["", "x"], "n": [0, 1]}, exact=False, unknown="NamedExpr"),
    # `self` handed to other code: anything may change
    Case("self_passed_to_a_function_may_change_any_field", '''def shut(obj) -> None:
    obj.closed = True


class C:
    def __init__(self) -> None:
        self.closed = False
        self.n = 0

    def note(self) -> None:
        """pre: not self.closed"""
        shut(self)

    def bump(self) -> None:
        """pre: not self.closed and self.n == 0"""
        self.n = 1
''', {"closed": BOOLS, "n": [0, 1]}, exact=False),
]

CASES += [
    # class constants (plain, annotated, ClassVar) read as self.X, cls.X and C.X; module
    # constants, tuple constants and `x in (a, b)`; no constant is a field
    Case("class_and_module_constants", '''from typing import ClassVar, Final

LIMITS = (1, 3)
MODES = ("a", "b")


class C:
    """
    inv: 0 <= self.n <= self.TOP
    """
    TOP = 3
    STEP: Final = 2
    FLOOR: ClassVar[int] = LIMITS[0]

    def __init__(self) -> None:
        self.n = 0
        self.mode = "a"

    def up(self) -> None:
        """pre: self.n + self.STEP <= C.TOP"""
        self.n += self.STEP

    def down(self) -> None:
        """pre: self.n >= LIMITS[0] and self.mode in MODES"""
        lo, hi = LIMITS
        self.n -= lo

    def switch(self, m: str) -> None:
        """pre: m in ("b", "c") and self.n in (0, self.TOP)"""
        self.mode = m
''', {"n": [0, 1, 2, 3], "mode": ["a", "b", "c"]}, {"switch": {"m": ["a", "b", "c", "d"]}}),
    # tuple fields: literals, constant and computed indices (IndexError out of range),
    # unpacking (ValueError on a length mismatch), len, ==, `in`, loops over a tuple
    Case("tuple_fields_indexing_unpacking", '''class C:
    """
    inv: -1 <= self.p[0] <= 2 and 0 <= self.p[1] <= 2
    """

    def __init__(self) -> None:
        self.p: tuple[int, int] = (0, 0)
        self.k = 0

    def swap(self) -> None:
        """pre: self.p != (0, 0)"""
        a, b = self.p
        self.p = (b, a)

    def pick(self, i: int) -> None:
        """pre: self.p[i] == 2 and len(self.p) == 2"""
        self.k = i
        self.p = (self.p[-1], self.p[i] - 1)

    def walk(self) -> None:
        """pre: 1 in self.p"""
        total = 0
        for x in self.p:
            total += x
        self.p = (total - 2, 2) if total <= 4 else self.p
        self.k = self.p[self.k]
''', {"p": [(a, b) for a in range(-1, 3) for b in range(3)], "k": [-2, -1, 0, 1, 2]},
         {"pick": {"i": [-3, -2, -1, 0, 1, 2]}}, findings=(("breaks_invariant", "swap"),)),
]

WORDS = ["".join(t) for n in range(4) for t in __import__("itertools").product("ab", repeat=n)]

CASES += [
    # slices with omitted, negative, out-of-range and symbolic bounds (Python clamps them)
    Case("str_slicing_with_symbolic_bounds", '''class C:
    """
    inv: len(self.s) <= 3 and -4 <= self.i <= 4
    """

    def __init__(self) -> None:
        self.s = "ab"
        self.i = 0

    def cut(self) -> None:
        """pre: self.s[self.i:] != self.s[:self.i]"""
        self.s = self.s[-self.i:self.i + 1]

    def tail(self) -> None:
        """pre: self.s[self.i - 1:] == "b" """
        self.i = -self.i
        self.s = self.s[:-1] + self.s[self.i:self.i]

    def grow(self) -> None:
        """pre: len(self.s[1:-1]) == 0"""
        self.s = (self.s + "ab")[self.i:self.i + 3]
''', {"s": WORDS, "i": list(range(-4, 5))}, slow=True),
    # find/index/rfind (ValueError when absent), count (unrolled), startswith a tuple
    Case("str_find_index_count_startswith", '''class C:
    """
    inv: len(self.s) <= 3 and -1 <= self.n <= 4
    """

    def __init__(self) -> None:
        self.s = ""
        self.n = 0

    def locate(self, sub: str) -> None:
        """pre: self.s.find(sub, 1) >= 0"""
        self.n = self.s.index(sub) + self.s.rfind(sub)

    def seek(self) -> None:
        """pre: self.s.startswith(("b", "aa"))"""
        self.n = self.s.index("a")

    def tally(self) -> None:
        """pre: self.s.count("a") >= 2 or self.s.endswith("b")"""
        self.n = self.s.count("ab") + self.s.find("b", -2, 3)
        self.s = self.s[1:]
''', {"s": WORDS, "n": list(range(-1, 5))}, {"locate": {"sub": ["", "a", "b", "ab", "ba"]}},
         findings=(("may_raise", "seek"),)),
    # str() of ints and bools, f-strings, and comparisons of the text built
    Case("str_of_ints_and_f_strings", '''class C:
    """
    inv: -2 <= self.n <= 2 and len(self.log) <= 6
    """

    def __init__(self) -> None:
        self.n = 0
        self.log = ""

    def show(self) -> None:
        """pre: str(self.n) != "0" """
        self.log = f"n={self.n}"

    def mark(self, flag: bool) -> None:
        """pre: len(self.log) < 2"""
        self.log = str(flag)[:2] + str(self.n)

    def step(self) -> None:
        """pre: self.log == f"{self.n}" or self.log.startswith("-")"""
        self.n = self.n - 1
''', {"n": list(range(-2, 3)), "log": ["", "0", "-1", "-2", "1", "n=0", "n=-1", "n=1", "n=-2", "n=2",
                                      "Tr0", "Fa1", "Tr-1"]},
         {"mark": {"flag": [False, True]}}, exact=False),
    # list slicing, index/count/remove (ValueError), extend, reversed in a loop
    Case("list_slicing_and_extra_methods", '''class C:
    """
    inv: len(self.xs) <= 3
    """

    def __init__(self) -> None:
        self.xs: list[int] = []

    def shift(self) -> None:
        """pre: self.xs[1:] != []"""
        self.xs = self.xs[1:] + self.xs[:1]

    def drop(self, v: int) -> None:
        """pre: v in (0, 1) and self.xs.count(v) == 1"""
        i = self.xs.index(v)
        self.xs.remove(self.xs[-1])
        self.xs.insert(i, 0)

    def fold(self) -> None:
        """pre: len(self.xs) < 2"""
        first = 0
        for x in reversed(self.xs):
            first = x
        self.xs.extend([first, 1][len(self.xs):])
''', {"xs": [list(t) for n in range(4) for t in __import__("itertools").product([0, 1], repeat=n)]},
         {"drop": {"v": [0, 1, 2]}}),
]

PAIRS = [dict(zip(ks, vs)) for n in range(3) for ks in __import__("itertools").combinations([0, 1, 2], n)
         for vs in __import__("itertools").product([0, 1], repeat=n)]

CASES += [
    # a dict[int, int] field: literals, in, len, [], get, pop, del, setdefault, update, ==,
    # KeyError paths, items() in a loop and `in` on values(). About 5 s since lenbounds.py
    # (330 s before); still marked slow: in the plain suite test_findings_merged would take
    # it, and its reset() counterexample differs from one run to the next in a process
    # (z3's models follow fresh names), merged or not
    Case("dict_operations", '''class C:
    """
    inv: len(self.d) <= 2
    """

    def __init__(self) -> None:
        self.d: dict[int, int] = {}

    def put(self, k: int) -> None:
        """pre: 0 <= k <= 2 and k not in self.d and len(self.d) < 2"""
        self.d[k] = self.d.get(k, 1) - 1

    def bump(self) -> None:
        """pre: 0 in self.d.values()"""
        for k, v in self.d.items():
            if v == 0:
                self.d[k] = 1

    def take(self, k: int) -> None:
        """pre: 0 <= k <= 2 and self.d.get(k) == 1"""
        self.d.pop(k)
        self.d.setdefault(2, 0)
        del self.d[2]

    def reset(self) -> None:
        """pre: self.d != {} and self.d != {0: 0}"""
        x = self.d[1]
        self.d = {}
        self.d.update({1: x})
''', {"d": PAIRS}, {"put": {"k": [-1, 0, 1, 2, 3]}, "take": {"k": [-1, 0, 1, 2, 3]}},
         exact=False, findings=(("may_raise", "reset"),), slow=True),
    # a set[int] field: literals, add (no duplicates: len stays exact), discard, remove
    # (KeyError), in, len, ==, and a loop over the set
    Case("set_operations", '''class C:
    """
    inv: len(self.s) <= 2
    """

    def __init__(self) -> None:
        self.s: set[int] = set()

    def add(self, x: int) -> None:
        """pre: x in {0, 1, 2} and len(self.s) < 2"""
        self.s.add(x)
        self.s.add(x)

    def drop(self, x: int) -> None:
        """pre: x in self.s and 0 <= x <= 2"""
        self.s.remove(x)
        self.s.discard(x)

    def swap(self) -> None:
        """pre: self.s == {0, 1}"""
        total = 0
        for x in self.s:
            total += x
        self.s = {total + 1}
''', {"s": [set(c) for n in range(3) for c in __import__("itertools").combinations([0, 1, 2], n)]},
         {"add": {"x": [-1, 0, 1, 2, 3]}, "drop": {"x": [-1, 0, 1, 2, 3]}}, exact=False),
    # membership.py over a dict a method changed: a removal (pop, del) rewritten as a whole
    # (the length of its base inside it is not), len() of a key appended (setdefault), and
    # values() / == quantifiers in the form z3.simplify gives them; lenbounds.py: with
    # `len(self.d) <= 2` those quantifiers are unrolled over two positions
    Case("dict_removal_after_setdefault", '''class C:
    """
    inv: len(self.d) <= 2
    """

    def __init__(self) -> None:
        self.d: dict[int, int] = {}

    def put(self, k: int) -> None:
        """pre: 0 <= k <= 2 and k not in self.d and len(self.d) < 2"""
        self.d[k] = k % 2

    def cycle(self, k: int) -> None:
        """pre: 0 <= k <= 2 and k in self.d"""
        self.d.pop(k)
        self.d.setdefault(2, 1)
        del self.d[2]

    def grow(self) -> None:
        """pre: len(self.d) == 1"""
        self.d.setdefault(1, 0)

    def one(self) -> None:
        """pre: 1 in self.d.values() and self.d != {2: 0}"""
        self.d = {0: 0}
''', {"d": PAIRS}, {"put": {"k": [-1, 0, 1, 2, 3]}, "cycle": {"k": [-1, 0, 1, 2, 3]}}, exact=False),
    # a set whose size the invariant bounds (`<`: lenbounds.py reads it as len <= 2):
    # add then discard of one item, any() and all() over it, as Python runs them
    Case("set_removal_after_add", '''class C:
    """
    inv: len(self.s) < 3
    """

    def __init__(self) -> None:
        self.s: set[int] = set()

    def add(self, x: int) -> None:
        """pre: 0 <= x <= 2 and len(self.s) < 2"""
        self.s.add(x)

    def flip(self, x: int) -> None:
        """pre: 0 <= x <= 2 and x not in self.s and len(self.s) < 2"""
        self.s.add(x)
        self.s.discard(x)
        self.s.discard(x)

    def two(self) -> None:
        """pre: any(x == 2 for x in self.s) and all(x > 0 for x in self.s)"""
        self.s.discard(2)
''', {"s": [set(c) for n in range(3) for c in __import__("itertools").combinations([0, 1, 2], n)]},
         {"add": {"x": [-1, 0, 1, 2, 3]}, "flip": {"x": [-1, 0, 1, 2, 3]}}),
]
CASES.append(
    # recursion through several helpers (_a -> _b -> _a ...): a call from one method to
    # another that is being inlined already is not followed again (the path is unknown
    # there: its answers may), and no transition is lost
    Case("mutual_recursion_is_cut_where_it_repeats", '''class C:
    def __init__(self) -> None:
        self.n = 3
        self.open = True

    def drain(self) -> None:
        if not self.open:
            raise ValueError("closed")
        self._a()

    def _a(self) -> None:
        if self.n > 0:
            self.n -= 1
            self._b()

    def _b(self) -> None:
        self._a()

    def close(self) -> None:
        self.open = False

    def refill(self) -> None:
        if self.n > 0:
            raise ValueError("not empty")
        self.n = 3
        self.open = True
''', {"n": [0, 1, 2, 3], "open": BOOLS}, exact=False, unknown="recursion"))
CASES.append(
    # a list's bound method handed to a helper (`self._each(files.append)`, as
    # ftplib.FTP.nlst hands one to retrlines): the method names its list by the caller's
    # expression, which the callee would have read in its own frame (its own `files`, or
    # none: an internal error); it is now an untranslated call, its answers may
    Case("list_method_passed_to_a_helper", '''
class C:
    def __init__(self) -> None:
        self.done = False

    def _each(self, callback) -> None:
        files = [0]
        callback(1)
        callback(2)
        callback(3)
        files.append(4)

    def collect(self) -> None:
        if self.done:
            raise ValueError("collected already")
        files: list[int] = []
        self._each(files.append)
        if len(files) > 2:
            self.done = True

    def reset(self) -> None:
        if not self.done:
            raise ValueError("nothing collected")
        self.done = False
''', {"done": BOOLS}, exact=False, unknown="passed to _each()"))
CASES.append(
    # the same with no list of that name in the helper, and the helper reassigning a
    # parameter that holds a method of the class: both untranslated, never a crash
    Case("methods_passed_to_a_helper_and_reassigned", '''
class C:
    def __init__(self) -> None:
        self.done = False
        self.count = 0

    def _each(self, callback) -> None:
        callback(1)

    def _note(self, x: int) -> None:
        self.count = 1

    def _maybe(self, callback, other: bool) -> None:
        if other:
            callback = self._note
        callback(2)

    def collect(self) -> None:
        if self.done:
            raise ValueError("collected already")
        seen: list[int] = []
        self._each(seen.append)
        if len(seen) > 0:
            self.done = True

    def note(self, other: bool) -> None:
        self._maybe(self._note, other)
        if self.count == 1:
            self.done = False

    def reset(self) -> None:
        if not self.done:
            raise ValueError("nothing collected")
        self.done = False
''', {"done": BOOLS, "count": [0, 1]}, {"note": {"other": BOOLS}}, exact=False, unknown="passed to _each()"))

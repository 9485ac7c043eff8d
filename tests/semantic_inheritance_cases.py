"""Semantic rules of inheritance (contractor/contracts/inherit.py) as a table of small
classes `C` with their bases, each compared with the brute force by tests/test_semantics.py
(the real class run on concrete objects, its contracts inherited as each dialect does)."""

from __future__ import annotations

from semantic_cases import BOOLS, Case

INHERITANCE_CASES = [
    # fields, invariant, constructor (super().__init__ with an argument) and an inherited action
    Case("inherit_fields_invariant_constructor_and_action", '''
class B:
    """inv: 0 <= self.n <= 2"""

    def __init__(self, start: int) -> None:
        self.n = start

    def up(self) -> None:
        """pre: self.n < 2"""
        self.n += 1


class C(B):
    def __init__(self) -> None:
        super().__init__(1)
        self.done = False

    def finish(self) -> None:
        """pre: self.n == 2 and not self.done"""
        self.done = True
''', {"n": [0, 1, 2], "done": BOOLS}),
    # Base.__init__(self, ...) and Base.m(self) called explicitly
    Case("inherit_explicit_base_calls", '''
class B:
    def __init__(self, on: bool) -> None:
        self.on = on

    def toggle(self) -> None:
        self.on = not self.on


class C(B):
    def __init__(self) -> None:
        B.__init__(self, True)
        self.flips = 0

    def toggle(self) -> None:
        """pre: self.flips < 2"""
        B.toggle(self)
        self.flips += 1

    def reset(self) -> None:
        """pre: not self.on"""
        self.flips = 0
''', {"on": BOOLS, "flips": [0, 1, 2]}),
    # PEP 316 (as CrossHair reads it): an override without a precondition keeps the base's,
    # one with its own precondition replaces it
    Case("inherit_pep316_override_preconditions", '''
class B:
    def __init__(self) -> None:
        self.a = False
        self.b = False

    def set_a(self) -> None:
        """pre: not self.a"""
        self.a = True

    def set_b(self) -> None:
        """pre: not self.b and not self.a"""
        self.b = True


class C(B):
    def set_a(self) -> None:
        self.a = True
        self.b = False

    def set_b(self) -> None:
        """pre: not self.b"""
        self.b = True

    def clear(self) -> None:
        """pre: self.a or self.b"""
        self.a = False
        self.b = False
''', {"a": BOOLS, "b": BOOLS}),
    # icontract.DBC: an override's preconditions are or-ed with the base's ("require else")
    Case("inherit_icontract_dbc_or_preconditions", '''
import icontract


@icontract.invariant(lambda self: 0 <= self.n <= 3)
class B(icontract.DBC):
    def __init__(self) -> None:
        self.n = 0

    @icontract.require(lambda self: self.n < 1)
    def up(self) -> None:
        self.n += 1

    @icontract.require(lambda self: self.n > 0)
    def down(self) -> None:
        self.n -= 1


class C(B):
    @icontract.require(lambda self: self.n == 2)
    def up(self) -> None:
        self.n += 1
''', {"n": [0, 1, 2, 3]}),
    # without icontract.DBC an override carries only its own contracts
    Case("inherit_icontract_without_dbc_own_preconditions_only", '''
import icontract


@icontract.invariant(lambda self: 0 <= self.n <= 2)
class B:
    def __init__(self) -> None:
        self.n = 0

    @icontract.require(lambda self: self.n < 1)
    def up(self) -> None:
        self.n = min(self.n + 1, 2)


class C(B):
    def up(self) -> None:
        self.n = min(self.n + 1, 2)

    @icontract.require(lambda self: self.n > 0)
    def down(self) -> None:
        self.n -= 1
''', {"n": [0, 1, 2]}),
    # deal: the invariant is inherited, a precondition belongs to the function carrying it
    Case("inherit_deal_invariant_but_not_preconditions", '''
import deal


@deal.inv(lambda self: self.n <= 2)
class B:
    def __init__(self) -> None:
        self.n = 0

    @deal.pre(lambda self: self.n == 0)
    def up(self) -> None:
        self.n += 1


class C(B):
    def up(self) -> None:
        self.n = min(self.n + 1, 2)

    def reset(self) -> None:
        self.n = 0
''', {"n": [0, 1, 2]}),
    # C3: class C(L, R) with L(Base), R(Base); the first definition in the MRO wins, and
    # cooperative super() calls run every class once, in MRO order
    Case("inherit_c3_diamond_cooperative_super", '''
class Base:
    def __init__(self) -> None:
        self.log = 0

    def step(self) -> None:
        self.log = self.log * 2 + 1


class L(Base):
    def step(self) -> None:
        """pre: self.log < 4"""
        self.log = self.log * 2
        super().step()

    def left(self) -> None:
        self.log = 0


class R(Base):
    def step(self) -> None:
        self.log = self.log + 1
        super().step()

    def left(self) -> None:
        self.log = 7


class C(L, R):
    """inv: 0 <= self.log <= 15"""
''', {"log": list(range(16))}),
    # private names are per class: Base's self.__on is _Base__on, C's is _C__on
    Case("inherit_private_names_are_per_class", '''
class Base:
    def __init__(self) -> None:
        self.__on = False

    def base_on(self) -> None:
        """pre: not self.__on"""
        self.__on = True


class C(Base):
    def __init__(self) -> None:
        super().__init__()
        self.__on = False

    def c_on(self) -> None:
        """pre: not self.__on"""
        self.__on = True

    def reset(self) -> None:
        """pre: self.__on"""
        self.__on = False
''', {"_Base__on": BOOLS, "_C__on": BOOLS}),
    # super().__init__() that reaches object, and object.__init__(self), do nothing
    Case("inherit_object_init_is_a_no_op", '''
class B(object):
    def __init__(self) -> None:
        super().__init__()
        self.on = False


class C(B):
    def __init__(self) -> None:
        object.__init__(self)
        B.__init__(self)

    def go(self) -> None:
        """pre: not self.on"""
        self.on = True
''', {"on": BOOLS}),
    # a dataclass inheriting a dataclass: the constructor takes the base's fields first
    # (Python collects them in reverse MRO order), then its own
    Case("inherit_dataclass_fields_in_the_constructor", '''
from dataclasses import dataclass


@dataclass
class B:
    n: int = 0
    on: bool = False

    def up(self) -> None:
        if self.n >= 2:
            raise ValueError("full")
        self.n += 1


@dataclass
class C(B):
    """inv: 0 <= self.n <= 2"""
    done: bool = False

    def finish(self) -> None:
        if self.n != 2 or self.done:
            raise ValueError("not yet")
        self.done = True
''', {"n": [0, 1, 2], "on": BOOLS, "done": BOOLS},
        {"__init__": {"n": [0, 1, 2], "on": BOOLS, "done": BOOLS}}, preconditions="implicit"),
    # a plain class inheriting a dataclass: the base's generated constructor, and its
    # __post_init__, are the subclass's
    Case("inherit_a_dataclass_constructor_into_a_plain_class", '''
from dataclasses import dataclass


@dataclass
class B:
    n: int = 0

    def __post_init__(self) -> None:
        self.ready = self.n > 0


class C(B):
    """inv: 0 <= self.n <= 2"""

    def use(self) -> None:
        if not self.ready:
            raise ValueError("not ready")
        self.n = 0
        self.ready = False

    def refill(self) -> None:
        self.n = 2
        self.ready = True
''', {"n": [0, 1, 2], "ready": BOOLS}, {"__init__": {"n": [0, 1, 2]}}, preconditions="implicit"),
    # class-level private names are per class too: B's `__limit` is `_B__limit`, C's `_C__limit`
    Case("inherit_class_level_private_names", '''
class B:
    """inv: 0 <= self.n <= 3"""
    __limit = 2

    def __init__(self) -> None:
        self.n = 0

    def up(self) -> None:
        if self.n >= self.__limit:
            raise ValueError("full")
        self.n += 1


class C(B):
    __limit = 5

    def reset(self) -> None:
        if self.n < self.__limit - 4:
            raise ValueError("nothing to reset")
        self.n = 0
''', {"n": [0, 1, 2, 3]}, preconditions="implicit"),
]

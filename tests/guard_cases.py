"""Raise-guard rules (implicit preconditions) as semantic cases, checked like the others
against the brute force, whose oracle runs each method on a copy of the object: enabled
iff that run does not end in an explicit `raise` or failing `assert` of the class's file.
"""

from __future__ import annotations

import ast

from semantic_cases import BOOLS, Case

GUARD_CASES = [
    # a guard on a str argument: z3's quantifier elimination takes no strings; its atoms
    # about the argument alone are Booleans the argument chooses (guardqe.py), so the
    # enabledness is exact (before: an unknown predicate, four states all may)
    Case("guard_on_a_string_argument", '''class C:
    def __init__(self) -> None:
        self.state = "idle"

    def open(self) -> None:
        if self.state == "open":
            raise RuntimeError("already open")
        self.state = "open"

    def send(self, cmd: str) -> None:
        if self.state != "open":
            raise RuntimeError("not open")
        if "\\n" in cmd or cmd.startswith(" "):
            raise ValueError("bad command")

    def close(self) -> None:
        self.state = "closed"
''', {"state": ["idle", "open", "closed"]}, {"send": {"cmd": ["x", "\n", " y"]}}),
    # a parameter of a type z3 does not model (ast.AST) is an untyped value, and `in` on a
    # field z3 does not model asks outside code: the guard on `open` is still read (before:
    # the whole guard was an unknown predicate)
    Case("guard_with_an_unmodelled_parameter_and_container", '''import ast


class C:
    def __init__(self) -> None:
        self.seen: dict[ast.AST, int] = {}
        self.open = True

    def visit(self, node: ast.AST) -> None:
        if not self.open:
            raise RuntimeError("closed")
        if node in self.seen:
            return

    def close(self) -> None:
        if not self.open:
            raise RuntimeError("closed twice")
        self.open = False
''', {"seen": [{}], "open": BOOLS}, {"visit": {"node": [ast.Name(id="x")]}},
         exact=False, findings=(("may_raise", "visit"),)),
    # a guard in a helper the method calls first (inlined)
    Case("guard_in_a_helper", '''class C:
    def __init__(self) -> None:
        self.open = True
        self.n = 0

    def _check(self) -> None:
        if not self.open:
            raise RuntimeError("closed")

    def bump(self) -> None:
        self._check()
        self.n = 1 - self.n

    def close(self) -> None:
        self._check()
        self.open = False
''', {"open": BOOLS, "n": [0, 1]}),
    # `if ok: ... else: raise`, and a raise deeper in the body after a write: the write on
    # the raising path must not count (transitions use normal termination only)
    Case("else_raise_and_a_raise_after_a_write", '''class C:
    """inv: 0 <= self.mode <= 2"""
    def __init__(self) -> None:
        self.mode = 0
        self.full = False

    def step(self) -> None:
        if self.mode < 2:
            self.mode += 1
        else:
            raise ValueError("done")

    def fill(self) -> None:
        self.full = True
        if self.mode == 1:
            raise ValueError("busy")

    def reset(self) -> None:
        assert self.full, "not full"
        self.mode = 0
        self.full = False
''', {"mode": [0, 1, 2], "full": BOOLS}, preconditions="implicit"),
    # an exception of a Python operation is not a guard: divide is enabled where it
    # divides by zero (a may_raise finding), and has no transition from there
    Case("python_exceptions_are_not_guards", '''class C:
    def __init__(self) -> None:
        self.d = 1
        self.q = 0

    def divide(self) -> None:
        self.q = 6 // self.d

    def zero(self) -> None:
        if self.d == 0:
            raise ValueError("already zero")
        self.d = 0
''', {"d": [0, 1], "q": [0, 6]}, findings=(("may_raise", "divide"),)),
    # the guard quantifies over the arguments: enabled iff some argument passes
    Case("guard_with_parameters", '''class C:
    """inv: 0 <= self.n <= 3"""
    def __init__(self) -> None:
        self.n = 0

    def add(self, k: int) -> None:
        if k <= 0 or self.n + k > 3:
            raise ValueError("out of range")
        self.n += k

    def drain(self, all: bool) -> None:
        if self.n == 0:
            raise ValueError("empty")
        self.n = 0 if all else self.n - 1
''', {"n": [0, 1, 2, 3]}, {"add": {"k": [-1, 0, 1, 2, 3, 4]}, "drain": {"all": BOOLS}},
         preconditions="implicit"),
    # a method that always raises is never enabled
    Case("always_raises_is_never_enabled", '''class C:
    def __init__(self) -> None:
        self.on = False

    def toggle(self) -> None:
        self.on = not self.on

    def forbidden(self) -> None:
        if self.on:
            raise RuntimeError("on")
        raise RuntimeError("off")
''', {"on": BOOLS}, findings=(("never_enabled", "forbidden"),)),
    # --preconditions both: the declared precondition and the guard
    Case("declared_and_guards_together", '''class C:
    def __init__(self) -> None:
        self.a = False
        self.b = False

    def set_a(self) -> None:
        """pre: not self.a"""
        if self.b:
            raise RuntimeError("b is set")
        self.a = True

    def set_b(self) -> None:
        self.b = not self.b

    def clear(self) -> None:
        """pre: self.a"""
        self.a = False
''', {"a": BOOLS, "b": BOOLS}, preconditions="both"),
    # --preconditions implicit on a class with contracts: the declared preconditions are
    # not used, the guards are
    Case("implicit_ignores_declared_preconditions", '''class C:
    def __init__(self) -> None:
        self.a = False

    def on(self) -> None:
        """pre: not self.a"""
        self.a = True

    def off(self) -> None:
        """pre: self.a"""
        if not self.a:
            raise RuntimeError("already off")
        self.a = False
''', {"a": BOOLS}, preconditions="implicit"),
    # try/except: a guard raised in the body and caught is no guard; try/finally runs the
    # finally block and raises on, so the guard stays
    Case("try_except_catches_a_guard_finally_keeps_it", '''class C:
    """inv: 0 <= self.n <= 2"""
    def __init__(self) -> None:
        self.n = 0
        self.err = False

    def _step(self) -> None:
        if self.n >= 2:
            raise ValueError("too far")
        self.n += 1

    def step(self) -> None:
        try:
            self._step()
        except ValueError:
            self.err = True

    def strict(self) -> None:
        try:
            self._step()
        finally:
            self.err = False

    def clear(self) -> None:
        if not self.err:
            raise RuntimeError("no error")
        self.err = False
        self.n = 0
''', {"n": [0, 1, 2], "err": BOOLS}, preconditions="implicit"),
    # untyped code: an untyped parameter is opaque, a field assigned None and it is opaque;
    # z3 follows its None-ness and truth value, as the guards test them
    Case("untyped_values_none_and_truth", '''class C:
    def __init__(self) -> None:
        self.token = None
        self.used = False

    def take(self, token):
        if token is None:
            raise ValueError("no token")
        self.token = token
        self.used = False

    def use(self):
        if not self.token:
            raise RuntimeError("no usable token")
        self.used = True

    def drop(self):
        if self.token is None:
            raise RuntimeError("nothing to drop")
        self.token = None
''', {"token": [None, 0, "t"], "used": BOOLS}, {"take": {"token": [None, 0, "t"]}}),
]

GUARD_CASES.append(
    # hasattr(self, "...") decided from the class's source (z3backend/selfattrs.py): a
    # method the class defines is there, a name it defines nowhere is not, so the raise
    # guard behind each is exact (before, every state was may: `call to hasattr()`)
    Case("hasattr_on_self", '''class C:
    LIMIT = 2

    def __init__(self) -> None:
        self.n = 0

    def peek(self) -> int:
        return self.n

    def step(self) -> None:
        if not hasattr(self, "peek"):
            raise TypeError("cannot step")
        if hasattr(self, "rewind") or self.n >= self.LIMIT:
            raise ValueError("at the end")
        self.n += 1

    def back(self) -> None:
        if hasattr(self, "missing") or not hasattr(self, "LIMIT") or self.n == 0:
            raise ValueError("at the start")
        self.n -= 1
''', {"n": [-1, 0, 1, 2]}, exact=False))

GUARD_CASES.append(
    # `x in` None or an Optional[str] that is None raises Python's TypeError (opexprs.compare):
    # not a guard, a may_raise finding, and on paths that test `is not None` first (jinja2's
    # Node.iter_fields: `only is not None and name in only`) nothing at all (before, the
    # whole method was untranslated: "`in` on None", "`in` on Optional[str]")
    Case("membership_in_none", '''from typing import Optional


class C:
    def __init__(self) -> None:
        self.tags: Optional[str] = None
        self.used = False

    def _allowed(self, name: str, only: Optional[str] = None) -> bool:
        return only is None or name in only

    def tag(self, tags: str) -> None:
        if self.tags is not None:
            raise ValueError("tagged already")
        self.tags = tags

    def hit(self, name: str) -> None:
        if self.used or not self._allowed(name, None):
            raise ValueError("no more")
        self.used = True

    def check(self, name: str) -> None:
        if name not in self.tags:
            raise KeyError(name)
        self.used = False
''', {"tags": [None, "", "a"], "used": BOOLS},
        {"tag": {"tags": ["", "a"]}, "hit": {"name": ["", "a"]}, "check": {"name": ["", "a", "b"]}},
        findings=(("may_raise", "check"),)))

GUARD_CASES.append(
    # a tuple literal handed to a `tuple[str, ...]` parameter (read as a list of str): its
    # items in order (values.coerce), so pytest's FDCapture protocol `_assert_state(op,
    # ("started", "suspended"))` is read (before: "a tuple[str, str] value where list[str]
    # is expected", every method may)
    Case("tuple_argument_for_a_variadic_tuple_parameter", '''class C:
    def __init__(self) -> None:
        self._state = "initialized"

    def _assert_state(self, op: str, states: tuple[str, ...]) -> None:
        assert self._state in states, "cannot " + op

    def start(self) -> None:
        self._assert_state("start", ("initialized",))
        self._state = "started"

    def suspend(self) -> None:
        self._assert_state("suspend", ("started", "suspended"))
        if self._state == "suspended":
            return
        self._state = "suspended"

    def done(self) -> None:
        self._assert_state("done", ("initialized", "started", "suspended", "done"))
        self._state = "done"

    def reset(self) -> None:
        self._assert_state("reset", ())
''', {"_state": ["initialized", "started", "suspended", "done", "other"]},
        findings=(("never_enabled", "reset"),)))

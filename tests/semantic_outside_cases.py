"""Rules for code outside the analysed source (z3backend/outside.py, reach.py) as semantic
cases, checked against the brute force like the others: what a call to a module function
or a method of an untyped object can change (the objects handed to it, seen through every
place holding them), and what the raise guards assume about it.
"""

from __future__ import annotations

import contextlib

from semantic_cases import BOOLS, Case


class Box:
    """An object of a domain that takes attributes (a node); all boxes are alike."""

    next: object = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Box)

    def __hash__(self) -> int:
        return 0


class Grabby:
    """An untyped object whose operators change what they are handed (a list gets an item,
    an object with a `flag` gets it set) and itself (it turns falsy): operators on untyped
    objects are outside code (outside.py, operator_call)."""

    def __init__(self) -> None:
        self.full = True

    def _grab(self, other: object) -> None:
        self.full = False
        if isinstance(other, list):
            other.append(1)
        elif hasattr(other, "flag"):
            other.flag = True  # type: ignore[attr-defined]

    def __bool__(self) -> bool:
        return self.full

    def __eq__(self, other: object) -> bool:
        self._grab(other)
        return False

    __hash__ = object.__hash__

    def __lt__(self, other: object) -> bool:
        self._grab(other)
        return False

    def __add__(self, other: object) -> Grabby:
        self._grab(other)
        return self

    __radd__ = __add__

    def __contains__(self, item: object) -> bool:
        self._grab(item)
        return False

    def __getitem__(self, key: object) -> int:
        self._grab(key)
        return 0

    def __setitem__(self, key: object, value: object) -> None:
        self.full = False
        self.kept = value

    def __neg__(self) -> Grabby:
        self.full = False
        return self

    def keep(self) -> None:
        kept = getattr(self, "kept", None)
        if isinstance(kept, list):
            kept.append(2)


OUTSIDE_CASES = [
    # a module function (outside code) mutates the untyped list it is handed: its truth
    # may change, so `flush` becomes enabled after `add`
    Case("outside_function_changes_an_untyped_argument", '''def fill(buf, x):
    buf.append(x)


def make():
    return []


class C:
    def __init__(self) -> None:
        self.buf = []
        self.buf = make()

    def add(self, x) -> None:
        fill(self.buf, x)

    def flush(self) -> None:
        if not self.buf:
            raise ValueError("empty")
        self.buf = []
''', {"buf": [[], [1]]}, {"add": {"x": [1]}}, exact=False),
    # a method called on a local holding the field's object changes the field's object
    # (the same identity, seen through both places)
    Case("outside_method_on_an_alias_changes_the_field", '''class C:
    def __init__(self, buf) -> None:
        self.buf = buf

    def add(self, x) -> None:
        b = self.buf
        b.append(x)

    def flush(self) -> None:
        if not self.buf:
            raise ValueError("empty")
        self.buf.clear()
''', {"buf": [[], [1]]}, {"__init__": {"buf": [[], [1]]}, "add": {"x": [1]}}, exact=False),
    # a typed list inside an Optional, handed to outside code: its contents may change
    Case("outside_function_changes_an_optional_list", '''from typing import Optional


def fill(items, x):
    if items is not None:
        items.append(x)


class C:
    def __init__(self) -> None:
        self.items: Optional[list[int]] = []

    def add(self, x: int) -> None:
        fill(self.items, x)

    def take(self) -> None:
        if not self.items:
            raise ValueError("empty")
        self.items = []

    def drop(self) -> None:
        self.items = None
''', {"items": [None, [], [1]]}, {"add": {"x": [1]}}, exact=False),
    # using None as an object raises AttributeError, a Python exception and not a guard:
    # send is enabled where the socket is None, whatever the flag after it (the guard
    # reading assumes outside code returns normally, but None has no methods)
    Case("none_receiver_raises_before_a_guard", '''class C:
    def __init__(self) -> None:
        self.sock = None
        self.ok = False

    def connect(self, s) -> None:
        if s is None:
            raise ValueError("no socket")
        self.sock = s
        self.ok = True

    def send(self) -> None:
        self.sock.append(1)
        if not self.ok:
            raise RuntimeError("not ready")

    def reset(self) -> None:
        self.ok = False
''', {"sock": [None, []], "ok": BOOLS}, {"connect": {"s": [None, []]}}, exact=False,
        findings=(("may_raise", "send"),)),
]
OUTSIDE_CASES.append(
    # an untyped context manager may swallow what its body raises: the method then
    # finishes normally with the writes made before the raise (a transition to keep)
    Case("outside_context_manager_may_swallow", '''import contextlib


class C:
    def __init__(self) -> None:
        self.cm = contextlib.suppress(ZeroDivisionError)
        self.n = 1
        self.done = False

    def zero(self) -> None:
        self.n = 0

    def fix(self) -> None:
        if self.n != 0:
            raise ValueError("not zero")
        self.n = 1

    def finish(self) -> None:
        with self.cm:
            self.done = True
            self.n = 1 // self.n

    def again(self) -> None:
        if not self.done:
            raise RuntimeError("not finished")
        self.done = False
''', {"cm": [contextlib.suppress(ZeroDivisionError)], "n": [0, 1], "done": BOOLS}, exact=False))
OUTSIDE_CASES.append(
    # while reading raise guards, a value outside code returns is taken to be usable (the
    # call returns normally, and not a None its caller would trip on): the guard after it
    # decides, as it does for the real helper
    Case("guards_take_outside_results_as_usable", '''def make():
    return []


class C:
    def __init__(self) -> None:
        self.bad = False

    def spoil(self) -> None:
        self.bad = True

    def use(self) -> None:
        x = make()
        x.append(1)
        if self.bad:
            raise RuntimeError("spoilt")
''', {"bad": BOOLS}, exact=False))
OUTSIDE_CASES.append(
    # `sys.audit` hands `self` to the audit hooks, which observe it: the guard after it
    # and the fields before it stay exact (the standard library audits `self` in every
    # socket-using class)
    Case("audit_hooks_observe_self", '''import sys


class C:
    def __init__(self) -> None:
        self.sock = None

    def connect(self, sock) -> None:
        sys.audit("c.connect", self, sock)
        self.sock = sock

    def send(self) -> None:
        if self.sock is None:
            raise ValueError("not connected")
        sys.audit("c.send", self)

    def close(self) -> None:
        self.sock = None
''', {"sock": [None, 1]}, {"connect": {"sock": [None, 1]}}, exact=False))
OUTSIDE_CASES.append(
    # a reply loop that outside code keeps going (`while True` until the peer's line says
    # stop), collecting untyped lines in a local `[]`: unrolled OUTSIDE_ROUNDS times, the
    # rest unknown; the guard is exact (the first rounds already leave the loop), and so is
    # the helper's result unpacked where it returns on some paths only
    Case("reply_loop_that_outside_code_keeps_going", '''def peer(k):
    return "-" if k < 3 else "ok"


class C:
    def __init__(self) -> None:
        self.open = True
        self.n = 0

    def _reply(self):
        resp = []
        k = 0
        while True:
            if not self.open:
                raise ValueError("closed")
            line = peer(k)
            k += 1
            resp.append(line)
            if line != "-":
                break
        return k, resp

    def getreply(self) -> None:
        code, msg = self._reply()
        self.n = 1 if code > 2 else 2

    def close(self) -> None:
        self.open = False
''', {"open": BOOLS, "n": [0, 1, 2]}, exact=False))

OUTSIDE_CASES.append(
    # a for-loop over an untyped argument (handlers.run_opaque_for): the fields its body
    # writes are arbitrary after it on every path, the iterating one and the other; the
    # brute force feeds it empty and non-empty lists, and no answer may be a wrong must
    Case("for_loop_over_an_untyped_argument", '''class C:
    def __init__(self) -> None:
        self.count = 0
        self.seen = False

    def feed(self, items) -> None:
        for _ in items:
            self.count += 1
            self.seen = True

    def drain(self) -> None:
        if self.count <= 0:
            raise ValueError("nothing")
        self.count -= 1

    def reset(self) -> None:
        if not self.seen:
            raise ValueError("nothing seen")
        self.seen = False
''', {"count": [0, 1, 2], "seen": BOOLS}, {"feed": {"items": [[], [1], [1, 1]]}}, exact=False))

OUTSIDE_CASES.append(
    # a field declared as an Optional of another class of the file (a linked list's head):
    # z3 does not model Node, so the field is opaque (fieldtypes.py), and its None-ness
    # decides the guards exactly; it used to be "not understood", every answer may
    Case("field_declared_as_another_class_is_opaque", '''from typing import Optional


class Node:
    def __init__(self, value: int) -> None:
        self.value = value


class C:
    def __init__(self) -> None:
        self.head = None  # type: Optional[Node]
        self.tail: Optional[Node] = None

    def push(self, value: int) -> None:
        if self.head is not None:
            raise ValueError("full")
        self.head = Node(value)
        self.tail = self.head

    def pop(self) -> None:
        if self.head is None:
            raise ValueError("empty")
        self.head = None

    def forget(self) -> None:
        if self.tail is None or self.head is not None:
            raise ValueError("nothing to forget")
        self.tail = None
''', {"head": [None, "a node"], "tail": [None, "a node"]}, {"push": {"value": [1]}}))

OUTSIDE_CASES.append(
    # `obj.attr = v` on an untyped object (stores.py): outside code that may change that
    # object, never the analysed one's fields; a linked list's append through its tail
    Case("attribute_assignment_on_an_untyped_object", '''class Node:
    def __init__(self) -> None:
        self.next = None


class C:
    def __init__(self) -> None:
        self.head = None
        self.tail = None

    def add(self) -> None:
        node = Node()
        if self.tail is None:
            self.head = node
        else:
            self.tail.next = node
        self.tail = node

    def clear(self) -> None:
        if self.head is None:
            raise ValueError("empty")
        self.head = None
        self.tail = None
''', {"head": [None, Box()], "tail": [None, Box()]}))

OUTSIDE_CASES.append(
    # a parameter typed as another class of the file is an untyped value (semantics.params):
    # the caller's object, None too (annotations are not enforced); it used to make the
    # method's enabledness unknown
    Case("parameter_typed_as_another_class", '''from typing import Optional


class Node:
    def __init__(self, value: int) -> None:
        self.value = value


class C:
    def __init__(self) -> None:
        self.head: Optional[Node] = None

    def put(self, node: Node) -> None:
        if self.head is not None:
            raise ValueError("full")
        self.head = node

    def take(self) -> None:
        if self.head is None:
            raise ValueError("empty")
        self.head = None
''', {"head": [None, Box()]}, {"put": {"node": [None, Box()]}}))
OUTSIDE_CASES.append(
    # `del obj[k]` on an untyped object runs its __delitem__ (outside code): the object
    # may change (here it empties, so `use` is disabled after it), and its KeyError is a
    # finding, not a guard
    Case("del_of_an_item_of_an_untyped_object", '''def make():
    return {}


class C:
    def __init__(self) -> None:
        self.buf = make()

    def put(self) -> None:
        self.buf[1] = 2

    def remove(self) -> None:
        del self.buf[1]

    def use(self) -> None:
        if not self.buf:
            raise ValueError("empty")
''', {"buf": [{}, {1: 2}]}, exact=False))
OUTSIDE_CASES.append(
    # a list of untyped values is a new untyped object holding them: outside code handed
    # the list may change the objects it holds (fill empties or fills the buffer through
    # the list), whether the list was written `[a, b]`, filled by append on `[]`, or
    # appended to after it was built
    Case("a_list_of_untyped_values_holds_them", '''def fill(parts):
    for p in parts:
        if isinstance(p, list):
            p.append(1)


def drain(parts):
    for p in parts:
        if isinstance(p, list):
            p.clear()


class C:
    def __init__(self, buf) -> None:
        self.buf = buf

    def add(self) -> None:
        fill([self.buf, 0])

    def add_later(self) -> None:
        parts = []
        parts.append(self.buf)
        fill(parts)

    def add_appended(self) -> None:
        parts = [0, "a"]
        parts.append(self.buf)
        fill(parts)

    def empty(self) -> None:
        drain([self.buf])

    def flush(self) -> None:
        if not self.buf:
            raise ValueError("empty")
''', {"buf": [[], [1]]}, {"__init__": {"buf": [[], [1]]}}, exact=False))
OUTSIDE_CASES.append(
    # a bytes constant and what bytes' own methods and operators give (`b"".join(...)`,
    # `b"..." % (...)`, `str.encode`) are exactly bytes (pytypes.py): hasattr and
    # isinstance on them have one answer, through locals, inlined calls and outside code
    # that was handed them; send_file is never enabled (bytes has no `read`)
    Case("bytes_values_decide_hasattr_and_isinstance", '''import collections.abc
import io


def source():
    return [b"a", b"b"]


class C:
    def __init__(self) -> None:
        self.parts = source()
        self.sent = False

    def send(self) -> None:
        msg = b"\\r\\n".join(self.parts)
        self._write(msg)

    def send_formatted(self) -> None:
        self._write(b"n=%d" % (3,))

    def send_text(self, n: int) -> None:
        self._write(str(n).encode("ascii"))

    def send_file(self) -> None:
        data = b"x" + b"y"
        print(data)
        if not hasattr(data, "read"):
            raise TypeError("not a file")
        self.sent = True

    def _write(self, data) -> None:
        print(data)
        if hasattr(data, "read"):
            raise TypeError("a file")
        if isinstance(data, io.TextIOBase) or not isinstance(data, (bytes, bytearray)):
            raise TypeError("not bytes")
        if not isinstance(data, collections.abc.Iterable):
            raise TypeError("not iterable")
        self.sent = True

    def reset(self) -> None:
        if not self.sent:
            raise ValueError("nothing sent")
        self.sent = False
''', {"parts": [[b"a", b"b"]], "sent": BOOLS}, {"send_text": {"n": [1]}}, exact=False,
        findings=(("never_enabled", "send_file"),)))
OUTSIDE_CASES.append(
    # a for-loop over an untyped value havocs what its body (with the methods it calls)
    # may write, not everything the analysed method writes: `state`, set before the
    # helper's loop, stays "Started" (it made every target state reachable, as may)
    Case("for_over_an_untyped_value_havocs_what_its_body_writes", '''class C:
    def __init__(self) -> None:
        self.state = "Idle"
        self.count = 0

    def start(self, headers) -> None:
        if self.state != "Idle":
            raise ValueError("busy")
        self.state = "Started"
        self._add(headers)

    def _add(self, headers) -> None:
        for h in headers:
            self.count = 1

    def finish(self) -> None:
        if self.state != "Started":
            raise ValueError("not started")
        self.state = "Idle"
        self.count = 0
''', {"state": ["Idle", "Started"], "count": [0, 1]}, {"start": {"headers": [[], [1]]}}))
OUTSIDE_CASES.append(
    # indexing what a helper returns on some paths only (an Optional tuple): a TypeError
    # where it is None (not a guard), the item elsewhere (smtplib: `self.ehlo()[0]`)
    Case("indexing_an_optional_tuple", '''class C:
    def __init__(self) -> None:
        self.code = 0
        self.open = False

    def _reply(self):
        if self.open:
            return (250, "ok")

    def check(self) -> None:
        if not (200 <= self._reply()[0] <= 299):
            raise ValueError("bad reply")
        self.code = self._reply()[0]

    def toggle(self) -> None:
        self.open = not self.open

    def clear(self) -> None:
        if self.code == 0:
            raise ValueError("nothing")
        self.code = 0
''', {"code": [0, 250], "open": BOOLS}))
OUTSIDE_CASES.append(
    # the field's untyped object comes back from a helper inside a tuple, merged over the
    # helper's two returns: outside code handed the tuple's item changes the field's
    # object too (reach.py reads the identity through the tuple and both returns)
    Case("outside_code_changes_an_object_returned_in_a_tuple", '''def fill(buf, x):
    buf.append(x)


def make():
    return []


class C:
    def __init__(self) -> None:
        self.buf = []
        self.buf = make()

    def _pair(self, flag: bool):
        if flag:
            return 1, self.buf
        return 2, self.buf

    def add(self, x, flag: bool) -> None:
        code, b = self._pair(flag)
        fill(b, x)

    def flush(self) -> None:
        if not self.buf:
            raise ValueError("empty")
        self.buf = []
''', {"buf": [[], [1]]}, {"add": {"x": [1], "flag": BOOLS}}, exact=False))
OUTSIDE_CASES.append(
    # an operator on an untyped object runs its code (__eq__, reflected __eq__, __lt__,
    # __add__, __radd__, __contains__, __getitem__), handed the other operand: the list field
    # may grow, so `flush` becomes enabled after each (outside.py, operator_call)
    Case("operators_on_an_untyped_value_change_a_list_operand", '''class C:
    def __init__(self, key) -> None:
        self.key = key
        self.items: list[int] = []

    def probe(self) -> None:
        if self.key == self.items:
            raise ValueError("equal")

    def reflected(self) -> None:
        if self.items != self.key:
            return

    def order(self) -> None:
        if self.key < self.items:
            raise ValueError("less")

    def plus(self) -> None:
        print(self.key + self.items)

    def plus_right(self) -> None:
        print(self.items + self.key)

    def look(self) -> None:
        if self.items in self.key:
            raise ValueError("in")

    def index(self) -> None:
        print(self.key[self.items])

    def flush(self) -> None:
        if not self.items:
            raise ValueError("empty")
        self.items = []
''', {"key": [Grabby()], "items": [[], [1]]}, {"__init__": {"key": [Grabby()]}}, exact=False))
OUTSIDE_CASES.append(
    # the untyped object's own operators (unary -, ==, an item read, an item stored) may
    # change its truth, as its methods may (reach.py): `check` becomes disabled
    Case("operators_on_an_untyped_value_change_the_value", '''class C:
    def __init__(self, key) -> None:
        self.key = key

    def negate(self) -> None:
        print(-self.key)

    def equal(self) -> None:
        if self.key == 1:
            return

    def read(self) -> None:
        print(self.key[0])

    def write(self) -> None:
        self.key[0] = 1

    def check(self) -> None:
        if not self.key:
            raise ValueError("empty")
''', {"key": [Grabby()]}, {"__init__": {"key": [Grabby()]}}, exact=False))
OUTSIDE_CASES.append(
    # `self` handed to an untyped object's __eq__: it may set the object's own flag; the
    # path is not followed (its answers may), the transition to `reset` kept
    Case("self_handed_to_an_untyped_values_operator", '''class C:
    def __init__(self, key) -> None:
        self.key = key
        self.flag = False

    def same(self) -> None:
        if self.key == self:
            raise ValueError("same")

    def reset(self) -> None:
        if not self.flag:
            raise ValueError("no flag")
        self.flag = False
''', {"key": [Grabby()], "flag": BOOLS}, {"__init__": {"key": [Grabby()]}}, exact=False,
        unknown="an object of the class handed to an untyped value's operator"))
OUTSIDE_CASES.append(
    # a list field stored into an untyped object by item assignment is kept by it: a later
    # call on the object may grow it (the path is not followed: the object's item aliases
    # the field)
    Case("a_list_stored_into_an_untyped_object_by_item", '''class C:
    def __init__(self, store) -> None:
        self.store = store
        self.items: list[int] = []

    def keep(self) -> None:
        self.store[0] = self.items
        self.store.keep()

    def flush(self) -> None:
        if not self.items:
            raise ValueError("empty")
        self.items = []
''', {"store": [Grabby()], "items": [[], [1]]}, {"__init__": {"store": [Grabby()]}}, exact=False,
        unknown="a field made to share another list (aliasing)"))
OUTSIDE_CASES.append(
    # an operator on an untyped value may raise (its __getitem__ a KeyError, its __lt__,
    # __neg__ or __add__ a TypeError): a may_raise finding, as for a call to outside code
    Case("operators_on_an_untyped_value_may_raise", '''class C:
    def __init__(self, table) -> None:
        self.table = table
        self.used = False

    def get(self) -> None:
        print(self.table["k"])
        self.used = True

    def order(self) -> None:
        if self.table < 1:
            self.used = True

    def negate(self) -> None:
        print(-self.table)

    def plus(self) -> None:
        print(self.table + 1)

    def reset(self) -> None:
        if not self.used:
            raise ValueError("unused")
        self.used = False
''', {"table": [{}], "used": BOOLS}, {"__init__": {"table": [{}]}}, exact=False,
        findings=(("may_raise", "get"), ("may_raise", "order"), ("may_raise", "negate"), ("may_raise", "plus"))))
OUTSIDE_CASES.append(
    # "breaks the invariant" asks about the declared invariant on an untyped field (put may
    # store None, clear does), not about the field's well-formedness as an opaque value
    # (None is falsy and has None's identity), which no run can break: checks.py
    Case("declared_invariant_on_an_untyped_field_is_checked", '''class C:
    """
    inv: self.buf is not None
    """

    def __init__(self) -> None:
        self.buf = [0]

    def put(self, x) -> None:
        self.buf = x

    def clear(self) -> None:
        self.buf = None

    def fresh(self) -> None:
        self.buf = [1]

    def use(self) -> None:
        if not self.buf:
            raise ValueError("empty")
        self.buf = []
''', {"buf": [[], [1]]}, {"put": {"x": [None, [], [1]]}},
        findings=(("breaks_invariant", "put"), ("breaks_invariant", "clear"))))

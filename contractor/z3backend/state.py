"""The symbolic execution state: objects' fields, local frames, and the path flags.

Execution is path-merging: there is one state, and every update made under a path
condition `g` is written as `x := If(g, new, old)`. Exceptions, returns, breaks and
untranslatable constructs set flags instead of forking, so a method's whole behaviour
is one formula per field, whatever its number of paths.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import z3

from contractor.z3backend.values import Val

SELF = 0  # the object ids of the analysed object and of its snapshot before a call (`__old__`)
OLD = -1
TRUE = z3.BoolVal(True)
FALSE = z3.BoolVal(False)
# true while reading raise guards (z3backend/guards.py): code outside the analysed source
# then returns normally. One translation of a method serves its guard (this set true) and
# its transitions (set false): oneread.py
READING_GUARDS = z3.Bool("reading!raise!guards")


@dataclass
class Site:
    """A place where some paths end abnormally: an exception or an untranslatable construct."""

    cond: z3.BoolRef
    what: str  # exception name, or the construct
    line: int
    method: str
    detail: str = ""
    explicit: bool = False  # an explicit `raise` or `assert` of the analysed code (a raise guard)


@dataclass
class Frame:
    """One method being executed: its locals and the values it returns."""

    method: str
    locals: dict[str, Val] = field(default_factory=dict)
    defined: dict[str, z3.BoolRef] = field(default_factory=dict)
    returns: list[tuple[z3.BoolRef, Val]] = field(default_factory=list)
    returned: z3.BoolRef = FALSE
    old: dict[str, Val] = field(default_factory=dict)  # parameters at entry, for __old__
    aliases: set[str] = field(default_factory=set)  # locals that may share a list with a field


@dataclass
class Loop:
    """The innermost loop being unrolled: the paths that left it by `break` or `continue`."""

    broke: z3.BoolRef = FALSE
    continued: z3.BoolRef = FALSE


@dataclass
class ExecState:
    """The symbolic heap (objects' fields by id) and how paths ended so far."""

    objects: dict[int, dict[str, Val]]
    raised: z3.BoolRef = FALSE
    explicit: z3.BoolRef = FALSE  # the paths that raised did so at an explicit raise or assert
    unknown: z3.BoolRef = FALSE
    raises: list[Site] = field(default_factory=list)
    unknowns: list[Site] = field(default_factory=list)
    next_object: int = 1
    depth: int = 0
    outside: z3.BoolRef = FALSE  # the paths that used a value chosen by outside code (outside.py)
    outside_sites: list[Site] = field(default_factory=list)
    deadline: float | None = None  # time.monotonic(): the run's budget; statements after it are not followed
    # statements the translation may still run (a method's share under a run's budget,
    # semantics.METHOD_SHARE_STATEMENTS); None: no bound
    statements_left: int | None = None
    # methods whose own translation ran past its share: a call of one stops this one (CalleePastShare)
    past_share: frozenset[str] = frozenset()
    # constraints on values the executor chose freely (the order a loop iterates a set in):
    # conjoined to the method's precondition in every query
    assumed: list[z3.BoolRef] = field(default_factory=list)

    def new_object(self, fields: dict[str, Val]) -> int:
        oid = self.next_object
        self.next_object += 1
        self.objects[oid] = fields
        return oid

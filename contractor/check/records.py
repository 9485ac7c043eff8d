"""What one analysis of a function (or a module's top level) observed, before it is judged:
per call site the states the receiver may be in there, per call of a client function
the states passed in, per created object the states it may be left in.

States are joined over every time the analysis reaches a site (loop iterations, the
paths through a `finally`), so the record holds the states at the fixpoint; whether a
site is a violation depends on the mode and is decided afterwards (`messages.py`).
"""

from __future__ import annotations

import ast
import enum
from dataclasses import dataclass, field

from contractor.check.domain import Event, Site, join_states
from contractor.check.protocol import Protocol


class Mode(enum.Enum):
    """Fusion's checking variants."""

    SOUND = "sound"  # report a call disabled in some possible state (no missed error)
    COMPLETE = "complete"  # report a call disabled in every possible state (no false alarm)


@dataclass(frozen=True)
class Options:
    mode: Mode = Mode.SOUND
    strict: bool = False  # objects of unknown state (parameters, fields) may be in any state


@dataclass
class CallRecord:
    """`text.method(...)` at `site` on an object of `protocol` in `states`."""

    site: Site
    text: str
    method: str
    protocol: Protocol
    states: dict[str, Event | None]
    roots: frozenset[str]  # the allocation atoms of the receiver's key


@dataclass
class HelperRecord:
    """A client function called at `site` with a tracked object as its `index`-th parameter."""

    site: Site
    callee: ast.FunctionDef | ast.AsyncFunctionDef  # the function's node
    callee_name: str
    index: int
    text: str
    protocol: Protocol
    states: dict[str, Event | None]
    roots: frozenset[str]


@dataclass
class LeakRecord:
    """An object with a --must-call obligation, and the states it may go out of scope in."""

    site: Site  # where it was created
    name: str
    protocol: Protocol
    states: dict[str, Event | None]
    scope: str  # "f()" or "the module"
    line: int  # where it first went out of scope
    dropped: bool = False  # by rebinding or `del` of its last variable (else the scope ended)


@dataclass
class Records:
    calls: dict[tuple[Site, str], CallRecord] = field(default_factory=dict)
    helpers: dict[tuple[Site, int], HelperRecord] = field(default_factory=dict)
    leaks: dict[Site, LeakRecord] = field(default_factory=dict)

    def call(self, site: Site, text: str, method: str, protocol: Protocol,
             states: dict[str, Event | None], roots: frozenset[str]) -> None:
        key = (site, method)
        old = self.calls.get(key)
        if old is None:
            self.calls[key] = CallRecord(site, text, method, protocol, states, roots)
        else:
            old.states = join_states(old.states, states)
            old.roots = old.roots | roots

    def helper(self, record: HelperRecord) -> None:
        key = (record.site, record.index)
        old = self.helpers.get(key)
        if old is None:
            self.helpers[key] = record
        else:
            old.states = join_states(old.states, record.states)
            old.roots = old.roots | record.roots

    def leak(self, record: LeakRecord) -> None:
        old = self.leaks.get(record.site)
        if old is None:
            self.leaks[record.site] = record
        else:
            old.states = join_states(old.states, record.states)

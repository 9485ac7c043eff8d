"""The package's exception hierarchy: every error a user can cause names where it comes from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class ContractorError(Exception):
    """Base class of every error contractor reports to its user."""


@dataclass(frozen=True)
class Location:
    """A place in a source file (1-based line, 0-based column, as in `ast`); shown as
    `path:line:col` with a 1-based column, as the findings and editors show it."""

    path: str
    line: int
    col: int = 0

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col + 1}"


class InputError(ContractorError):
    """The user's input (a target, a class, a contract) cannot be read.

    The message says which file, line and construct, so the CLI can print it as is.
    """

    def __init__(self, message: str, location: Location | None = None, construct: str | None = None):
        self.location = location
        self.construct = construct
        self.message = message
        prefix = f"{location}: " if location else ""
        suffix = f" [{construct}]" if construct else ""
        super().__init__(f"{prefix}{message}{suffix}")


class TargetNotFound(InputError):
    """A target names no class, or names several: the message lists candidates."""


class UnsupportedConstruct(ContractorError):
    """A construct the z3 translation does not handle.

    Raised inside the translator and caught by it: it never reaches the user as an
    error, but as an "unknown" (a may-transition and a note naming the construct).
    """

    def __init__(self, construct: str, location: Location | None = None, detail: str = ""):
        self.construct = construct
        self.location = location
        self.detail = detail
        where = f"{location}: " if location else ""
        super().__init__(f"{where}{construct}{': ' + detail if detail else ''}")


class TranslationOutOfTime(Exception):
    """The run's budget ran out while a method was being translated (executor.check_time),
    or the method ran past its share of it (executor.spend_statement: ClassSemantics
    then says so instead of the message below).
    Not an UnsupportedConstruct, so that no handler degrading one locally (an argument of
    outside code read as an opaque value, ...) goes on translating: it ends the method's
    translation, and ClassSemantics makes the whole method untranslated (its enabledness
    an unknown, its transitions may)."""

    def __init__(self, location: Location | None = None):
        self.location = location
        super().__init__("the time budget ran out while translating it (--budget)")


class CalleePastShare(TranslationOutOfTime):
    """A call of a method whose own translation ran past its share of the budget
    (semantics.METHOD_SHARE_STATEMENTS): inlined, its statements count toward the caller's
    share too, so the caller's translation stops at the call instead of running on to
    about where the callee's did (the caller untranslated, as past its share)."""

    def __init__(self, callee: str, location: Location | None = None):
        super().__init__(location)
        self.callee = callee


class BudgetSpent(Exception):
    """The run's deadline passed before a z3 query (Z3Backend.check): the explorer, which
    knows the budget is spent, ends the exploration partial (explore.py). Not an error of
    the input: never shown to users. `found`: the targets of the interrupted question
    (states a constructor or a method reaches) already found, which the partial typestate
    shows (a list of contractor.backend.Target)."""

    def __init__(self, message: str, found: list[Any] | None = None):
        super().__init__(message)
        self.found = list(found or [])


class TypestateError(AssertionError):
    """Raised by strengthened classes when a client calls a method that its current
    typestate does not enable (the PEP 316 dialect has no run-time checker of its own)."""

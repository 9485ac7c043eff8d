"""The checker's diagnostics: a violation per call site, helper call site and leaked object,
each naming the variable, its possible states with their enabled methods, the call that
led there, and the shortest call sequence that would make the code legal (Fugue's "did
you forget to call Connect?"). Rendering is `contractor.diagnostics`' job."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable

from contractor.check.domain import Event, Site
from contractor.check.protocol import Protocol
from contractor.check.records import Mode
from contractor.check.summaries import Checker, disabled
from contractor.columns import SourceLines
from contractor.diagnostics import Diagnostic, Related, Rule, Severity
from contractor.unexplored import UNEXPLORED


class Code(enum.Enum):
    CALL = "typestate-call"
    LEAK = "typestate-leak"


RULES = (
    Rule(Code.CALL.value, "A method is called on an object whose typestate may not enable it."),
    Rule(Code.LEAK.value, "An object goes out of scope before a --must-call method released it."),
    Rule("syntax-error", "A file found in a folder does not parse; it was not checked."),
)


def _where(event: Event | None, path: str) -> str:
    if event is None:
        return ""
    place = f"line {event.line}" if event.path == path else f"{event.path}:{event.line}"
    return f" (after {event.text} at {place})"


def describe(protocol: Protocol, states: dict[str, Event | None], path: str) -> str:
    """`S3 {alarm, close, start} (after door.stop() at line 9) or S5 {...}`."""
    return " or ".join(f"{protocol.label(s)}{_where(states[s], path)}" for s in sorted(states, key=_state_order))


def _state_order(state: str) -> tuple[int, str]:
    digits = state[1:]
    return (int(digits), state) if digits.isdigit() else (0, state)


def advice(sequence: tuple[str, ...] | None, none: str, states: Iterable[str] = ()) -> str:
    if sequence is None:
        if UNEXPLORED in states:
            return ("the typestate is partial: its exploration stopped before that state "
                    "(infer it again with a larger --budget or --max-states)")
        return none
    return f"call {' then '.join(f'{m}()' for m in sequence)} first"


def _enables(protocol: Protocol, method: str) -> Callable[[str], bool]:
    """Whether a state of `protocol` enables `method`."""
    return lambda state: method in protocol.surely[state]


def _at(site: Site, lines: SourceLines) -> tuple[str, int, int]:
    """The site's path, line and 1-based character column (its column is a byte offset)."""
    return site.path, site.line, lines.column(site.path, site.line, site.col)


def diagnostics(checker: Checker) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    lines = SourceLines()
    mode = checker.mode
    for analysis in checker.analyses:
        records = analysis.records
        for rec in records.calls.values():
            bad = disabled(rec.protocol, rec.method, rec.states, mode)
            if not bad:
                continue
            p = rec.protocol
            seq = p.enabling_sequence(frozenset(bad), _enables(p, rec.method))
            surely = any(rec.method not in p.enabled[s] for s in bad)  # else undecided in each
            message = (f"{p.name}.{rec.method}() {'is not enabled' if surely else 'may not be enabled'}: "
                       f"'{rec.text}' may be in state "
                       f"{describe(p, bad, rec.site.path)}; "
                       f"{advice(seq, f'no call sequence enables {rec.method}() from there', bad)}")
            out.append(Diagnostic(*_at(rec.site, lines), Severity.ERROR, message, Code.CALL.value))
        for helper in records.helpers.values():
            judged = checker.judge_helper(helper)
            if judged is None:
                continue
            bad, inner = judged
            p = helper.protocol
            seq = p.enabling_sequence(frozenset(bad), checker.helper_ok(helper))
            where = f"line {inner.site.line}" if inner.site.path == helper.site.path else \
                f"{inner.site.path}:{inner.site.line}"
            message = (f"{inner.protocol.name}.{inner.method}() is not enabled in {helper.callee_name}(): "
                       f"'{helper.text}' may be in state {describe(p, bad, helper.site.path)} when passed to "
                       f"{helper.callee_name}(), which calls {inner.text}.{inner.method}() at {where}; "
                       f"{advice(seq, f'no call sequence makes {helper.callee_name}() legal from there', bad)}")
            via = [Related(*_at(s, lines), "called from here") for s in inner.via]
            via.append(Related(*_at(inner.site, lines),
                               f"{inner.protocol.name}.{inner.method}() is not enabled here: "
                               f"'{inner.text}' may be in state "
                               f"{describe(inner.protocol, inner.states, inner.site.path)}"))
            out.append(Diagnostic(*_at(helper.site, lines), Severity.ERROR, message, Code.CALL.value, tuple(via)))
        for leak in records.leaks.values():
            p = leak.protocol
            bad = {s: e for s, e in leak.states.items() if s not in p.released}
            if not bad or (mode is Mode.COMPLETE and len(bad) < len(leak.states)):
                continue
            seq = p.enabling_sequence(frozenset(bad), p.released.__contains__)
            must = ", ".join(f"{m}()" for m in sorted(p.must_call))
            name = f" '{leak.name}'" if leak.name else ""
            message = (f"{p.name} object{name} is not released: it may go out of scope in state "
                       f"{describe(p, bad, leak.site.path)} without a call of {must}; "
                       f"{advice(seq, 'no call sequence releases it from there', bad)}")
            end = "its last reference is dropped here" if leak.dropped else f"{leak.scope} ends here"
            notes = (Related(leak.site.path, leak.line, 1, end),)
            out.append(Diagnostic(*_at(leak.site, lines), Severity.ERROR, message, Code.LEAK.value, notes))
    return out

"""One (state, method) answer of the z3 backend with what asking it recorded on the backend,
so that the answer can be given later, or in another process, with the same effect as in
one sequential run.

`Z3Backend.targets` notes untranslated constructs (`_unknowns`, `sem.unknowns`), findings
of the exploration (`_extra_findings`: their order is the findings' order in the output),
what the witnesses showed (`invariant_shown`, `shown_enabled`: `_shown`) and its query
count. `answer` asks, and takes the ordered records (the lists and the count) back off
the backend; `give` puts them on (the same or another process's backend) when the
explorer takes the answer, so they come in the explorer's order whoever asked and when.
Caches (the method solvers, reuse's part answers, havoc_states' listing) stay where the
question was asked: a process asking again makes more queries, never other answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from contractor.backend import Enabled, Target
from contractor.errors import BudgetSpent
from contractor.typestate import Finding, Unknown

if TYPE_CHECKING:
    from contractor.z3backend.backend import Z3Backend

UnknownKey = tuple[str, int, str]


@dataclass
class Answer:
    """The targets of one pair, or why there are none (`spent`: the run's budget ran out
    while asking, `found` the targets found by then; `error`: what was raised), with the
    records the asking left on the backend."""

    targets: list[Target] = field(default_factory=list)
    spent: str | None = None
    error: Exception | None = None
    unknowns: dict[UnknownKey, Unknown] = field(default_factory=dict)  # entries added or changed
    noted: list[Unknown] = field(default_factory=list)  # appended to sem.unknowns
    findings: list[Finding] = field(default_factory=list)  # appended to _extra_findings
    queries: int = 0

    @property
    def final(self) -> bool:
        """Whether the asking process stops after this answer (nothing later is asked)."""
        return self.spent is not None or self.error is not None


def answer(b: Z3Backend, source: Enabled, method: str) -> Answer:
    """`b.targets(source, method)` (b a Z3Backend), its ordered records taken off `b`."""
    unknowns = dict(b._unknowns)
    noted, findings, queries = len(b.sem.unknowns), len(b._extra_findings), b.n_queries
    out = Answer()
    try:
        out.targets = b.targets(source, method)
    except BudgetSpent as spent:
        out.spent, out.targets = str(spent), list(spent.found)
    except Exception as exc:  # raised when the explorer takes this answer, as it would have been here
        out.error = exc
    out.unknowns = {k: u for k, u in b._unknowns.items() if unknowns.get(k) != u}
    out.noted = b.sem.unknowns[noted:]
    del b.sem.unknowns[noted:]
    out.findings = b._extra_findings[findings:]
    del b._extra_findings[findings:]
    out.queries, b.n_queries = b.n_queries - queries, queries
    return out


def give(b: Z3Backend, a: Answer) -> list[Target]:
    """Put `a`'s records on `b` and return its targets (raising as the asking did)."""
    b._unknowns.update(a.unknowns)
    b.sem.unknowns.extend(a.noted)
    b._extra_findings.extend(a.findings)
    b.n_queries += a.queries
    if a.spent is not None:
        raise BudgetSpent(a.spent, a.targets)
    if a.error is not None:
        raise a.error
    return b._shown(a.targets)


__all__ = ["Answer", "answer", "give"]

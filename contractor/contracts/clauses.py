"""What a dialect reader returns for one method or class: its normalised clauses."""

from __future__ import annotations

from dataclasses import dataclass, field

from contractor.model import Condition


@dataclass
class Clauses:
    """Clauses found by one dialect on one method (or, for `inv`, on the class)."""

    pre: list[Condition] = field(default_factory=list)
    post: list[Condition] = field(default_factory=list)
    inv: list[Condition] = field(default_factory=list)
    raises: list[str] = field(default_factory=list)
    found: bool = False  # the dialect is used here (even if it yields no clause, e.g. deal.pure)

    def extend(self, other: Clauses) -> None:
        self.pre += other.pre
        self.post += other.post
        self.inv += other.inv
        self.raises += [r for r in other.raises if r not in self.raises]
        self.found = self.found or other.found

    @property
    def any(self) -> bool:
        return self.found or bool(self.pre or self.post or self.inv or self.raises)

    @property
    def declares(self) -> bool:
        """Whether these clauses declare a contract (a condition, or a contract library's
        decorator): docstring `raises:` lines alone only name exceptions (Sphinx's
        `:raises ValueError: ...`, common in code with no contract at all)."""
        return self.found or bool(self.pre or self.post or self.inv)

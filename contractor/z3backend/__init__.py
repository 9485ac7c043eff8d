"""The z3 backend: translates the class from its source (never importing it) into z3 and
answers the explorer's queries. `Z3Backend` is the entry point."""

from contractor.z3backend.backend import Z3Backend

__all__ = ["Z3Backend"]

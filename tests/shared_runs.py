"""Results several test modules compare against, computed once per test session.

The sequential z3 exploration of a class is the reference of test_reuse (against the
same backend with reuse off) and of test_parallel (against worker processes): both used
to explore every sample sequentially again. `SequentialRuns` (the session fixture
`sequential_z3` of conftest.py) explores each (file, class, source text) once.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from contractor.api import InferOptions, load_model, make_backend
from contractor.explore import explore
from contractor.model import ClassModel
from contractor.typestate import Typestate
from contractor.z3backend import Z3Backend

# a generous per-query limit (queries here take milliseconds): on a loaded machine a query
# of one run timing out (a may-answer) and its twin of the other not would be a difference
# of load, not of what is compared
SEQUENTIAL = InferOptions(backend="z3", timeout=30)

# A small class with a set field, no method of it split into parts (z3backend/reuse.py): the
# quick loop's stand-in for the costly samples of that kind (tag_set.py, and the dict ones
# session_pool.py and router.py) in test_parallel and test_reuse; CI runs those too.
SEEN = textwrap.dedent('''\
    class Seen:
        """
        inv: len(self.seen) <= 2
        """

        def __init__(self) -> None:
            self.seen: set[int] = set()

        def see(self, x: int) -> None:
            """pre: len(self.seen) < 2 and 0 <= x <= 3"""
            self.seen.add(x)

        def forget(self, x: int) -> None:
            """pre: x in self.seen"""
            self.seen.discard(x)

        def reset(self) -> None:
            """pre: len(self.seen) == 2"""
            self.seen.clear()
    ''')


@dataclass(frozen=True)
class SequentialRun:
    model: ClassModel
    backend: Z3Backend  # its translation (`sem`) can be shared by a backend compared with it
    typestate: Typestate


@dataclass
class SequentialRuns:
    runs: dict[tuple[str, str, str], SequentialRun] = field(default_factory=dict)

    def __call__(self, path: Path, name: str) -> SequentialRun:
        """explore() of `path`:`name` with make_backend(SEQUENTIAL): the z3 backend, reuse on."""
        key = (str(path), name, path.read_text())
        if key not in self.runs:
            model = load_model(f"{path}:{name}", SEQUENTIAL)
            backend = make_backend(model, SEQUENTIAL)
            assert isinstance(backend, Z3Backend)
            self.runs[key] = SequentialRun(model, backend, explore(model, backend))
        return self.runs[key]

"""Results several test modules compare against, computed once per test session.

The sequential z3 exploration of a class is the reference of test_reuse (against the
same backend with reuse off) and of test_parallel (against worker processes): both used
to explore every sample sequentially again. `SequentialRuns` (the session fixture
`sequential_z3` of conftest.py) explores each (file, class, source text) once.
"""

from __future__ import annotations

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

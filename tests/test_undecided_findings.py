"""A finding check the solver cannot decide is reported as an `unknown` finding naming the
method, never dropped in silence (a missed breaks_invariant must not look like a clean bill)."""

from __future__ import annotations

from pathlib import Path

from contractor.api import InferOptions, infer
from contractor.typestate import FindingKind

# Whether bump() can break the invariant is whether 42 is a sum of three cubes: it is, but
# only with 17-digit numbers, far beyond what z3 finds in a second (it answers unknown).
CUBES = '''
class Cubes:
    """inv: self.x * self.x * self.x + self.y * self.y * self.y + self.z * self.z * self.z != 42"""

    def __init__(self) -> None:
        self.x = 0
        self.y = 0
        self.z = 0

    def bump(self, d: int) -> None:
        self.x = d
'''


def test_an_undecided_invariant_check_is_an_unknown_finding(tmp_path: Path) -> None:
    path = tmp_path / "cubes.py"
    path.write_text(CUBES)
    ts = infer(f"{path}:Cubes", InferOptions(backend="z3", timeout=1.0))
    kinds = {(f.kind, f.method) for f in ts.findings}
    assert (FindingKind.BREAKS_INVARIANT, "bump") not in kinds
    unknown = [f for f in ts.findings if f.kind is FindingKind.UNKNOWN and f.method == "bump"]
    assert unknown and "break the class invariant" in unknown[0].message
    assert unknown[0].line == 10  # def bump (the source starts with a newline)

"""What the executor knows of the analysed class as a whole, read once per class.

Each executor (one per method run, condition or guard) asks these at hot places: every
call of a module-level name, every value handed to outside code. Reading them from the
source each time cost 3.5 ms per call on smtplib.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from contractor.model import ClassModel
from contractor.z3backend.escape import Escape, self_escape
from contractor.z3backend.fileclasses import Truth, plain_classes


@dataclass(frozen=True)
class ClassFacts:
    escape: Escape | None = None  # where the class hands `self` out (escape.py)
    plain_classes: dict[str, Truth] = field(default_factory=dict)  # fileclasses.py
    # the truth of the class's own objects (`if self:`, `if other:` for `other = cls()`):
    # decided by them where the class, a readable base or possibly an unreadable one
    # defines __bool__ or __len__
    instance_truth: Truth = Truth.TRUE

    @classmethod
    def read(cls, model: ClassModel) -> ClassFacts:
        decided = bool({"__bool__", "__len__"} & set(model.methods)) or any(
            b.unreadable is not None for b in model.bases)
        return cls(self_escape(model), plain_classes(model.module),
                   Truth.DECIDED_BY_IT if decided else Truth.TRUE)

"""contractor: infer which methods of a Python class may be called in which order, and enforce it.

Pipeline: target (load) -> contracts (class model) -> z3backend / crosshair_backend
(symbolic semantics) -> explore -> typestate (model) -> outputs and strengthen.
"""

from contractor import classcode

classcode.install()  # before any dataclass of contractor is created (see classcode.py)

from contractor.api import InferOptions, infer, infer_model, load_model  # noqa: E402
from contractor.errors import ContractorError, InputError, TypestateError  # noqa: E402
from contractor.typestate import Typestate  # noqa: E402

__all__ = [
    "ContractorError",
    "InferOptions",
    "InputError",
    "Typestate",
    "TypestateError",
    "infer",
    "infer_model",
    "load_model",
]
__version__ = "0.1.0"

"""contractor: infer which methods of a Python class may be called in which order, and enforce it.

Pipeline: target (load) -> contracts (class model) -> z3backend / crosshair_backend
(symbolic semantics) -> explore -> typestate (model) -> outputs and strengthen.
"""

from contractor import classcode

with classcode.installed():  # while contractor's dataclasses are created (see classcode.py)
    from contractor.api import InferOptions, infer, infer_model, load_model
    from contractor.errors import ContractorError, InputError, TypestateError
    from contractor.typestate import Typestate

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

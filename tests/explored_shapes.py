"""Test helper: the classes of a file with actions, loaded for the z3 backend, and an
exploration's shape (states, transitions and initializations with their certainty), to
compare two backends' explorations of the same class."""

from __future__ import annotations

import ast
from pathlib import Path

from contractor.api import InferOptions, load_model
from contractor.explore import explore
from contractor.model import ClassModel
from contractor.z3backend import Z3Backend


def class_models(path: Path) -> list[ClassModel]:
    """Every top-level class of `path` that has an action."""
    names = [n.name for n in ast.parse(path.read_text()).body if isinstance(n, ast.ClassDef)]
    found = [load_model(f"{path}:{n}", InferOptions(backend="z3")) for n in names]
    return [m for m in found if m.actions]


def shape(model: ClassModel, backend: Z3Backend) -> tuple[object, ...]:
    ts = explore(model, backend)
    return (ts.states, [(t.source, t.method, t.target, t.certainty) for t in ts.transitions],
            [(i.constructor, i.target, i.certainty) for i in ts.initializations])

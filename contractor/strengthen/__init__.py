"""Contract strengthening: rewrite a class so that it enforces its inferred typestate at run time.

`strengthen(model, typestate)` returns the strengthened module's source; the `contractor
strengthen` command (`contractor.strengthen.command`) writes it to a file.
"""

from __future__ import annotations

from pathlib import Path

from contractor.errors import InputError
from contractor.model import DIALECTS, ClassModel, Dialect
from contractor.strengthen.formatting import finish, header
from contractor.strengthen.render import rewrite
from contractor.strengthen.table import StateTable, build_table
from contractor.typestate import Typestate


def default_dialect(model: ClassModel) -> Dialect:
    """The class's own contract dialect (the first found), else asserts (which need no library)."""
    return model.dialects[0] if model.dialects else "asserts"


def strengthen(model: ClassModel, typestate: Typestate, dialect: Dialect | None = None,
               origin: str | None = None) -> str:
    """The source of `model`'s module with its class enforcing `typestate` in `dialect`.

    `origin` names where the typestate came from, for the header (default: the target).
    """
    from contractor import __version__

    if typestate.class_name != model.name:
        raise InputError(f"the typestate is of class {typestate.class_name}, not {model.name}",
                         model.location, "typestate")
    chosen = dialect or default_dialect(model)
    if chosen not in DIALECTS:
        raise InputError(f"unknown dialect {chosen!r}; expected one of {', '.join(DIALECTS)}")
    table = build_table(typestate, model.actions)
    text = rewrite(model, table, chosen)
    head = header(__version__, origin or f"{model.path}:{model.name}", model.name, chosen,
                  len(table.states), table.transitions)
    return finish(text, model.path, head)


def output_path(model: ClassModel, out_dir: Path = Path("output")) -> Path:
    """Where `contractor strengthen` writes by default:
    <out>/<module path>.<Class>/<module>_strengthened.py (the folder `contractor infer` writes to)."""
    from contractor.discover import module_qualified

    return out_dir / module_qualified(model.path, model.name) / f"{Path(model.path).stem}_strengthened.py"


__all__ = ["StateTable", "build_table", "default_dialect", "output_path", "strengthen"]

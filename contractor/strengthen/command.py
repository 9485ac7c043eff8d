"""The `contractor strengthen` command: a thin click layer over `contractor.strengthen.strengthen`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from contractor import api
from contractor.errors import InputError, Location
from contractor.model import DIALECTS
from contractor.strengthen import output_path, strengthen
from contractor.typestate import Typestate

EXIT_ERROR = 2

EPILOG = """\b
Exit codes:
  0    the strengthened module was written
  1    an internal error (a bug in contractor: please report the traceback)
  2    bad usage or input (a missing target, a contract or typestate.json that
       cannot be read, an output that cannot be written); nothing is written
"""


def read_typestate(path: Path) -> Typestate:
    """A typestate written by `contractor infer` (typestate.json); InputError if it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise InputError(f"cannot read the typestate: {e.strerror}", Location(str(path), 1), "--from") from None
    except json.JSONDecodeError as e:
        raise InputError(f"not JSON: {e.msg}", Location(str(path), e.lineno, e.colno - 1), "--from") from None
    try:
        return Typestate.from_dict(data)
    except (KeyError, TypeError, AttributeError) as e:
        raise InputError(f"not a typestate.json written by `contractor infer` ({type(e).__name__}: {e})",
                         Location(str(path), 1), "--from") from None


def _names(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(n.strip() for v in values for n in v.split(",") if n.strip())


@click.command("strengthen", epilog=EPILOG)
@click.argument("target")
@click.option("--from", "from_", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Use this typestate.json (from `contractor infer`) instead of inferring the typestate.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder to write <module>_strengthened.py into [default: output/<ClassName>/].")
@click.option("--dialect", type=click.Choice(DIALECTS), default=None,
              help="Contract dialect of the added checks [default: the class's own].")
@click.option("--methods", multiple=True, callback=_names, metavar="A,B,...",
              help="The actions (as for `contractor infer`) [default: public methods].")
@click.option("--exclude", multiple=True, callback=_names, metavar="A,B,...",
              help="Methods to leave out of the actions.")
@click.option("--backend", type=click.Choice(["z3", "crosshair", "auto"]), default="z3", show_default=True,
              help="Backend inferring the typestate when --from is not given.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing on success.")
def strengthen_command(target: str, from_: Path | None, out: Path | None, dialect: str | None,
                       methods: tuple[str, ...], exclude: tuple[str, ...], backend: str, quiet: bool) -> None:
    """Write TARGET's module with the class enforcing its typestate at run time.

    The class gains a state enum, a state field set by its constructors, and per action
    a precondition (the state enables the action), a postcondition (the new state is one
    the typestate allows) and the state update, in the class's contract dialect or
    --dialect. A client calling an action its state does not enable fails before the
    action changes anything, with a message naming the calls that would enable it.
    """
    options = api.InferOptions(backend=backend, methods=methods or None, exclude=exclude)
    try:
        model = api.load_model(target, options)
        typestate = read_typestate(from_) if from_ else api.infer_model(model, options)
        text = strengthen(model, typestate, dialect, origin=str(from_) if from_ else None)
        path = output_path(model) if out is None else out / output_path(model).name
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as e:
            raise InputError(f"cannot write {path}: {e.strerror}", construct="--out") from None
    except InputError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(EXIT_ERROR)
    if not quiet:
        click.echo(f"Wrote {path}")

"""The `contractor strengthen` command: a thin click layer over `contractor.strengthen.strengthen`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import cast

import click

from contractor import api
from contractor.cli_options import (
    analysis_options,
    class_settings,
    command_line_layer,
    infer_options,
    project_config,
)
from contractor.discover import qualified_name
from contractor.errors import InputError, Location
from contractor.model import DIALECTS, Dialect
from contractor.state_names import name_states
from contractor.strengthen import output_path, strengthen
from contractor.target import resolve, utf8_coding
from contractor.typestate import Typestate

EXIT_ERROR = 2

EPILOG = """\b
Exit codes:
  0    the strengthened module was written
  2    bad usage or input (a missing target, a contract or typestate.json that
       cannot be read, a state the generated class could not tell apart, an
       output that cannot be written); nothing is written
  70   an internal error (a bug in contractor: please report the traceback)
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


def newline_of(path: Path) -> str:
    """The line ending of the file at `path` (its first one; Python reads every kind as "\\n")."""
    try:
        with path.open("rb") as f:
            first = f.readline()
    except OSError:
        return "\n"
    return "\r\n" if first.endswith(b"\r\n") else "\r" if first.endswith(b"\r") else "\n"


def may_transitions(typestate: Typestate) -> list[str]:
    """The undecided moves a strengthened class allows, as `S1 --m--> S2 (reason)`."""
    moves = [(f"{i.constructor} -> {i.target}", i.reason) for i in typestate.initializations
             if i.certainty == "may"]
    moves += [(f"{t.source} --{t.method}--> {t.target}", t.reason) for t in typestate.transitions
              if t.certainty == "may"]
    return [f"{move} ({reason})" if reason else move for move, reason in moves]


@click.command("strengthen", epilog=EPILOG)
@click.argument("target")
@click.option("--from", "from_", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Use this typestate.json (from `contractor infer`) instead of inferring the typestate.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder to write <module>_strengthened.py into [default: output/<module path>.<Class>/].")
@click.option("--in-place", is_flag=True,
              help="Rewrite TARGET's own module file instead of writing a copy (only the class changes).")
@click.option("--dialect", type=click.Choice(DIALECTS), default=None,
              help="Contract dialect of the added checks [default: the class's own].")
@analysis_options
@click.option("--quiet", "-q", is_flag=True, help="Print nothing on success (no may-transition warning either).")
@click.pass_context
def strengthen_command(ctx: click.Context, /, target: str, from_: Path | None, out: Path | None,
                       in_place: bool, dialect: str | None, quiet: bool, **analysis: object) -> None:
    """Write TARGET's module with the class enforcing its typestate at run time.

    The class gains a state enum, a state field set by its constructors, and per action
    a precondition (the state enables the action), a postcondition (the new state is one
    the typestate allows) and the state update, in the class's contract dialect or
    --dialect. A client calling an action its state does not enable fails before the
    action changes anything, with a message naming the calls that would enable it.

    The typestate is inferred as `contractor infer` does (same backend and options,
    [tool.contractor] in pyproject.toml included) unless --from gives one. May-transitions
    (moves the solver could not decide) are kept, so no call the class allows is refused;
    a warning lists them.

    With --in-place the module file itself is rewritten (atomically, after the analysis
    succeeded); everything outside the class stays as it was.
    """
    if in_place and out is not None:
        raise click.UsageError("--in-place and --out exclude each other: --in-place writes the module itself")
    try:
        resolved = resolve(target, Path.cwd())
        settings = class_settings(project_config(), command_line_layer(ctx), resolved.name,
                                  qualified_name(resolved))
        options = infer_options(settings)
        model = api.load_resolved(resolved, options)
        typestate = read_typestate(from_) if from_ else api.infer_model(model, options)
        if settings.state_names and not from_:
            typestate = name_states(typestate)
        dialect_chosen = cast("Dialect | None", settings.dialect)  # validated by click or settings
        text = strengthen(model, typestate, dialect_chosen, origin=str(from_) if from_ else None)
        folder = settings.out
        path = output_path(model) if folder is None else folder / output_path(model).name
        if in_place:
            path = Path(model.path)
        temporary = path.with_name(f".{path.name}.contractor-tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # a temporary file beside it, then one rename: never a half-written module
            temporary.write_text(utf8_coding(text), encoding="utf-8", newline=newline_of(Path(model.path)))
            os.replace(temporary, path)
        except OSError as e:
            temporary.unlink(missing_ok=True)
            raise InputError(f"cannot write {path}: {e.strerror}",
                             construct="--in-place" if in_place else "--out") from None
    except InputError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(EXIT_ERROR)
    if quiet:
        return
    may = may_transitions(typestate)
    if may:
        click.echo(f"warning: {path} allows {len(may)} may-transition{'s' * (len(may) != 1)} the solver "
                   "could not decide (kept, so that no call the class allows is refused): "
                   + "; ".join(may), err=True)
    click.echo(f"Wrote {path}")

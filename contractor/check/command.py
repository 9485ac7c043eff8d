"""The `contractor check` command: a thin click layer over `contractor.check`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from contractor.check import CheckOptions, check, load_protocols
from contractor.check.messages import RULES
from contractor.check.records import Mode
from contractor.diagnostics import OutputFormat, Severity, exit_code, render
from contractor.errors import ContractorError

EXIT_USAGE = 2

EPILOG = """\b
Exit codes:
  0    no finding
  1    findings (a call that may not be enabled, an object not released)
  2    bad usage or input (a missing file, a class or typestate.json that cannot
       be read, a syntax error in a checked file)
"""


@click.command("check", epilog=EPILOG)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--class", "classes", multiple=True, metavar="FILE.py:Class",
              help="A typestated class, inferred with the z3 backend (cached); repeatable.")
@click.option("--typestate", "typestates", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              metavar="typestate.json", help="A typestate written by `contractor infer`; repeatable.")
@click.option("--must-call", "must_call", multiple=True, metavar="Class.method",
              help="Objects of Class must be released by this method before they go out of scope; "
              "repeatable; added to `must-call` of [tool.contractor] in pyproject.toml.")
@click.option("--mode", type=click.Choice([m.value for m in Mode]), default=Mode.SOUND.value, show_default=True,
              help="sound: report a call disabled in some possible state; complete: only one disabled in "
              "every possible state.")
@click.option("--strict", is_flag=True,
              help="Objects of unknown state (parameters without an analysed caller) may be in any state.")
@click.option("--format", "fmt", type=click.Choice([f.value for f in OutputFormat]), default="text",
              show_default=True, help="Output format.")
@click.option("--no-cache", is_flag=True, help="Infer --class typestates afresh (no cache read or written).")
def check_command(paths: tuple[Path, ...], classes: tuple[str, ...], typestates: tuple[Path, ...],
                  must_call: tuple[str, ...], mode: str, strict: bool, fmt: str, no_cache: bool) -> None:
    """Check the code in PATHS (files or folders) against typestates: report each call on an
    object of a typestated class that the states it may be in do not enable.

    Typestates come from --class FILE.py:Class (inferred on the fly) or --typestate
    typestate.json. Objects are recognised by the class name as the client imports or
    qualifies it, by annotations, and by client functions that return them.
    """
    if not classes and not typestates:
        raise click.UsageError("give at least one --class FILE.py:Class or --typestate typestate.json")
    try:
        from contractor.cli_options import project_config

        configured = project_config().settings.must_call or ()  # [tool.contractor] must-call = [...]
        must_call = tuple(dict.fromkeys((*must_call, *configured)))
        protocols = load_protocols(classes, typestates, must_call, cache=not no_cache)
        found = check(paths, protocols, CheckOptions(Mode(mode), strict))
    except ContractorError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    text = render(found, OutputFormat(fmt), rules=RULES)
    if text:
        click.echo(text, nl=False)
    if fmt == "text" and not found:
        click.echo("no typestate violations found", err=True)
    sys.exit(exit_code(found, Severity.ERROR))

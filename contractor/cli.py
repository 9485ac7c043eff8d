"""The `contractor` command line: a thin click layer over `contractor.api` and `contractor.outputs`.

`main` is a click group so other subcommands (`strengthen`) can be added with
`main.add_command(...)`.
"""

from __future__ import annotations

import difflib
import importlib
import signal
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import click

from contractor import __version__, api
from contractor.diagnostics import OutputFormat, Severity, exit_code, render
from contractor.errors import ContractorError
from contractor.model import PreconditionMode
from contractor.outputs import to_json, to_text, write_artifacts
from contractor.outputs.findings import RULES, finding_diagnostics

EXIT_OK = 0
EXIT_ERROR = 2  # bad input or usage: nothing written
EXIT_INTERRUPTED = 130  # Ctrl-C: the partial typestate is written

EXIT_CODES = """\b
Exit codes:
  0    the typestate was written (and, with --fail-on, no finding that severe)
  1    with --fail-on: a finding of that severity or worse was reported
  (an internal error, a bug in contractor, prints a traceback: please report it)
  2    bad usage or input (a missing target, a contract that cannot be read,
       an output that cannot be written); nothing is written
  130  interrupted (Ctrl-C): the partial typestate found so far is written,
       marked PARTIAL ("complete": false in typestate.json)
"""


GROUP_EXIT_CODES = """\b
Exit codes (each command's --help says more):
  0    success (findings change the exit code only with --fail-on)
  1    --fail-on: a finding of that severity or worse was reported
  2    bad usage or input; nothing is written
  130  interrupted (Ctrl-C)
"""


class SuggestingGroup(click.Group):
    """A click group whose unknown-command error suggests close command names, and whose
    `lazy` commands ("name" -> "module:attribute") are imported only when used, so that
    `contractor infer` does not pay for importing `strengthen` (black among others)."""

    def __init__(self, *args, lazy: dict[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx: click.Context, name: str):
        if name not in self.commands and name in self.lazy:
            module, attribute = self.lazy[name].split(":")
            self.add_command(getattr(importlib.import_module(module), attribute), name)
        return super().get_command(ctx, name)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=3, cutoff=0.5)
            hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            ctx.fail(f"No such command {name!r}.{hint}")
        return super().resolve_command(ctx, args)


@click.group(
    cls=SuggestingGroup,
    lazy={"strengthen": "contractor.strengthen.command:strengthen_command",
          "check": "contractor.check.command:check_command",
          "view": "contractor.view.command:view_command"},
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=GROUP_EXIT_CODES,
)
@click.version_option(__version__, prog_name="contractor")
def main() -> None:
    """Infer in which order the methods of a Python class may be called, from its contracts.

    Run `contractor COMMAND --help` for a command's options.
    """


def split_names(values: tuple[str, ...]) -> tuple[str, ...]:
    """`("a,b", "c")` -> `("a", "b", "c")`: --methods/--exclude are repeatable and comma-separated."""
    names = tuple(n.strip() for v in values for n in v.split(",") if n.strip())
    bad = [n for n in names if not n.isidentifier()]
    if bad:
        raise click.BadParameter(f"not a method name: {', '.join(map(repr, bad))}")
    return names


def _names(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    return split_names(values)


@dataclass
class Progress:
    """A one-line progress display on stderr, rewritten at most every `interval` seconds;
    `close` shows the final counts and ends the line."""

    enabled: bool
    interval: float = 0.1
    shown: bool = False
    last: float = 0.0
    counts: tuple[int, int] = (0, 0)

    def __call__(self, states: int, transitions: int) -> None:
        if not self.enabled:
            return
        self.counts = (states, transitions)
        now = time.monotonic()
        if now - self.last >= self.interval:
            self.last = now
            self._show()

    def _show(self) -> None:
        self.shown = True
        states, transitions = self.counts
        click.echo(f"\rexploring: {states} states, {transitions} transitions ", nl=False, err=True)

    def close(self) -> None:
        if self.shown:
            self._show()
            click.echo(err=True)
            self.shown = False


@dataclass
class Interrupt:
    """Whether Ctrl-C stopped the run (explore() turns the KeyboardInterrupt into a partial result)."""

    happened: bool = False


@contextmanager
def record_interrupt():
    """While active, SIGINT still raises KeyboardInterrupt, and also marks the returned Interrupt."""
    interrupt = Interrupt()
    if threading.current_thread() is not threading.main_thread():
        yield interrupt
        return

    def handler(signum, frame):
        interrupt.happened = True
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield interrupt
    finally:
        signal.signal(signal.SIGINT, previous)


def _crosshair_options(budget: float | None, no_cache: bool, cache_dir: Path | None) -> dict:
    options: dict = {}
    if budget is not None:
        options["budget"] = budget
    if no_cache:
        options["cache"] = False
    if cache_dir is not None:
        options["cache_dir"] = str(cache_dir)
    return options


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(EXIT_ERROR)


@main.command(epilog=EXIT_CODES)
@click.argument("target")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the output files [default: output/<ClassName>/].",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice([f.value for f in OutputFormat]),
    default="text",
    show_default=True,
    help="What to print: a readable summary (findings as path:line:col: severity: message [kind]), "
    "typestate.json, the findings as a SARIF 2.1.0 log, or as GitHub workflow annotations.",
)
@click.option(
    "--fail-on",
    type=click.Choice([Severity.ERROR.value, Severity.WARNING.value]),
    default=None,
    help="Exit 1 when a finding of this severity (or worse) is reported [default: never].",
)
@click.option(
    "--methods",
    multiple=True,
    callback=_names,
    metavar="A,B,...",
    help="The actions to analyse (repeatable or comma-separated) [default: public methods].",
)
@click.option(
    "--exclude",
    multiple=True,
    callback=_names,
    metavar="A,B,...",
    help="Methods to leave out of the actions (repeatable or comma-separated).",
)
@click.option(
    "--backend",
    type=click.Choice(["z3", "crosshair", "auto"]),
    default="auto",
    show_default=True,
    help="z3 reads the source only; crosshair imports and runs the module; auto asks z3 "
    "first and CrossHair only about the transitions z3 leaves undecided.",
)
@click.option(
    "--preconditions",
    type=click.Choice([m.value for m in PreconditionMode]),
    default=None,
    help="What decides enabledness: the declared contracts, the implicit ones (raise guards: "
    "a method is enabled iff its body can finish without an explicit raise or failing "
    "assert), or both [default: declared if the class declares any contract, else implicit].",
)
@click.option(
    "--budget",
    type=click.FloatRange(min=0),
    default=None,
    metavar="SECONDS",
    help="Total time for CrossHair queries (crosshair/auto backends).",
)
@click.option("--no-cache", is_flag=True, help="Do not read or write the CrossHair answer cache.")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder of the CrossHair answer cache [default: .contractor-cache/ or $CONTRACTOR_CACHE_DIR].",
)
@click.option(
    "--unroll",
    type=click.IntRange(min=0),
    default=8,
    show_default=True,
    help="Loop iterations the z3 backend unrolls; beyond them answers are 'may'.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=10.0,
    show_default=True,
    metavar="SECONDS",
    help="Time limit of one solver query.",
)
@click.option(
    "--max-states",
    type=click.IntRange(min=1),
    default=None,
    help="Stop exploring after this many states (the result is then PARTIAL).",
)
@click.option(
    "--png", is_flag=True, help="Also write typestate.png (needs the system Graphviz `dot`)."
)
@click.option("--no-svg", is_flag=True, help="Do not write typestate.svg.")
@click.option("--no-html", is_flag=True, help="Do not write report.html.")
@click.option(
    "--quiet",
    "-q",
    is_flag=True,
    help="Print no summary and no progress (with --format json the JSON is still printed).",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Show states and transitions found so far on stderr [default: when stderr is a terminal].",
)
def infer(
    target: str,
    out: Path | None,
    fmt: str,
    fail_on: str | None,
    methods: tuple[str, ...],
    exclude: tuple[str, ...],
    backend: str,
    preconditions: str | None,
    budget: float | None,
    no_cache: bool,
    cache_dir: Path | None,
    unroll: int,
    timeout: float,
    max_states: int | None,
    png: bool,
    no_svg: bool,
    no_html: bool,
    quiet: bool,
    progress: bool | None,
) -> None:
    """Infer the typestate of TARGET and write it under --out.

    TARGET is path/to/file.py:ClassName, package.module:ClassName, or a bare ClassName
    found in the Python files under the current folder.

    Writes typestate.json, typestate.dot, typestate.mmd, typestate.svg and report.html
    (and typestate.png with --png), then prints a summary (or, with --format json, the
    JSON) on stdout.
    """
    options = api.InferOptions(
        backend=backend,
        methods=methods or None,
        exclude=exclude,
        unroll=unroll,
        timeout=timeout,
        max_states=max_states,
        crosshair_options=_crosshair_options(budget, no_cache, cache_dir),
        preconditions=PreconditionMode(preconditions) if preconditions else None,
    )
    show = (sys.stderr.isatty() if progress is None else progress) and not quiet
    bar = Progress(show)
    try:
        with record_interrupt() as interrupt:
            model = api.load_model(target, options)
            ts = api.infer_model(model, options, on_progress=bar)
        bar.close()
        out_dir = out if out is not None else Path("output") / ts.class_name
        paths = write_artifacts(ts, out_dir, svg=not no_svg, png=png, html=not no_html)
    except ContractorError as exc:
        bar.close()
        _fail(str(exc))
    except KeyboardInterrupt:
        bar.close()
        click.echo("interrupted outside the exploration; nothing written", err=True)
        sys.exit(EXIT_INTERRUPTED)
    diagnostics = finding_diagnostics(ts, model)
    if fmt == OutputFormat.JSON.value:
        click.echo(to_json(ts), nl=False)
    elif fmt != OutputFormat.TEXT.value:
        click.echo(render(diagnostics, OutputFormat(fmt), rules=RULES), nl=False)
    elif not quiet:
        click.echo(to_text(ts, model), nl=False)
    if not quiet:
        names = ", ".join(p.name for p in paths)
        click.echo(f"\nWrote {out_dir}/: {names}", err=fmt != OutputFormat.TEXT.value)
    if interrupt.happened:
        click.echo("interrupted: the typestate written is PARTIAL", err=True)
        sys.exit(EXIT_INTERRUPTED)
    sys.exit(exit_code(diagnostics, Severity(fail_on) if fail_on else None))


__all__ = ["EXIT_CODES", "infer", "main", "split_names"]

"""The `contractor` command line: a thin click layer over `contractor.api` and `contractor.outputs`.

`main` is a click group so other subcommands (`strengthen`) can be added with
`main.add_command(...)`.
"""

from __future__ import annotations

import importlib
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

try:
    from click.parser import _OptionParser as _ClickParser  # click >= 8.2
except ImportError:  # click 8.1
    from click.parser import OptionParser as _ClickParser  # type: ignore[no-redef]

from contractor import __version__, infer_run
from contractor.cli_options import (
    analysis_options,
    class_settings,
    command_line_layer,
    project_config,
    split_names,
)
from contractor.diagnostics import OutputFormat, Severity
from contractor.discover import expand
from contractor.errors import ContractorError
from contractor.model import PreconditionMode

EXIT_OK = 0
EXIT_ERROR = 2  # bad input or usage: nothing written
EXIT_INTERNAL = 70  # a bug in contractor (EX_SOFTWARE)
EXIT_INTERRUPTED = 130  # Ctrl-C: the partial typestate is written
EXIT_BROKEN_PIPE = 141  # the reader of stdout went away (as a command killed by SIGPIPE)
REPORT = ("this is a bug in contractor: please report it on contractor's issue tracker with the "
          "traceback above, the command line and `contractor --version`")

EXIT_CODES = """\b
Exit codes:
  0    the typestate was written (and, with --fail-on, no finding that severe)
  1    with --fail-on: a finding of that severity or worse was reported
  2    bad usage or input (a missing target, a contract that cannot be read,
       an output that cannot be written); nothing is written
  70   an internal error (a bug in contractor: please report the traceback)
  130  interrupted (Ctrl-C): the partial typestate found so far is written,
       marked PARTIAL ("complete": false in typestate.json); a second
       Ctrl-C stops at once and writes nothing
  141  the reader of the printed output closed it (`... | head`)
"""


GROUP_EXIT_CODES = """\b
Exit codes (each command's --help says more):
  0    success (findings change the exit code only with --fail-on)
  1    --fail-on: a finding of that severity or worse was reported
  2    bad usage or input; nothing is written
  70   an internal error (a bug in contractor: please report the traceback)
  130  interrupted (Ctrl-C)
  141  the reader of the printed output closed it
"""


@dataclass(frozen=True)
class LazyCommand:
    """A subcommand imported only when run: where it is ("module:attribute") and the first
    paragraph of its help, which `contractor --help` lists without importing it."""

    target: str
    summary: str


class SuggestingGroup(click.Group):
    """A click group whose unknown-command error suggests close command names, and whose
    `lazy` commands are imported only when used, so that `contractor infer` does not pay
    for importing `strengthen` (black among others), nor `contractor --help` for any."""

    def __init__(self, *args, lazy: dict[str, LazyCommand] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's command list, with a lazy command not yet imported shown by its summary."""
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.commands.get(name) or click.Command(name, help=self.lazy[name].summary)
            if not cmd.hidden:
                rows.append((name, cmd))
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)
            with formatter.section("Commands"):
                formatter.write_dl([(name, cmd.get_short_help_str(limit)) for name, cmd in rows])

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx: click.Context, name: str):
        if name not in self.commands and name in self.lazy:
            module, attribute = self.lazy[name].target.split(":")
            self.add_command(getattr(importlib.import_module(module), attribute), name)
        return super().get_command(ctx, name)

    def invoke(self, ctx: click.Context):
        """Run the command; an unexpected exception is an internal error (exit 70, never 1)."""
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KeyboardInterrupt:  # outside a command's own handling: nothing was written
            click.echo("interrupted; nothing written", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:  # the reader went away (`contractor infer ... | head`): quietly,
            import os  # as a command killed by SIGPIPE; nothing more can reach it

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(EXIT_BROKEN_PIPE)
        except Exception as exc:  # noqa: BLE001  (any other exception is a bug: report it, exit 70)
            from contractor.explore import carries_interrupt

            if carries_interrupt(exc):  # Ctrl-C inside z3's ctypes glue: an interrupt, not a bug
                click.echo("interrupted; nothing written", err=True)
                sys.exit(EXIT_INTERRUPTED)
            import traceback

            traceback.print_exc()
            click.echo(f"internal error: {REPORT}", err=True)
            sys.exit(EXIT_INTERNAL)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib

            close = difflib.get_close_matches(name, self.list_commands(ctx), n=3, cutoff=0.5)
            hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            ctx.fail(f"No such command {name!r}.{hint}")
        return super().resolve_command(ctx, args)


@click.group(
    cls=SuggestingGroup,
    lazy={"strengthen": LazyCommand("contractor.strengthen.command:strengthen_command",
                                    "Write TARGET's module with the class enforcing its typestate at run time."),
          "check": LazyCommand("contractor.check.command:check_command",
                               "Check the code in PATHS (files or folders) against typestates: report each "
                               "call on an object of a typestated class that the states it may be in do not "
                               "enable."),
          "view": LazyCommand("contractor.view.command:view_command",
                              "Explore typestates in the browser: choose a class, watch its typestate grow."),
          "cache": LazyCommand("contractor.cache_command:cache_group",
                               "The cache of CrossHair answers (`--backend crosshair` and `auto`).")},
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=GROUP_EXIT_CODES,
)
@click.version_option(__version__, prog_name="contractor")
def main() -> None:
    """Infer in which order the methods of a Python class may be called, from its contracts.

    Run `contractor COMMAND --help` for a command's options.
    """


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


class _ShortFirstParser(_ClickParser):
    """click's option parser, taking an argument that is exactly one short option (`-q`,
    `-j`) as that option at once. click first tries every dashed argument as a long option,
    and on failing builds a "no such option" error, with close-match suggestions (difflib)
    and a translated message (gettext and locale), before it tries the short one: 3-6 ms
    of a 0.2 s run. Everything else (`-qv`, `-j2`, long options) is parsed by click as before."""

    def _process_opts(self, arg: str, state: Any) -> None:
        if arg in self._short_opt and (self.ctx is None or self.ctx.token_normalize_func is None):
            self._match_short_opt(arg, state)  # where click ends up once the long match fails
            return
        super()._process_opts(arg, state)


class ShortFirstCommand(click.Command):
    """A click command parsing with _ShortFirstParser."""

    def make_parser(self, ctx: click.Context) -> _ClickParser:
        parser = _ShortFirstParser(ctx)
        for param in self.get_params(ctx):
            param.add_to_parser(parser, ctx)
        return parser


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(EXIT_ERROR)


@main.command(cls=ShortFirstCommand, epilog=EXIT_CODES)
@click.argument("targets", nargs=-1, metavar="[TARGET]...")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the output files; with several classes, one subfolder per class "
    "[default: output/<module path>.<Class>/].",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice([f.value for f in OutputFormat]),
    default=None,
    help="What to print: a readable summary (findings as path:line:col: severity: message [kind]), "
    "one JSON object {schema, typestates: [typestate.json, ...], errors} for any number of classes, "
    "the findings as a SARIF 2.1.0 log, or as GitHub workflow annotations "
    "[default: text].",
)
@click.option(
    "--fail-on",
    type=click.Choice([Severity.ERROR.value, Severity.WARNING.value]),
    default=None,
    help="Exit 1 when a finding of this severity (or worse) is reported [default: never].",
)
@analysis_options
@click.option(
    "--preconditions",
    type=click.Choice([m.value for m in PreconditionMode]),
    default=None,
    help="What decides enabledness: the declared contracts, the implicit ones (raise guards: "
    "a method is enabled iff its body can finish without an explicit raise or failing "
    "assert), or both [default: declared if the class declares any contract, else implicit].",
)
@click.option(
    "--max-states",
    type=click.IntRange(min=1),
    default=None,
    help="Stop exploring after this many states (the result is then PARTIAL).",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=0),
    default=None,
    help="Worker processes (0: one per CPU; 1: none): several classes are analysed by a "
    "pool of them; one large exploration starts workers only when many pairs wait and "
    "each costs the solver real time, or when its methods are large (each worker then "
    "owns a share of them: witnesses and counterexamples depend on the number of "
    "workers, the typestate does not) [default: 0].",
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
    "--verbose",
    "-v",
    is_flag=True,
    help="Also show, on stderr, what the CrossHair worker printed (the analysed module's output).",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Show states and transitions found so far on stderr [default: when stderr is a terminal].",
)
@click.pass_context
def infer(ctx: click.Context, targets: tuple[str, ...], quiet: bool, verbose: bool, progress: bool | None,
          **options: object) -> None:
    """Infer the typestate of each TARGET and write it under --out.

    A TARGET is path/to/file.py:ClassName, package.module:ClassName, a bare ClassName
    found in the Python files under the current folder, or a file, folder or package
    (every class in it with contracts or raise guards). Without TARGET, the `targets`
    of [tool.contractor] in pyproject.toml; every option can be set there too.

    Writes typestate.json, typestate.dot, typestate.mmd, typestate.svg and report.html
    (and typestate.png with --png) per class, then prints a summary (or, with --format
    json, {"schema", "typestates", "errors"}; sarif and github: the findings) on stdout.
    """
    show = (sys.stderr.isatty() if progress is None else progress) and not quiet
    bar = Progress(show)
    try:
        project = project_config()
        command_line = command_line_layer(ctx)
        names = targets or class_settings(project, command_line).targets
        if not names:
            raise ContractorError("no target: name a class (file.py:Class, module:Class, Class), a file, "
                                  "a folder or a package, or list `targets` in [tool.contractor]")
        classes = expand(names, Path.cwd())
    except ContractorError as exc:
        _fail(str(exc))
    try:
        result = infer_run.run(classes, project, command_line, quiet=quiet, progress=bar,
                               close_progress=bar.close, verbose=verbose)
    except KeyboardInterrupt:
        bar.close()
        click.echo("interrupted outside the exploration; nothing written for that class", err=True)
        sys.exit(EXIT_INTERRUPTED)
    if result.interrupted:
        click.echo("interrupted: the typestate written is PARTIAL", err=True)
        sys.exit(EXIT_INTERRUPTED)
    sys.exit(result.status())

__all__ = ["EXIT_CODES", "infer", "main", "split_names"]

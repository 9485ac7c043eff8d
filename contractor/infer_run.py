"""One `contractor infer` run over several classes: settings per class, output folder per
class, what is printed per format, and the exit status of the whole run.

Each class is analysed and written on its own (nothing half-written for it on error);
an error in one class is reported and the others still run (the run then exits 2).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import click

from contractor import api
from contractor.cli_options import class_settings, infer_options
from contractor.diagnostics import Diagnostic, OutputFormat, Severity, exit_code, render
from contractor.discover import qualified_name
from contractor.errors import ContractorError
from contractor.explore import ExplorationInterrupted
from contractor.infer_pool import analyse_in_pool, class_pool_jobs
from contractor.model import ClassModel
from contractor.outputs import to_text, write_artifacts
from contractor.outputs.findings import RULES, finding_diagnostics
from contractor.outputs.json_out import run_json
from contractor.settings import PartialSettings, ProjectConfig, Settings
from contractor.state_names import name_states
from contractor.target import ResolvedTarget
from contractor.typestate import Typestate

EXIT_ERROR = 2


def output_folder(settings: Settings, qualified: str, several: bool) -> Path:
    """`--out` itself for a single class; else `<out or output>/<module path>.<Class>/`."""
    if settings.out is not None and not several:
        return settings.out
    return (settings.out or Path("output")) / qualified


@dataclass
class RunResult:
    """What a run produced, for the final printing and the exit status."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    typestates: list[Typestate] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (target, message) of classes not analysed
    failed: bool = False
    fail_on: Severity | None = None
    interrupted: bool = False  # Ctrl-C: the last class written is partial, later ones were not run

    def status(self) -> int:
        if self.failed:
            return EXIT_ERROR
        return exit_code(self.diagnostics, self.fail_on)


def infer_one(resolved: ResolvedTarget, settings: Settings,
              on_progress: Callable[[int, int], None] | None, verbose: bool = False
              ) -> tuple[ClassModel, Typestate, bool]:
    """The class's model and typestate, and whether Ctrl-C cut the typestate short."""
    options = replace(infer_options(settings), verbose=verbose)
    model = api.load_resolved(resolved, options)
    try:
        ts, interrupted = api.infer_model(model, options, on_progress=on_progress), False
    except ExplorationInterrupted as stopped:
        _second_interrupt_exits()
        ts, interrupted = stopped.typestate, True
    return model, name_states(ts) if settings.state_names else ts, interrupted


def _exit_interrupted(signum: int, frame: object) -> None:
    raise SystemExit(130)  # the writer removes its temporary files on the way out


def _second_interrupt_exits() -> None:
    """From now until the command ends, Ctrl-C exits 130 at once (no traceback)."""
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, _exit_interrupted)
        click.get_current_context().call_on_close(lambda: signal.signal(signal.SIGINT, previous))


@dataclass
class ClassOutcome:
    """One class analysed and written: what `run` prints and counts for it (picklable,
    so a worker process of the class pool can hand it back)."""

    typestate: Typestate | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    text: str = ""
    out_dir: Path | None = None
    paths: list[Path] = field(default_factory=list)
    error: str | None = None
    interrupted: bool = False


def analyse_class(resolved: ResolvedTarget, project: ProjectConfig, command_line: PartialSettings,
                  several: bool, progress: Callable[[int, int], None] | None,
                  close_progress: Callable[[], None], verbose: bool = False) -> ClassOutcome:
    """Analyse one class and write its files (nothing half-written on error)."""
    qualified = qualified_name(resolved)
    settings = class_settings(project, command_line, resolved.name, qualified)
    try:
        model, ts, interrupted = infer_one(resolved, settings, progress, verbose)
        close_progress()
        out_dir = output_folder(settings, qualified, several)
        paths = write_artifacts(ts, out_dir, svg=settings.svg, png=settings.png, html=settings.html)
    except ContractorError as exc:
        close_progress()
        return ClassOutcome(error=str(exc))
    return ClassOutcome(ts, finding_diagnostics(ts, model), to_text(ts, model), out_dir, list(paths),
                        interrupted=interrupted)


def run(classes: Sequence[ResolvedTarget], project: ProjectConfig, command_line: PartialSettings, *,
        quiet: bool, progress: Callable[[int, int], None] | None,
        close_progress: Callable[[], None], verbose: bool = False) -> RunResult:
    """Analyse, write and print each class; findings in SARIF/GitHub form are printed once at the end."""
    several = len(classes) > 1
    run_settings = class_settings(project, command_line)
    fmt = OutputFormat(run_settings.format)
    result = RunResult(fail_on=Severity(run_settings.fail_on) if run_settings.fail_on else None)
    pool_jobs = class_pool_jobs(run_settings.jobs, len(classes))
    if pool_jobs > 1:  # one worker process per class at a time; each class explores alone
        outcomes = analyse_in_pool(classes, project, command_line, several, pool_jobs, verbose)
    else:
        outcomes = (analyse_class(r, project, command_line, several, progress, close_progress, verbose)
                    for r in classes)
    for index, (resolved, outcome) in enumerate(zip(classes, outcomes)):  # outcomes in the order of classes
        if outcome.typestate is None:  # an error (ContractorError) in this class
            click.echo(f"error: {outcome.error}", err=True)
            result.failed = True
            result.errors.append((qualified_name(resolved), outcome.error or ""))
            continue
        result.interrupted = outcome.interrupted
        result.diagnostics.extend(outcome.diagnostics)
        result.typestates.append(outcome.typestate)
        if fmt is OutputFormat.TEXT and not quiet:
            click.echo(("\n" if index else "") + outcome.text, nl=False)
        if not quiet:
            names = ", ".join(p.name for p in outcome.paths)
            click.echo(f"\nWrote {outcome.out_dir}/: {names}", err=fmt is not OutputFormat.TEXT)
        if result.interrupted:  # Ctrl-C: the classes after this one are not analysed
            break
    if fmt is OutputFormat.JSON:  # one shape for any number of classes
        click.echo(run_json(result.typestates, result.errors), nl=False)
    elif fmt is not OutputFormat.TEXT:
        click.echo(render(result.diagnostics, fmt, rules=RULES), nl=False)
    return result


__all__ = ["ClassOutcome", "RunResult", "analyse_class", "output_folder", "run"]

"""The analysis options `contractor infer` and `contractor strengthen` share, and the command
line as the top layer of `contractor.settings` (only the options actually given count, so
`[tool.contractor]` in pyproject.toml supplies the rest)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from contractor import api
from contractor.model import PreconditionMode
from contractor.settings import (
    BACKENDS,
    DEFAULT_BUDGET,
    DEFAULT_CROSSHAIR_BUDGET,
    PartialSettings,
    ProjectConfig,
    Settings,
    find_pyproject,
    overlay,
)
from contractor.settings import read_project as _read_project

F = TypeVar("F", bound=Callable[..., Any])


def split_names(values: tuple[str, ...]) -> tuple[str, ...]:
    """`("a,b", "c")` -> `("a", "b", "c")`: --methods/--exclude are repeatable and comma-separated."""
    names = tuple(n.strip() for v in values for n in v.split(",") if n.strip())
    bad = [n for n in names if not n.isidentifier()]
    if bad:
        raise click.BadParameter(f"not a method name: {', '.join(map(repr, bad))}")
    return names


def _names(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    return split_names(values)


def analysis_options(command: F) -> F:
    """--methods, --exclude, --backend, --budget, --crosshair-budget, --timeout, --unroll,
    --no-cache, --cache-dir."""
    options = [
        click.option("--methods", multiple=True, callback=_names, metavar="A,B,...",
                     help="The actions to analyse (repeatable or comma-separated) [default: public methods]."),
        click.option("--exclude", multiple=True, callback=_names, metavar="A,B,...",
                     help="Methods to leave out of the actions (repeatable or comma-separated)."),
        click.option("--backend", type=click.Choice(BACKENDS), default=None,
                     help="z3 reads the source only; crosshair imports and runs the module; auto asks "
                     "z3 first and CrossHair only about the transitions z3 leaves undecided [default: auto]."),
        click.option("--budget", type=click.FloatRange(min=0), default=None, metavar="SECONDS",
                     help="Solver time per class (z3 and CrossHair); after it the typestate is PARTIAL "
                     f"[default: {DEFAULT_BUDGET:g}; 0: no limit]."),
        click.option("--crosshair-budget", type=click.FloatRange(min=0), default=None, metavar="SECONDS",
                     help="Under --backend auto, CrossHair's time per class (from its first question); "
                     "after it, what z3 left undecided stays may "
                     f"[default: {DEFAULT_CROSSHAIR_BUDGET:g}; 0: only --budget]."),
        click.option("--no-cache", is_flag=True, help="Do not read or write the CrossHair answer cache."),
        click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                     help="Folder of the CrossHair answer cache "
                     "[default: .contractor-cache/ or $CONTRACTOR_CACHE_DIR]."),
        click.option("--state-names", is_flag=True,
                     help="Name the states by their invariants (closed_not_moving) instead of S1..Sn, "
                     "in every output."),
        click.option("--unroll", type=click.IntRange(min=0), default=None,
                     help="Loop iterations the z3 backend unrolls; beyond them answers are 'may' [default: 8]."),
        click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
                     metavar="SECONDS", help="Time limit of one solver query [default: 10]."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


# click parameter name -> (settings field, conversion of the given value)
_FIELDS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "backend": ("backend", str), "budget": ("budget", float), "timeout": ("timeout", float),
    "crosshair_budget": ("crosshair_budget", float),
    "unroll": ("unroll", int), "max_states": ("max_states", int), "preconditions": ("preconditions", str),
    "jobs": ("jobs", int),
    "methods": ("methods", tuple), "exclude": ("exclude", tuple), "must_call": ("must_call", tuple),
    "out": ("out", Path), "no_cache": ("cache", lambda v: not v), "cache_dir": ("cache_dir", Path),
    "fmt": ("format", str), "fail_on": ("fail_on", str), "png": ("png", bool),
    "no_svg": ("svg", lambda v: not v), "no_html": ("html", lambda v: not v), "dialect": ("dialect", str),
    "state_names": ("state_names", bool),
}


def command_line_layer(ctx: click.Context) -> PartialSettings:
    """The settings the command line gives explicitly (defaults and absent options give none)."""
    given: dict[str, Any] = {}
    for name, value in ctx.params.items():
        if name not in _FIELDS or value is None or value == ():
            continue
        if ctx.get_parameter_source(name) not in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
            continue
        field, convert = _FIELDS[name]
        given[field] = convert(value)
    return PartialSettings(**given)


def project_config(start: Path | None = None) -> ProjectConfig:
    """`[tool.contractor]` of the nearest pyproject.toml from `start` (the working folder)."""
    return _read_project(find_pyproject((start or Path.cwd()).resolve()))


def class_settings(project: ProjectConfig, command_line: PartialSettings, name: str = "",
                   qualified: str = "") -> Settings:
    """The settings of one class: defaults < project < the class's table < command line."""
    return overlay(Settings(), project.settings, project.for_class(name, qualified), command_line)


def infer_options(settings: Settings) -> api.InferOptions:
    crosshair: dict[str, Any] = {}
    if not settings.cache:
        crosshair["cache"] = False
    if settings.cache_dir is not None:
        crosshair["cache_dir"] = str(settings.cache_dir)
    if settings.crosshair_budget and settings.backend == "auto":
        # CrossHair's share of an auto run; alone, CrossHair does all the work and only the
        # run's budget bounds it
        crosshair["budget"] = settings.crosshair_budget
    return api.InferOptions(
        backend=settings.backend, methods=settings.methods or None, exclude=settings.exclude,
        unroll=settings.unroll, timeout=settings.timeout, max_states=settings.max_states,
        jobs=settings.jobs, crosshair_options=crosshair,
        budget=settings.budget or None,  # 0: no limit
        preconditions=PreconditionMode(settings.preconditions) if settings.preconditions else None)


__all__ = ["analysis_options", "class_settings", "command_line_layer", "infer_options", "project_config",
           "split_names"]

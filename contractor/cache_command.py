"""`contractor cache`: where the CrossHair answer cache is, and `contractor cache clear`."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import click

from contractor.crosshair_backend.cache import default_directory, is_cache_directory
from contractor.errors import ContractorError

EXIT_ERROR = 2

_CACHE_DIR = click.option(
    "--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
    help="The cache folder [default: cache-dir of [tool.contractor], else .contractor-cache/ "
    "or $CONTRACTOR_CACHE_DIR].")


def cache_directory(given: Path | None) -> Path:
    """--cache-dir, else [tool.contractor] cache-dir, else the default folder."""
    if given is not None:
        return given
    from contractor.cli_options import project_config

    configured = project_config().settings.cache_dir
    return configured if configured is not None else default_directory()


def _directory(given: Path | None) -> Path:
    try:
        return cache_directory(given)
    except ContractorError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)


@click.group("cache", context_settings={"help_option_names": ["-h", "--help"]})
def cache_group() -> None:
    """The cache of CrossHair answers (`--backend crosshair` and `auto`)."""


@cache_group.command("dir")
@_CACHE_DIR
def show(cache_dir: Path | None) -> None:
    """Print the cache folder."""
    click.echo(str(_directory(cache_dir)))


@cache_group.command("clear")
@_CACHE_DIR
def clear(cache_dir: Path | None) -> None:
    """Delete the cache folder and every answer in it.

    Only a folder contractor made (it holds contractor's CACHEDIR.TAG) is deleted.
    """
    directory = _directory(cache_dir)
    if not directory.exists():
        click.echo(f"Nothing to clear: {directory} does not exist")
        return
    if not is_cache_directory(directory):
        click.echo(f"error: {directory} is not a contractor cache (it has no CACHEDIR.TAG written by "
                   "contractor); not deleting it", err=True)
        sys.exit(EXIT_ERROR)
    entries = sum(1 for _ in directory.rglob("*.json"))
    try:
        shutil.rmtree(directory)
    except OSError as exc:
        click.echo(f"error: cannot delete {directory}: {exc.strerror}", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(f"Removed {directory} ({entries} cached answer{'s' * (entries != 1)})")


__all__ = ["cache_directory", "cache_group"]

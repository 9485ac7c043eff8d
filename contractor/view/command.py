"""`contractor view [PATH or TARGET]`: start the explorer page on 127.0.0.1 and open it."""

from __future__ import annotations

import sys
import webbrowser
from pathlib import Path

import click

from contractor import api
from contractor.errors import ContractorError

VIEW_EPILOG = """\b
PATH is a folder (default: the current one) or a .py file whose classes with
contracts or raise guards the page lists. TARGET (file.py:Class, module:Class or
Class) opens the page on that class and starts analysing it at once.
The server listens on 127.0.0.1 only and stops with Ctrl-C.

\b
Exit codes:
  0    the server was stopped (Ctrl-C)
  2    bad usage or input (an unknown target, a port in use)
"""


@click.command("view", epilog=VIEW_EPILOG)
@click.argument("where", required=False, default=".", metavar="[PATH or TARGET]")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port on 127.0.0.1 (0: any free port).")
@click.option("--no-browser", is_flag=True, help="Do not open a browser; just print the address.")
@click.option("--backend", type=click.Choice(["z3", "crosshair", "auto"]), default="auto", show_default=True,
              help="The solver, as for `contractor infer`.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=10.0, show_default=True,
              metavar="SECONDS", help="Time limit of one solver query.")
def view_command(where: str, port: int, no_browser: bool, backend: str, timeout: float) -> None:
    """Explore typestates in the browser: choose a class, watch its typestate grow."""
    from contractor.view.server import bind, serve
    from contractor.view.session import Session

    options = api.InferOptions(backend=backend, timeout=timeout)
    path = Path(where)
    target = None
    try:
        if not path.exists():
            target = where
            api.load_model(target, options)  # fails early, naming the problem, if TARGET is wrong
            path = Path.cwd()
        sock = bind(port)
    except ContractorError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    session = Session(path, options)
    if target is not None:
        session.start(target)

    def ready(url: str) -> None:
        click.echo(f"contractor view: {url} (Ctrl-C to stop)", err=True)
        if not no_browser:
            webbrowser.open(url)

    try:
        serve(session, sock, on_ready=ready)
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it handled: a normal stop
        pass
    finally:
        session.close()


__all__ = ["view_command"]

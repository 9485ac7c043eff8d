"""Writing a typestate's files: everything is rendered in memory first, then written to
temporary files inside the output folder and only then renamed into place, so an error
(a renderer failing, say) leaves the folder as it was."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from contractor.errors import ContractorError
from contractor.outputs.diagram import draw_svg
from contractor.outputs.dot import to_dot
from contractor.outputs.json_out import to_json
from contractor.outputs.mermaid import to_mermaid
from contractor.typestate import Typestate

# Every file name write_artifacts may produce, in the order it lists them.
ARTIFACTS = (
    "typestate.json",
    "typestate.dot",
    "typestate.mmd",
    "typestate.svg",
    "typestate.png",
    "report.html",
)


@contextmanager
def _timed(timings: dict[str, float] | None, what: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        if timings is not None:
            timings[what] = timings.get(what, 0.0) + time.perf_counter() - start


def render_artifacts(
    ts: Typestate, *, svg: bool = True, png: bool = False, html: bool = True,
    timings: dict[str, float] | None = None,
) -> dict[str, bytes]:
    """File name -> content of every requested artifact (nothing touches the disk).

    The SVG is rendered when either it or the HTML report (which shows it inline) is wanted;
    a large typestate gets a folded diagram or a note (see `diagram`). The HTML and PNG
    renderers (jinja2, Graphviz) are imported only when those files are wanted.
    `timings`, when given, receives the seconds each format took ("json", "dot", ...).
    """
    files = {}
    with _timed(timings, "json"):
        files["typestate.json"] = to_json(ts).encode()
    with _timed(timings, "dot"):
        dot = to_dot(ts)
        files["typestate.dot"] = dot.encode()
    with _timed(timings, "mermaid"):
        files["typestate.mmd"] = to_mermaid(ts).encode()
    with _timed(timings, "svg"):
        svg_bytes = draw_svg(ts, dot) if (svg or html) else None
    if svg and svg_bytes is not None:
        files["typestate.svg"] = svg_bytes
    if png:
        from contractor.outputs.render import render_png

        with _timed(timings, "png"):
            files["typestate.png"] = render_png(dot)
    with _timed(timings, "html"):
        if html:
            from contractor.outputs.html import to_html

            files["report.html"] = to_html(ts, svg_bytes).encode()
    return {name: files[name] for name in ARTIFACTS if name in files}


def write_artifacts(
    ts: Typestate, out_dir: Path | str, *, svg: bool = True, png: bool = False, html: bool = True,
    timings: dict[str, float] | None = None,
) -> list[Path]:
    """Write the artifacts of `ts` into `out_dir` (created if needed); return their paths.

    Artifacts a previous run left there that this run does not produce (the PNG of an
    earlier `--png` run, say) are removed, so the folder never mixes two analyses.
    """
    out = Path(out_dir)
    files = render_artifacts(ts, svg=svg, png=png, html=html, timings=timings)
    if out.exists() and not out.is_dir():
        raise ContractorError(f"output path {out} exists and is not a folder")
    for name in ARTIFACTS:  # checked first: nothing is written when one cannot be replaced
        if (out / name).is_dir() or ((out / name).exists() and not (out / name).is_file()):
            raise ContractorError(f"cannot write {out / name}: a folder or special file of that name is in the way")
    created = _missing_folders(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        staged = _stage(out, files)
    except BaseException as exc:
        for folder in created:  # innermost first; each is empty unless someone else wrote there
            try:
                folder.rmdir()
            except OSError:
                break
        if isinstance(exc, OSError):
            raise ContractorError(f"cannot create output folder {out}: {exc}") from exc
        raise
    written = []
    try:
        for name, temp in staged.items():
            target = out / name
            os.replace(temp, target)
            written.append(target)
    except BaseException as exc:  # leave no temporary file behind
        for temp in staged.values():
            temp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise ContractorError(f"cannot write {target}: {exc}") from exc
        raise
    for name in ARTIFACTS:
        if name not in files and (out / name).is_file():
            (out / name).unlink()
    return written


def _stage(out: Path, files: dict[str, bytes]) -> dict[str, Path]:
    """Write every file to a temporary name in `out`; on any error remove them all."""
    staged: dict[str, Path] = {}
    try:
        for name, content in files.items():
            temp = out / f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
            with open(temp, "xb") as handle:  # "x": never clobber; mode follows the umask
                staged[name] = temp
                handle.write(content)
    except BaseException as exc:  # Ctrl-C included: leave no temporary file behind
        for temp in staged.values():
            temp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise ContractorError(f"cannot write into {out}: {exc}") from exc
        raise
    return staged


def _missing_folders(path: Path) -> list[Path]:
    """The folders `path.mkdir(parents=True)` would create, innermost first."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing


__all__ = ["ARTIFACTS", "render_artifacts", "write_artifacts"]

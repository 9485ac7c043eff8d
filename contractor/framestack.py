"""Python's frame stack in one large chunk while a command or an inference (api.infer_model) runs.

CPython (3.11 on) keeps the frames of Python functions on a data stack made of 16 KB
chunks: a call that does not fit in the current chunk maps a new one (`mmap`), and the
return that empties it unmaps it again. A translation's recursion (statements, inlined
calls, expressions) goes up and down across a chunk's edge thousands of times:
http.client.HTTPConnection's run mapped and unmapped 21,500 chunks, each a page fault
and two system calls (about 7 us a crossing, 0.15 s of the run).

`deep` calls a function from a frame whose code asks for a large value stack (1 M
pointers, never touched beyond what it uses: the pages of a mapping are faulted in only
where written), so CPython gives that frame a chunk of 16 MB, and the calls under it fit
in the rest of it: no chunk is mapped or unmapped until the stack is 1 M pointers deeper
(Python's recursion limit ends it long before). Nothing else changes: the same calls,
the same objects.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

SLOTS = 1 << 20  # the large frame's value stack, in pointers (8 MB; its chunk: 16 MB of address space)


def _call(f: Callable[[], T]) -> T:
    return f()


_deep_call: Any = types.FunctionType(_call.__code__.replace(co_stacksize=SLOTS), _call.__globals__, "deep")


def deep(f: Callable[[], T]) -> T:
    """`f()`, its frames on the large chunk (see the module docstring)."""
    out: T = _deep_call(f)
    return out


__all__ = ["deep"]

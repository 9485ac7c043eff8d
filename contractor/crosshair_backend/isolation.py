"""Keeps CrossHair's process-wide switches inside the CrossHair backend's own calls.

Importing `crosshair.core_and_libs` turns off icontract's and deal's run-time checks for
the whole process (CrossHair wants to run contracts itself). A program that uses the
contractor API and then runs icontract- or deal-checked code would silently lose its
contracts. So the switches are recorded before CrossHair is imported, restored at once,
and CrossHair's settings are applied only while a search or a replay runs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


def _icontract_checkers() -> tuple[Any, dict[str, Any]] | None:
    try:
        import icontract._checkers as checkers
    except ImportError:
        return None
    names = ("_assert_invariant", "_assert_preconditions", "_assert_postconditions")
    return checkers, {n: getattr(checkers, n) for n in names}


def _deal_state() -> tuple[Any, bool] | None:
    try:
        import deal
        from deal._state import state
    except ImportError:
        return None
    return deal, state.debug


def _restore(ic, dl) -> None:
    if ic is not None:
        module, funcs = ic
        for name, f in funcs.items():
            setattr(module, name, f)
    if dl is not None:
        deal, debug = dl
        if debug:
            deal.enable(warn=False)
        else:
            deal.disable(warn=False)


_BEFORE = (_icontract_checkers(), _deal_state())
import crosshair.core_and_libs  # noqa: E402,F401  (registers CrossHair's symbolic types)

_CROSSHAIR = (_icontract_checkers(), _deal_state())
_restore(*_BEFORE)


@contextlib.contextmanager
def crosshair_settings() -> Iterator[None]:
    """Within the block, icontract and deal checks are off, as CrossHair expects."""
    saved = (_icontract_checkers(), _deal_state())
    _restore(*_CROSSHAIR)
    try:
        yield
    finally:
        _restore(*saved)

"""The query harness around CrossHair's in-process path search.

`search(inputs, goal, timeout)` asks: are there values of the typed `inputs` for which
`goal(values)` returns true? `goal` calls `assume(...)` for its assumptions. The answer is
an example (the inputs, realised to concrete values), "none" (every path was explored:
CrossHair's "confirmed over all paths"), or "unknown" (timeout or incomplete search).
This is the only module that touches CrossHair's internals.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from crosshair.auditwall import enabled_auditwall
from crosshair.condition_parser import condition_parser
from crosshair.copyext import CopyMode, deepcopyext
from crosshair.core import ExceptionFilter, PathOutcome, deep_realize, explore_loop, gen_args
from crosshair.options import DEFAULT_OPTIONS, AnalysisOptionSet
from crosshair.statespace import CallAnalysis, RootNode, VerificationStatus
from crosshair.tracers import ResumedTracing
from crosshair.util import IgnoreAttempt

from contractor.crosshair_backend.isolation import crosshair_settings  # before crosshair: see there

Status = Literal["found", "none", "unknown"]


@dataclass(frozen=True)
class Outcome:
    status: Status
    example: dict[str, Any] | None = None  # concrete input values, when found
    detail: str = ""
    paths: int = 0  # paths CrossHair explored


def assume(condition: Any) -> None:
    """Inside a goal: drop this path unless the condition holds."""
    if not condition:
        raise IgnoreAttempt


def search(inputs: dict[str, Any], goal: Callable[[dict[str, Any]], Any], timeout: float) -> Outcome:
    """Search for input values (symbolic, of the given Python types) making goal true.

    Exceptions raised by user code on a path end that path without a hit. The audit-hook
    wall is engaged while user code runs, as CrossHair's own command line does.
    KeyboardInterrupt propagates (CrossHair's control flow never catches BaseException).
    """
    sig = inspect.Signature([
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typ)
        for name, typ in inputs.items()])
    options = DEFAULT_OPTIONS.overlay(AnalysisOptionSet(per_condition_timeout=max(timeout, 0.05)))
    found: list[dict[str, Any]] = []

    def run_path(space):
        original = gen_args(sig)
        space.checkpoint()
        values = deepcopyext(original, CopyMode.BEST_EFFORT, {})
        with ExceptionFilter() as efilter:
            with ResumedTracing():
                hit = bool(goal(dict(values.arguments)))
        if efilter.ignore:
            return PathOutcome(efilter.analysis)
        if efilter.user_exc is not None:
            return PathOutcome(CallAnalysis(VerificationStatus.CONFIRMED))
        if not hit:
            return PathOutcome(CallAnalysis(VerificationStatus.CONFIRMED))
        with ResumedTracing():
            space.detach_path()
        found.append(dict(deep_realize(original).arguments))
        return PathOutcome(CallAnalysis(VerificationStatus.REFUTED), breakout=True)

    with crosshair_settings(), enabled_auditwall(), condition_parser(options.analysis_kind):
        result = explore_loop(options, RootNode(), run_path, stop_on_refutation=True)
    if found:
        return Outcome("found", found[0], paths=result.iterations)
    status = result.top_analysis.verification_status if result.top_analysis else None
    if result.exhausted and status in (None, VerificationStatus.CONFIRMED):
        return Outcome("none", paths=result.iterations)
    why = "timeout" if not result.exhausted else "some paths could not be explored"
    return Outcome("unknown", detail=f"CrossHair search incomplete ({why}, {result.iterations} paths)",
                   paths=result.iterations)


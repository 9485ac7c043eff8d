"""One analysis in a child process: it reads the class, explores it and sends each state,
initialization and transition as it is found, then the final typestate.

A child process rather than a thread: the CrossHair backend switches on process-wide
guards (an audit-hook wall against side effects) that must not reach the web server,
and a child can be ended even in the middle of a long solver query. Messages are plain
dicts (see `Message`) sent over a `multiprocessing` pipe.
"""

from __future__ import annotations

import enum
import traceback
from dataclasses import asdict
from pathlib import Path
from typing import Any

from contractor import api
from contractor.errors import ContractorError
from contractor.events import ExploreEvent, InitializationFound, StateFound, TransitionFound


class Message(enum.Enum):
    """The `type` of a message from the worker."""

    MODEL = "model"  # the class was read: class, source, methods, constructors
    STATE = "state"
    INIT = "init"
    TRANSITION = "transition"
    PROGRESS = "progress"  # states, transitions: after each (state, method) pair
    DONE = "done"  # typestate: Typestate.to_dict()
    ERROR = "error"  # message


def wire(event: ExploreEvent) -> dict[str, Any]:
    """An exploration event as a message."""
    if isinstance(event, StateFound):
        return {"type": Message.STATE.value, "id": event.id, "enabled": list(event.enabled)}
    if isinstance(event, InitializationFound):
        return {"type": Message.INIT.value, **asdict(event.initialization)}
    if isinstance(event, TransitionFound):
        return {"type": Message.TRANSITION.value, **asdict(event.transition)}
    raise TypeError(f"not an exploration event: {event!r}")


def analyse(target: str, root: str, options: api.InferOptions, conn, stop) -> None:
    """The child's entry point: explore `target` (resolved under `root`), sending messages
    on `conn`; once `stop` (a multiprocessing Event) is set, the exploration ends at the
    next event and sends the partial typestate."""
    from contractor.explore import Interrupted

    def on_event(event: ExploreEvent) -> None:
        conn.send(wire(event))
        if stop.is_set():
            raise Interrupted

    def on_progress(states: int, transitions: int) -> None:
        conn.send({"type": Message.PROGRESS.value, "states": states, "transitions": transitions})
        if stop.is_set():
            raise Interrupted

    try:
        model = api.load_model(target, options, Path(root))
        conn.send({"type": Message.MODEL.value, "class": model.name, "source": model.path,
                   "methods": list(model.actions), "constructors": list(model.constructors)})
        ts = api.infer_model(model, options, on_progress=on_progress, on_event=on_event)
        conn.send({"type": Message.DONE.value, "typestate": ts.to_dict()})
    except ContractorError as exc:
        conn.send({"type": Message.ERROR.value, "message": str(exc)})
    except Exception:  # a bug in contractor: show the traceback in the page
        conn.send({"type": Message.ERROR.value,
                   "message": "internal error (please report):\n" + traceback.format_exc()})
    finally:
        conn.close()


__all__ = ["Message", "analyse", "wire"]

"""Helpers of the `contractor view` tests: a served session and HTTP calls to it."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"

BAD = '''\
class Bad:
    """
    inv: self.n >= 0
    """

    def __init__(self) -> None:
        self.n = 0

    def inc(self) -> None:
        self.n += 1

    def dec(self) -> None:
        """
        pre: self.n < 5
        """
        self.n -= 1
'''


def get(url: str):
    """(status, body, headers); the headers are looked up case-insensitively."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read(), response.headers
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers


def get_json(url: str):
    status, body, _ = get(url)
    assert status == 200, (status, body[:300])
    return json.loads(body)


def post(url: str, data: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=json.dumps(data or {}).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def wait_status(base: str, run: int, statuses: set[str], timeout: float = 60) -> dict:
    """Poll /api/status until run `run` reaches one of `statuses`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = get_json(base + "api/status")
        if status.get("run") == run and status.get("status") in statuses:
            return status
        time.sleep(0.1)
    raise AssertionError(f"run {run} did not reach {statuses}: {get_json(base + 'api/status')}")


def read_events(base: str, until, start: int = 0, timeout: float = 60) -> list[dict]:
    """Read the SSE stream from event `start` until `until(event)` is true."""
    events = []
    with urllib.request.urlopen(f"{base}api/events?from={start}", timeout=timeout) as stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        for raw in stream:
            line = raw.decode().rstrip("\n")
            if line.startswith("data: "):
                events.append(json.loads(line[len("data: "):]))
                if until(events[-1]):
                    return events
    raise AssertionError("the event stream ended early")


class _SlowConn:
    """A worker's pipe that pauses after each state or transition it sends."""

    def __init__(self, conn, delay: float) -> None:
        self.conn, self.delay = conn, delay

    def send(self, message: dict) -> None:
        self.conn.send(message)
        if message["type"] in ("state", "transition"):
            time.sleep(self.delay)

    def close(self) -> None:
        self.conn.close()


def slow_analyse(target, root, options, conn, stop) -> None:
    """The real worker, slowed to 0.1 s per state or transition (a child-process entry point)."""
    from contractor.view.worker import analyse

    analyse(target, root, options, _SlowConn(conn, 0.1), stop)


def flags_source(n: int) -> str:
    """n independent flags (set_i, clear_i): 2**n states and n * 2**n transitions."""
    lines = ["class Flags:", "    def __init__(self) -> None:"] + [f"        self.f{i} = False" for i in range(n)]
    for i in range(n):
        lines += [f"    def set_{i}(self) -> None:", f'        """pre: not self.f{i}"""', f"        self.f{i} = True",
                  f"    def clear_{i}(self) -> None:", f'        """pre: self.f{i}"""', f"        self.f{i} = False"]
    return "\n".join(lines) + "\n"


def deaf_analyse(target, root, options, conn, stop) -> None:
    """A worker stuck in a long solver query: it reports one state, then never listens."""
    conn.send({"type": "model", "class": "Stuck", "source": "stuck.py", "methods": ["go"],
               "constructors": ["__init__"]})
    conn.send({"type": "state", "id": "S1", "enabled": ["go"]})
    time.sleep(600)


def _child() -> None:
    pass


def forking_analyse(target, root, options, conn, stop) -> None:
    """The real worker after starting a process of its own, as `contractor.parallel` does for
    large explorations (a daemonic worker may not: the analysis would fail)."""
    import multiprocessing

    from contractor.view.worker import analyse

    child = multiprocessing.get_context("fork").Process(target=_child, daemon=True)
    child.start()
    child.join()
    analyse(target, root, options, conn, stop)

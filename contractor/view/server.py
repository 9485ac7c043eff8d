"""The HTTP side of `contractor view`: a Starlette app over one `Session`, served by
uvicorn on 127.0.0.1 only.

Routes: `/` the page; `/static/*` its script and style (package data: nothing comes from
the network, and the page's Content-Security-Policy forbids other origins);
`/api/classes` the class chooser's list; `POST /api/run` and `POST /api/stop`;
`/api/events` the live events as server-sent events; `/api/status`; `/api/source` the
text of a listed source file (for the findings' line links); `/api/export/<file>`.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from contractor.errors import ContractorError
from contractor.outputs.dot import to_dot
from contractor.outputs.json_out import to_json
from contractor.outputs.mermaid import to_mermaid
from contractor.resources import jinja_env
from contractor.strict_json import dumps
from contractor.target import display
from contractor.view.session import PageEvent, Session

HOST = "127.0.0.1"
CSP = ("default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
KEEPALIVE = 15.0  # seconds between SSE comments on an idle stream
EXPORTS = {  # file suffix -> (media type, renderer)
    "json": ("application/json", lambda ts: to_json(ts)),
    "mmd": ("text/plain; charset=utf-8", lambda ts: to_mermaid(ts)),
    "dot": ("text/vnd.graphviz; charset=utf-8", lambda ts: to_dot(ts)),
}


def _json_error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_app(session: Session) -> Starlette:
    """The Starlette app serving `session`."""
    closing = threading.Event()

    async def page(request: Request) -> HTMLResponse:
        html = jinja_env().get_template("view.html.j2").render(root=display(session.root))
        return HTMLResponse(html, headers={"Content-Security-Policy": CSP, "Cache-Control": "no-store"})

    async def classes(request: Request) -> JSONResponse:
        entries = await asyncio.to_thread(session.classes)
        return JSONResponse({"root": display(session.root), "classes": [e.to_dict() for e in entries]})

    async def run(request: Request) -> JSONResponse:
        try:
            body = await request.json()
        except ValueError:
            return _json_error("expected a JSON body {\"target\": \"file.py:Class\"}", 400)
        target = body.get("target") if isinstance(body, dict) else None
        if not isinstance(target, str) or not target.strip():
            return _json_error("expected a JSON body {\"target\": \"file.py:Class\"}", 400)
        started = await asyncio.to_thread(session.start, target.strip())
        return JSONResponse({"run": started.id, "target": started.target})

    async def stop(request: Request) -> JSONResponse:
        await asyncio.to_thread(session.stop)
        current = session.current
        return JSONResponse({"run": current.id if current else None})

    async def status(request: Request) -> JSONResponse:
        current = session.current
        if current is None:
            return JSONResponse({"run": None})
        ts = current.typestate()
        return JSONResponse({"run": current.id, "target": current.target, "status": current.status.value,
                             "states": len(ts.states), "transitions": len(ts.transitions)})

    async def events(request: Request) -> StreamingResponse:
        start = _start_seq(request, session)
        return StreamingResponse(_stream(request, session, start, closing), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def source(request: Request) -> Response:
        path = _listed_source(session, request.query_params.get("path", ""))
        if path is None:
            return PlainTextResponse("not a source file of this view", status_code=404)
        return PlainTextResponse(path.read_text(encoding="utf-8", errors="replace"))

    async def export(request: Request) -> Response:
        suffix = request.path_params["suffix"]
        current = session.current
        if current is None:
            return _json_error("nothing analysed yet", 404)
        ts = current.typestate()
        name = f"{ts.class_name}.typestate.{suffix}"
        headers = {"Content-Disposition": f'attachment; filename="{name}"'}
        if suffix == "svg":
            if current.svg is None:
                return _json_error("no diagram drawn yet", 404)
            return Response(current.svg, media_type="image/svg+xml", headers=headers)
        if suffix not in EXPORTS:
            return _json_error(f"unknown export {suffix!r}; expected svg, json, mmd or dot", 404)
        media, render = EXPORTS[suffix]
        return Response(render(ts), media_type=media, headers=headers)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        closing.set()
        await asyncio.to_thread(session.close)

    static = StaticFiles(directory=str(Path(__file__).resolve().parent / "static"))
    return Starlette(routes=[
        Route("/", page),
        Mount("/static", static, name="static"),
        Route("/api/classes", classes),
        Route("/api/run", run, methods=["POST"]),
        Route("/api/stop", stop, methods=["POST"]),
        Route("/api/status", status),
        Route("/api/events", events),
        Route("/api/source", source),
        Route("/api/export/typestate.{suffix}", export),
    ], lifespan=lifespan)


def _start_seq(request: Request, session: Session) -> int:
    """Where a new stream starts: after Last-Event-ID on a reconnect, else at the current
    run's first event (so a page opened mid-run sees the whole run)."""
    last = request.headers.get("last-event-id") or request.query_params.get("from")
    if last is not None and last.lstrip("-").isdigit():
        return int(last) + (1 if request.headers.get("last-event-id") else 0)
    current = session.current
    return current.first_seq if current is not None else len(session.log)


def strict_json(value) -> str:
    """JSON a browser's `JSON.parse` accepts: a NaN or infinite float (a solver's witness can
    hold one) becomes `{"__float__": "nan" | "inf" | "-inf"}`, which the page shows as
    `float('nan')` and so on."""
    return dumps(value, default=str)


def _latest_diagrams_only(batch: list[dict]) -> list[dict]:
    """A batch without the diagrams a later diagram of the same batch replaces."""
    diagram = PageEvent.DIAGRAM.value
    last = {e["run"]: e["seq"] for e in batch if e["type"] == diagram}
    return [e for e in batch if e["type"] != diagram or last[e["run"]] == e["seq"]]


async def _stream(request: Request, session: Session, seq: int, closing: threading.Event) -> AsyncIterator[str]:
    idle = 0.0
    yield "retry: 1000\n\n"
    while not closing.is_set():
        batch = session.log.since(seq)
        if batch:
            seq = batch[-1]["seq"] + 1
            for event in _latest_diagrams_only(batch):
                yield f"id: {event['seq']}\ndata: {strict_json(event)}\n\n"
            idle = 0.0
            continue
        if await request.is_disconnected():
            return
        await asyncio.sleep(0.1)
        idle += 0.1
        if idle >= KEEPALIVE:
            idle = 0.0
            yield ": keep-alive\n\n"


def _listed_source(session: Session, shown: str) -> Path | None:
    """The file `shown` names if it is the current run's source or under the view's root."""
    if not shown:
        return None
    path = Path(shown).resolve()
    if not path.is_file() or path.suffix != ".py":
        return None
    root = session.root.resolve()
    current = session.current
    allowed = current is not None and current.live.source and Path(current.live.source).resolve() == path
    if allowed or path == root or root in path.parents:
        return path
    return None


def bind(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:`port` (0: any free port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise ContractorError(f"cannot listen on {HOST}:{port}: {exc.strerror or exc} "
                              "(choose another port with --port, or --port 0 for any free one)") from exc
    sock.listen(64)
    return sock


def make_server(session: Session) -> uvicorn.Server:
    config = uvicorn.Config(create_app(session), log_level="warning", timeout_graceful_shutdown=1,
                            lifespan="on")
    return uvicorn.Server(config)


def serve(session: Session, sock: socket.socket, on_ready: Callable[[str], None] | None = None) -> None:
    """Serve until Ctrl-C (in the main thread: uvicorn handles the signals)."""
    server = make_server(session)
    url = url_of(sock)
    if on_ready is not None:
        def announce() -> None:
            while not server.started and not server.should_exit:
                threading.Event().wait(0.05)
            if server.started:
                on_ready(url)

        threading.Thread(target=announce, daemon=True).start()
    server.run(sockets=[sock])


def url_of(sock: socket.socket) -> str:
    return f"http://{HOST}:{sock.getsockname()[1]}/"


@contextlib.contextmanager
def running(session: Session, port: int = 0) -> Iterator[str]:
    """Serve `session` in a background thread while the block runs; yields the URL (tests)."""
    sock = bind(port)
    server = make_server(session)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the view server did not start")
        threading.Event().wait(0.02)
    try:
        yield url_of(sock)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


__all__ = ["CSP", "HOST", "bind", "create_app", "running", "serve", "strict_json", "url_of"]

"""The live server's FastAPI app.

Routes (``{id}`` is a match id; writes need the organiser's token as ``Authorization: Bearer <token>``
or ``X-Adjudicator-Token: <token>``, else 401):

=======  ==============================  ======================================================
GET      /                               redirect to /board
GET      /board, /board/{id}             the board page (read-only; no token)
GET      /organiser                      the same page with the organiser's forms (token in ``?token=``)
GET      /api/health                     ``{"ok": true}``
GET      /api/formats                    each format's declared stage order
GET      /api/matches                    live matches (id, motion, status, stages received/analysed)
POST     /api/matches              token create a match from a header (match file without stages) -> 201
GET      /api/matches/{id}               the board snapshot (JSON)
GET      /api/matches/{id}/events        the board snapshot as server-sent events
POST     /api/matches/{id}/stages  token push one stage; ``?wait=false`` returns 202 before analysis
POST     /api/matches/{id}/close   token run the panel; returns the verdict JSON
GET      /api/matches/{id}/verdict       the stored verdict JSON (404 until closed)
GET      /api/matches/{id}/report        the stored Markdown report
=======  ==============================  ======================================================

Errors are JSON ``{"detail": "<one line>", "field": "<dotted path or null>"}``: 400 undecodable body,
401 missing or wrong token, 404 unknown match, 409 conflicting state, 413 body over the limit, 422
invalid header or stage (the same one-line message as the CLI, naming the field path), 502 when a
backend fault stopped an analysis or the panel.

Body limit: :data:`MAX_BODY_BYTES` (1 MiB) by default. A real stage is far smaller (an eight-minute
Chinese free debate is about 3,000 characters, ~10 KB of UTF-8; a long English online speech of 10,000
words ~60 KB), so the limit only stops mistakes and abuse.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from adjudicator.errors import AdjudicatorError, InputError
from adjudicator.live.errors import BadRequest, LiveRequestError, NotFound, PayloadTooLarge, Unauthorized
from adjudicator.live.events import Hub, board_stream
from adjudicator.live.store import LiveStore
from adjudicator.workflow.context import AdjudicationContext

log = logging.getLogger("adjudicator.live")

MAX_BODY_BYTES = 1024 * 1024
"""Default request-body limit in bytes (1 MiB); larger bodies get 413."""

DRAIN_LIMIT_BYTES = 64 * 1024 * 1024  # read and discard an oversized body up to this size before 413

STATIC_DIR = Path(__file__).resolve().parent / "static"


async def read_json_body(request: Request, limit: int) -> Any:
    """Read and decode the JSON body, refusing more than ``limit`` bytes (413), bytes that are not
    UTF-8 or not JSON (400)."""
    declared = request.headers.get("content-length")
    too_large = PayloadTooLarge(
        f"body: larger than this server's limit of {limit} bytes",
        "push one stage at a time; a stage is normally well under 100 KB",
        field="body",
    )
    if declared and declared.isdigit() and int(declared) > limit:
        if int(declared) <= DRAIN_LIMIT_BYTES:  # let the client finish sending, so it reads the 413
            async for _ in request.stream():
                pass
        raise too_large
    size = 0
    chunks: list[bytes] = []
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large
        chunks.append(chunk)
    raw = b"".join(chunks)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRequest(f"body: not UTF-8 text (byte {exc.start})", "send the JSON as UTF-8", field="body") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise BadRequest("body: empty", "send a JSON object", field="body")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadRequest(f"body: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", "fix the JSON syntax", field="body") from None


def _error_response(exc: AdjudicatorError) -> JSONResponse:
    status = exc.status_code if isinstance(exc, LiveRequestError) else 422 if isinstance(exc, InputError) else 502
    field = exc.field if isinstance(exc, LiveRequestError) else None
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse({"detail": exc.one_line(), "field": field}, status_code=status, headers=headers)


def create_app(
    state_dir: str | Path,
    context: AdjudicationContext,
    token: str,
    *,
    max_body_bytes: int = MAX_BODY_BYTES,
    recover_on_start: bool = True,
) -> FastAPI:
    """The live app over the state directory ``state_dir``, adjudicating with ``context``.

    ``token`` is the organiser's access token (required for every write). The app owns its
    :class:`LiveStore` (``app.state.store``) and :class:`Hub` (``app.state.hub``): at startup it resumes
    interrupted work in a background thread (``recover_on_start``); at shutdown it ends the event
    streams and closes the store.
    """
    if not token:
        raise ValueError("an access token is required")
    hub = Hub()
    store = LiveStore(state_dir, context, on_change=hub.publish)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        worker = None
        if recover_on_start:
            worker = threading.Thread(target=store.recover, name="live-recover", daemon=True)
            worker.start()
        else:
            store.recovered.set()
        try:
            yield
        finally:
            hub.close()
            if worker is not None:
                worker.join(timeout=30)
            store.close()

    app = FastAPI(title="adjudicator live", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.store = store
    app.state.hub = hub
    app.state.max_body_bytes = max_body_bytes

    @app.exception_handler(AdjudicatorError)
    async def _adjudicator_error(request: Request, exc: AdjudicatorError) -> JSONResponse:
        return _error_response(exc)

    def require_token(request: Request) -> None:
        given = request.headers.get("x-adjudicator-token") or ""
        auth = request.headers.get("authorization") or ""
        if auth.lower().startswith("bearer "):
            given = auth[7:].strip()
        if not given or not secrets.compare_digest(given.encode(), token.encode()):
            raise Unauthorized(
                "writes need the organiser's access token" if not given else "the access token is wrong",
                "send it as 'Authorization: Bearer <token>'; `adjudicate live serve` prints it and writes it to STATE_DIR/access.json",
                field=None,
            )

    # ---- pages

    @app.get("/", include_in_schema=False)
    async def index() -> RedirectResponse:
        return RedirectResponse("/board")

    @app.get("/board", include_in_schema=False)
    @app.get("/board/{match_id}", include_in_schema=False)
    @app.get("/organiser", include_in_schema=False)
    async def page(match_id: str | None = None) -> FileResponse:
        return FileResponse(STATIC_DIR / "board.html", media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-store"})

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    # ---- reads

    @app.get("/api/health")
    async def health() -> dict:
        return {"ok": True, "matches": len(store.match_ids()), "recovered": store.recovered.is_set()}

    @app.get("/api/formats")
    async def formats() -> dict:
        from adjudicator.formats import FORMATS

        return {
            name: {
                "language": f.language,
                "debaters_per_side": f.debaters_per_side,
                "stage_types": list(f.stage_types),
                "fixed_order": f.fixed_order,
                "order": [{"name": s.name, "type": s.type, "sides": list(s.sides), "speakers": list(s.speakers), "questioner": s.questioner, "phase": s.phase} for s in f.order],
            }
            for name, f in FORMATS.items()
        }

    @app.get("/api/matches")
    async def list_matches() -> dict:
        return {"matches": await run_in_threadpool(store.list_matches)}

    @app.get("/api/matches/{match_id}")
    async def get_match(match_id: str) -> JSONResponse:
        return JSONResponse(await run_in_threadpool(store.snapshot, match_id))

    @app.get("/api/matches/{match_id}/events")
    async def events(match_id: str) -> StreamingResponse:
        store.row(match_id)
        return StreamingResponse(
            board_stream(hub, match_id, lambda: store.snapshot(match_id)),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    def closed_file(match_id: str, path, what: str):
        """The stored ``what`` of a closed match (404 for an unknown match, or before close)."""
        if store.row(match_id).status != "closed" or not path.exists():
            raise NotFound(f"match {match_id!r} has no {what} yet", "close the match first")
        return path

    @app.get("/api/matches/{match_id}/verdict")
    async def get_verdict(match_id: str) -> Response:
        path = closed_file(match_id, store.verdict_path(match_id), "verdict")
        return Response(path.read_bytes(), media_type="application/json")

    @app.get("/api/matches/{match_id}/report")
    async def get_report(match_id: str) -> PlainTextResponse:
        path = closed_file(match_id, store.report_path(match_id), "report")
        return PlainTextResponse(path.read_text(encoding="utf-8"), media_type="text/markdown; charset=utf-8")

    # ---- writes

    @app.post("/api/matches", status_code=201)
    async def create_match(request: Request) -> JSONResponse:
        require_token(request)
        data = await read_json_body(request, max_body_bytes)
        snap = await run_in_threadpool(store.create, data)
        mid = snap["match"]["match_id"]
        return JSONResponse(
            {"match_id": mid, "board_url": f"/board/{mid}", "events_url": f"/api/matches/{mid}/events", "snapshot": snap},
            status_code=201,
            headers={"Location": f"/api/matches/{mid}"},
        )

    @app.post("/api/matches/{match_id}/stages")
    async def push_stage(match_id: str, request: Request, wait: bool = True) -> JSONResponse:
        require_token(request)
        store.row(match_id)
        data = await read_json_body(request, max_body_bytes)
        result = await run_in_threadpool(store.push, match_id, data, wait)
        return JSONResponse(result, status_code=202 if result["status"] == "queued" else 200)

    @app.post("/api/matches/{match_id}/close")
    async def close_match(match_id: str, request: Request) -> Response:
        require_token(request)
        store.row(match_id)
        await run_in_threadpool(store.close_match, match_id)
        return Response(store.verdict_path(match_id).read_bytes(), media_type="application/json")

    return app

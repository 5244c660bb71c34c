"""The live server's routes, in three groups: :data:`pages` (the board page and its static files),
:data:`reads` (public JSON and the event stream) and :data:`writes` (the organiser's, token required).

Routes (``{id}`` is a match id; writes need a token as ``Authorization: Bearer <token>`` or
``X-Adjudicator-Token: <token>``, else 401: the organiser's, or for a tournament room's match that
room's chair token (another room's chair token: 403). The tournament routes are in
:mod:`adjudicator.live.server.tournament_routes`):

=======  ==============================  ======================================================
GET      /                               redirect to /board
GET      /board, /board/{id}             the board page (read-only; no token)
GET      /organiser                      the same page with the organiser's forms (token in ``?token=``)
GET      /api/health                     ``{"ok": true}``
GET      /api/formats                    each format's declared stage order
GET      /api/matches                    one page of match summaries (``?offset=&limit=``, at most 500; ``total``, ``next_offset``)
POST     /api/matches              token create a match from a header (match file without stages) -> 201
GET      /api/matches/{id}               the board snapshot (JSON)
GET      /api/matches/{id}/events        the board snapshot as server-sent events
POST     /api/matches/{id}/stages  token push one stage; ``?wait=false`` returns 202 before analysis
POST     /api/matches/{id}/stages/{stage}/retry  token  analyse a failed stage again; the snapshot
POST     /api/matches/{id}/retry   token analyse every failed stage again; the snapshot
POST     /api/matches/{id}/close   token retry failed stages, run the panel; the verdict JSON (409 while a stage is failed,
                                         or a speech seems missing -- ``?force=true`` closes anyway)
GET      /api/matches/{id}/verdict       the stored verdict JSON (404 until closed)
GET      /api/matches/{id}/report        the stored Markdown report
GET      /api/matches/{id}/report.html   the verdict report as HTML, in the match's language
=======  ==============================  ======================================================

A tournament room's snapshot, verdict and reports are what its tournament shows the public
(:meth:`~adjudicator.live.tournament.tabroom.TabRoom.board_view`): until its verdict may be shown, the snapshot has
no verdict and the verdict and report routes answer 403, except to the organiser and the room's chair.
A tournament that keeps its boards private (``board_private``) answers its rooms' snapshot, stream,
verdict and reports only to a token of it (401 without one; :func:`~adjudicator.live.tournament.people.check_match_board`),
and ``GET /api/matches`` leaves its rooms out for other readers.

The routes find the app's :class:`~adjudicator.live.rooms.tracking.LiveStore`, :class:`~adjudicator.live.server.events.Hub`,
token and body limit on ``request.app.state`` (set by :func:`adjudicator.live.server.app.create_app`).
A write checks the token first, then (for a push or a close) that the match exists, then reads the body.

Body limit: :data:`MAX_BODY_BYTES` (1 MiB) by default. A real stage is far smaller (an eight-minute
Chinese free debate is about 3,000 characters, ~10 KB of UTF-8; a long English online speech of 10,000
words ~60 KB), so the limit only stops mistakes and abuse.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from adjudicator.input.jsontext import JsonInputError, read_json
from adjudicator.live.errors import BadRequest, NotFound, PayloadTooLarge
from adjudicator.live.rooms.snapshots import LIST_PAGE, LIST_PAGE_MAX
from adjudicator.live.rooms.tracking import LiveStore
from adjudicator.live.server.events import board_stream
from adjudicator.live.tournament.access import Forbidden, Gate, require_organiser, require_room
from adjudicator.live.tournament.corrections import record_match_event
from adjudicator.live.tournament.lifecycle import Actor
from adjudicator.live.tournament.people import check_match_board, readable_matches
from adjudicator.live.tournament.tabroom import TabRoom

MAX_BODY_BYTES = 1024 * 1024
"""Default request-body limit in bytes (1 MiB); larger bodies get 413."""

DRAIN_LIMIT_BYTES = 64 * 1024 * 1024  # read and discard an oversized body up to this size before 413

STATIC_DIR = Path(__file__).resolve().parents[1] / "static"

pages = APIRouter()
reads = APIRouter()
writes = APIRouter()


# ---------------------------------------------------------------------------------------------
# What a route needs from the request


def store_of(request: Request) -> LiveStore:
    """The app's live store."""
    return request.app.state.store


Store = Annotated[LiveStore, Depends(store_of)]


def tabroom_of(request: Request) -> TabRoom:
    """The app's tab room (tournaments over the live matches)."""
    return request.app.state.tabroom


Tabs = Annotated[TabRoom, Depends(tabroom_of)]


def require_actor(request: Request) -> Actor:
    """The actor of a write: the organiser, or a room's chair (:class:`~adjudicator.live.tournament.access.Gate`).
    Raises :class:`~adjudicator.live.errors.Unauthorized` (401) without a valid token."""
    gate: Gate = request.app.state.gate
    return gate.require(request.headers)


def reader(request: Request) -> Actor | None:
    """The actor of a read, or None for the public (no token). A token the server does not know is 401
    (:meth:`~adjudicator.live.tournament.access.Gate.optional`)."""
    gate: Gate = request.app.state.gate
    return gate.optional(request.headers)


def require_match_writer(request: Request, match_id: str, what: str) -> Actor:
    """The actor of a write to match ``match_id``: the organiser, or the chair of the room that
    ``match_id`` is. Raises 401, or :class:`~adjudicator.live.tournament.access.Forbidden` (403)."""
    actor = require_actor(request)
    if actor.role != "organiser":
        require_room(actor, match_id, what)
    return actor


def check_verdict_access(tabs: TabRoom, match_id: str, actor: Actor | None) -> None:
    """Raises :class:`~adjudicator.live.tournament.access.Forbidden` (403) when ``actor`` may not yet read the
    verdict of ``match_id`` (a tournament room whose verdict is not shown on the boards), and 401/403
    when its tournament keeps its boards private (:func:`~adjudicator.live.tournament.people.check_match_board`)."""
    check_match_board(tabs, match_id, actor)
    if not tabs.may_see_verdict(match_id, actor):
        raise Forbidden(f"match {match_id!r}: the verdict of this room is not released yet", "the organiser releases it (`adjudicate live release`)", field=None)


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
        return read_json(text, "body")
    except JsonInputError as exc:
        raise BadRequest(exc.message, exc.hint, field=exc.path or "body") from None


async def _body(request: Request) -> Any:
    return await read_json_body(request, request.app.state.max_body_bytes)


def _closed(store: LiveStore, match_id: str, stored: Any, what: str) -> Any:
    """The stored ``what`` of a closed match (404 for an unknown match, or before close)."""
    if store.row(match_id).status != "closed" or stored is None:
        raise NotFound(f"match {match_id!r} has no {what} yet", "close the match first")
    return stored


# ---------------------------------------------------------------------------------------------
# Pages (the static files are mounted by create_app)


@pages.get("/", include_in_schema=False)
async def index() -> RedirectResponse:
    return RedirectResponse("/board")


@pages.get("/board", include_in_schema=False)
@pages.get("/board/{match_id}", include_in_schema=False)
@pages.get("/organiser", include_in_schema=False)
async def page(match_id: str | None = None) -> FileResponse:
    return FileResponse(STATIC_DIR / "board.html", media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-store"})


# ---------------------------------------------------------------------------------------------
# Reads (no token)


@reads.get("/api/health")
async def health(store: Store) -> dict:
    return {"ok": True, "matches": len(store.match_ids()), "recovered": store.recovered.is_set()}


@reads.get("/api/formats")
async def formats() -> dict:
    from adjudicator.input.formats import FORMATS

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


@reads.get("/api/matches")
async def list_matches(request: Request, store: Store, tabs: Tabs, offset: Annotated[int, Query(ge=0)] = 0, limit: Annotated[int, Query(ge=1, le=LIST_PAGE_MAX)] = LIST_PAGE) -> dict:
    listing = await run_in_threadpool(store.list_matches, offset, limit)
    return await run_in_threadpool(readable_matches, tabs, listing, reader(request))  # a private tournament's rooms only to its readers


def _board(store: LiveStore, tabs: TabRoom, match_id: str) -> dict:
    return tabs.board_view(match_id, store.snapshot(match_id))


@reads.get("/api/matches/{match_id}")
async def get_match(match_id: str, request: Request, store: Store, tabs: Tabs) -> JSONResponse:
    await run_in_threadpool(check_match_board, tabs, match_id, reader(request))
    return JSONResponse(await run_in_threadpool(_board, store, tabs, match_id))


@reads.get("/api/matches/{match_id}/events")
async def events(match_id: str, request: Request, store: Store, tabs: Tabs) -> StreamingResponse:
    store.row(match_id)
    await run_in_threadpool(check_match_board, tabs, match_id, reader(request))
    return StreamingResponse(
        board_stream(request.app.state.hub, match_id, lambda: _board(store, tabs, match_id)),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


@reads.get("/api/matches/{match_id}/verdict")
async def get_verdict(match_id: str, request: Request, store: Store, tabs: Tabs) -> Response:
    body = _closed(store, match_id, await run_in_threadpool(store.verdicts.verdict_json, match_id), "verdict")
    check_verdict_access(tabs, match_id, reader(request))
    return Response(body, media_type="application/json")


@reads.get("/api/matches/{match_id}/report")
async def get_report(match_id: str, request: Request, store: Store, tabs: Tabs) -> PlainTextResponse:
    text = _closed(store, match_id, await run_in_threadpool(store.verdicts.report_text, match_id), "report")
    check_verdict_access(tabs, match_id, reader(request))
    return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")


@reads.get("/api/matches/{match_id}/report.html")
async def get_report_html(match_id: str, request: Request, store: Store, tabs: Tabs) -> HTMLResponse:
    _closed(store, match_id, await run_in_threadpool(store.verdict, match_id), "report")
    check_verdict_access(tabs, match_id, reader(request))
    html = await run_in_threadpool(tabs.report, match_id)
    return HTMLResponse(html, headers={"Cache-Control": "no-store", "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"})


# ---------------------------------------------------------------------------------------------
# Writes (the organiser's token)


@writes.post("/api/matches", status_code=201)
async def create_match(request: Request, store: Store) -> JSONResponse:
    require_organiser(require_actor(request), "creating a stand-alone match")
    data = await _body(request)
    snap = await run_in_threadpool(store.create, data)
    mid = snap["match"]["match_id"]
    return JSONResponse(
        {"match_id": mid, "board_url": f"/board/{mid}", "events_url": f"/api/matches/{mid}/events", "snapshot": snap},
        status_code=201,
        headers={"Location": f"/api/matches/{mid}"},
    )


@writes.post("/api/matches/{match_id}/stages")
async def push_stage(match_id: str, request: Request, store: Store, wait: bool = True) -> JSONResponse:
    actor = require_match_writer(request, match_id, "pushing a stage")
    store.row(match_id)
    data = await _body(request)
    result = await run_in_threadpool(store.push, match_id, data, wait)
    await run_in_threadpool(record_match_event, request.app.state.tabroom, match_id, "stage_pushed", actor,
                            {"stage_id": result["stage_id"], "duplicate": result["duplicate"], "status": result["status"]})
    return JSONResponse(result, status_code=202 if result["status"] == "queued" else 200)


@writes.post("/api/matches/{match_id}/stages/{stage_id}/retry")
async def retry_stage(match_id: str, stage_id: str, request: Request, store: Store) -> JSONResponse:
    require_match_writer(request, match_id, "retrying a stage")
    store.row(match_id)
    return JSONResponse(await run_in_threadpool(store.retry, match_id, stage_id))


@writes.post("/api/matches/{match_id}/retry")
async def retry_failed(match_id: str, request: Request, store: Store) -> JSONResponse:
    require_match_writer(request, match_id, "retrying failed stages")
    store.row(match_id)
    return JSONResponse(await run_in_threadpool(store.retry, match_id, None))


@writes.post("/api/matches/{match_id}/close")
async def close_match(match_id: str, request: Request, store: Store, force: bool = False) -> Response:
    actor = require_match_writer(request, match_id, "closing a match")
    store.row(match_id)
    await run_in_threadpool(store.close_match, match_id, force)
    body = await run_in_threadpool(store.verdicts.verdict_json, match_id)
    v = json.loads(body) if body else {}
    await run_in_threadpool(record_match_event, request.app.state.tabroom, match_id, "match_closed", actor, {"winner": v.get("winner"), "p": v.get("p"), "forced": force})
    return Response(body, media_type="application/json")

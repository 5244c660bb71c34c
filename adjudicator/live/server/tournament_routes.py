"""The live server's tournament routes: pages, public reads, and the organiser's and chairs' writes and
exports. The :class:`~adjudicator.live.tournament.tabroom.TabRoom` behind them says who may do what
(:mod:`adjudicator.live.tournament.access`).

``{t}``, ``{r}``, ``{room}`` are tournament, round and room ids. "org" needs the organiser's token,
"room" the organiser's or that room's chair token (another room's: 403), "public" none (a token, if
sent, shows what its holder may see). Every write answers 401 without a valid token.

=======  =================================================  ======  ===========================================
GET      /board/round/{t}/{r}                               public  the round overview page
GET      /api/labels                                        public  the board's words, English and Chinese
GET      /api/tournaments                                   public  every tournament (id, name, rounds)
POST     /api/tournaments                                   org     create a tournament -> 201
GET      /api/tournaments/{t}                               public  the tournament, its settings and rounds
POST     /api/tournaments/{t}/settings                      org     change board_shows, tabbycat_url, speaker_scale
GET      /api/tournaments/{t}/log                           org     the lifecycle log (``?round=``, ``&room=``)
POST     /api/tournaments/{t}/rounds                        org     create a round -> 201
GET      /api/tournaments/{t}/rounds/{r}                    public  the round overview (every room's state)
POST     /api/tournaments/{t}/rounds/{r}/release            org     release every room of the round (all confirmed)
GET      /api/tournaments/{t}/rounds/{r}/tabbycat           org     every room's Tabbycat ballot
GET      /api/tournaments/{t}/rounds/{r}/results.csv        org     the round's results as CSV
POST     /api/tournaments/{t}/rounds/{r}/rooms              org     create a room (and its match) -> 201, with its chair token
GET      /api/tournaments/{t}/rounds/{r}/rooms/{room}       public  one room (its draft and override: room)
POST     .../rooms/{room}/confirm                           room    confirm the verdict, with an optional override
POST     .../rooms/{room}/release                           org     release the room's confirmed verdict
POST     .../rooms/{room}/reopen                            org     a result back to draft, with a reason (logged before/after)
POST     .../rooms/{room}/void                              org     a result counts for nothing, with a reason (logged)
POST     .../rooms/{room}/repush                            org     replace a stage of a closed room, judge again: a new draft (logged before/after)
GET      /api/tournaments/{t}/rounds/{r}/log.csv            org     the round's lifecycle log as CSV (the trail of its results)
POST     .../rooms/{room}/chair-token                       org     issue a new chair token (the old one stops working)
POST     /api/tokens                                        org     issue a person token (tab room, chair, panellist, board) -> 201
GET      /api/tokens                                        org     every issued token's record, no secret (``?tournament=``)
POST     /api/tokens/{token_id}/revoke                      org     revoke a person token (it stops working at once)
GET      .../rooms/{room}/tabbycat                          room    the room's Tabbycat API v1 ballot
POST     /api/tournaments/{t}/rounds/{r}/tabbycat/push      org     push every confirmed room to Tabbycat
POST     .../rooms/{room}/tabbycat/push                     org     push one room to Tabbycat
=======  =================================================  ======  ===========================================

A push (:mod:`adjudicator.live.tabbycat.service`) takes ``{"dry_run": true}`` to check without
posting, ``{"resolve": "ours"|"theirs", "reason": ...}`` (one room) to answer a conflict with a result
Tabbycat counts that the room did not post, and the Tabbycat token in an ``X-Tabbycat-Token`` header when the server has none.

The room's stages are pushed, and its match closed, through ``/api/matches/<t>.<r>.<room>/stages`` and
``/close`` (:mod:`adjudicator.live.server.routes`), with the room's chair token or the organiser's.

A tournament with ``board_private`` answers its public reads (the tournament, round and room views,
and its rooms' boards, streams, verdicts and reports) only to a token that may read it, 401 without
one (:func:`~adjudicator.live.tournament.people.check_board_access`). "org" is any organiser-level token: the
shared one or a tab-room person's (:mod:`adjudicator.live.tournament.people`).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from adjudicator.live.server.routes import STATIC_DIR, Tabs, read_json_body, reader, require_actor
from adjudicator.live.tournament.corrections import correct, log_csv
from adjudicator.live.tournament.lifecycle import LogEntry
from adjudicator.live.tournament.model import parse_body
from adjudicator.live.tournament.people import People, check_tournament_board, may_read_tournament
from adjudicator.live.tournament.repush import repush
from adjudicator.verdict.labels import TABLES

pages = APIRouter()
reads = APIRouter()
writes = APIRouter()


async def _body(request: Request, *, optional: bool = False) -> Any:
    """The request's JSON body (limits and errors of :func:`read_json_body`); ``{}`` for an empty
    body when ``optional``."""
    if optional and request.headers.get("content-length") in (None, "0") and "chunked" not in (request.headers.get("transfer-encoding") or ""):
        return {}
    return await read_json_body(request, request.app.state.max_body_bytes)


def _created(data: dict, location: str) -> JSONResponse:
    return JSONResponse(data, status_code=201, headers={"Location": location})


# ---------------------------------------------------------------------------------------------
# Pages and public reads


@pages.get("/board/round/{tournament_id}/{round_id}", include_in_schema=False)
async def round_page(tournament_id: str, round_id: str) -> FileResponse:
    return FileResponse(STATIC_DIR / "board.html", media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-store"})


@reads.get("/api/labels")
async def labels_table() -> dict:
    return TABLES


def _readable(tabs: Any, actor: Any) -> list[dict]:
    private = {t.tournament_id for t in tabs.store.tournaments() if not may_read_tournament(t, actor)}
    return [t for t in tabs.list_tournaments() if t["tournament_id"] not in private]


@reads.get("/api/tournaments")
async def list_tournaments(request: Request, tabs: Tabs) -> dict:
    return {"tournaments": await run_in_threadpool(_readable, tabs, reader(request))}


@reads.get("/api/tournaments/{tournament_id}")
async def get_tournament(tournament_id: str, request: Request, tabs: Tabs) -> dict:
    actor = reader(request)
    await run_in_threadpool(check_tournament_board, tabs, tournament_id, actor)
    return await run_in_threadpool(tabs.tournament_view, tournament_id, actor)


@reads.get("/api/tournaments/{tournament_id}/rounds/{round_id}")
async def get_round(tournament_id: str, round_id: str, request: Request, tabs: Tabs) -> dict:
    actor = reader(request)
    await run_in_threadpool(check_tournament_board, tabs, tournament_id, actor)
    return await run_in_threadpool(tabs.round_view, tournament_id, round_id, actor)


@reads.get("/api/tournaments/{tournament_id}/rounds/{round_id}/rooms/{room_id}")
async def get_room(tournament_id: str, round_id: str, room_id: str, request: Request, tabs: Tabs) -> dict:
    actor = reader(request)
    await run_in_threadpool(check_tournament_board, tabs, tournament_id, actor)
    return await run_in_threadpool(tabs.room_view, (tournament_id, round_id, room_id), actor)


# ---------------------------------------------------------------------------------------------
# The organiser's and the chairs' writes


@writes.post("/api/tournaments", status_code=201)
async def create_tournament(request: Request, tabs: Tabs) -> JSONResponse:
    actor = require_actor(request)
    data = await _body(request)
    view = await run_in_threadpool(tabs.create_tournament, data, actor)
    return _created(view, f"/api/tournaments/{view['tournament']['tournament_id']}")


@writes.post("/api/tournaments/{tournament_id}/settings")
async def change_settings(tournament_id: str, request: Request, tabs: Tabs) -> dict:
    actor = require_actor(request)
    data = await _body(request)
    if isinstance(data, dict) and data.get("board_private") is True:  # before the boards are republished: nothing more reaches a public stream
        await _end_streams(request, tabs, tournament_id)
    view = await run_in_threadpool(tabs.update_settings, tournament_id, data, actor)
    if view["tournament"].get("board_private"):  # and those opened meanwhile: each reconnects with its token, or is refused
        await _end_streams(request, tabs, tournament_id)
    return view


async def _end_streams(request: Request, tabs: Any, tournament_id: str) -> None:
    """End the open event streams of the tournament's rooms (its boards became private)."""
    for room in await run_in_threadpool(tabs.store.rooms, tournament_id):
        request.app.state.hub.end(room.match_id)


@writes.get("/api/tournaments/{tournament_id}/log")
async def get_log(tournament_id: str, request: Request, tabs: Tabs, round: str | None = None, room: str | None = None) -> dict:
    actor = require_actor(request)
    return {"log": await run_in_threadpool(tabs.log, tournament_id, round, room, actor)}


@writes.post("/api/tournaments/{tournament_id}/rounds", status_code=201)
async def create_round(tournament_id: str, request: Request, tabs: Tabs) -> JSONResponse:
    actor = require_actor(request)
    data = await _body(request)
    view = await run_in_threadpool(tabs.create_round, tournament_id, data, actor)
    return _created(view, f"/api/tournaments/{tournament_id}/rounds/{view['round']['round_id']}")


@writes.post("/api/tournaments/{tournament_id}/rounds/{round_id}/release")
async def release_round(tournament_id: str, round_id: str, request: Request, tabs: Tabs) -> dict:
    actor = require_actor(request)
    data = await _body(request, optional=True)
    return await run_in_threadpool(tabs.release, tournament_id, round_id, None, data, actor)


@writes.get("/api/tournaments/{tournament_id}/rounds/{round_id}/tabbycat")
async def round_ballots(tournament_id: str, round_id: str, request: Request, tabs: Tabs) -> dict:
    actor = require_actor(request)
    return await run_in_threadpool(tabs.round_ballots, tournament_id, round_id, actor)


@writes.get("/api/tournaments/{tournament_id}/rounds/{round_id}/results.csv")
async def round_csv(tournament_id: str, round_id: str, request: Request, tabs: Tabs) -> Response:
    actor = require_actor(request)
    text = await run_in_threadpool(tabs.round_results_csv, tournament_id, round_id, actor)
    return Response(text, media_type="text/csv; charset=utf-8", headers={"Content-Disposition": f'attachment; filename="{tournament_id}.{round_id}.results.csv"'})


@writes.post("/api/tournaments/{tournament_id}/rounds/{round_id}/rooms", status_code=201)
async def create_room(tournament_id: str, round_id: str, request: Request, tabs: Tabs) -> JSONResponse:
    actor = require_actor(request)
    data = await _body(request)
    view = await run_in_threadpool(tabs.create_room, tournament_id, round_id, data, actor)
    return _created(view, view["api_url"])


@writes.post("/api/tournaments/{tournament_id}/rounds/{round_id}/rooms/{room_id}/confirm")
async def confirm_room(tournament_id: str, round_id: str, room_id: str, request: Request, tabs: Tabs) -> dict:
    actor = require_actor(request)
    data = await _body(request, optional=True)
    return await run_in_threadpool(tabs.confirm, (tournament_id, round_id, room_id), data, actor)


@writes.post("/api/tournaments/{tournament_id}/rounds/{round_id}/rooms/{room_id}/release")
async def release_room(tournament_id: str, round_id: str, room_id: str, request: Request, tabs: Tabs) -> dict:
    actor = require_actor(request)
    data = await _body(request, optional=True)
    return await run_in_threadpool(tabs.release, tournament_id, round_id, room_id, data, actor)


@writes.post("/api/tournaments/{tournament_id}/rounds/{round_id}/rooms/{room_id}/reopen")
async def reopen_room(tournament_id: str, round_id: str, room_id: str, request: Request, tabs: Tabs) -> dict:
    actor = require_actor(request)
    data = await _body(request)
    return await run_in_threadpool(correct, tabs, (tournament_id, round_id, room_id), data, actor, "reopen")


@writes.post("/api/tournaments/{tournament_id}/rounds/{round_id}/rooms/{room_id}/void")
async def void_room(tournament_id: str, round_id: str, room_id: str, request: Request, tabs: Tabs) -> dict:
    actor = require_actor(request)
    data = await _body(request)
    return await run_in_threadpool(correct, tabs, (tournament_id, round_id, room_id), data, actor, "void")


@writes.post("/api/tournaments/{tournament_id}/rounds/{round_id}/rooms/{room_id}/repush")
async def repush_stage(tournament_id: str, round_id: str, room_id: str, request: Request, tabs: Tabs) -> dict:
    actor = require_actor(request)
    data = await _body(request)
    return await run_in_threadpool(repush, tabs, (tournament_id, round_id, room_id), data, actor)


@writes.get("/api/tournaments/{tournament_id}/rounds/{round_id}/log.csv")
async def round_log_csv(tournament_id: str, round_id: str, request: Request, tabs: Tabs) -> Response:
    actor = require_actor(request)
    tabs.round(tournament_id, round_id)
    entries = [LogEntry.model_validate(e) for e in await run_in_threadpool(tabs.log, tournament_id, round_id, None, actor)]
    return Response(log_csv(entries), media_type="text/csv; charset=utf-8", headers={"Content-Disposition": f'attachment; filename="{tournament_id}.{round_id}.log.csv"'})


@writes.post("/api/tournaments/{tournament_id}/rounds/{round_id}/rooms/{room_id}/chair-token")
async def new_chair_token(tournament_id: str, round_id: str, room_id: str, request: Request, tabs: Tabs) -> dict:
    actor = require_actor(request)
    return await run_in_threadpool(tabs.new_chair_token, (tournament_id, round_id, room_id), actor)


@writes.post("/api/tokens", status_code=201)
async def issue_token(request: Request, tabs: Tabs) -> JSONResponse:
    actor = require_actor(request)
    data = await _body(request)
    rec = await run_in_threadpool(People(tabs).issue, data, actor)
    return _created(rec, f"/api/tokens/{rec['token_id']}")


@writes.get("/api/tokens")
async def list_tokens(request: Request, tabs: Tabs, tournament: str | None = None) -> dict:
    actor = require_actor(request)
    return {"tokens": await run_in_threadpool(People(tabs).records, actor, tournament)}


@writes.post("/api/tokens/{token_id}/revoke")
async def revoke_token(token_id: str, request: Request, tabs: Tabs) -> dict:
    actor = require_actor(request)
    return await run_in_threadpool(People(tabs).revoke, token_id, actor)


@writes.get("/api/tournaments/{tournament_id}/rounds/{round_id}/rooms/{room_id}/tabbycat")
async def room_ballot(tournament_id: str, round_id: str, room_id: str, request: Request, tabs: Tabs) -> dict:
    actor = require_actor(request)
    return await run_in_threadpool(tabs.ballot, (tournament_id, round_id, room_id), actor)


@writes.post("/api/tournaments/{tournament_id}/rounds/{round_id}/tabbycat/push")
async def push_round_to_tabbycat(tournament_id: str, round_id: str, request: Request) -> dict:
    return await _push(request, tournament_id, round_id, None)


@writes.post("/api/tournaments/{tournament_id}/rounds/{round_id}/rooms/{room_id}/tabbycat/push")
async def push_room_to_tabbycat(tournament_id: str, round_id: str, room_id: str, request: Request) -> dict:
    return await _push(request, tournament_id, round_id, room_id)


async def _push(request: Request, tournament_id: str, round_id: str, room_id: str | None) -> dict:
    from adjudicator.live.tabbycat.service import PushBody

    actor = require_actor(request)
    body = parse_body(PushBody, await _body(request, optional=True), "push")
    token = request.headers.get("x-tabbycat-token") or None
    return await run_in_threadpool(request.app.state.tabbycat.push, tournament_id, round_id, room_id, actor, token=token, dry_run=body.dry_run,
                                  resolve=body.resolve, reason=body.reason)

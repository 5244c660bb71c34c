"""The live server's FastAPI app: a :class:`~adjudicator.live.rooms.tracking.LiveStore` (the live matches), a
:class:`~adjudicator.live.tournament.tabroom.TabRoom` over a tournament store (tournaments, rounds, rooms, verdict
states), the token :class:`~adjudicator.live.tournament.access.Gate` and an event
:class:`~adjudicator.live.server.events.Hub`, behind the routes of :mod:`adjudicator.live.server.routes` and
:mod:`adjudicator.live.server.tournament_routes` (the route tables are there).

Every board snapshot a reader receives (``GET /api/matches/{id}`` and its event stream) passes through
:meth:`TabRoom.board_view`, so a room's verdict reaches the public boards only as its tournament allows.

Errors are JSON ``{"detail": "<one line>", "field": "<dotted path or null>"}``: 400 undecodable body,
401 missing or wrong token, 403 a token without the right (another room's chair token, a chair token
where the organiser's is needed), 404 unknown id, 409 conflicting state, 413 body over the limit, 422
invalid body (the same one-line message as the CLI, naming the field path), 502 when a backend fault
stopped an analysis or the panel.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from adjudicator.errors import AdjudicatorError, InputError
from adjudicator.live.errors import LiveRequestError
from adjudicator.live.rooms.tracking import MAX_MATCHES, LiveStore
from adjudicator.live.server import routes, tournament_routes
from adjudicator.live.server.capacity import Capacity, CapacityGuard
from adjudicator.live.server.events import Hub
from adjudicator.live.server.headers import SecurityHeaders
from adjudicator.live.server.routes import MAX_BODY_BYTES, STATIC_DIR
from adjudicator.live.server.timing import ServerTiming
from adjudicator.live.store.storage import LiveStorage, SqliteStorage, open_storage
from adjudicator.live.store.tournament_sql import DB_NAME as TOURNAMENT_DB_NAME
from adjudicator.live.store.tournament_sql import SqliteTournamentStore, SqlTournamentStore
from adjudicator.live.store.tournament_store import TournamentStore
from adjudicator.live.tabbycat.service import TabbycatPusher
from adjudicator.live.tournament.access import Gate, presented_token
from adjudicator.live.tournament.people import actor_lookup
from adjudicator.live.tournament.tabroom import TabRoom
from adjudicator.verdict.ballots import Verdict
from adjudicator.workflow.context import AdjudicationContext


def create_app(
    state_dir: str | Path,
    context: AdjudicationContext,
    token: str,
    *,
    max_body_bytes: int = MAX_BODY_BYTES,
    recover_on_start: bool = True,
    store: str | None = None,
    pool_size: int | None = None,
    keep_saver_lock: bool = False,
    max_matches: int = MAX_MATCHES,
    tabbycat_token: str | None = None,
    tabbycat_transport: Any = None,
    max_connections: int | None = None,
    max_streams: int | None = None,
) -> FastAPI:
    """The live app over the state directory ``state_dir``, adjudicating with ``context``.

    ``max_matches`` bounds the matches the server keeps (:data:`~adjudicator.live.rooms.tracking.MAX_MATCHES`).
    ``token`` is the organiser's access token (required for every write but a chair's in its room).
    The app owns its :class:`LiveStore` (``app.state.store``), its :class:`TabRoom`
    (``app.state.tabroom``, over ``STATE_DIR/tournaments.sqlite``), its :class:`Gate`
    (``app.state.gate``) and its :class:`Hub` (``app.state.hub``): at startup it repairs the rooms and
    resumes interrupted work in a background thread (``recover_on_start``); at shutdown it ends the
    event streams and closes both stores.

    ``store`` picks the storage (:func:`adjudicator.live.store.storage.open_storage`; InputError for a bad
    one): None or ``"sqlite"`` for ``STATE_DIR/live.sqlite`` and ``tournaments.sqlite``, or a
    ``postgresql://`` URL of one database several server processes share (the state folder then holds
    only ``access.json``); ``pool_size`` bounds its data pool (the lock pool gets twice as many);
    ``keep_saver_lock`` keeps LangGraph's per-saver lock (measurements). ``tabbycat_token``: the token
    of the Tabbycat pushes (``app.state.tabbycat``, :class:`~adjudicator.live.tabbycat.service.TabbycatPusher`,
    also on release where a tournament asks); ``tabbycat_transport`` replaces its network (tests).
    ``max_connections`` and ``max_streams`` cap open connections and board event streams
    (``app.state.capacity``, :class:`~adjudicator.live.server.capacity.Capacity`; default: from the process's
    open-files limit).
    """
    if not token:
        raise ValueError("an access token is required")
    hub = Hub()

    def publish(match_id: str, snapshot: dict) -> None:
        hub.publish(match_id, tabroom.board_view(match_id, snapshot))

    def closed(match_id: str, verdict: Verdict) -> None:
        tabroom.record_draft(match_id, verdict)

    state = Path(state_dir)
    state.mkdir(parents=True, exist_ok=True)
    storage = open_storage(store, state, pool_size=pool_size, lock_pool_size=None if pool_size is None else 2 * pool_size, keep_saver_lock=keep_saver_lock)
    live = LiveStore(state, context, on_change=publish, on_closed=closed, storage=storage, max_matches=max_matches)
    tournaments = _tournament_store(storage, state)
    tabroom = TabRoom(tournaments, live)
    pusher = TabbycatPusher(tabroom, tabbycat_token, transport=tabbycat_transport)
    tabroom.after_release = pusher.after_release
    _follow_other_processes(storage, hub, live)
    app = FastAPI(title="adjudicator live", lifespan=_lifespan(live, tabroom, hub, recover_on_start), docs_url=None, redoc_url=None, openapi_url=None)
    app.state.store, app.state.tabroom, app.state.tabbycat, app.state.hub = live, tabroom, pusher, hub
    app.state.gate = Gate(token, tournaments.room_of_token, actor_lookup(tournaments))
    app.state.token, app.state.max_body_bytes = token, max_body_bytes
    app.state.capacity = Capacity.for_process(max_connections, max_streams)
    _mount(app)
    return app


def _tournament_store(storage: LiveStorage, state: Path) -> TournamentStore:
    """The tournaments' store beside the matches': ``STATE_DIR/tournaments.sqlite`` beside SQLite, the
    same database (its pool) beside PostgreSQL."""
    if isinstance(storage, SqliteStorage):
        return SqliteTournamentStore(state / TOURNAMENT_DB_NAME)
    return SqlTournamentStore(storage.db)  # type: ignore[attr-defined]


def _follow_other_processes(storage: LiveStorage, hub: Hub, live: LiveStore) -> None:
    """Tell this process's boards of a match when another process changed it (a shared storage's
    notifications; SQLite sends none)."""

    def elsewhere(match_id: str, revision: int) -> None:
        if hub.subscribers(match_id):
            live.changed_elsewhere(match_id, revision)

    storage.listen(elsewhere)


def _mount(app: FastAPI) -> None:
    """The app's caps and security headers (outermost, so a refusal carries them too), error handler,
    pages, static files and API routes (matches', then tournaments')."""
    gate: Gate = app.state.gate

    async def has_valid_token(headers: dict[str, str]) -> bool:
        given = presented_token(headers)
        if not given:
            return False
        actor = await run_in_threadpool(gate.actor, given)
        return actor is not None and actor.role != "board"  # a private board's token is the hall's: capped like the public

    app.add_middleware(CapacityGuard, capacity=app.state.capacity, has_valid_token=has_valid_token)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(ServerTiming)  # outermost: the time in the server, for benchmarks/live_scale.py
    app.exception_handler(AdjudicatorError)(_adjudicator_error)
    app.include_router(routes.pages)
    app.include_router(tournament_routes.pages)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.include_router(routes.reads)
    app.include_router(routes.writes)
    app.include_router(tournament_routes.reads)
    app.include_router(tournament_routes.writes)


def _lifespan(store: LiveStore, tabroom: TabRoom, hub: Hub, recover_on_start: bool) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """Startup: repair the rooms and resume interrupted work in a background thread (or mark the store
    recovered at once). Shutdown: end the event streams, wait up to 30 s for the recovery, close the
    stores."""

    def recover() -> None:
        try:
            tabroom.recover()
        finally:
            store.recover()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        worker = None
        if recover_on_start:
            worker = threading.Thread(target=recover, name="live-recover", daemon=True)
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
            tabroom.store.close()

    return lifespan


def _error_response(exc: AdjudicatorError) -> JSONResponse:
    status = exc.status_code if isinstance(exc, LiveRequestError) else 422 if isinstance(exc, InputError) else 502
    field = exc.field if isinstance(exc, LiveRequestError) else None
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse({"detail": exc.one_line(), "field": field}, status_code=status, headers=headers)


async def _adjudicator_error(request: Request, exc: AdjudicatorError) -> JSONResponse:
    return _error_response(exc)

"""The live server's FastAPI app: a :class:`~adjudicator.live.store.LiveStore` and an event
:class:`~adjudicator.live.events.Hub` behind the routes of :mod:`adjudicator.live.routes` (the route
table is there).

Errors are JSON ``{"detail": "<one line>", "field": "<dotted path or null>"}``: 400 undecodable body,
401 missing or wrong token, 404 unknown match, 409 conflicting state, 413 body over the limit, 422
invalid header or stage (the same one-line message as the CLI, naming the field path), 502 when a
backend fault stopped an analysis or the panel.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles

from adjudicator.errors import AdjudicatorError, InputError
from adjudicator.live import routes
from adjudicator.live.errors import LiveRequestError
from adjudicator.live.events import Hub
from adjudicator.live.routes import MAX_BODY_BYTES, STATIC_DIR
from adjudicator.live.store import LiveStore
from adjudicator.workflow.context import AdjudicationContext


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
    app = FastAPI(title="adjudicator live", lifespan=_lifespan(store, hub, recover_on_start), docs_url=None, redoc_url=None, openapi_url=None)
    app.state.store = store
    app.state.hub = hub
    app.state.token = token
    app.state.max_body_bytes = max_body_bytes
    app.exception_handler(AdjudicatorError)(_adjudicator_error)
    app.include_router(routes.pages)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.include_router(routes.reads)
    app.include_router(routes.writes)
    return app


def _lifespan(store: LiveStore, hub: Hub, recover_on_start: bool) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """Startup: resume interrupted work in a background thread (or mark the store recovered at once).
    Shutdown: end the event streams, wait up to 30 s for the recovery, close the store."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
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

    return lifespan


def _error_response(exc: AdjudicatorError) -> JSONResponse:
    status = exc.status_code if isinstance(exc, LiveRequestError) else 422 if isinstance(exc, InputError) else 502
    field = exc.field if isinstance(exc, LiveRequestError) else None
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse({"detail": exc.one_line(), "field": field}, status_code=status, headers=headers)


async def _adjudicator_error(request: Request, exc: AdjudicatorError) -> JSONResponse:
    return _error_response(exc)

"""Server-sent events for the board: one channel per match, carrying whole board snapshots.

Every event is the match's complete snapshot (``event: board``, ``data:`` one line of JSON), so a
subscriber that falls behind only needs the latest one: each subscriber keeps a single slot that a
newer snapshot overwrites. Nothing queues up for a slow screen and nothing is shared between matches:
a subscriber only ever receives the channel of the match it asked for.

Publishing is thread-safe (the store publishes from worker threads); delivery happens on the event
loop of the connection. :meth:`Hub.close` ends every stream, so a server can shut down while boards
are connected.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable

KEEPALIVE_S = 15.0  # comment line sent on an idle stream so proxies and browsers keep it open
RETRY_MS = 2000  # the browser's reconnection delay after a dropped stream


def format_event(event: str, data: str, event_id: str | None = None) -> str:
    """One SSE message. ``data`` must not contain a newline (compact JSON does not)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {data}\n\n"


class Subscriber:
    """One open stream: the latest undelivered payload and a wake-up flag, owned by one event loop."""

    def __init__(self, match_id: str, loop: asyncio.AbstractEventLoop) -> None:
        self.match_id = match_id
        self.loop = loop
        self.wake = asyncio.Event()
        self.latest: tuple[str, str] | None = None
        self.closed = False

    def _offer(self, payload: tuple[str, str] | None) -> None:  # runs on self.loop
        if payload is None:
            self.closed = True
        else:
            self.latest = payload
        self.wake.set()

    def offer(self, payload: tuple[str, str] | None) -> None:
        """Hand ``(event_id, data)`` (None = end the stream) to the subscriber from any thread."""
        try:
            self.loop.call_soon_threadsafe(self._offer, payload)
        except RuntimeError:  # the loop is already closed
            pass

    def take(self) -> tuple[str, str] | None:
        """The latest ``(event_id, data)``, clearing the slot (event-loop side)."""
        payload, self.latest = self.latest, None
        self.wake.clear()
        return payload


class Hub:
    """Match id -> open subscribers. ``publish`` from any thread; ``subscribe`` on the event loop."""

    def __init__(self) -> None:
        self._subs: dict[str, set[Subscriber]] = {}
        self._lock = threading.Lock()
        self.closed = False

    def subscribe(self, match_id: str) -> Subscriber:
        """A new subscriber to ``match_id`` on the running event loop."""
        sub = Subscriber(match_id, asyncio.get_running_loop())
        with self._lock:
            if self.closed:
                sub.closed = True
            self._subs.setdefault(match_id, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        """Forget ``sub`` (idempotent)."""
        with self._lock:
            subs = self._subs.get(sub.match_id)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._subs[sub.match_id]

    def subscribers(self, match_id: str) -> int:
        """How many streams follow ``match_id``."""
        with self._lock:
            return len(self._subs.get(match_id, ()))

    def publish(self, match_id: str, snapshot: dict) -> None:
        """Send ``snapshot`` (a JSON-ready dict) to every subscriber of ``match_id``."""
        payload = (str(snapshot.get("revision", "")), json.dumps(snapshot, ensure_ascii=False, separators=(",", ":")))
        with self._lock:
            subs = list(self._subs.get(match_id, ()))
        for sub in subs:
            sub.offer(payload)

    def end(self, match_id: str) -> None:
        """End the open streams of ``match_id`` (its board just became private: each reader reconnects
        and shows its token, or is refused)."""
        with self._lock:
            subs = list(self._subs.get(match_id, ()))
        for sub in subs:
            sub.offer(None)

    def close(self) -> None:
        """End every open stream (server shutdown)."""
        with self._lock:
            self.closed = True
            subs = [s for group in self._subs.values() for s in group]
        for sub in subs:
            sub.offer(None)


async def board_stream(hub: Hub, match_id: str, current: Callable[[], dict], keepalive_s: float = KEEPALIVE_S) -> AsyncIterator[str]:
    """The SSE body for one board: the current snapshot first, then each newer one as it is published.

    Subscribes before reading the current snapshot, so a change made in between is delivered (at
    worst twice, never lost). Ends when the hub closes; the caller's framework cancels it when the
    client disconnects (the subscriber is then removed).
    """
    sub = hub.subscribe(match_id)
    try:
        yield f"retry: {RETRY_MS}\n\n"
        first = await asyncio.to_thread(current)  # may read the checkpoint: keep it off the event loop
        yield format_event("board", json.dumps(first, ensure_ascii=False, separators=(",", ":")), str(first.get("revision", "")))
        while not sub.closed:
            try:
                await asyncio.wait_for(sub.wake.wait(), keepalive_s)
            except TimeoutError:
                yield ": keepalive\n\n"
                continue
            if sub.closed:
                break
            payload = sub.take()
            if payload is not None:
                event_id, data = payload
                yield format_event("board", data, event_id)
    finally:
        hub.unsubscribe(sub)

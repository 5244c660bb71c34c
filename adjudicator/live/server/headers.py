"""Security headers on every answer of the live server (an ASGI middleware, :class:`SecurityHeaders`).

- ``Content-Security-Policy``: the board page runs only its own script and style files and talks only
  to this server (:data:`PAGE_POLICY`); a route that sets its own policy (the HTML report's inline
  style) keeps it, with ``frame-ancestors 'none'`` added. A name that slipped markup past the page's
  ``textContent`` could run nothing.
- ``frame-ancestors 'none'`` and ``X-Frame-Options: DENY``: no other site can frame the organiser's or a
  chair's page to trick a click on "confirm" or "release".
- ``Referrer-Policy: no-referrer``: a chair URL's ``?token=`` never leaves in a ``Referer`` header.
- ``X-Content-Type-Options: nosniff``: a JSON or Markdown answer is never run as a script or page.

Why a middleware of our own: Starlette ships none for these headers, and one small class here covers
every route, the static files and the error answers alike.
"""

from __future__ import annotations

from typing import Any

PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The Content-Security-Policy of every answer that does not set its own."""

HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)


class SecurityHeaders:
    """ASGI middleware adding :data:`HEADERS` and a Content-Security-Policy to every HTTP answer."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in {h for h, _ in HEADERS}]
                policy = next((v for k, v in headers if k.lower() == b"content-security-policy"), None)
                headers = [(k, v) for k, v in headers if k.lower() != b"content-security-policy"]
                if policy is None:
                    policy = PAGE_POLICY.encode()
                elif b"frame-ancestors" not in policy:
                    policy += b"; frame-ancestors 'none'"
                message = message | {"headers": [*headers, *HEADERS, (b"content-security-policy", policy)]}
            await send(message)

        await self.app(scope, receive, send_with_headers)

"""HTTP client of one Tabbycat tournament's API v1 (``https://HOST/api/v1/tournaments/SLUG``).

Tabbycat (v2.9.3, ``tabbycat/settings/core.py`` ``REST_FRAMEWORK``) authenticates with
``Authorization: Token <key>`` (Django REST framework's TokenAuthentication; the key is on the user's
page in Tabbycat, or ``rest_framework.authtoken`` ``Token`` in its shell), answers JSON, and pages a
list only when asked (``LinkHeaderLimitOffsetPagination``: ``?limit=``, the next page in a ``Link:
<...>; rel="next"`` header), which :meth:`TabbycatClient.list` follows anyway. Reading the
preferences needs a user with the right to view them (an administrator); posting ballots the right to
add ballot submissions.

Errors: :class:`TabbycatUnreachable` (no connection, a timeout, a 5xx), :class:`TabbycatRejected` (a 4xx,
with Tabbycat's own message, flattened to one line). The token never appears in a message.
"""

from __future__ import annotations

import json
from typing import Any

import httpx


class TabbycatError(Exception):
    """A Tabbycat request that did not succeed: ``message`` (one line), ``status`` (HTTP, or None)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class TabbycatUnreachable(TabbycatError):
    """No answer, or a server error (5xx)."""


class TabbycatRejected(TabbycatError):
    """Tabbycat refused the request (4xx): the token, a missing object, or an invalid body."""


def flatten_errors(payload: Any) -> str:
    """Django REST framework's error body (nested dicts and lists of strings) as one line:
    ``result.sheets.0.teams: Incorrect number of teams``."""
    parts: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, f"{path}.{k}" if path else str(k))
        elif isinstance(node, list):
            if all(isinstance(x, str) for x in node):
                parts.append(f"{path}: {' '.join(node)}" if path else " ".join(node))
            else:
                for i, v in enumerate(node):
                    walk(v, f"{path}.{i}" if path else str(i))
        elif node is not None:
            parts.append(f"{path}: {node}" if path else str(node))

    walk(payload, "")
    return "; ".join(parts)[:500]


class TabbycatClient:
    """Requests to the tournament API base ``base`` (no trailing slash) with ``token``; ``timeout_s``
    bounds each request. ``transport`` replaces the network (tests)."""

    def __init__(self, base: str, token: str, timeout_s: float = 20.0, transport: httpx.BaseTransport | None = None) -> None:
        self.base = base.rstrip("/")
        self.http = httpx.Client(headers={"Authorization": f"Token {token}", "Accept": "application/json"}, timeout=timeout_s,
                                 trust_env=False, transport=transport, follow_redirects=False)

    def close(self) -> None:
        """Close the connection pool."""
        self.http.close()

    def __enter__(self) -> TabbycatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def url(self, path: str) -> str:
        """The absolute URL of ``path`` under the base (an absolute URL is returned as is)."""
        return path if path.startswith(("http://", "https://")) else f"{self.base}{path}"

    def request(self, method: str, path: str, body: Any = None) -> httpx.Response:
        """One request. Raises :class:`TabbycatUnreachable` or :class:`TabbycatRejected`."""
        url = self.url(path)
        try:
            resp = self.http.request(method, url, json=body)
        except httpx.TransportError as exc:
            raise TabbycatUnreachable(f"Tabbycat at {url} did not answer {method} ({type(exc).__name__})") from None
        if resp.status_code >= 500:
            raise TabbycatUnreachable(f"Tabbycat answered {method} {url} with HTTP {resp.status_code}", resp.status_code)
        if resp.status_code >= 400:
            try:
                detail = flatten_errors(resp.json())
            except ValueError:
                detail = resp.reason_phrase
            raise TabbycatRejected(f"Tabbycat refused {method} {url} (HTTP {resp.status_code}): {detail}", resp.status_code)
        return resp

    def get(self, path: str) -> Any:
        """GET ``path``; the decoded JSON. Raises :class:`TabbycatError` (also for a body that is not JSON)."""
        resp = self.request("GET", path)
        try:
            return resp.json()
        except ValueError:
            raise TabbycatUnreachable(f"Tabbycat answered GET {resp.url} with a body that is not JSON (is the URL its API base?)", resp.status_code) from None

    def list(self, path: str) -> list[Any]:
        """GET a list endpoint, following ``rel="next"`` links. Raises :class:`TabbycatError`."""
        out: list[Any] = []
        url: str | None = self.url(path)
        while url:
            resp = self.request("GET", url)
            try:
                page = resp.json()
            except ValueError:
                raise TabbycatUnreachable(f"Tabbycat answered GET {url} with a body that is not JSON (is the URL its API base?)") from None
            if not isinstance(page, list):
                raise TabbycatUnreachable(f"Tabbycat answered GET {url} with {type(page).__name__}, not a list")
            out.extend(page)
            url = resp.links.get("next", {}).get("url")
        return out

    def post(self, path: str, body: Any) -> Any:
        """POST JSON; the decoded JSON answer. Raises :class:`TabbycatError`."""
        resp = self.request("POST", path, body)
        return json.loads(resp.text) if resp.text else None

    def patch(self, path: str, body: Any) -> Any:
        """PATCH JSON; the decoded JSON answer. Raises :class:`TabbycatError`."""
        resp = self.request("PATCH", path, body)
        return json.loads(resp.text) if resp.text else None

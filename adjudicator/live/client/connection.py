"""HTTP client of the live server, used by ``adjudicate live create|push|close|status|replay``.

Server errors come back as the same exceptions the server raised: a 4xx becomes the matching
:class:`~adjudicator.live.errors.LiveRequestError` (an InputError, exit code 2) carrying the server's
one-line message; a 5xx becomes :class:`~adjudicator.errors.AdjudicationFailed` (exit code 1).
A server that cannot be reached at all is a usage error (wrong ``--url``, server not started: InputError,
exit code 2); a server that answered before and then stops answering -- it died or was stopped during
a replay or a push -- is :class:`ServerLost` (exit code 1), naming the request and the cause.
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

import httpx

from adjudicator.environment import live_ca_file, live_endpoint, live_token
from adjudicator.errors import AdjudicationFailed, AdjudicatorError, InputError
from adjudicator.live.errors import STATUS_ERRORS, LiveRequestError
from adjudicator.live.server.serving import DEFAULT_HOST, DEFAULT_PORT, access_path, read_access


def resolve_endpoint(url: str | None, token: str | None, state_dir: str | Path | None) -> tuple[str, str | None, str]:
    """(base URL, token, where the URL came from): the URL from ``--url``, else ``ADJUDICATOR_LIVE_URL``,
    else the access file in ``state_dir``, else ``http://127.0.0.1:<DEFAULT_PORT>``; the token given
    (read from ``--token-file``), else ``$ADJUDICATOR_LIVE_TOKEN_FILE`` / ``$ADJUDICATOR_LIVE_TOKEN``
    (:func:`~adjudicator.environment.live_token`), else the access file's. The third item is a phrase
    for error messages ("from the access file /abs/state/access.json", "the default: no --url, ...")."""
    access = read_access(state_dir) if state_dir else None
    env_url, _ = live_endpoint()
    where = str(access_path(state_dir).resolve()) if state_dir else "(no --state-dir)"
    if url or env_url:
        origin = "from --url / $ADJUDICATOR_LIVE_URL"
    elif access and access.get("url"):
        origin = f"from the access file {where}"
    else:
        origin = f"the default, since there is no --url, no $ADJUDICATOR_LIVE_URL and no access file at {where}"
    url = url or env_url or (access or {}).get("url") or f"http://{DEFAULT_HOST}:{DEFAULT_PORT}"
    token = token or live_token()[0] or (access or {}).get("token")
    return url.rstrip("/"), token, origin


def trusted_certificate(url: str, state_dir: str | Path | None) -> ssl.SSLContext | bool:
    """What an ``https`` client trusts: ``$ADJUDICATOR_LIVE_CA_FILE``, else the certificate the local
    server was started with (``tls_cert`` in its access file, for a certificate no system authority
    signed), else the system's authorities (True)."""
    if not url.startswith("https://"):
        return True
    ca = live_ca_file() or ((read_access(state_dir) or {}).get("tls_cert") if state_dir else None)
    if not (isinstance(ca, str) and ca):
        return True
    try:
        return ssl.create_default_context(cafile=ca)
    except (OSError, ssl.SSLError) as exc:
        raise InputError(f"the certificate to trust for {url} ({ca}) cannot be read ({getattr(exc, 'strerror', None) or exc})",
                         "set $ADJUDICATOR_LIVE_CA_FILE to the server's certificate (PEM)") from None


class ServerLost(AdjudicatorError):
    """The live server answered earlier requests of this client and then stopped answering (exit code 1)."""

    exit_code = 1


class LiveClient:
    """Calls the live server at ``url`` with ``token``. ``timeout_s`` bounds each request (a push with
    an LLM tracker, or a close with an LLM panel, can take minutes); ``verify`` is what an ``https``
    connection trusts (:func:`trusted_certificate`)."""

    def __init__(self, url: str, token: str | None = None, timeout_s: float = 900.0, origin: str = "", verify: ssl.SSLContext | bool = True) -> None:
        self.url = url.rstrip("/")
        self.origin = origin  # where the URL came from (resolve_endpoint), for error messages
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=self.url, headers=headers, timeout=timeout_s, trust_env=False, verify=verify)
        self.reached = False  # whether the server has answered any request of this client

    def close(self) -> None:
        """Close the connection pool."""
        self.http.close()

    def __enter__(self) -> "LiveClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def request(self, method: str, path: str, body: Any = None, params: dict | None = None, headers: dict | None = None) -> httpx.Response:
        """One request; raises the server's error as an exception (module docstring)."""
        try:
            resp = self.http.request(method, path, json=body, params=params, headers=headers)
        except httpx.TransportError as exc:
            cause = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            if self.reached or not isinstance(exc, httpx.ConnectError):
                raise ServerLost(
                    f"the live server at {self.url} stopped answering during {method} {path} ({cause})",
                    "check whether it is still running (its log says why it stopped); what it committed is kept, so restart it and run the command again",
                ) from None
            raise InputError(
                f"cannot reach the live server at {self.url} ({type(exc).__name__})" + (f"; that URL is {self.origin}" if self.origin else ""),
                "start it with `adjudicate live serve`, or pass --url / set ADJUDICATOR_LIVE_URL, or --state-dir of a running server",
            ) from None
        self.reached = True
        if resp.status_code < 400:
            return resp
        try:
            payload = resp.json()
            detail, field = payload.get("detail"), payload.get("field")
        except ValueError:
            detail, field = None, None
        if not isinstance(detail, str) or (resp.status_code in (404, 405) and detail in ("Not Found", "Method Not Allowed")):
            # no route of ours answered (or not a live server at all: a model server on the same port, say)
            detail = (f"{method} {path}: HTTP {resp.status_code} {resp.reason_phrase} from {self.url}: is it an adjudicator live server?"
                      + (f" (the URL is {self.origin})" if self.origin else ""))
        if resp.status_code >= 500:
            raise AdjudicationFailed(detail)
        cls = STATUS_ERRORS.get(resp.status_code, LiveRequestError)
        raise cls(detail, field=field)

    def create(self, header: dict) -> dict:
        """POST /api/matches. Returns ``{"match_id", "board_url", "events_url", "snapshot"}``."""
        return self.request("POST", "/api/matches", header).json()

    def push(self, match_id: str, stage: dict, wait: bool = True) -> dict:
        """POST /api/matches/{id}/stages (see :meth:`adjudicator.live.rooms.tracking.LiveStore.push`)."""
        return self.request("POST", f"/api/matches/{match_id}/stages", stage, params=None if wait else {"wait": "false"}).json()

    def retry(self, match_id: str, stage_id: str | None = None) -> dict:
        """POST /api/matches/{id}/stages/{stage}/retry (every failed stage when ``stage_id`` is None).
        Returns the snapshot."""
        path = f"/api/matches/{match_id}/retry" if stage_id is None else f"/api/matches/{match_id}/stages/{stage_id}/retry"
        return self.request("POST", path).json()

    def close_match(self, match_id: str, force: bool = False) -> dict:
        """POST /api/matches/{id}/close (``?force=true``: even when a speech seems missing). Returns the
        verdict JSON."""
        return self.request("POST", f"/api/matches/{match_id}/close", params={"force": "true"} if force else None).json()

    def snapshot(self, match_id: str) -> dict:
        """GET /api/matches/{id}: the board snapshot."""
        return self.request("GET", f"/api/matches/{match_id}").json()

    def exists(self, match_id: str) -> bool:
        """Whether the server has a live match ``match_id``."""
        try:
            self.snapshot(match_id)
        except LiveRequestError as exc:
            if exc.status_code == 404:
                return False
            raise
        return True

    # ---- tournaments (see adjudicator.live.server.tournament_routes)

    def create_tournament(self, body: dict) -> dict:
        """POST /api/tournaments. Returns the tournament's view."""
        return self.request("POST", "/api/tournaments", body).json()

    def tournament_settings(self, tournament_id: str, body: dict) -> dict:
        """POST /api/tournaments/{t}/settings. Returns the tournament's view."""
        return self.request("POST", f"/api/tournaments/{tournament_id}/settings", body).json()

    def create_round(self, tournament_id: str, body: dict) -> dict:
        """POST /api/tournaments/{t}/rounds. Returns the round's view."""
        return self.request("POST", f"/api/tournaments/{tournament_id}/rounds", body).json()

    def round(self, tournament_id: str, round_id: str) -> dict:
        """GET /api/tournaments/{t}/rounds/{r}: the round overview (what this token may see)."""
        return self.request("GET", f"/api/tournaments/{tournament_id}/rounds/{round_id}").json()

    def create_room(self, tournament_id: str, round_id: str, body: dict) -> dict:
        """POST /api/tournaments/{t}/rounds/{r}/rooms. Returns the room's view with its chair token."""
        return self.request("POST", f"/api/tournaments/{tournament_id}/rounds/{round_id}/rooms", body).json()

    def room_path(self, tournament_id: str, round_id: str, room_id: str) -> str:
        """The API path of one room."""
        return f"/api/tournaments/{tournament_id}/rounds/{round_id}/rooms/{room_id}"

    def new_chair_token(self, tournament_id: str, round_id: str, room_id: str) -> dict:
        """POST .../rooms/{room}/chair-token. Returns ``{"match_id", "chair_token", "chair_url"}``."""
        return self.request("POST", self.room_path(tournament_id, round_id, room_id) + "/chair-token").json()

    def confirm(self, tournament_id: str, round_id: str, room_id: str, body: dict) -> dict:
        """POST .../rooms/{room}/confirm. Returns the room's view."""
        return self.request("POST", self.room_path(tournament_id, round_id, room_id) + "/confirm", body).json()

    def release(self, tournament_id: str, round_id: str, room_id: str | None, body: dict) -> dict:
        """POST .../rooms/{room}/release, or .../rounds/{r}/release for the whole round. Returns the
        round's view."""
        path = self.room_path(tournament_id, round_id, room_id) if room_id else f"/api/tournaments/{tournament_id}/rounds/{round_id}"
        return self.request("POST", path + "/release", body).json()

    def ballot(self, tournament_id: str, round_id: str, room_id: str) -> dict:
        """GET .../rooms/{room}/tabbycat: the room's Tabbycat ballot export."""
        return self.request("GET", self.room_path(tournament_id, round_id, room_id) + "/tabbycat").json()

    def round_ballots(self, tournament_id: str, round_id: str) -> dict:
        """GET .../rounds/{r}/tabbycat: ``{"ballots": [...], "skipped": [...]}``."""
        return self.request("GET", f"/api/tournaments/{tournament_id}/rounds/{round_id}/tabbycat").json()

    def push_tabbycat(self, tournament_id: str, round_id: str, room_id: str | None, body: dict, tabbycat_token: str | None = None) -> dict:
        """POST .../rounds/{r}[/rooms/{room}]/tabbycat/push, with the Tabbycat token (if any) in
        ``X-Tabbycat-Token``. Returns the push's answer (every room's outcome)."""
        path = (self.room_path(tournament_id, round_id, room_id) if room_id else f"/api/tournaments/{tournament_id}/rounds/{round_id}") + "/tabbycat/push"
        headers = {"X-Tabbycat-Token": tabbycat_token} if tabbycat_token else None
        return self.request("POST", path, body, headers=headers).json()

    def round_csv(self, tournament_id: str, round_id: str, name: str = "results.csv") -> str:
        """GET .../rounds/{r}/results.csv (or ``name``, e.g. ``log.csv``): the round's results (or
        lifecycle log) as CSV text."""
        return self.request("GET", f"/api/tournaments/{tournament_id}/rounds/{round_id}/{name}").text

    def correct(self, tournament_id: str, round_id: str, room_id: str, what: str, body: dict) -> dict:
        """POST .../rooms/{room}/reopen or .../void (``what``). Returns the room's view."""
        return self.request("POST", self.room_path(tournament_id, round_id, room_id) + f"/{what}", body).json()

    def repush(self, tournament_id: str, round_id: str, room_id: str, body: dict) -> dict:
        """POST .../rooms/{room}/repush (``{"stage", "reason"}``). Returns the room's view."""
        return self.request("POST", self.room_path(tournament_id, round_id, room_id) + "/repush", body).json()

    # ---- person tokens (see adjudicator.live.tournament.people)

    def issue_token(self, body: dict) -> dict:
        """POST /api/tokens. Returns the token's record with ``token`` (shown this once) and ``url``."""
        return self.request("POST", "/api/tokens", body).json()

    def tokens(self, tournament_id: str | None = None) -> list[dict]:
        """GET /api/tokens: every issued token's record, no secret (of one tournament when given)."""
        return self.request("GET", "/api/tokens", params={"tournament": tournament_id} if tournament_id else None).json()["tokens"]

    def revoke_token(self, token_id: str) -> dict:
        """POST /api/tokens/{token_id}/revoke. Returns the token's record."""
        return self.request("POST", f"/api/tokens/{token_id}/revoke").json()

"""Errors of the live server that map to an HTTP status.

They subclass :class:`~adjudicator.errors.InputError` (exit code 2 in the CLI), so a bad push is the same
one-line error whether it is reported by the server (as a 4xx JSON body) or by ``adjudicate live push``.
``field`` is the dotted path of the offending field when one is known (e.g. ``stages.3.utterances.0.speaker``).
"""

from __future__ import annotations

import re

from adjudicator.errors import InputError


class LiveRequestError(InputError):
    """A request the server refuses. ``status_code`` is the HTTP status (4xx)."""

    status_code = 422

    def __init__(self, message: str, hint: str | None = None, field: str | None = None) -> None:
        super().__init__(message, hint)
        self.field = field if field is not None else field_of(message)


class BadRequest(LiveRequestError):
    """Undecodable body: not UTF-8 or not JSON (400)."""

    status_code = 400


class Unauthorized(LiveRequestError):
    """A write without the organiser's access token (401)."""

    status_code = 401


class NotFound(LiveRequestError):
    """No live match with that id (404)."""

    status_code = 404


class Conflict(LiveRequestError):
    """The request contradicts the match's state: duplicate match id, a stage id reused with other
    content, a push to a closed match (409)."""

    status_code = 409


class PayloadTooLarge(LiveRequestError):
    """The body exceeds the server's limit (413)."""

    status_code = 413


class Unprocessable(LiveRequestError):
    """The body is JSON but not a valid match header or stage (422); the message names the field."""

    status_code = 422


class StateFolderBusy(InputError):
    """Another process serves this state folder (exit code 2): one live server per SQLite store."""


STATUS_ERRORS: dict[int, type[LiveRequestError]] = {
    c.status_code: c for c in (BadRequest, Unauthorized, NotFound, Conflict, PayloadTooLarge, Unprocessable)
}

_FIELD_RE = re.compile(r"^[^:]+: (?:field )?([A-Za-z_][\w]*(?:\.[\w]+)*)(?::| is | )")


def field_of(message: str) -> str | None:
    """The field path named by a one-line validation message such as
    ``"stage: field stages.3.type: ..."`` or ``"match: stages: ..."``; None when there is none."""
    m = _FIELD_RE.match(message)
    if not m:
        return None
    path = m.group(1)
    return path if (path.split(".")[0] in _TOP_FIELDS) else None


_TOP_FIELDS = {
    "match_id", "format", "language", "motion", "affirmative_position", "negative_position", "info",
    "debaters", "stages", "labels", "source", "body", "stage_id",
}

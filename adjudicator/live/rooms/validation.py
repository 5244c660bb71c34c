"""Validation of what the organiser sends: a match header, one pushed stage, and (before the panel) the
complete match.

The same models and the same one-line messages as the CLI (``adjudicate match.json``): a push is
validated as the match file it extends, so a message names the field path as in the full match file
(``stages.<index>...``). Every function raises :class:`~adjudicator.live.errors.Unprocessable` (422), or
:class:`~adjudicator.live.errors.Conflict` (409) for a stage id reused with other content.
"""

from __future__ import annotations

import re
import uuid

from pydantic import ValidationError

from adjudicator.input.field_errors import describe_validation_error
from adjudicator.input.match import Match, MatchView, Stage
from adjudicator.live.errors import Conflict, Unprocessable

MATCH_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
"""A live match id: 1-80 letters, digits, '.', '_' or '-', starting with a letter or digit (it names a
checkpointer thread, files under STATE_DIR and URL paths)."""


def validate_header(data: object) -> MatchView:
    """Validate a create-match body: a match file without stages (``match_id`` optional: one is
    generated). Labels and source, if sent, are dropped (models never see them).
    Raises :class:`Unprocessable` (422) naming the field."""
    if not isinstance(data, dict):
        raise Unprocessable("match: the body must be a JSON object describing the match header", "see `adjudicate schema`", field="body")
    data = dict(data)
    if data.get("stages"):
        raise Unprocessable(
            "match: field stages: create the match without stages",
            "push each stage as it finishes to /api/matches/<match_id>/stages",
            field="stages",
        )
    data["stages"] = []
    data.setdefault("match_id", f"live-{uuid.uuid4().hex[:8]}")
    try:
        m = Match.model_validate(data, context={"partial": True})
    except ValidationError as exc:
        raise Unprocessable(describe_validation_error(exc, "match")) from None
    if not MATCH_ID_RE.match(m.match_id):
        raise Unprocessable(
            f"match: field match_id: {m.match_id!r} cannot name a live match",
            "use 1-80 letters, digits, '.', '_' or '-', starting with a letter or digit",
            field="match_id",
        )
    return m.view()


def resent_stage(stages: list[Stage], data: object) -> Stage | None:
    """The stage already received under the pushed body's ``stage_id`` when the body repeats it with
    identical content (a client resending after its connection dropped: a duplicate, nothing to do);
    None when the body's ``stage_id`` is new (or missing: :func:`validate_push` reports it).
    Raises :class:`Conflict` (409) when that stage id was received with other content."""
    if not (isinstance(data, dict) and isinstance(data.get("stage_id"), str)):
        return None
    old = next((s for s in stages if s.stage_id == data["stage_id"]), None)
    if old is None:
        return None
    try:
        same = Stage.model_validate(data) == old
    except ValidationError:
        same = False
    if same:
        return old
    raise Conflict(
        f"stage: field stage_id: {old.stage_id!r} was already received with different content",
        "stage ids are unique within a match; use a new stage_id",
        field="stage_id",
    )


def validate_push(header: MatchView, stages: list[Stage], data: object) -> Stage:
    """Validate one pushed stage against the header and the stages received so far (a fixed-order
    format needs a prefix of its declared order). Returns the parsed :class:`Stage`. Raises
    :class:`Unprocessable` (422) whose message names the field path as in the full match file
    (``stages.<index>...``).

    Only the new stage is validated (:meth:`~adjudicator.input.match.Match.check_next_stage`): the
    stages received so far were validated when they came, so a push costs the same at stage 5 and at
    stage 500 (the whole match was dumped and validated again on every push)."""
    if not isinstance(data, dict):
        raise Unprocessable("stage: the body must be a JSON object describing one stage", "see `adjudicate schema`", field="body")
    index = len(stages)
    try:
        stage = Stage.model_validate(data)
    except ValidationError as exc:
        raise Unprocessable(describe_validation_error(exc, "stage", prefix=("stages", index))) from None
    so_far = Match.model_construct(**{**dict(header), "stages": list(stages)})
    try:
        so_far.check_next_stage(stage)
    except ValueError as exc:
        raise Unprocessable(f"stage: {exc}") from None
    return stage


def validate_complete(header: MatchView, stages: list[Stage]) -> None:
    """Check that the received stages form a complete match (what ``adjudicate match.json`` requires).
    Raises :class:`Unprocessable` (422)."""
    candidate = header.model_dump(mode="json")
    candidate["stages"] = [s.model_dump(mode="json") for s in stages]
    try:
        Match.model_validate(candidate)
    except ValidationError as exc:
        raise Unprocessable(describe_validation_error(exc, "match"), "push the missing stages before closing") from None

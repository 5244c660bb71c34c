"""A push's outcome for one room (:class:`PushOutcome`; the statuses are described in
:mod:`adjudicator.live.tabbycat.push`), a tab-room person's resolution of a conflict, and whether what
Tabbycat counts is what the room's last push left there."""

from __future__ import annotations

from typing import Any, Literal

from adjudicator.frozen import FrozenModel
from adjudicator.live.tabbycat.counted import Counted, counted_from_detail

Status = Literal["posted", "unchanged", "refused", "conflict", "kept", "retracted", "failed", "skipped", "ready"]
Resolve = Literal["ours", "theirs"]

#: The statuses after which the log knows what Tabbycat counts for the room's debate (``counts``).
TRACKED = ("posted", "unchanged", "kept", "retracted", "failed")


class Resolution(FrozenModel):
    """A tab-room person's answer to a conflict: ``resolve`` ours or theirs, ``reason``, ``by`` (name)."""

    resolve: Resolve
    reason: str
    by: str = ""


class PushOutcome(FrozenModel):
    """What happened to one room (module docstring). ``ready``: a dry run found nothing to refuse.
    ``counts``: what Tabbycat counts for the debate after this outcome (None: nothing, or unknown when
    ``attempted`` is unset); ``tabbycat``: what it counted before, where that is not this room's;
    ``moved``: the speaker scores rounding moved by one step so that the counted winner, ahead on the
    raw scores, stays ahead on Tabbycat's scale (e.g. ``"negative #1: 78 -> 79 (raw 8.00)"``)."""

    room_id: str
    status: Status
    reason: str = ""
    setting: str = ""
    debate: int | None = None
    url: str = ""
    digest: str = ""
    decision_version: int | None = None
    confirmed: bool | None = None
    ballot_id: int | None = None
    ballot_version: int | None = None
    sheets: int | None = None
    stored: dict[str, Any] | None = None
    attempted: bool | None = None
    counts: dict[str, Any] | None = None
    tabbycat: dict[str, Any] | None = None
    resolution: Resolution | None = None
    body: dict[str, Any] | None = None
    moved: list[str] | None = None


def dump_counted(c: Counted | None) -> dict[str, Any] | None:
    """``c`` as JSON for the log (None stays None)."""
    return c.model_dump(mode="json") if c is not None else None


def ours_counts(prev: dict[str, Any] | None, now: Counted | None) -> bool:
    """Whether ``now`` (what Tabbycat counts) is what this room's last outcome there left counting."""
    return prev is not None and prev.get("status") != "kept" and now is not None and now.same(counted_from_detail(prev))

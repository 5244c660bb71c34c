"""A room that no longer has a confirmed result here -- voided, or reopened for correction -- whose
ballot Tabbycat may still count (issue 41): take it back, or say loudly that Tabbycat still counts it.

The room's last tracked push in this Tabbycat round (``previous``) names the debate and the ballot; what
Tabbycat counts now (:mod:`~adjudicator.live.tabbycat.counted`) says whether that ballot still counts:

- nothing of the room counts (never posted, or already taken back): ``skipped``;
- it counts: the ballot is unconfirmed and discarded through the API (``PATCH .../ballots/<id>``
  ``{"confirmed": false, "discarded": true}``, ``BallotSerializer.update``), then Tabbycat's count is read
  again: ``retracted`` when nothing counts any more. Tabbycat v2.9.3 answers that request with HTTP 500
  (``BallotViewSet.get_queryset`` reads ``participant_requester``, as on every ballot read), and
  discarding alone would not do (its standings count every confirmed ballot, ``standings/teams.py``);
  then the outcome is ``failed``, naming the ballot and where to untick it in Tabbycat's own pages;
- Tabbycat counts a result the room did not post (the tab room's): ``skipped``, saying so, left alone.

A dry run reads and says what it would do (``ready``), changing nothing.
"""

from __future__ import annotations

from typing import Any

from adjudicator.live.tabbycat.client import TabbycatClient, TabbycatError
from adjudicator.live.tabbycat.counted import Counted, read_counted
from adjudicator.live.tabbycat.outcome import PushOutcome, dump_counted, ours_counts
from adjudicator.live.tabbycat.reading import TabbycatRound
from adjudicator.live.tabbycat.source import RoomSource

WHY = {"void": "voided by the organiser: it counts for nothing (`adjudicate live reopen` to count it again)",
       "draft": "an unconfirmed automated draft: confirm it first (`adjudicate live confirm`)"}


def _last_here(tc: TabbycatRound, previous: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    prefix = f"{tc.base}/rounds/{tc.seq}/pairings/"
    here = [d for url, d in previous.items() if url.startswith(prefix) and d.get("debate") is not None]
    return here[-1] if here else None


def retract(client: TabbycatClient, tc: TabbycatRound, src: RoomSource, previous: dict[str, dict[str, Any]], counts: dict[int, Counted | None], *,
            dry_run: bool = False) -> PushOutcome:
    """The outcome of pushing a void or draft room (module docstring). Never raises for Tabbycat's answers."""
    why = WHY[src.state]
    if src.state == "draft" and src.decision_version > 1:
        why = "reopened for correction: confirm the corrected result, then push it"
    prev = _last_here(tc, previous)
    if prev is None:
        return PushOutcome(room_id=src.room_id, status="skipped", reason=why, decision_version=src.decision_version)
    debate = int(prev["debate"])
    now = counts.get(debate)
    common: dict[str, Any] = {"debate": debate, "url": prev.get("url", ""), "decision_version": src.decision_version, "ballot_id": prev.get("ballot_id"),
                              "ballot_version": prev.get("ballot_version")}
    if now is None:
        return PushOutcome(room_id=src.room_id, status="skipped", reason=f"{why}; Tabbycat counts nothing for debate {debate}", **common)
    if not ours_counts(prev, now):
        return PushOutcome(room_id=src.room_id, status="skipped", tabbycat=dump_counted(now), **common,
                           reason=f"{why}; Tabbycat counts a result for debate {debate} that this room did not post ({now.describe()}): left as Tabbycat has it")
    ballot = prev.get("ballot_id")
    what = f"ballot {ballot} (version {prev.get('ballot_version')})" if ballot is not None else "the ballot this room posted (Tabbycat's answer with its id was lost)"
    fix = (f"in Tabbycat, open debate {debate}'s ballots (Results > {tc.name or f'round {tc.seq}'} > the debate's ballot), untick 'Confirmed' "
           f"and tick 'Discarded' on {what}, save, then push again")
    if dry_run:
        return PushOutcome(room_id=src.room_id, status="ready", reason=f"dry run: {why}; would take back {what}, which Tabbycat counts: {now.describe()}", **common)
    refused = "Tabbycat's answer with the ballot's id was lost"
    if ballot is not None:
        try:
            client.patch(f"{prev['url']}/{ballot}", {"confirmed": False, "discarded": True})
            after = read_counted(client, tc).get(debate)
            if after is None:
                return PushOutcome(room_id=src.room_id, status="retracted", attempted=True, reason=f"{why}; {what} unconfirmed and discarded in Tabbycat: it counts nothing for debate {debate}", **common)
            now, refused = after, f"Tabbycat still counts {after.describe()} after unconfirming it"
        except TabbycatError as exc:
            refused = f"Tabbycat would not unconfirm it through its API ({exc.message})"
    return PushOutcome(room_id=src.room_id, status="failed", attempted=True, counts=dump_counted(now), **common,
                       reason=f"{why}, but TABBYCAT STILL COUNTS {what} for debate {debate}: {now.describe()}; {refused}; {fix}")

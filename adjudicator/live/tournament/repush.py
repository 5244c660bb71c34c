"""Re-pushing a stage of a closed room (issue 27, item 9: correction with a trail): the organiser
replaces one stage's text of a room whose match is closed and whose result is not released, the
analysis is recomputed from that stage on, the panel judges again, and the room's result becomes a new
automated draft -- one ``stage_repushed`` line of the lifecycle log keeping person, time, reason, and
before and after (the stage's SHA-256, the automated winner and p, the counted result).

How (:func:`repush`), under the match's lock (the live store's, across processes on PostgreSQL):

1. the stage is validated as the one pushed at its place (:func:`~adjudicator.live.rooms.validation.validate_push`
   against the stages before it; same ``stage_id``, other content);
2. the tracking thread's state is rewritten to what it was before that stage: its stages with the new
   one in place, the analyses and track failures of the earlier stages, the clash map folded again from
   those analyses (in the order they were made, as the reducers made it), ``next_stage`` at the stage
   (LangGraph's ``Overwrite`` sets a channel past its reducer); call records stay;
3. the match goes to ``closing`` (a new panel attempt; the boards keep withholding the result), the
   stage and the ones after it are analysed again, and :meth:`~adjudicator.live.rooms.tracking.LiveStore.close_match`
   runs the panel and stores the new verdict;
4. the room's decision moves to a new draft version (the override, confirmation and release dropped;
   the log keeps them under ``before``) in one compare-and-set transaction with its log entry.

A re-push cut off midway (a failed analysis, a crash) is resumed by sending the same re-push again: a
stage already in place is not replaced twice, and a verdict newer than the draft is recorded.
Refused (409) for a released result (the organiser reopens it first: ``live reopen``), a void one, a
match not closed, an unknown stage (404), or a stage identical to the one stored whose verdict is
already the draft.
"""

from __future__ import annotations

import hashlib
from typing import Any

from langgraph.types import Overwrite
from pydantic import Field

from adjudicator.frozen import FrozenModel
from adjudicator.input.match import Stage
from adjudicator.live.errors import Conflict, NotFound
from adjudicator.live.rooms.validation import validate_push
from adjudicator.live.store.tournament_store import StaleDecision
from adjudicator.live.tournament.access import require_organiser
from adjudicator.live.tournament.lifecycle import Actor, Decision, LogEntry, automated_result, correction, fresh_draft
from adjudicator.live.tournament.model import now_utc, parse_body
from adjudicator.live.tournament.tabroom import Key, TabRoom
from adjudicator.verdict.ballots import Verdict
from adjudicator.verdict.battlefield import apply_clash_updates, merge_clashes


class RepushBody(FrozenModel):
    """``POST .../rooms/{room}/repush``: ``stage`` (the corrected stage, its ``stage_id`` one the match
    has), ``reason`` (required) and optionally ``expected_version`` (409 if the decision changed)."""

    stage: dict[str, Any]
    reason: str = Field(min_length=1, max_length=2000)
    expected_version: int | None = Field(default=None, ge=1)


def stage_sha256(stage: Stage) -> str:
    """The SHA-256 hex digest of a stage's canonical JSON (its words, speakers and sides)."""
    return hashlib.sha256(stage.model_dump_json().encode("utf-8")).hexdigest()


def repush(tabs: TabRoom, key: Key, data: object, actor: Actor) -> dict[str, Any]:
    """Replace a stage of room ``key``'s closed match and judge it again (module docstring). Returns
    the room's view. Raises 403 (not the organiser), 404 (room, stage), 409, 422, and
    :class:`~adjudicator.errors.AdjudicationFailed` (502) when an analysis or the panel failed (send
    the same re-push again to resume)."""
    require_organiser(actor, "re-pushing a stage")
    room = tabs.room(key)
    body = parse_body(RepushBody, data, "repush")
    d = _correctable(tabs, room, body.expected_version)
    before_stage, after_stage = _replace_and_judge(tabs, room.match_id, body.stage)
    verdict = tabs.live.verdict(room.match_id)
    if verdict is None:  # close_match returned, so the verdict is stored; a vanished file is a fault
        raise Conflict(f"room {room.room_id!r}: its match has no verdict after the panel", "send the re-push again")
    if before_stage == after_stage and automated_result(verdict) == d.automated:
        raise Conflict(f"room {room.room_id!r}: stage {after_stage.stage_id!r} is already this text, and its verdict is the draft", "nothing to re-push")
    with tabs.transition_lock:
        current = tabs.store.decision(room.key)
        if current is None or current.version != d.version:
            raise StaleDecision(f"room {room.room_id!r}: its verdict changed meanwhile (version {current.version if current else None}, expected {d.version})",
                                "reload the room and send the re-push again")
        new, entry = _new_draft(d, verdict, actor, body.reason.strip(), before_stage, after_stage)
        tabs.store.save_decisions([(new, d.version)], [entry])
    tabs.republish(room)
    return tabs.room_view(key, actor)


def _correctable(tabs: TabRoom, room: Any, expected: int | None) -> Decision:
    """The room's decision, if a stage of it may be re-pushed. Raises 409."""
    d = tabs.current_decision(room)
    if d is None:
        raise tabs.no_decision(room)
    if expected is not None and expected != d.version:
        raise StaleDecision(f"room {room.room_id!r}: the verdict is at version {d.version}, not {expected}", "reload the room and act again")
    if d.state == "released":
        raise Conflict(f"room {room.room_id!r}: the verdict was released at {d.released_at}; a released result is final",
                       "the organiser reopens it first (`adjudicate live reopen`), then re-pushes the stage")
    if d.void:
        raise Conflict(f"room {room.room_id!r}: the verdict is void", "the organiser reopens it first (`adjudicate live reopen`)")
    return d


def _replace_and_judge(tabs: TabRoom, match_id: str, data: dict[str, Any]) -> tuple[Stage, Stage]:
    """Under the match's lock: put the new stage in place (unless a cut-off re-push already did),
    analyse from it on and run the panel. Returns (the stage before, the stage now)."""
    live = tabs.live
    with live.lock(match_id):
        row = live.row(match_id)
        vals = live.tracking_values(match_id)
        stages: list[Stage] = list(vals.get("stages") or [])
        k = next((i for i, s in enumerate(stages) if s.stage_id == data.get("stage_id")), None)
        if k is None:
            raise NotFound(f"match {match_id!r} has no stage {data.get('stage_id')!r}", "give the stage_id of a stage it received", field="stage.stage_id")
        new = validate_push(row.header, stages[:k], data)
        old = stages[k]
        if new == old and row.status == "closed":
            return old, new  # in place already (a re-push cut off after its panel): the draft is what is left
        if row.status == "open":
            raise Conflict(f"match {match_id!r} is still open", "push the stage again as usual, or close the match first")
        if new != old:
            _rewind(live, match_id, vals, stages[:k] + [new] + stages[k + 1:], k)
        if row.status == "closed":
            live.registry.update(row.closing())  # a new panel attempt; the boards keep the result held back
        live.analyse(match_id)
        live.retry_stages(match_id, live.failed(match_id))
        failed = live.failed(match_id)
        if failed:
            raise Conflict(f"match {match_id!r}: the analysis of {', '.join(failed)} failed again", "send the same re-push again to retry it")
        live.close_match(match_id, force=True)
        return old, new


def _rewind(live: Any, match_id: str, vals: dict[str, Any], stages: list[Stage], k: int) -> None:
    """Commit the tracking state as it was before stage ``k`` (its analyses, failures and clash map),
    with ``stages`` in place, as a ``track_stage`` update (the graph then analyses stage ``k`` on)."""
    kept = {s.stage_id for s in stages[:k]}
    analyses = [a for a in vals.get("analyses") or [] if a.stage_id in kept]
    clashes: dict = {}
    for a in analyses:  # the order they were made in, as the reducer merged them
        clashes = merge_clashes(clashes, apply_clash_updates(clashes, a.stage_id, a.clash_updates))
    failures = [f for f in vals.get("failures") or [] if f.node != "track_stage" or f.key in kept]
    update = {"stages": Overwrite(stages), "analyses": Overwrite(analyses), "clashes": Overwrite(clashes), "failures": Overwrite(failures), "next_stage": k}
    live.commit_tracking(match_id, update)


def _new_draft(d: Decision, verdict: Verdict, actor: Actor, reason: str, old: Stage, new: Stage) -> tuple[Decision, LogEntry]:
    """The next version of ``d``: a draft of the new verdict (:func:`~adjudicator.live.tournament.lifecycle.fresh_draft`:
    override, confirmation and release dropped), and its ``stage_repushed`` log entry with the stage and
    the result before and after."""
    auto, at = automated_result(verdict), now_utc()
    return correction(d, fresh_draft(d, automated=auto, recorded_at=at), "stage_repushed", actor, reason, at, stage_id=new.stage_id,
                      before={"stage_sha256": stage_sha256(old), "automated_winner": d.automated.winner, "p": d.automated.p},
                      after={"stage_sha256": stage_sha256(new), "automated_winner": auto.winner, "p": auto.p})

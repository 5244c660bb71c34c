"""The verdict lifecycle of a tournament room: ``draft`` -> ``confirmed`` -> ``released``, each move a
new version of the room's :class:`Decision` and one :class:`LogEntry`.

- ``draft``: recorded when the room's match closes -- the panel's automated result (:class:`Automated`).
  Never shown as final: the boards show a draft only when the organiser chose ``board_shows="draft"``,
  and then labelled as an automated draft.
- ``confirmed``: a person holding the room's chair token or the organiser's token confirmed it, and may
  have overridden the winner, stage scores or best-debater votes (:class:`Override`). The override is
  kept beside the automated original, with who confirmed and when. Until release a confirmed result
  may be confirmed again (a correction: a new version, logged like the first).
- ``released``: the organiser released it, for one room or for every room of a round at once. Final,
  unless the organiser reopens it.
- Corrections (issue 27, item 9), the organiser's only, each with a reason: :func:`reopen` takes a
  confirmed, released or void result back to ``draft`` (the override dropped: the person confirms
  again), :func:`void` marks it void (:attr:`Decision.void`: the room counts for nothing -- no
  export, no Tabbycat push, no release, no confirmation -- its stored state unchanged; a reopen undoes
  it). Each log entry keeps the result before and after (:func:`snapshot_of`).

This mirrors how Tabbycat treats ballots: an automated submission counts only once a person has
confirmed it, and results reach the public when the tab releases them. The functions here are pure
(no storage): :mod:`adjudicator.live.tournament.tabroom` applies them and hands the new version and its log entry
to the store in one transaction (:mod:`adjudicator.live.store.tournament_store`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from adjudicator.frozen import FrozenModel
from adjudicator.input.formats import Side
from adjudicator.live.errors import Conflict, LiveRequestError, Unprocessable
from adjudicator.verdict.ballots import Verdict

VerdictState = Literal["draft", "confirmed", "released"]
#: What the views and the log say of a decision: its state, or "void" (:attr:`Decision.void`).
ShownState = Literal["draft", "confirmed", "released", "void"]

LogKind = Literal[
    "tournament_created", "settings_changed", "round_created", "room_created", "room_removed", "chair_token_issued",
    "draft_recorded", "confirmed", "released", "tabbycat_push", "stage_pushed", "match_closed", "reopened", "voided", "ballot_entered",
    "token_issued", "token_revoked", "stage_repushed",
]


class Actor(FrozenModel):
    """Who made a change or reads: the organiser (or a tab-room person), the chair or a panellist of
    one room (``room`` = its live match id), a private board's reader (``board``, of
    ``tournament_id``), or the server itself (``system``: a draft recorded when a match closed).
    ``name`` is the person's name: a person token's (:mod:`adjudicator.live.tournament.people`), else the room's
    chair name, else the shared organiser token's ``by`` label or the role. ``person_id`` is the
    person token's id (None for the shared organiser token and a room's own chair token)."""

    role: Literal["organiser", "chair", "panellist", "board", "system"]
    room: str | None = None
    name: str = ""
    person_id: str | None = None
    tournament_id: str | None = None

    @model_serializer(mode="wrap")
    def _without_unset_person(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The dump without ``person_id`` / ``tournament_id`` when they are None, so an actor of the
        shared organiser token or a room's chair token reads (and is stored) as before person tokens."""
        out = handler(self)
        for k in ("person_id", "tournament_id"):
            if out.get(k) is None:
                out.pop(k, None)
        return out


SYSTEM = Actor(role="system", name="adjudicator")


class RoomResult(FrozenModel):
    """A room's result: the winner, the score of every scored unit (``"<stage_id>|<side>"`` -> 1-10) and
    the best-debater votes (position label -> votes)."""

    winner: Side
    stage_scores: dict[str, float]
    best_debater_votes: dict[str, int]

    def best_debaters(self) -> list[str]:
        """The position labels with the most votes (several on a tie; empty without votes)."""
        if not self.best_debater_votes:
            return []
        top = max(self.best_debater_votes.values())
        return [k for k, v in self.best_debater_votes.items() if v == top and v > 0]


class Automated(RoomResult):
    """The panel's automated result, as the verdict gave it: plus the winner tendency ``p`` (0-1, above
    0.5 favours the affirmative), the winner split ("3:0", "2:1"), the model and whether it is an LLM."""

    p: float | None = None
    winner_split: str | None = None
    model: str = ""
    is_llm: bool = False


class Override(FrozenModel):
    """What a person changed when confirming: any of the winner, some stage scores (unit key -> 1-10,
    at most two decimals) and the whole best-debater vote table; ``note`` says why. Scores are finite."""

    model_config = ConfigDict(allow_inf_nan=False)

    winner: Side | None = None
    stage_scores: dict[str, float] = Field(default_factory=dict)
    best_debater_votes: dict[str, int] | None = None
    note: str = Field(default="", max_length=2000)

    def is_empty(self) -> bool:
        """True when nothing is changed (a confirmation as is)."""
        return self.winner is None and not self.stage_scores and self.best_debater_votes is None


class ConfirmBody(FrozenModel):
    """``POST .../rooms/{room}/confirm``: the override (any of ``winner``, ``stage_scores``,
    ``best_debater_votes``, and a ``note``; none of them confirms the automated result as is), ``by``
    (with the organiser's token, which person of the tab room confirms, default "organiser"; with a
    chair token, if given, the room's chair's own name, :func:`confirmer`), and optionally
    ``expected_version``, the decision version the person looked at (409 if it changed since).
    Scores are finite."""

    model_config = ConfigDict(allow_inf_nan=False)

    winner: Side | None = None
    stage_scores: dict[str, float] = Field(default_factory=dict)
    best_debater_votes: dict[str, int] | None = None
    note: str = Field(default="", max_length=2000)
    by: str | None = Field(default=None, max_length=120)
    expected_version: int | None = Field(default=None, ge=1)

    def override(self) -> Override:
        """The override this body asks for."""
        return Override(winner=self.winner, stage_scores=dict(self.stage_scores), best_debater_votes=self.best_debater_votes, note=self.note.strip())


class CorrectionBody(FrozenModel):
    """``POST .../rooms/{room}/reopen`` and ``.../void``: ``reason`` (required: the log keeps why) and
    optionally ``expected_version`` (409 if the decision changed since)."""

    reason: str = Field(min_length=1, max_length=2000)
    expected_version: int | None = Field(default=None, ge=1)


class ReleaseBody(FrozenModel):
    """``POST .../release``: ``by``, the releasing person's name (default "organiser")."""

    by: str | None = Field(default=None, max_length=120)


class Decision(FrozenModel):
    """One version of a room's verdict state. ``version`` starts at 1 (the draft) and grows by one per
    transition; ``effective()`` is the result that counts (the override applied to the automated
    original, which is kept unchanged)."""

    tournament_id: str
    round_id: str
    room_id: str
    state: VerdictState
    version: int = Field(ge=1)
    automated: Automated
    override: Override | None = None
    recorded_at: str
    confirmed_by: Actor | None = None
    confirmed_at: str | None = None
    released_by: Actor | None = None
    released_at: str | None = None
    void: bool = False
    entered_by: Actor | None = None

    @property
    def shown_state(self) -> ShownState:
        """``state``, or "void" once the organiser voided the result."""
        return "void" if self.void else self.state

    @property
    def key(self) -> tuple[str, str, str]:
        """(tournament_id, round_id, room_id)."""
        return (self.tournament_id, self.round_id, self.room_id)

    @property
    def human_confirmed(self) -> bool:
        """Whether a person confirmed this result (state confirmed or released, ``confirmed_by`` set):
        the quality gate's "review before use" has been answered, so the public views drop it."""
        return self.confirmed_by is not None and self.state in ("confirmed", "released")

    @property
    def overridden(self) -> bool:
        """Whether a person changed anything of the automated result."""
        return self.override is not None and not self.override.is_empty()

    def effective(self) -> RoomResult:
        """The automated result with the override applied."""
        a, o = self.automated, self.override
        if o is None:
            return RoomResult(winner=a.winner, stage_scores=dict(a.stage_scores), best_debater_votes=dict(a.best_debater_votes))
        return RoomResult(
            winner=o.winner or a.winner,
            stage_scores={**a.stage_scores, **o.stage_scores},
            best_debater_votes=dict(o.best_debater_votes) if o.best_debater_votes is not None else dict(a.best_debater_votes),
        )


class LogEntry(FrozenModel):
    """One line of the lifecycle log: when (UTC ISO 8601), where (tournament, round, room), what
    (``kind``), who (``actor``), the verdict state before and after and the decision version it made
    (transitions only), and details (an override, the ids created). ``seq`` is given by the store."""

    seq: int = 0
    at: str
    tournament_id: str
    round_id: str | None = None
    room_id: str | None = None
    kind: LogKind
    actor: Actor
    from_state: ShownState | None = None
    to_state: ShownState | None = None
    version: int | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# Transitions (pure)


def automated_result(verdict: Verdict) -> Automated:
    """The automated result of a closed match's verdict: winner, mean stage scores keyed
    ``"<stage_id>|<side>"``, votes, p, split, model. Raises ValueError for a verdict without a winner
    (the live panel always has one; a failed panel leaves the match open)."""
    if verdict.winner is None:
        raise ValueError(f"match {verdict.match_id!r}: the verdict has no winner")
    return Automated(
        winner=verdict.winner,
        stage_scores={f"{s.stage_id}|{s.side}": s.mean for s in verdict.stage_scores},
        best_debater_votes=dict(verdict.best_debater_votes),
        p=verdict.p,
        winner_split=verdict.dissent.winner_split if verdict.dissent else None,
        model=verdict.provenance.model,
        is_llm=verdict.provenance.is_llm,
    )


def draft(key: tuple[str, str, str], verdict: Verdict, at: str) -> tuple[Decision, LogEntry]:
    """Version 1 of a room's decision: the draft of its closed match's ``verdict``, and its log entry."""
    t, r, room = key
    auto = automated_result(verdict)
    d = Decision(tournament_id=t, round_id=r, room_id=room, state="draft", version=1, automated=auto, recorded_at=at)
    entry = LogEntry(at=at, tournament_id=t, round_id=r, room_id=room, kind="draft_recorded", actor=SYSTEM, to_state="draft", version=1,
                     detail={"winner": auto.winner, "p": auto.p, "winner_split": auto.winner_split, "model": auto.model})
    return d, entry


def check_override(override: Override, automated: Automated, labels: list[str]) -> Override:
    """``override`` checked against the automated result and the room's debater position labels, with
    stage scores rounded to two decimals. Raises :class:`Unprocessable` (422) naming the field: a unit
    the panel did not score, a score outside 1-10, a vote for someone not in the room, a negative vote
    count, or vote totals other than the automated total (9 for a full panel)."""
    scores: dict[str, float] = {}
    for unit, score in override.stage_scores.items():
        if unit not in automated.stage_scores:
            raise Unprocessable(f"confirm: field stage_scores.{unit}: the panel scored no such unit", "use keys '<stage_id>|<side>' from the draft", field=f"stage_scores.{unit}")
        if not 1.0 <= score <= 10.0:
            raise Unprocessable(f"confirm: field stage_scores.{unit}: {score} is outside 1-10", "give a score from 1 to 10", field=f"stage_scores.{unit}")
        scores[unit] = round(float(score), 2)
    votes = override.best_debater_votes
    if votes is not None:
        for label, n in votes.items():
            if label not in labels:
                raise Unprocessable(f"confirm: field best_debater_votes.{label}: not a debater of this room", f"use position labels: {', '.join(labels)}", field=f"best_debater_votes.{label}")
            if n < 0:
                raise Unprocessable(f"confirm: field best_debater_votes.{label}: {n} is negative", "give vote counts of 0 or more", field=f"best_debater_votes.{label}")
        total = sum(automated.best_debater_votes.values())
        if sum(votes.values()) != total:
            raise Unprocessable(f"confirm: field best_debater_votes: the votes add up to {sum(votes.values())}, not {total}", f"give {total} votes in all, as the panel did", field="best_debater_votes")
        votes = {k: n for k, n in votes.items() if n > 0}
    return override.model_copy(update={"stage_scores": scores, "best_debater_votes": votes})


def confirm(d: Decision, override: Override, actor: Actor, at: str, second_person: bool = False) -> tuple[Decision, LogEntry]:
    """The next version of ``d``, confirmed by ``actor`` at ``at`` with ``override`` (already checked
    with :func:`check_override`; an empty override confirms the automated result as is), and its log
    entry, which records the override beside the automated original. Raises :class:`Conflict` (409)
    for a released or void decision.

    With ``second_person`` (the tournament's ``second_person_confirms``; Tabbycat's rule that the
    person who enters a ballot is not the one who confirms it): an override is *entered*, not
    confirmed -- the result stays a draft carrying the override, ``entered_by`` the actor, log kind
    ``ballot_entered`` -- and a confirmation without an override by another person confirms it, the
    entered override kept. Raises :class:`SamePerson` (403) when the person who entered the ballot
    would confirm it."""
    if d.state == "released":
        raise Conflict(f"room {d.room_id!r}: the verdict was released at {d.released_at}; a released result is final", "the organiser reopens it to correct it (`adjudicate live reopen`)")
    if d.void:
        raise Conflict(f"room {d.room_id!r}: the verdict is void", "the organiser reopens it first (`adjudicate live reopen`)")
    entered = d.entered_by if second_person and d.state == "draft" else None
    if second_person and not override.is_empty():  # a person enters (or re-enters) a ballot: another confirms it
        new = d.model_copy(update={"state": "draft", "version": d.version + 1, "override": override, "entered_by": actor})
        entered_detail = {"override": override.model_dump(mode="json", exclude_defaults=True), "effective_winner": new.effective().winner, "automated_winner": d.automated.winner}
        return new, LogEntry(at=at, tournament_id=d.tournament_id, round_id=d.round_id, room_id=d.room_id, kind="ballot_entered", actor=actor,
                             from_state=d.state, to_state="draft", version=new.version, detail=entered_detail)
    if entered is not None and same_person(entered, actor):
        raise SamePerson(f"room {d.room_id!r}: {actor.name} entered this ballot, and this tournament has another person confirm it (Tabbycat's rule)",
                         "have another person confirm it: the room's chair, or the organiser", field=None)
    keep = entered is not None and override.is_empty()  # confirming the ballot another person entered, as entered
    kept = d.override if keep else (None if override.is_empty() and not override.note else override)
    new = d.model_copy(update={"state": "confirmed", "version": d.version + 1, "override": kept, "confirmed_by": actor, "confirmed_at": at})
    eff = new.effective()
    shown = kept if kept is not None else override
    detail: dict[str, Any] = {"override": shown.model_dump(mode="json", exclude_defaults=True), "effective_winner": eff.winner, "automated_winner": d.automated.winner}
    if entered is not None:
        detail["entered_by"] = entered.name
    entry = LogEntry(at=at, tournament_id=d.tournament_id, round_id=d.round_id, room_id=d.room_id, kind="confirmed", actor=actor,
                     from_state=d.state, to_state="confirmed", version=new.version, detail=detail)
    return new, entry


class SamePerson(LiveRequestError):
    """Under Tabbycat's rule, the person who entered a ballot would confirm it (403)."""

    status_code = 403


def person_key(actor: Actor) -> str:
    """The identity Tabbycat's rule compares (issue 27, item 7): a person token's id; the shared
    organiser token is one person ("organiser", whatever ``by`` said); a room's own chair token is its
    room's chair."""
    if actor.person_id is not None:
        return actor.person_id
    if actor.role == "organiser":
        return "organiser"
    return f"{actor.role}|{actor.room}|{actor.name}"


def same_person(a: Actor, b: Actor) -> bool:
    """Whether two actors are one person (:func:`person_key`): two tab-room people are told apart by
    their tokens, not their names; every use of the shared organiser token is one person."""
    return person_key(a) == person_key(b)


def confirmer(actor: Actor, by: str | None, what: str = "confirm") -> Actor:
    """Who an action (a confirmation, a release) is recorded under (issue 27, item 7: identity from
    tokens, not text). A person token, or a room's own chair token, is one named person: ``by``, if
    given, must be that name. The shared organiser token takes ``by`` as a label of which tab-room
    member acted (default "organiser"; older scripts pass one), the role staying "organiser" and the
    identity the shared token's (:func:`person_key`). Raises :class:`Unprocessable` (422, field
    ``by``) for a ``by`` naming anyone else -- before, ``by: "organiser"`` from a chair was recorded
    and shown as such."""
    name = (by or "").strip()
    if actor.person_id is not None or actor.role == "chair":
        if name and name != actor.name:
            who = "a chair token confirms as its room's chair" if actor.person_id is None else "a person's token acts as its person"
            raise Unprocessable(f"{what}: field by: {who} ({actor.name!r}), not as {name!r}",
                                "leave 'by' out (the name comes from the token), or use that person's own token", field="by")
        return actor
    return actor.model_copy(update={"name": name or actor.name})


def release(d: Decision, actor: Actor, at: str) -> tuple[Decision, LogEntry]:
    """The next version of a confirmed ``d``, released by ``actor`` at ``at``, and its log entry. Raises
    :class:`Conflict` (409) for a draft (confirm it first) or an already released decision."""
    if d.state == "draft":
        raise Conflict(f"room {d.room_id!r}: the verdict is an unconfirmed draft", "confirm it first (`adjudicate live confirm`)")
    if d.state == "released":
        raise Conflict(f"room {d.room_id!r}: the verdict is already released", "nothing to release")
    if d.void:
        raise Conflict(f"room {d.room_id!r}: the verdict is void", "reopen and confirm it first")
    new = d.model_copy(update={"state": "released", "version": d.version + 1, "released_by": actor, "released_at": at})
    entry = LogEntry(at=at, tournament_id=d.tournament_id, round_id=d.round_id, room_id=d.room_id, kind="released", actor=actor,
                     from_state=d.state, to_state="released", version=new.version, detail={"winner": new.effective().winner})
    return new, entry


def snapshot_of(d: Decision) -> dict[str, Any]:
    """What a correction's log entry keeps of a decision, before and after: state, version, the
    counted result, the override and who confirmed and released it."""
    eff = d.effective()
    return {"state": d.shown_state, "version": d.version, "winner": eff.winner, "stage_scores": dict(eff.stage_scores), "best_debater_votes": dict(eff.best_debater_votes),
            "override": d.override.model_dump(mode="json", exclude_defaults=True) if d.override else None,
            "confirmed_by": d.confirmed_by.name if d.confirmed_by else None, "released_at": d.released_at}


def correction(d: Decision, new: Decision, kind: LogKind, actor: Actor, reason: str, at: str, *,
               before: dict[str, Any] | None = None, after: dict[str, Any] | None = None, **detail: Any) -> tuple[Decision, LogEntry]:
    """``new`` (the next version of ``d``) and the log entry of the correction ``kind`` that made it:
    ``detail`` holds the ``reason``, any further ``detail`` keys, and :func:`snapshot_of` each
    decision under ``before`` / ``after``, with the ``before`` / ``after`` extras added (a re-push's
    stage hashes and automated results, :mod:`adjudicator.live.tournament.repush`)."""
    entry = LogEntry(at=at, tournament_id=d.tournament_id, round_id=d.round_id, room_id=d.room_id, kind=kind, actor=actor, from_state=d.shown_state,
                     to_state=new.shown_state, version=new.version,
                     detail={"reason": reason, **detail, "before": snapshot_of(d) | (before or {}), "after": snapshot_of(new) | (after or {})})
    return new, entry


def fresh_draft(d: Decision, **update: Any) -> Decision:
    """The next version of ``d`` as an unconfirmed draft that counts (reopen, re-push): its override
    and who entered, confirmed and released it dropped; ``update`` sets further fields."""
    return d.model_copy(update={"state": "draft", "void": False, "version": d.version + 1, "override": None, "entered_by": None, "confirmed_by": None,
                                "confirmed_at": None, "released_by": None, "released_at": None} | update)


def reopen(d: Decision, actor: Actor, reason: str, at: str) -> tuple[Decision, LogEntry]:
    """The next version of a confirmed, released or void ``d``: a draft again (override, confirmation
    and release dropped; the log entry keeps them under ``before``). Raises :class:`Conflict` (409)
    for a draft (nothing to reopen)."""
    if d.state == "draft" and not d.void:
        raise Conflict(f"room {d.room_id!r}: the verdict is an unconfirmed draft already", "confirm it, with an override if it needs one")
    return correction(d, fresh_draft(d), "reopened", actor, reason, at)


def void(d: Decision, actor: Actor, reason: str, at: str) -> tuple[Decision, LogEntry]:
    """The next version of ``d``, void: the room's result counts for nothing (no export, push or
    release) until reopened. Raises :class:`Conflict` (409) when it is void already."""
    if d.void:
        raise Conflict(f"room {d.room_id!r}: the verdict is void already", "reopen it to count it again")
    return correction(d, d.model_copy(update={"void": True, "version": d.version + 1}), "voided", actor, reason, at)


def visible(d: Decision | None, board_shows: str) -> bool:
    """Whether a public board shows ``d`` under the tournament's ``board_shows`` ("released",
    "confirmed" or "draft")."""
    if d is None or d.void:
        return False
    if d.state == "released":
        return True
    if d.state == "confirmed":
        return board_shows in ("confirmed", "draft")
    return board_shows == "draft"

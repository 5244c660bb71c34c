"""Escalation to a person: whether a verdict should be looked at by a human adjudicator, and why.

:func:`review_of` applies the rule to a finished verdict's parts; the verdict carries the result as
:class:`Review` (``verdict.review``). A verdict is escalated when any of these holds:

- ``close_call``: the winner tendency is within :data:`REVIEW_BAND` of 0.5 (0.40 <= p <= 0.60): the
  panel barely prefers one side, so a human's reading of the decisive clash matters most;
- ``split_panel``: the judges did not agree on the winner (a 2:1 split; ranking formats: not every
  judge put the same unit first);
- ``failed_judge``: a judge's node failed (its ballot is missing, the verdict rests on fewer judges);
- ``identical_ballots``: every ballot (at least two) is the same -- the same winner, p, stage scores
  and best-debater votes (ranking formats: the same ranking and speaker scores) -- which independent
  judges almost never give: a model ignoring its judge's perspective, or copying an example, is likelier;
- ``probe_flip``: a bias or stability probe moved the panel's winner on this match (only when probes
  ran: :func:`with_probe_flips`, used by the bench report).

The band is stated in every record, so a reader knows the rule that was applied. Selective accuracy
against coverage (accuracy on the verdicts not escalated, for each band) is computed by
:func:`adjudicator.evaluation.selective.selective_accuracy`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field

from adjudicator.frozen import FrozenModel
from adjudicator.records import NodeFailure

#: A winner tendency this close to 0.5 (inclusive) is a close call.
REVIEW_BAND = 0.1

ReviewReason = Literal["close_call", "split_panel", "failed_judge", "identical_ballots", "probe_flip"]

#: The parts of a ballot compared by the ``identical_ballots`` rule (its decision, not its words or its judge).
_DECISION_FIELDS = {"winner", "p", "stage_scores", "best_debater_votes", "ranking", "speaker_scores", "dimensions"}


def identical_ballots(ballots: Sequence[Any]) -> bool:
    """True when there are at least two ballots (:class:`~adjudicator.verdict.ballots.Ballot`) and all give the
    same decision: every field of :data:`_DECISION_FIELDS` equal (reasoning, judge id, perspective and
    model may differ)."""
    if len(ballots) < 2:
        return False
    first = ballots[0].model_dump(include=_DECISION_FIELDS)
    return all(b.model_dump(include=_DECISION_FIELDS) == first for b in ballots[1:])


class Review(FrozenModel):
    """Whether a person should look at the verdict (``escalate``), the ``reasons`` (in the order
    listed in the module docstring), one sentence per reason (``detail``), and the ``band`` of the
    close-call rule (a distance from 0.5)."""

    escalate: bool
    reasons: list[ReviewReason] = Field(default_factory=list)
    detail: list[str] = Field(default_factory=list)
    band: float = REVIEW_BAND


def review_of(
    p: float | None,
    winner_split: str | None,
    failures: Sequence[NodeFailure],
    *,
    band: float = REVIEW_BAND,
    split_label: str = "winner",
    ballots: Sequence[Any] = (),
) -> Review:
    """The review record of a verdict with winner tendency ``p`` (None for ranking formats or a
    failed winner), the panel's ``winner_split`` (``"3:0"``, ``"2:1"``; None without a panel), its
    node ``failures`` and its panel's ``ballots`` (empty for the single-call arm). ``split_label``
    names what was split (``winner``; ``first place`` for rankings)."""
    reasons: list[ReviewReason] = []
    detail: list[str] = []
    if p is not None and abs(p - 0.5) <= band + 1e-12:
        reasons.append("close_call")
        detail.append(f"p = {p:.2f} is within {band} of 0.5")
    if winner_split:
        a, _, b = winner_split.partition(":")
        if b and b.isdigit() and int(b) > 0:
            reasons.append("split_panel")
            detail.append(f"the panel split {winner_split} on the {split_label}")
    judges = sorted({f.key for f in failures if f.node == "judge"})
    tasks = sorted({f.key or f.node for f in failures if f.node.startswith("task")})
    if judges:
        reasons.append("failed_judge")
        detail.append(f"judge(s) {', '.join(judges)} failed; the verdict rests on the others")
    elif tasks:
        reasons.append("failed_judge")
        detail.append(f"task(s) {', '.join(tasks)} failed")
    if identical_ballots(ballots):
        reasons.append("identical_ballots")
        detail.append(f"all {len(ballots)} ballots are identical (same winner, p, scores and votes): the judges may not have judged independently")
    return Review(escalate=bool(reasons), reasons=reasons, detail=detail, band=band)


def with_probe_flips(review: Review, probes: Sequence[str]) -> Review:
    """``review`` with ``probe_flip`` added when ``probes`` (the probes that moved this match's panel
    winner) is not empty."""
    if not probes:
        return review
    return Review(escalate=True, reasons=[*review.reasons, "probe_flip"], detail=[*review.detail, f"the winner moved under probe(s) {', '.join(probes)}"], band=review.band)

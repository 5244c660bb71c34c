"""Training targets: each task's gold answer in the exact output schema of the zero-shot arm
(:mod:`adjudicator.single_call.outputs`; protocol 001 s.01 and s.03: "gold scores and votes are
supervised targets, never model inputs").

- Task 1, ``{"basis", "p"}``: p is the original panel's share of winner votes for the affirmative,
  rounded to 0.01 (3:0 -> 1.0, 2:1 -> 0.67, 1:2 -> 0.33, 0:3 -> 0.0), or 1.0 / 0.0 for a
  match-level outcome without per-judge votes (PanelBench's audience result). A tie or a match
  without a winner has no target: judges may not tie, and a 0.5 target would teach an answer the
  protocol scores as wrong.
- Task 2, ``{"basis", "score"}`` per scored (stage, side): the reference is the mean of the judges'
  scores (every judge of the original panel must have scored the unit); the schema asks for an
  integer 1-10, so the target is that mean rounded to the nearest integer, halves up (a mean of
  three integers is never a half).
- Task 2, paired difference, ``{"basis", "difference"}`` per stage scored for both sides: the
  affirmative's mean minus the negative's, rounded to 0.01, in [-9, 9] (the variant the protocol
  allows exploring, s.03).
- Task 3, ``{"basis", "votes"}``: the judges' best-debater votes summed per debater, written as
  the schema's list of exactly nine position labels, most-voted debater first (ties in the
  format's label order). A match whose summed votes are not nine has no target.

``basis`` is the match's rationale for that instance after the gold-number filter
(:mod:`adjudicator.finetune.rationales`), or ``""`` when there is none. Every function returns the
target as a dict, or the reason there is none (a string), never a guessed value.
"""

from __future__ import annotations

import math
from typing import Any

from adjudicator.verdict.ballots import PANEL_VOTES

#: The rationale key of each match-level task in ``labels.rationales`` (Task 2 units use their
#: ``"<stage_id>|<side>"`` key).
RATIONALE_KEYS = {"task1": "winner", "task3": "best_debater"}


def round_half_up(x: float) -> int:
    """``x`` rounded to the nearest integer, halves away from zero (6.5 -> 7, -6.5 -> -7)."""
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def winner_target(match: Any) -> dict[str, Any] | str:
    """Task 1's target ``{"p": float}`` (module docstring) or the reason there is none."""
    labels = match.labels
    if labels is None:
        return "no labels"
    votes = [j.winner for j in labels.judges if j.winner]
    if votes:
        aff = votes.count("affirmative")
        if 2 * aff == len(votes):
            return f"the judges split evenly ({aff}:{len(votes) - aff}); judges may not tie"
        return {"p": round(aff / len(votes), 2)}
    if labels.outcome in ("affirmative", "negative"):
        return {"p": 1.0 if labels.outcome == "affirmative" else 0.0}
    return "a tie (judges may not tie)" if labels.outcome == "tie" else "no gold winner"


def unit_means(match: Any) -> dict[str, float]:
    """``"<stage_id>|<side>"`` -> the original panel's mean score, for the units every judge scored
    (the Task 2 reference; :mod:`adjudicator.bench.gold` uses the same rule)."""
    judges = list(match.labels.judges) if match.labels else []
    out: dict[str, float] = {}
    if not judges:
        return out
    for sid, side in match.scored_units():
        key = f"{sid}|{side}"
        if all(key in j.stage_scores for j in judges):
            out[key] = sum(j.stage_scores[key] for j in judges) / len(judges)
    return out


def score_target(means: dict[str, float], key: str) -> dict[str, Any] | str:
    """Task 2's target ``{"score": int}`` for unit ``key`` from :func:`unit_means`, or the reason."""
    if not means:
        return "no judge stage scores in the match (labels.judges[].stage_scores)"
    if key not in means:
        return "not scored by every judge of the original panel"
    return {"score": min(10, max(1, round_half_up(means[key])))}


def difference_target(means: dict[str, float], stage_id: str) -> dict[str, Any] | str:
    """The paired variant's target ``{"difference": float}`` for a stage, or the reason."""
    aff, neg = means.get(f"{stage_id}|affirmative"), means.get(f"{stage_id}|negative")
    if not means:
        return "no judge stage scores in the match (labels.judges[].stage_scores)"
    if aff is None or neg is None:
        return "not scored for both sides by every judge"
    return {"difference": round(aff - neg, 2)}


def votes_target(match: Any) -> dict[str, Any] | str:
    """Task 3's target ``{"votes": [label, ...]}`` (nine labels, most-voted first), or the reason."""
    judges = list(match.labels.judges) if match.labels else []
    if not any(j.best_debater_votes for j in judges):
        return "no best-debater votes"
    labels = match.debater_labels()
    summed = {lab: sum(j.best_debater_votes.get(lab, 0) for j in judges) for lab in labels}
    total = sum(summed.values())
    if total != PANEL_VOTES:
        return f"the judges' votes sum to {total}, not {PANEL_VOTES}"
    order = sorted(labels, key=lambda lab: (-summed[lab], labels.index(lab)))
    return {"votes": [lab for lab in order for _ in range(summed[lab])]}

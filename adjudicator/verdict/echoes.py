"""Whether a judge scored the debate or handed back the tracker's numbers (issue 25, the quality gate).

A judge gets the clash tracker's analysis of every unit (one side in one stage) with the score its
rubric levels suggest, and is told the scores are advice: keep them where the analysis supports them,
change them where the ledger shows them too high or too low. A ballot that keeps the suggestion on
every one of its units (at least :data:`MIN_UNITS`) may be a judgement that agrees with the tracker
throughout, or a judge that copied the table it was shown; a person decides, so the finding
``tracker_scores`` only escalates (:mod:`adjudicator.verdict.review`). The offline judge is not checked:
its stage scores are derived from the same suggestions by design
(:mod:`adjudicator.judges.offline.ballot`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: ``tracker_scores`` needs at least this many scored units on the ballot: with one or two units an
#: agreeing judge and a copying one look the same far too often.
MIN_UNITS = 3


def suggested_scores(analyses: Sequence[Any]) -> dict[tuple[str, str], int]:
    """The tracker's suggested score per unit ``(stage_id, side)`` from its stage analyses
    (:class:`~adjudicator.verdict.battlefield.StageAnalysis`; integers 1-10)."""
    return {(a.stage_id, s.side): s.suggested_score for a in analyses for s in a.sides}


def tracker_score_findings(ballots: Sequence[Any], analyses: Sequence[Any]) -> list[tuple[str, dict[str, Any]]]:
    """``[("tracker_scores", {"judges": [...], "units": [...]})]`` when some of ``ballots``
    (:class:`~adjudicator.verdict.ballots.Ballot`) give every one of their units, at least
    :data:`MIN_UNITS` of them and each with a suggestion, the tracker's suggested score; ``units`` is
    each such ballot's number of units. Empty otherwise."""
    suggested = suggested_scores(analyses)
    judges, units = [], []
    for b in ballots:
        scores = [(s.stage_id, s.side, s.score) for s in b.stage_scores]
        if len(scores) >= MIN_UNITS and all(suggested.get((sid, side)) == score for sid, side, score in scores):
            judges.append(b.judge_id)
            units.append(len(scores))
    return [("tracker_scores", {"judges": judges, "units": units})] if judges else []

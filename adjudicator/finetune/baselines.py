"""Data-dependent baselines fitted on a fold's training portion only (protocol 001 s.03), one per
task, each applied to the fold's test part:

- Task 1, ``training base rate``: p = the share of the training matches with a decisive gold winner
  that the affirmative won, for every test match; its winner is the training majority side (the
  majority-class baseline done as the protocol asks; p = 0.5 exactly is a wrong prediction).
- Task 2, ``training stage means``: a test unit's score is the mean of the training units' panel
  means with the same format, stage type and role (questioner / respondent; none for other
  stages), else with the same stage type and role, else of every training unit.
- Task 3, ``training vote shares``: a test match's vote vector is the mean, over the training
  matches of its format with gold votes, of each position label's share of the votes; a format
  unseen in training gets no prediction.

The fit reads the training matches' labels only; :func:`predict` reads nothing of the test
matches but their structure (format, stages, debater labels).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from adjudicator.frozen import FrozenModel
from adjudicator.input.match import Match

NAMES = {"task1": "training base rate", "task2": "training stage means", "task3": "training vote shares"}


class TrainBaselines(FrozenModel):
    """The fitted baselines (module docstring): ``p_affirmative`` None when no training match has a
    decisive winner; ``stage_means`` key -> mean (keys ``"<format>|<type>|<role>"``,
    ``"*|<type>|<role>"`` and ``"*"``); ``vote_shares`` format -> position label -> mean share;
    ``n`` the number of training matches used per task."""

    p_affirmative: float | None = None
    stage_means: dict[str, float] = {}
    vote_shares: dict[str, dict[str, float]] = {}
    n: dict[str, int] = {}


def _unit_keys(match: Match, stage_id: str, side: str) -> list[str]:
    st = match.stage(stage_id)
    role = st.role_of(side) or "-"  # type: ignore[arg-type]
    return [f"{match.format}|{st.type}|{role}", f"*|{st.type}|{role}", "*"]


def fit_baselines(train: Sequence[Match]) -> TrainBaselines:
    """Fit the three baselines on the training matches ``train`` (their labels are read)."""
    from adjudicator.bench.gold import gold_from_matches

    g = gold_from_matches(train)
    decisive = [w for w in g.winners if w in ("affirmative", "negative")]
    p = sum(w == "affirmative" for w in decisive) / len(decisive) if decisive else None
    sums: dict[str, list[float]] = defaultdict(list)
    by_id = {m.match_id: m for m in train}
    for (mid, sid, side), mean in zip(g.units, g.unit_mean):
        for key in _unit_keys(by_id[mid], sid, side):
            sums[key].append(float(mean))
    shares: dict[str, list[np.ndarray]] = defaultdict(list)
    labels_of: dict[str, list[str]] = {}
    for fmt, labels, votes in zip(g.formats, g.debater_labels, g.votes):
        if votes is not None and votes.sum() > 0:
            shares[fmt].append(votes / votes.sum())
            labels_of[fmt] = labels
    return TrainBaselines(
        p_affirmative=p,
        stage_means={k: float(np.mean(v)) for k, v in sorted(sums.items())},
        vote_shares={f: dict(zip(labels_of[f], (float(x) for x in np.mean(v, axis=0)))) for f, v in sorted(shares.items())},
        n={"task1": len(decisive), "task2": len(g.units), "task3": sum(len(v) for v in shares.values())},
    )


def predict(fit: TrainBaselines, test: Sequence[Match]) -> dict[str, Any]:
    """The baselines' predictions on the test matches, aligned as :mod:`adjudicator.bench.gold`
    aligns them: ``p`` (M,), ``unit_pred`` (S,) over the gold units, ``votes`` (M,) vectors or None.
    Reads the test matches' structure and the gold alignment (which units exist), never a label
    value."""
    from adjudicator.bench.gold import gold_from_matches

    g = gold_from_matches(test)
    by_id = {m.match_id: m for m in test}
    p = np.full(len(g.match_ids), np.nan if fit.p_affirmative is None else fit.p_affirmative)
    units = []
    for mid, sid, side in g.units:
        means = [fit.stage_means[k] for k in _unit_keys(by_id[mid], sid, side) if k in fit.stage_means]
        units.append(means[0] if means else np.nan)
    votes: list[np.ndarray | None] = []
    for fmt, labels in zip(g.formats, g.debater_labels):
        shares = fit.vote_shares.get(fmt)
        votes.append(None if shares is None else np.array([shares.get(lab, 0.0) for lab in labels]) * 9.0)
    return {"p": p, "unit_pred": np.array(units, dtype=float), "votes": votes}

"""Gold labels of a run's matches, aligned for the metric functions (protocol 001 s.01-02; paper 2.3).

- Instances. Task 1 and Task 3: one per match. Task 2: one per scored (stage, evaluated side) that
  every judge of the original panel scored; the reference is the judges' mean. Tendency pairs: stages
  scored for both sides; the human tendency is the sign of the difference of the two means.
- Not applicable. A task whose gold labels the dataset lacks (PanelBench has no stage scores and no
  best-debater votes) is reported as not applicable with the reason, never as 0
  (:meth:`Gold.applicability`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from adjudicator.input.match import Match


@dataclass
class Gold:
    """Gold labels aligned for the metric functions.

    Matches (M): ``match_ids``, ``formats``, ``debater_labels`` (vote-vector order),
    ``winners`` (``Labels.gold_winner()``), ``votes`` (summed judges' best-debater votes, None when
    there are none). Units (S): ``units`` ``(match_id, stage_id, side)``, ``unit_match``,
    ``unit_mean`` (3-judge mean, all judges must have scored the unit), ``unit_role``.
    Pairs (P): ``pairs`` ``(match_id, stage_id)``, ``pair_match``, ``pair_aff``/``pair_neg`` means,
    ``pair_questioner`` (the questioning side of asymmetric stages, else None).
    """

    match_ids: list[str]
    formats: list[str]
    debater_labels: list[list[str]]
    winners: list[Any]
    votes: list[np.ndarray | None]
    units: list[tuple[str, str, str]] = field(default_factory=list)
    unit_match: list[str] = field(default_factory=list)
    unit_mean: np.ndarray = field(default_factory=lambda: np.empty(0))
    unit_role: list[Any] = field(default_factory=list)
    pairs: list[tuple[str, str]] = field(default_factory=list)
    pair_match: list[str] = field(default_factory=list)
    pair_aff: np.ndarray = field(default_factory=lambda: np.empty(0))
    pair_neg: np.ndarray = field(default_factory=lambda: np.empty(0))
    pair_questioner: list[Any] = field(default_factory=list)

    @property
    def decisive(self) -> np.ndarray:
        """Mask (M,) of matches with a decisive gold winner."""
        return np.array([w in ("affirmative", "negative") for w in self.winners], dtype=bool)

    @property
    def has_votes(self) -> np.ndarray:
        """Mask (M,) of matches with gold best-debater votes."""
        return np.array([v is not None for v in self.votes], dtype=bool)

    def applicability(self) -> dict[str, str | None]:
        """Task -> None when the dataset supports it, else the reason it is not applicable."""
        n = len(self.match_ids)
        return {
            "task1": None if self.decisive.any() else (f"none of the {n} matches has a decisive gold winner" if n else "the run has no two-sided match to score a winner on (British Parliamentary rounds are scored in their own section)"),
            "task2": None if np.isfinite(self.unit_mean).any() else "the dataset has no judge stage scores (labels.judges[].stage_scores); e.g. PanelBench has match-level outcomes only",
            "task3": None if self.has_votes.any() else "the dataset has no best-debater votes (labels.judges[].best_debater_votes); e.g. PanelBench has match-level outcomes only",
        }


def _summed_votes(judges: list[Any], labels: list[str]) -> np.ndarray | None:
    """The judges' best-debater votes summed per debater (``labels`` order), None when none was cast."""
    if not judges or not any(j.best_debater_votes for j in judges):
        return None
    v = np.array([sum(j.best_debater_votes.get(lab, 0) for j in judges) for lab in labels], dtype=float)
    return v if v.sum() > 0 else None


def gold_from_matches(matches: Sequence[Match]) -> Gold:
    """Align the gold labels of ``matches`` (see :class:`Gold`)."""
    g = Gold(match_ids=[], formats=[], debater_labels=[], winners=[], votes=[])
    means: list[float] = []
    aff: list[float] = []
    neg: list[float] = []
    for m in matches:
        labels = m.labels
        judges = list(labels.judges) if labels else []
        g.match_ids.append(m.match_id)
        g.formats.append(m.format)
        dl = m.debater_labels()
        g.debater_labels.append(dl)
        g.winners.append(labels.gold_winner() if labels else None)
        g.votes.append(_summed_votes(judges, dl))
        unit_mean: dict[tuple[str, str], float] = {}
        for sid, side in m.scored_units():
            key = f"{sid}|{side}"
            if judges and all(key in j.stage_scores for j in judges):
                mean = float(np.mean([j.stage_scores[key] for j in judges]))
                unit_mean[(sid, side)] = mean
                g.units.append((m.match_id, sid, side))
                g.unit_match.append(m.match_id)
                means.append(mean)
                g.unit_role.append(m.stage(sid).role_of(side))
        for st in m.stages:
            a, b = unit_mean.get((st.stage_id, "affirmative")), unit_mean.get((st.stage_id, "negative"))
            if a is not None and b is not None:
                g.pairs.append((m.match_id, st.stage_id))
                g.pair_match.append(m.match_id)
                aff.append(a)
                neg.append(b)
                g.pair_questioner.append(st.questioner)
    g.unit_mean = np.array(means, dtype=float)
    g.pair_aff = np.array(aff, dtype=float)
    g.pair_neg = np.array(neg, dtype=float)
    return g

"""The provisional tendency of a match in progress: which way the trackers' analyses lean so far.

A pure function of the clash-tracking state (the trackers' analyses and the clash map), so it works the
same with the offline judge and with any LLM. It is not the panel's verdict; the board labels it as
provisional.

Provisional tendency (our definition; not the panel's ``p``, not fitted to any label):

- ``score_gap``: the like-for-like mean difference of the trackers' suggested scores (1-10). Scored
  units are grouped by (stage type, role) -- affirmative constructive against negative constructive,
  questioner against questioner, free debate against free debate -- because stage types carry a
  structural bias (paper 2.5: questioners outscore respondents). For each group where both sides have
  at least one unit, ``d_g`` = mean(affirmative) - mean(negative) with weight ``w_g`` = the smaller of the
  two unit counts; ``score_gap`` = sum(w_g d_g) / sum(w_g), or 0 while no group has both sides.
- ``momentum``: the event-weighted clash momentum in [-1, 1], the same counting as
  :meth:`adjudicator.verdict.battlefield.Clash.momentum` pooled over all clashes: each "advanced" or "defended"
  event counts +1 for its side, each "conceded" event +1 for the other side, "opened"/"contested" count 0;
  ``momentum`` = (affirmative counts - negative counts) / all counted events, or 0 with none.
- ``p = 1 / (1 + exp(-(0.8 * score_gap + 1.2 * momentum)))``, two decimals; above 0.5 leans affirmative.
  Scale: a one-point like-for-like gap alone (one rubric step, e.g. 7 against 6) gives 0.69; a clash
  map entirely one side's with equal scores gives 0.77. ``leaning`` is "affirmative" from 0.55,
  "negative" up to 0.45, else "even". ``p`` is None until both sides have been scored in at least one
  comparable (stage type, role) group -- e.g. after the first constructive speech alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from adjudicator.input.match import Stage
from adjudicator.verdict.battlefield import Clash, StageAnalysis, event_balance

SCORE_GAP_WEIGHT = 0.8  # logit per suggested-score point of like-for-like gap
MOMENTUM_WEIGHT = 1.2  # logit at a clash map entirely one side's (momentum +-1)
LEANING_MARGIN = 0.05  # |p - 0.5| below this is "even"


@dataclass(frozen=True)
class Tendency:
    """The provisional tendency (module docstring). ``p`` in [0, 1], or None before both sides have
    been scored in a comparable stage;
    ``score_gap`` in [-9, 9] suggested-score points; ``momentum`` in [-1, 1]; ``compared_groups`` the
    number of (stage type, role) groups with both sides scored; ``counted_events`` the clash events
    that moved momentum."""

    p: float | None
    leaning: str
    score_gap: float
    momentum: float
    compared_groups: int
    counted_events: int


def like_for_like_gap(analyses: list[StageAnalysis], stage_types: dict[str, str]) -> tuple[float, int]:
    """(score_gap, compared_groups): the weighted mean of per-(stage type, role) differences in mean
    suggested score, affirmative minus negative (module docstring). ``stage_types`` maps stage id ->
    stage type. Returns (0.0, 0) when no group has both sides."""
    groups: dict[tuple[str, str], dict[str, list[int]]] = {}
    for a in analyses:
        for s in a.sides:
            key = (stage_types.get(s.stage_id, "?"), s.role or "")
            groups.setdefault(key, {"affirmative": [], "negative": []})[s.side].append(s.suggested_score)
    num = 0.0
    den = 0.0
    compared = 0
    for g in groups.values():
        aff, neg = g["affirmative"], g["negative"]
        if not aff or not neg:
            continue
        w = min(len(aff), len(neg))
        num += w * (sum(aff) / len(aff) - sum(neg) / len(neg))
        den += w
        compared += 1
    return (num / den if den else 0.0), compared


def pooled_momentum(clashes: dict[str, Clash]) -> tuple[float, int]:
    """(momentum, counted_events): clash momentum pooled over every clash event (module docstring)."""
    score, n = event_balance([e for c in clashes.values() for e in c.events])
    return (score / n if n else 0.0), n


def provisional_tendency(analyses: list[StageAnalysis], clashes: dict[str, Clash], stages: list[Stage]) -> Tendency:
    """The provisional tendency of a match in progress (formula in the module docstring)."""
    gap, groups = like_for_like_gap(analyses, {s.stage_id: s.type for s in stages})
    momentum, events = pooled_momentum(clashes)
    if not analyses or groups == 0:
        # until both sides have been scored in a comparable stage there is nothing to weigh: clash
        # momentum alone after one side's opening speech would read as a landslide
        return Tendency(p=None, leaning="none yet", score_gap=0.0, momentum=round(momentum, 3), compared_groups=groups, counted_events=events)
    z = SCORE_GAP_WEIGHT * gap + MOMENTUM_WEIGHT * momentum
    p = round(1.0 / (1.0 + math.exp(-z)), 2)
    leaning = "affirmative" if p >= 0.5 + LEANING_MARGIN else "negative" if p <= 0.5 - LEANING_MARGIN else "even"
    return Tendency(p=p, leaning=leaning, score_gap=round(gap, 3), momentum=round(momentum, 3), compared_groups=groups, counted_events=events)


def clashes_before(clashes: dict[str, Clash], stage_id: str) -> dict[str, Clash]:
    """The clash map as it stood before ``stage_id``: its events removed, clashes it opened dropped."""
    out: dict[str, Clash] = {}
    for cid, c in clashes.items():
        if c.opened_in == stage_id:
            continue
        out[cid] = c.model_copy(update={"events": [e for e in c.events if e.stage_id != stage_id]})
    return out

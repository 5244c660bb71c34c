"""Speaker scores on a tournament's scale, spread as human judges spread them (:class:`SpeakerScale`).

A debater's **raw score** is the mean of the counted 1-10 stage scores of the units they spoke in
(:func:`debater_scores`). Mapped linearly onto a 70-80 scale, raw scores sit in a band of about one point
(the offline judge's raw scores on the bundled CCDB matches: mean 6.66, sd 0.33 over 24 debaters; linear
on 70-80 gives sd 0.37 points), so Tabbycat's speaker tab ranks speakers on half points.

The **calibrated** map (:func:`calibrated`) sends the panel's typical raw score to the middle of the
scale and one raw standard deviation to :data:`HUMAN_SD_FRACTION` of the scale's width:

    score = mid + (raw - raw_mean) * gain,   gain = HUMAN_SD_FRACTION * (high - low) / raw_sd

then clips to [low, high] and rounds each team's speeches to the scale's step so that the team's total
stays its unrounded total rounded to the step (largest remainders, :func:`round_team`) and distinct raw
scores stay distinct where the step allows (:func:`round_team_ranked`: a team's raw 6.56, 6.67, 6.75,
6.80 would all round to 75 on 68-82 step 1; ranked they are 73, 74, 76, 77, total 300 either way).

Source of the human spread: DebateBench (seed 002, Table 1): 256 speeches from real British
Parliamentary debates, speaker scores on the WUDC 50-100 scale, mean 80.25, standard deviation 2.69, so
one standard deviation is 2.69 / 50 = 5.38% of the scale's width. PanelBench's BP-Competition gold
(``/work/shared/data/panelbench/BP-Competition/gold/gold.csv``) holds only the teams that advanced, no
speaker scores, so it cannot be used for this. The middle of the scale as the average speech is the
convention of Tabbycat's default range (68-82, a 75 average) and of the Australs 70-80 scale.

Defaults of ``raw_mean`` / ``raw_sd``: measured on the offline judge (the panel this project ships),
``benchmarks/tabbycat_round.py --spread`` measures them again; a tournament judged by another model sets its
own (``speaker_scale.raw_mean``, ``raw_sd``) so that its spread, not the offline judge's, is widened.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Literal

from pydantic import ConfigDict, Field, model_validator

from adjudicator.frozen import FrozenModel
from adjudicator.input.match import Stage

if TYPE_CHECKING:
    from adjudicator.input.match import Match
    from adjudicator.verdict.ballots import Verdict

#: One standard deviation of human speaker scores as a fraction of the scale's width (DebateBench, seed
#: 002 Table 1: sd 2.69 on the WUDC 50-100 scale).
HUMAN_SD_FRACTION = 2.69 / 50

#: The offline judge's debater raw scores on the four bundled CCDB matches (24 debaters): mean and
#: population standard deviation, 1-10 (``benchmarks/tabbycat_round.py --spread``).
OFFLINE_RAW_MEAN = 6.66
OFFLINE_RAW_SD = 0.33


def debater_scores(stages: list[Stage], unit_scores: dict[str, float], labels_by_side: dict[str, list[str]]) -> dict[str, float | None]:
    """Position label -> the mean counted score (1-10) of the units that debater spoke in, or None when
    the debater spoke in no scored unit. A unit whose stage names no speaker of that side (free debate)
    counts for every debater of the side. ``unit_scores`` is keyed ``"<stage_id>|<side>"``."""
    got: dict[str, list[float]] = {label: [] for labels in labels_by_side.values() for label in labels}
    for st in stages:
        for side, labels in labels_by_side.items():
            score = unit_scores.get(f"{st.stage_id}|{side}")
            if score is None:
                continue
            named = [sp for sp in st.speakers if sp in labels]
            for label in named or labels:
                got[label].append(score)
    return {label: (sum(v) / len(v) if v else None) for label, v in got.items()}


def raw_debater_scores(match: Match, verdict: Verdict) -> dict[str, list[float | None]]:
    """Side -> each debater's raw score (:func:`debater_scores` of the verdict's panel-mean stage
    scores), in position order (``Affirmative Speaker 1`` first); None for a debater who spoke in no
    scored unit."""
    from adjudicator.input.formats import SIDES, get_format, position_label

    labels: dict[str, list[str]] = {s: [position_label(s, i) for i in range(1, get_format(match.format).debaters_per_side + 1)] for s in SIDES}
    per = debater_scores(match.stages, {f"{s.stage_id}|{s.side}": s.mean for s in verdict.stage_scores}, labels)
    return {s: [per[x] for x in labels[s]] for s in SIDES}


def linear(raw: float, low: float, high: float) -> float:
    """``raw`` (1-10) mapped linearly onto [low, high] (1 -> low, 10 -> high), unrounded."""
    return low + (raw - 1.0) * (high - low) / 9.0


def calibrated(raw: float, low: float, high: float, raw_mean: float = OFFLINE_RAW_MEAN, raw_sd: float = OFFLINE_RAW_SD) -> float:
    """``raw`` (1-10) on [low, high] with the human spread (module docstring), clipped, unrounded.
    Raises ValueError for ``raw_sd`` <= 0."""
    if raw_sd <= 0:
        raise ValueError(f"raw_sd must be positive, not {raw_sd}")
    gain = HUMAN_SD_FRACTION * (high - low) / raw_sd
    return min(high, max(low, (low + high) / 2 + (raw - raw_mean) * gain))


def round_team(scores: list[float], low: float, step: float, high: float | None = None) -> list[float]:
    """Each of ``scores`` on the grid ``low + k * step``, so that their sum is the unrounded sum rounded
    (half up) to the grid -- Hamilton's largest-remainder method: every score is first rounded down, then
    the scores with the largest remainders (ties: the earlier speaker) get one step more until the total
    is reached, never above ``high``. Exact decimal arithmetic; the results are floats that print as
    the grid's values."""
    d_low, d_step = Decimal(str(low)), Decimal(str(step))
    units = [(Decimal(repr(s)) - d_low) / d_step for s in scores]
    floors = [u.to_integral_value(rounding="ROUND_FLOOR") for u in units]
    target = sum(units, Decimal(0)).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    extra = int(target - sum(floors, Decimal(0)))
    order = sorted(range(len(units)), key=lambda i: (-(units[i] - floors[i]), i))
    top = None if high is None else ((Decimal(str(high)) - d_low) / d_step).to_integral_value(rounding="ROUND_FLOOR")
    for i in order:
        if extra <= 0:
            break
        if top is None or floors[i] + 1 <= top:
            floors[i] += 1
            extra -= 1
    return [float(d_low + f * d_step) for f in floors]


def _pooled(values: list[Decimal]) -> list[Decimal]:
    """The non-decreasing sequence closest to ``values`` in squared distance (pool adjacent violators:
    a block that falls below the one before it merges with it into their mean)."""
    blocks: list[tuple[Decimal, int]] = []  # (sum, count)
    for v in values:
        blocks.append((v, 1))
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            (s2, n2), (s1, n1) = blocks[-2], blocks.pop()
            blocks[-1] = (s2 + s1, n2 + n1)
    return [s / n for s, n in blocks for _ in range(n)]


def round_team_ranked(scores: list[float], raws: list[float], low: float, step: float, high: float | None = None) -> list[float]:
    """Like :func:`round_team`, and rank-preserving: of two speeches with distinct raw scores ``raws``
    (1-10, compared to 6 decimals) the higher raw score gets the strictly higher score, wherever the
    grid ``low + k * step`` (up to ``high``) has a step for each distinct raw score. The team's total stays
    its unrounded total rounded (unless clipping at ``low`` or ``high`` leaves no room).

    How: with the speeches in raw order and g_i the number of distinct raw scores below speech i's,
    the scores in steps minus g_i are made non-decreasing as close to them as possible (pool adjacent
    violators), kept within [0, top - (G - 1)], then rounded by largest remainders to the team's total
    minus the g_i (equal remainders: the higher raw score first, then the earlier speaker); adding g_i
    back makes every distinct raw score a step apart at least. Equal raw scores may still differ by one
    step, as in :func:`round_team`. More distinct raw scores than the grid has steps: :func:`round_team`."""
    keys = [round(r, 6) for r in raws]
    distinct = sorted(set(keys))
    d_low, d_step = Decimal(str(low)), Decimal(str(step))
    top = None if high is None else ((Decimal(str(high)) - d_low) / d_step).to_integral_value(rounding="ROUND_FLOOR")
    if len(distinct) < 2 or (top is not None and len(distinct) - 1 > top):
        return round_team(scores, low, step, high)
    units = [(Decimal(repr(s)) - d_low) / d_step for s in scores]
    order = sorted(range(len(scores)), key=lambda i: (keys[i], -i))  # equal raw scores: the earlier speaker later, so it gets a spare step first
    lift = [distinct.index(keys[i]) for i in order]
    cap = None if top is None else top - (len(distinct) - 1)
    pooled = [max(Decimal(0), v if cap is None else min(cap, v)) for v in _pooled([units[i] - g for i, g in zip(order, lift, strict=True)])]
    floors = [v.to_integral_value(rounding="ROUND_FLOOR") for v in pooled]
    extra = int(sum(units, Decimal(0)).quantize(Decimal(1), rounding=ROUND_HALF_UP) - sum(lift) - sum(floors, Decimal(0)))
    for j in sorted(range(len(order)), key=lambda j: (-(pooled[j] - floors[j]), -j)):
        if extra <= 0:
            break
        if cap is None or floors[j] + 1 <= cap:
            floors[j] += 1
            extra -= 1
    out = [0.0] * len(scores)
    for j, i in enumerate(order):
        out[i] = float(d_low + (floors[j] + lift[j]) * d_step)
    return out


def on_grid(score: float, low: float, step: float) -> bool:
    """Whether ``score`` is ``low + k * step`` for an integer k (exact decimal arithmetic)."""
    k = (Decimal(repr(score)) - Decimal(str(low))) / Decimal(str(step))
    return k == k.to_integral_value()


class SpeakerScale(FrozenModel):
    """A tournament's speaker scale: the range ``low``-``high`` in steps of ``step`` (from ``low``), and how
    a debater's raw 1-10 score lands on it: ``calibrated`` (the human spread, module docstring, with the
    panel's ``raw_mean`` and ``raw_sd``) or ``linear`` (1 -> low, 10 -> high). ``mapping`` unset means
    linear on the CCDB 1-10 range itself (the default scale: the scores as the panel gave them, two
    decimals) and calibrated on any other range (``--speaker-scale 70:80:1``). Every number is finite
    (``NaN`` and infinities are refused: an infinite ``high`` once bricked a tournament's store)."""

    model_config = ConfigDict(allow_inf_nan=False)

    low: float = 1.0
    high: float = 10.0
    step: float = Field(default=0.01, gt=0)
    mapping: Literal["calibrated", "linear"] | None = None
    raw_mean: float = Field(default=OFFLINE_RAW_MEAN, ge=1, le=10)
    raw_sd: float = Field(default=OFFLINE_RAW_SD, gt=0, le=9)

    @model_validator(mode="after")
    def _ordered(self) -> SpeakerScale:
        if not self.low < self.high:
            raise ValueError(f"low ({self.low}) must be below high ({self.high})")  # the error names the field (speaker_scale)
        return self

    def method(self) -> Literal["calibrated", "linear"]:
        """The mapping in use (``mapping``, or its default for the range)."""
        if self.mapping is not None:
            return self.mapping
        return "linear" if (self.low, self.high) == (1.0, 10.0) else "calibrated"

    def unrounded(self, raw: float) -> float:
        """``raw`` (1-10) on this scale, clipped, before rounding."""
        if self.method() == "linear":
            return min(self.high, max(self.low, linear(raw, self.low, self.high)))
        return calibrated(raw, self.low, self.high, self.raw_mean, self.raw_sd)

    def team(self, raws: list[float]) -> list[float]:
        """One team's speeches (raw 1-10 each) on this scale, rounded together and rank-preserving
        (:func:`round_team_ranked`)."""
        return round_team_ranked([self.unrounded(r) for r in raws], raws, self.low, self.step, self.high)

    def convert(self, raw: float) -> float:
        """One raw score on this scale, rounded on its own (half up to the step)."""
        return self.team([raw])[0]

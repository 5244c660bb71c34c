"""Dimensional judging: per-stage dimension ratings, a judge's per-dimension votes, and the panel's
per-dimension results and the decision derived from them (issue 13).

Data flow, for a rubric whose ``dimensional`` is True (:class:`adjudicator.input.rubric.Rubric`):

1. The tracker rates every evaluated side of every stage on every dimension
   (:class:`DimensionRating`, in :attr:`adjudicator.verdict.battlefield.SideAnalysis.dimensions`). A rating
   dimension gets a score on its scale; an objective one counts what it checked (``checked``) and
   what passed (``passed``: valid arguments, supported facts); ``score`` None means not assessed.
2. A judge casts one :class:`DimensionVote` per dimension: each side's score and the winner or a
   tie (:func:`votes_from_ratings` is the rule the offline judge and the LLM judge's fallback use:
   ratings averaged over the side's stages, InspireScore section 2.1; objective counts pooled over
   the side's stages, ``sum(passed) / sum(checked)``, section 2.2).
3. The panel's :class:`DimensionResult` per dimension (:func:`panel_dimensions`): the majority of the
   judges' dimension winners (a winner needs more judges than any other outcome; otherwise a tie),
   the judges' mean score per side; and the :class:`DimensionDecision` the rubric's ``decision``
   rule derives from those results (:func:`dimension_decision`).

A dimension nobody could assess (fact authenticity with no evidence source) is reported with
``assessed`` False and the reason, never as a score, and takes no part in the decision.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from pydantic import Field

from adjudicator.frozen import FrozenModel
from adjudicator.input.formats import Side
from adjudicator.input.rubric import Dimension, Rubric

Outcome = Side | Literal["tie"]
SIDES: tuple[Side, Side] = ("affirmative", "negative")

#: The reason given when fact authenticity has no evidence source (issue 13: never a score).
NO_EVIDENCE = "not assessed: no evidence source configured (--evidence FOLDER or --evidence transcript)"


class DimensionRating(FrozenModel):
    """One side's rating on one dimension in one stage.

    ``score`` is on the dimension's scale (1-10 ratings; 0-1 ratios), None when not assessed.
    ``checked`` / ``passed``: objective dimensions only, the arguments (claims) examined and those
    that were valid (supported); the stage's ratio is ``passed / checked``. ``note`` says what the
    score rests on or why it is missing (the model's rationale, the offline judge's features).
    """

    dimension: str
    score: float | None = None
    checked: int = Field(default=0, ge=0)
    passed: int = Field(default=0, ge=0)
    note: str = ""


class DimensionVote(FrozenModel):
    """One judge's result on one dimension: ``scores`` side -> score on the dimension's scale (a
    side left out was not assessed), ``winner`` the better side, ``"tie"``, or None when the
    dimension was not assessed; ``note`` why not, or the judge's reason."""

    dimension: str
    scores: dict[Side, float] = Field(default_factory=dict)
    winner: Outcome | None = None
    note: str = ""


class DimensionResult(FrozenModel):
    """The panel's result on one dimension.

    ``winner``: the outcome more judges gave than any other (a judge's tie counts as an outcome), a
    tie when no outcome leads, None when no judge assessed the dimension. ``split`` the judges'
    outcomes counted as ``"<affirmative>-<negative>-<tie>"`` (e.g. ``"2-1-0"``); ``judge_winners`` judge id -> outcome; ``mean_scores``
    side -> mean of the judges' scores (3 decimals). ``weight`` the rubric weight; ``gold`` the gold
    label the dimension is measured against (the rubric's ``gold``; "" for none, left out of the
    JSON); ``note`` why the dimension was not assessed.
    """

    dimension: str
    name: str
    kind: str
    weight: float
    gold: str = Field(default="", exclude_if=lambda v: not v)
    assessed: bool
    winner: Outcome | None = None
    split: str = ""
    judge_winners: dict[str, Outcome] = Field(default_factory=dict)
    mean_scores: dict[Side, float] = Field(default_factory=dict)
    note: str = ""


class DimensionDecision(FrozenModel):
    """The match decision derived from the panel's dimension results by the rubric's rule
    (``weighted_points`` or ``weighted_mean``, see :class:`adjudicator.input.rubric.Rubric`): ``points``
    side -> points (weighted_points) or weight-averaged unit score in [0, 1] (weighted_mean), and the
    winner (``"tie"`` on equal values; None when no dimension was assessed)."""

    rubric: str
    rule: str
    points: dict[Side, float] = Field(default_factory=dict)
    winner: Outcome | None = None


def decide(dim: Dimension, scores: Mapping[Side, float], tie_margin: float) -> Outcome | None:
    """The better side on ``dim`` from per-side ``scores``: None unless both sides have a score, a tie
    when their difference on the unit scale (:meth:`Dimension.unit`) is at most ``tie_margin``."""
    if not all(s in scores for s in SIDES):
        return None
    diff = dim.unit(scores["affirmative"]) - dim.unit(scores["negative"])
    if abs(diff) <= tie_margin + 1e-12:
        return "tie"
    return "affirmative" if diff > 0 else "negative"


def side_score(dim: Dimension, ratings: Sequence[DimensionRating]) -> tuple[float | None, str]:
    """One side's score on ``dim`` from its stage ratings: the mean of the assessed ratings (rating
    dimensions; InspireScore 2.1: per round, then averaged), or ``sum(passed) / sum(checked)`` over
    the stages (objective dimensions, 2.2). Returns (score or None, note); None when nothing was
    assessed, with the first stage's reason."""
    if dim.check in ("logical_validity", "fact_authenticity"):
        checked = sum(r.checked for r in ratings if r.score is not None or r.checked)
        passed = sum(r.passed for r in ratings if r.score is not None or r.checked)
        if checked == 0:
            reason = next((r.note for r in ratings if r.note.startswith("not assessed")), "not assessed: nothing to check")
            return None, reason
        return round(passed / checked, 4), f"{passed} of {checked} passed"
    scored = [r.score for r in ratings if r.score is not None]
    if not scored:
        return None, next((r.note for r in ratings if r.note), "not assessed")
    return round(sum(scored) / len(scored), 4), f"mean of {len(scored)} stage rating(s)"


def votes_from_ratings(rubric: Rubric, ratings: Mapping[Side, Sequence[DimensionRating]]) -> list[DimensionVote]:
    """A judge's :class:`DimensionVote` per dimension of ``rubric`` from the tracker's stage ratings
    (``ratings`` side -> that side's ratings over all its stages, any dimension): see the module
    docstring, step 2. Deterministic; [] for a non-dimensional rubric."""
    if not rubric.dimensional:
        return []
    out: list[DimensionVote] = []
    for dim in rubric.dimensions:
        scores: dict[Side, float] = {}
        notes: list[str] = []
        for side in SIDES:
            score, note = side_score(dim, [r for r in ratings.get(side, ()) if r.dimension == dim.key])
            if score is not None:
                scores[side] = score
            elif note not in notes:
                notes.append(note)
        out.append(DimensionVote(dimension=dim.key, scores=scores, winner=decide(dim, scores, rubric.tie_margin), note="; ".join(notes)))
    return out


def _majority(outcomes: Iterable[Outcome]) -> tuple[Outcome, str]:
    """The outcome given more often than any other (else "tie"), and the split as
    ``"<affirmative>-<negative>-<tie>"`` judge counts."""
    counts = Counter(outcomes)
    ranked = counts.most_common()
    winner = "tie" if len(ranked) > 1 and ranked[0][1] == ranked[1][1] else ranked[0][0]
    return winner, f"{counts['affirmative']}-{counts['negative']}-{counts['tie']}"


def panel_dimensions(rubric: Rubric, votes: Mapping[str, Sequence[DimensionVote]]) -> list[DimensionResult]:
    """The panel's :class:`DimensionResult` per dimension of ``rubric`` from ``votes`` judge id ->
    that judge's dimension votes (module docstring, step 3). [] for a non-dimensional rubric."""
    if not rubric.dimensional:
        return []
    out: list[DimensionResult] = []
    for dim in rubric.dimensions:
        judged = {j: v for j, vs in sorted(votes.items()) for v in vs if v.dimension == dim.key}
        winners: dict[str, Outcome] = {j: v.winner for j, v in judged.items() if v.winner is not None}
        means: dict[Side, float] = {}
        for side in SIDES:
            vals = [v.scores[side] for v in judged.values() if side in v.scores]
            if vals:
                means[side] = round(sum(vals) / len(vals), 3)
        if not winners:
            note = next((v.note for v in judged.values() if v.note), "not assessed")
            out.append(DimensionResult(dimension=dim.key, name=dim.name, kind=dim.kind, weight=dim.weight, gold=dim.gold or "", assessed=False, mean_scores=means, note=note))
            continue
        winner, split = _majority(winners.values())
        out.append(
            DimensionResult(dimension=dim.key, name=dim.name, kind=dim.kind, weight=dim.weight, gold=dim.gold or "", assessed=True, winner=winner, split=split, judge_winners=winners, mean_scores=means)
        )
    return out


def dimension_decision(rubric: Rubric, results: Sequence[DimensionResult]) -> DimensionDecision | None:
    """The decision ``rubric.decision`` derives from the panel's dimension ``results``; None for the
    ``panel`` rule (ccdb).

    - ``weighted_points``: each assessed dimension's winner gets the dimension's weight (a tied
      dimension gives nobody points); the side with more points wins, equal points tie.
      debateart preset: arguments 3, sources 2, language 1, so e.g. arguments to the negative and
      sources and language to the affirmative is 3 : 3, a tie.
    - ``weighted_mean``: per side the weight-averaged unit score (:meth:`Dimension.unit` of the
      panel's mean score) over the assessed dimensions with both sides scored; higher wins, equal
      (within ``tie_margin``) ties.
    """
    if rubric.decision == "panel" or not rubric.dimensional:
        return None
    assessed = [r for r in results if r.assessed]
    if rubric.decision == "weighted_points":
        points: dict[Side, float] = {s: 0.0 for s in SIDES}
        for r in assessed:
            if r.winner == "affirmative" or r.winner == "negative":
                points[r.winner] += r.weight
        winner: Outcome | None = None if not assessed else _higher(points, 0.0)
        return DimensionDecision(rubric=rubric.name, rule=rubric.decision, points=points, winner=winner)
    num = {s: 0.0 for s in SIDES}
    den = 0.0
    for r in assessed:
        if r.weight <= 0 or not all(s in r.mean_scores for s in SIDES):
            continue
        dim = rubric.dimension(r.dimension)
        for s in SIDES:
            num[s] += r.weight * dim.unit(r.mean_scores[s])
        den += r.weight
    if den == 0:
        return DimensionDecision(rubric=rubric.name, rule=rubric.decision)
    means: dict[Side, float] = {s: round(num[s] / den, 4) for s in SIDES}
    return DimensionDecision(rubric=rubric.name, rule=rubric.decision, points=means, winner=_higher(means, rubric.tie_margin))


def _higher(values: Mapping[Side, float], margin: float) -> Outcome:
    diff = values["affirmative"] - values["negative"]
    if abs(diff) <= margin + 1e-12:
        return "tie"
    return "affirmative" if diff > 0 else "negative"

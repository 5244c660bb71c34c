"""PanelBench's own metrics, as Debatrix (Liang et al., Findings of ACL 2024) reports them, beside its
published table: report.json ``tasks.panelbench``.

- DebateArt (matches with an audience outcome, ``labels.outcome``): RMSE x 100 between a prediction and
  the gold label coded 1.0 / 0.5 / 0.0. Here 1.0 = the affirmative (pro) side won, 0.5 = tie, 0.0 = the
  negative (con) side won; upstream's files code con = 1.0, and flipping both the label and the
  prediction leaves the RMSE unchanged. Rows per arm: the *direct prediction* (the panel's winner from
  p: 1.0 above 0.5, 0.0 below, 0.5 at exactly 0.5; Debatrix's "Direct Prediction" column) and p itself
  as given; the baseline is a constant 0.5 (every gold decisive: 50.0). Overall on ``labels.outcome``
  and per dimension on ``labels.dimensions`` (argument, source, language), where the prediction is the
  verdict's winner on that dimension (:func:`adjudicator.bench.scoring.dimensions.dimension_predictions`).
- BP (ranking matches with the teams that advanced, ``labels.advanced``): best-team accuracy, the share
  of rounds whose panel-ranked first team is among the teams that advanced (any co-winner counts: two
  advance from a quarter- or semi-final, one wins a final); the baseline is the expected accuracy of a
  uniformly random team (mean of k / 4). Beside it the completion rate, as Debatrix's rows have it: the
  share of all the rounds whose verdict ranks exactly one team first (a failed or missing result or a
  tie for first is not completed), the rounds the accuracy is over. And the pick rate per house: how
  often each of OG, OO, CG, CO is the arm's first team, beside how often it advanced (the gold share),
  Debatrix's position-bias view.
- ``published``: the Debatrix homepage's experiments table (ljcleo.github.io/debatrix, its source
  ``ljcleo/debatrix-doc`` index.html at commit f66d5d1): DebateArt RMSE x 100 by score comparison and by
  direct prediction, BP completion rate and accuracy (%). Printed with the statement that the subsets
  differ: Debatrix scored all 100 DebateArt debates and 22 BP rounds, a bench scores the matches it has.

Every value has its match-level bootstrap interval (:func:`adjudicator.bench.scoring.leaves.scored`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from adjudicator.bench.predictions import ArmPredictions
from adjudicator.bench.results import SampleResult
from adjudicator.bench.scoring.dimensions import dimension_predictions, gold_dimensions
from adjudicator.bench.scoring.leaves import ScoreSettings, scored
from adjudicator.evaluation.metrics import MetricResult
from adjudicator.input.match import Match

#: The gold label coding (Debatrix's 1.0 / 0.5 / 0.0, read with the affirmative as 1.0).
CODING = {"affirmative": 1.0, "tie": 0.5, "negative": 0.0}
CODING_TEXT = "gold coded 1.0 = affirmative (pro) won, 0.5 = tie, 0.0 = negative (con) won (upstream codes con = 1.0; the RMSE is the same either way)"
SUBSETS_DIFFER = (
    "the subsets differ: Debatrix scored all 100 DebateArt debates and all 22 BP-Competition rounds with gpt-3.5-turbo / GPT-4; "
    "this run scores its own matches with its own model, so the rows are context, not a head-to-head comparison"
)
#: Debatrix homepage, "Experiments" table (ljcleo/debatrix-doc index.html, commit f66d5d1).
PUBLISHED: dict[str, Any] = {
    "source": "Debatrix homepage (ljcleo.github.io/debatrix; ljcleo/debatrix-doc index.html at f66d5d1), Experiments table",
    "rows": [
        {"label": "Debatrix (gpt-3.5-turbo backbone)", "rmse_score_comparison": 42.21, "rmse_direct": 41.75, "bp_completion": 100.00, "bp_accuracy": 51.52},
        {"label": "GPT-4, one call", "rmse_score_comparison": 44.84, "rmse_direct": 46.55, "bp_completion": 100.00, "bp_accuracy": 34.85},
        {"label": "ChatGPT (gpt-3.5-turbo), one call", "rmse_score_comparison": 49.99, "rmse_direct": 51.16, "bp_completion": 13.64, "bp_accuracy": 0.00},
    ],
}
HOUSES = ("OG", "OO", "CG", "CO")
#: What the completion rate counts (the published rows' "BP completion").
COMPLETION_NOTE = (
    "completion: the share of the rounds whose verdict ranks exactly one team first (a failed or missing result, "
    "or a tie for first, is not completed); best-team accuracy is over the completed rounds only"
)


def rmse_x100(pred: Any, gold: Any) -> MetricResult:
    """100 x the root mean squared difference of ``pred`` and ``gold`` (aligned (N,) numbers in [0, 1])
    over the items where both are finite; NaN when there is none."""
    p, g = np.asarray(pred, float), np.asarray(gold, float)
    keep = np.isfinite(p) & np.isfinite(g)
    n = int(keep.sum())
    value = 100.0 * float(np.sqrt(np.mean((p[keep] - g[keep]) ** 2))) if n else float("nan")
    return MetricResult(value=value, n=n, n_excluded=int(p.size - n))


def direct_prediction(p: np.ndarray) -> np.ndarray:
    """The winner from p coded as the gold is: 1.0 above 0.5, 0.0 below, 0.5 at 0.5, NaN kept."""
    return np.where(np.isfinite(p), np.where(p > 0.5, 1.0, np.where(p < 0.5, 0.0, 0.5)), np.nan)


def _coded(labels: Sequence[Any]) -> np.ndarray:
    return np.array([CODING.get(x, np.nan) if isinstance(x, str) else np.nan for x in labels], dtype=float)


def _leaf(pred: np.ndarray, gold: np.ndarray, st: ScoreSettings) -> dict[str, Any]:
    return scored(rmse_x100, [pred, gold], None, st)


def _rmse_rows(preds: dict[str, np.ndarray], gold: np.ndarray, labels: dict[str, str], p_given: dict[str, np.ndarray], st: ScoreSettings) -> list[dict[str, Any]]:
    rows = []
    for a, pred in preds.items():
        rows.append({"label": f"{labels.get(a, a)} · direct prediction", "kind": "arm", "arm": a, "rmse_x100": _leaf(pred, gold, st)})
        if a in p_given:
            rows.append({"label": f"{labels.get(a, a)} · p as given", "kind": "arm", "arm": a, "rmse_x100": _leaf(p_given[a], gold, st)})
    rows.append({"label": "constant 0.5", "kind": "baseline", "rmse_x100": _leaf(np.where(np.isfinite(gold), 0.5, np.nan), gold, st)})
    return rows


def debateart_table(matches: Sequence[Match], preds: dict[str, ArmPredictions], arm_results: dict[str, dict[str, SampleResult]], labels: dict[str, str], st: ScoreSettings) -> dict[str, Any] | None:
    """The DebateArt part (module docstring); None when no match has an audience outcome. ``preds``
    are aligned with ``matches`` (the bench's two-sided matches, in order)."""
    if not any(m.labels and m.labels.outcome for m in matches):
        return None
    keep = np.array([bool(m.labels and m.labels.outcome) for m in matches])
    gold = np.where(keep, _coded([m.labels.outcome if m.labels else None for m in matches]), np.nan)
    direct = {a: direct_prediction(np.asarray(pr.p, float)) for a, pr in preds.items()}
    given = {a: np.asarray(pr.p, float) for a, pr in preds.items()}
    out: dict[str, Any] = {"coding": CODING_TEXT, "n_matches": int(keep.sum()), "overall": _rmse_rows(direct, gold, labels, given, st), "dimensions": {}}
    for name in gold_dimensions(matches):
        g = _coded([(m.labels.dimensions.get(name) if m.labels else None) for m in matches])
        p = {a: dimension_predictions(matches, arm_results.get(a, {}), name) for a in preds}
        out["dimensions"][name] = {"n_matches": int(np.isfinite(g).sum()), "rows": _rmse_rows(p, g, labels, {}, st)}
    return out


def _first_team(verdict: dict[str, Any] | None) -> str | None:
    ranks = {x.get("unit"): x.get("rank") for x in (verdict or {}).get("ranking") or []}
    first = [u for u, r in ranks.items() if r == 1]
    return str(first[0]) if len(first) == 1 else None


def _accuracy(hits: list[float | None]) -> MetricResult:
    vals = np.asarray([np.nan if h is None else h for h in hits], float)
    return MetricResult(value=float(np.nanmean(vals)) if np.isfinite(vals).any() else float("nan"), n=int(np.isfinite(vals).sum()), n_excluded=int((~np.isfinite(vals)).sum()))


def bp_table(ranked: Sequence[Match], arm_results: dict[str, dict[str, SampleResult]], labels: dict[str, str], st: ScoreSettings) -> dict[str, Any] | None:
    """The BP part (module docstring); None when no ranking match has ``labels.advanced``."""
    rounds = [m for m in ranked if m.labels and m.labels.advanced]
    if not rounds:
        return None
    advanced = [set(m.labels.advanced) if m.labels else set() for m in rounds]
    gold_share = {h: sum(h in adv for adv in advanced) / len(rounds) for h in HOUSES}
    rows = []
    for a, results in arm_results.items():
        firsts = [_first_team(r.verdict if (r := results.get(m.match_id)) is not None and r.status != "failed" else None) for m in rounds]
        hits: list[float | None] = [None if f is None else float(f in adv) for f, adv in zip(firsts, advanced)]
        picked = [f for f in firsts if f is not None]
        rows.append({
            "label": labels.get(a, a), "kind": "arm", "arm": a, "best_team_accuracy": scored(_accuracy, [np.asarray([np.nan if h is None else h for h in hits], float)], None, st),
            "completion": scored(_accuracy, [np.asarray([f is not None for f in firsts], float)], None, st), "n_completed": len(picked),
            "pick_rate": {h: (sum(f == h for f in picked) / len(picked)) if picked else None for h in HOUSES}, "n_picked": len(picked),
        })
    expected = float(np.mean([len(adv) / len(HOUSES) for adv in advanced]))
    rows.append({"label": "random team (expected)", "kind": "baseline", "best_team_accuracy": {"value": expected, "n": len(rounds), "n_excluded": 0, "ci": None, "expected": True}, "completion": None, "n_completed": len(rounds), "pick_rate": {h: 0.25 for h in HOUSES}, "n_picked": len(rounds)})
    return {"n_rounds": len(rounds), "metric": "best-team accuracy: the arm's first-ranked team is among the teams that advanced (any co-winner counts)",
            "completion_note": COMPLETION_NOTE, "gold_share": gold_share, "rows": rows}  # fmt: skip


def panelbench_tables(matches: Sequence[Match], ranked: Sequence[Match], preds: dict[str, ArmPredictions], arm_results: dict[str, dict[str, SampleResult]], labels: dict[str, str], st: ScoreSettings) -> dict[str, Any] | None:
    """report.json ``tasks.panelbench``: ``{"debateart"?, "bp"?, "published", "subsets_differ"}``, or
    None when the run has neither audience outcomes nor BP rounds with the teams that advanced."""
    da = debateart_table(matches, preds, arm_results, labels, st)
    bp = bp_table(ranked, arm_results, labels, st)
    if da is None and bp is None:
        return None
    return {"title": "PanelBench's own metrics (Debatrix, Liang et al. 2024)", **({"debateart": da} if da else {}), **({"bp": bp} if bp else {}), "published": PUBLISHED, "subsets_differ": SUBSETS_DIFFER}

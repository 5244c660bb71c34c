"""Task 2, stage-score prediction (paper 2.3, 3.2; protocol 001 Task 2): the table and the paired
tests of two arms.

Instances: every scored (stage, side) unit that all judges of the original panel scored, against
the judges' mean (stage MSE, Pearson r, Spearman rho; items of one match are resampled together),
and every stage scored for both sides (tendency agreement over all pairs and over pairs with a
non-tie human tendency). Table rows: every arm, the seeded random and structure-aware random
baselines with their exact expectations on the same instances, and the individual judges as
non-comparable references. Paired: paired bootstrap of MSE, Pearson, Spearman and tendency
agreement over all pairs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adjudicator.bench.gold import Gold
from adjudicator.bench.predictions import ArmPredictions
from adjudicator.bench.scoring.leaves import ScoreSettings, not_applicable, paired_bootstrap_test, scored, take, why_undefined
from adjudicator.bench.scoring.tables import all_parsed, baseline_row, human_rows, rank, row, table_header
from adjudicator.evaluation import baselines as B
from adjudicator.evaluation import metrics as M
from adjudicator.evaluation.metrics import tendency_all_pairs, tendency_non_tie

TASK = "task2"

#: Which Task 2 prediction the table ranks (the paper scores one integer prediction per unit).
PREDICTION_NOTE = (
    "The table ranks the agentic arm's panel mean (three judges' integers averaged), which lowers MSE against a single "
    "integer; the paper scores one integer prediction per unit, so judge_integer gives each judge's own integer MSE "
    "and their mean on the same units"
)


def judge_integer_mse(gold: Gold, preds: dict[str, ArmPredictions]) -> dict[str, Any]:
    """Arm -> {"panel_mean_mse", "judge_integer_mse", "per_judge": {judge: mse}, "n_units"}: on the gold
    units every judge of the arm scored, the MSE of the panel mean and of each judge's own integer
    (:func:`adjudicator.evaluation.metrics.stage_mse`) and the mean of the latter. Arms without per-judge
    scores are left out."""
    out: dict[str, Any] = {}
    for a, pr in preds.items():
        if not pr.unit_judges:
            continue
        both = np.isfinite(pr.unit_pred) & np.isfinite(gold.unit_mean)
        for col in pr.unit_judges.values():
            both &= np.isfinite(col)
        if not both.any():
            continue
        y = gold.unit_mean[both]
        per = {j: float(M.stage_mse(col[both], y).value) for j, col in pr.unit_judges.items()}
        out[a] = {"label": pr.label, "n_units": int(both.sum()), "panel_mean_mse": float(M.stage_mse(pr.unit_pred[both], y).value), "judge_integer_mse": float(np.mean(list(per.values()))), "per_judge": per}
    return out


def task2_metrics(unit_pred: np.ndarray, pair_aff: np.ndarray, pair_neg: np.ndarray, gold: Gold, unit_mask: np.ndarray, pair_mask: np.ndarray, st: ScoreSettings) -> dict[str, Any]:
    """MSE, Pearson, Spearman on the units in ``unit_mask``; tendency agreement on pairs in ``pair_mask``."""
    y = gold.unit_mean[unit_mask]
    x = unit_pred[unit_mask]
    ids = take(gold.unit_match, unit_mask)
    out = {
        "stage_mse": scored(M.stage_mse, [x, y], ids, st),
        "stage_pearson": why_undefined(scored(M.stage_pearson, [x, y], ids, st), x, y, "r"),
        "stage_spearman": why_undefined(scored(M.stage_spearman, [x, y], ids, st), x, y, "ρ"),
    }
    if len(gold.pairs) == 0:
        reason = "no stage of the dataset is scored for both sides"
        out["tendency_all_pairs"] = not_applicable(reason)
        out["tendency_non_tie"] = not_applicable(reason)
    else:
        arrs = [pair_aff[pair_mask], pair_neg[pair_mask], gold.pair_aff[pair_mask], gold.pair_neg[pair_mask]]
        pids = take(gold.pair_match, pair_mask)
        out["tendency_all_pairs"] = scored(tendency_all_pairs, arrs, pids, st)
        out["tendency_non_tie"] = scored(tendency_non_tie, arrs, pids, st)
    return out


def _to_pairs(gold: Gold, unit_pred: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A baseline's unit scores (S,) as its (affirmative, negative) scores of the paired stages (P,)."""
    u_index = {u: i for i, u in enumerate(gold.units)}
    a = np.array([unit_pred[u_index[(m, s, "affirmative")]] for m, s in gold.pairs], dtype=float)
    b = np.array([unit_pred[u_index[(m, s, "negative")]] for m, s in gold.pairs], dtype=float)
    return a, b


def _expected(structure_aware: bool, gold: Gold, umask: np.ndarray, pmask: np.ndarray, seed: int) -> dict[str, float]:
    """A random baseline's exact expectations on the units in ``umask`` and the pairs in ``pmask``."""
    y = gold.unit_mean[umask]
    exp = dict((B.structure_aware_random_scores(take(gold.unit_role, umask), y, seed=seed) if structure_aware else B.random_stage_scores(y, seed=seed)).expected)
    if pmask.any():
        q = take(gold.pair_questioner, pmask) if structure_aware else None
        exp.update(B.expected_tendency_agreement(gold.pair_aff[pmask], gold.pair_neg[pmask], q))
    return exp


def _rows(gold: Gold, preds: dict[str, ArmPredictions], umask: np.ndarray, pmask: np.ndarray, st: ScoreSettings) -> list[dict[str, Any]]:
    """The arm and baseline rows on the units in ``umask`` and the pairs in ``pmask``."""
    rows = [row(pr.label, "arm", True, task2_metrics(pr.unit_pred, pr.pair_aff, pr.pair_neg, gold, umask, pmask, st), arm=a) for a, pr in preds.items()]
    baselines = (
        (B.random_stage_scores(gold.unit_mean, seed=st.seed), False),
        (B.structure_aware_random_scores(gold.unit_role, gold.unit_mean, seed=st.seed), True),
    )
    for b, structure_aware in baselines:
        up = np.asarray(b.predictions, float)
        pa, pn = _to_pairs(gold, up)
        rows.append(baseline_row(b, task2_metrics(up, pa, pn, gold, umask, pmask, st), _expected(structure_aware, gold, umask, pmask, st.seed)))
    return rows


def stage_table(gold: Gold, preds: dict[str, ArmPredictions], st: ScoreSettings, reliability: dict[str, Any], synthetic_labels: bool) -> dict[str, Any]:
    """The ``tasks.task2`` section of report.json: header, ``n_units``, ``n_pairs``, ``n_matches``,
    ``rows`` (ranked) and ``common_subset`` (the units and pairs every arm parsed)."""
    reason = gold.applicability()[TASK]
    out = table_header(TASK, reason)
    if reason is not None:
        return out
    n_u, n_p = len(gold.units), len(gold.pairs)
    common_u = all_parsed([np.isfinite(pr.unit_pred) for pr in preds.values()], n_u)
    common_p = all_parsed([np.isfinite(pr.pair_aff) & np.isfinite(pr.pair_neg) for pr in preds.values()], n_p)
    out.update(
        prediction_note=PREDICTION_NOTE,
        judge_integer=judge_integer_mse(gold, preds),
        n_units=n_u,
        n_pairs=n_p,
        n_matches=len(set(gold.unit_match)),
        rows=rank(_rows(gold, preds, np.ones(n_u, bool), np.ones(n_p, bool), st) + human_rows(reliability, TASK, synthetic_labels), TASK),
        common_subset={"n_units": int(common_u.sum()), "n_pairs": int(common_p.sum()), "arms": list(preds), "rows": rank(_rows(gold, preds, common_u, common_p, st), TASK)},
    )
    return out


def paired_tests(a: ArmPredictions, b: ArmPredictions, gold: Gold, st: ScoreSettings) -> dict[str, Any]:
    """Arm ``a`` versus ``b``: paired bootstrap (items of one match together) of stage MSE, Pearson
    and Spearman, and of tendency agreement over all pairs and over the non-tie pairs when the dataset
    has paired stages (every ranked Task 2 metric has its paired test)."""
    out = {
        name: paired_bootstrap_test(fn, [a.unit_pred, gold.unit_mean], [b.unit_pred, gold.unit_mean], gold.unit_match, st)
        for name, fn in (("stage_mse", M.stage_mse), ("stage_pearson", M.stage_pearson), ("stage_spearman", M.stage_spearman))
    }
    if gold.pairs:
        out["tendency_all_pairs"] = paired_bootstrap_test(tendency_all_pairs, [a.pair_aff, a.pair_neg, gold.pair_aff, gold.pair_neg], [b.pair_aff, b.pair_neg, gold.pair_aff, gold.pair_neg], gold.pair_match, st)
        # the non-tie agreement is computed on the pairs with a decisive human tendency only: the test
        # resamples (and its n counts) exactly those, not the human ties it would drop anyway
        nt = M.tendency_sign(gold.pair_aff, gold.pair_neg) != 0
        cut = [gold.pair_aff[nt], gold.pair_neg[nt]]
        ids = [m for m, keep in zip(gold.pair_match, nt) if keep]
        out["tendency_non_tie"] = paired_bootstrap_test(tendency_non_tie, [a.pair_aff[nt], a.pair_neg[nt], *cut], [b.pair_aff[nt], b.pair_neg[nt], *cut], ids, st)
    return out

"""Task 3, best-debater prediction (paper 2.3, 3.3, A.5, B.1; protocol 001 Task 3): the table and the
paired tests of two arms.

Instances: the matches with gold best-debater votes (top-1 accuracy, vote-share MAE, pooled
vote-share Pearson and Spearman), plus, per arm, the heuristic "all votes to Speaker 3 of the side
the arm's p predicts" (formats with a third speaker only). Table rows: every arm, the seeded random
pick and uniform votes with their exact expectations, and as non-comparable references the oracle
(Speaker 3 of the gold winning side) and the individual judges. Paired: paired bootstrap of top-1,
vote-share MAE and vote-share Pearson.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from adjudicator.bench.gold import Gold
from adjudicator.bench.predictions import ArmPredictions
from adjudicator.bench.scoring.leaves import ScoreSettings, not_applicable, paired_bootstrap_test, scored, take
from adjudicator.bench.scoring.tables import all_parsed, baseline_row, human_rows, rank, row, table_header
from adjudicator.evaluation import baselines as B
from adjudicator.evaluation import metrics as M

TASK = "task3"

#: Uniform votes make every debater tie, so only their vote-share MAE is meaningful (paper Table 4
#: leaves the rest blank).
#: The top-1 rule, stated in every report (paper 2.3 leaves a tie in the model's own maximum open).
TOP1_RULE = (
    "Top-1: correct when the model's most-voted debater is among those tied for the judges' most votes; "
    "a tie in the model's own maximum earns the share of its tied debaters inside that set (the expected accuracy "
    "of a uniform tie-break; the ranked column). Top-1 strict counts such a tie as wrong."
)

#: Formats pooled in the vote-share correlations get this caveat (8 debaters in 4v4, 4 in 2v2).
POOLING_CAVEAT = "vote-share r and ρ pool debaters across formats with different numbers of debaters (4v4: 8, 2v2: 4, 1v1: 2); read the per-format values"

UNIFORM_UNDEFINED = ("best_debater_top1", "best_debater_top1_strict", "vote_share_pearson", "vote_share_spearman")


def task3_metrics(votes: list[np.ndarray | None], gold: Gold, mask: np.ndarray, st: ScoreSettings) -> dict[str, Any]:
    """Top-1 (fractional, the ranked one, and strict), vote-share MAE, pooled vote-share Pearson and
    Spearman on the matches in ``mask``."""
    sel = mask & gold.has_votes
    pv = take(votes, sel)
    hv = take(gold.votes, sel)
    return {
        "best_debater_top1": scored(M.best_debater_top1, [pv, hv], None, st),
        "best_debater_top1_strict": scored(M.best_debater_top1_strict, [pv, hv], None, st),
        "vote_share_mae": scored(M.vote_share_mae, [pv, hv], None, st),
        "vote_share_pearson": scored(M.vote_share_pearson, [pv, hv], None, st),
        "vote_share_spearman": scored(M.vote_share_spearman, [pv, hv], None, st),
    }


def third_speaker_metric(p: np.ndarray, gold: Gold, mask: np.ndarray, st: ScoreSettings) -> dict[str, Any]:
    """Top-1 of the predicted-winner third speaker (4v4 only; matches without a parsed p excluded)."""
    sel = mask & gold.has_votes
    heuristic = B.predicted_winner_third_speaker([None if not math.isfinite(x) else float(x) for x in p], gold.debater_labels, gold.formats)
    preds = heuristic.predictions
    if not any(preds[i] is not None for i in np.flatnonzero(sel)) and not any(f == "ccdb-4v4" for f in take(gold.formats, sel)):
        return not_applicable("defined for formats with a third speaker (ccdb-4v4) only")
    return scored(M.best_debater_top1, [take(preds, sel), take(gold.votes, sel)], None, st)


def _arm_row(a: str, pr: ArmPredictions, gold: Gold, mask: np.ndarray, st: ScoreSettings) -> dict[str, Any]:
    met = task3_metrics(pr.votes, gold, mask, st)
    met["pred_winner_third_speaker_top1"] = third_speaker_metric(pr.p, gold, mask, st)
    return row(pr.label, "arm", True, met, arm=a)


def _random_row(gold: Gold, mask: np.ndarray, st: ScoreSettings) -> dict[str, Any]:
    """The random pick; its heuristic column is the third speaker of the Task 1 random predictor's side."""
    b = B.random_best_debater(gold.votes, seed=st.seed)
    exp = B.random_best_debater(take(gold.votes, mask & gold.has_votes), seed=st.seed).expected
    met = task3_metrics(list(b.predictions), gold, mask, st)
    t1_random = B.random_winner(gold.winners, seed=st.seed)
    met["pred_winner_third_speaker_top1"] = third_speaker_metric(np.asarray(t1_random.predictions, float), gold, mask, st)
    return baseline_row(b, met, exp)


def _uniform_row(gold: Gold, mask: np.ndarray, st: ScoreSettings) -> dict[str, Any]:
    """Uniform votes; the metrics a uniform allocation cannot define are left blank (:data:`UNIFORM_UNDEFINED`)."""
    b = B.uniform_votes(gold.votes)
    exp = B.uniform_votes(take(gold.votes, mask & gold.has_votes)).expected
    met = task3_metrics(list(b.predictions), gold, mask, st)
    for k in UNIFORM_UNDEFINED:
        met[k] = {"value": None, "n": 0, "n_excluded": 0, "ci": None, "reason": "not defined for a uniform allocation: every debater ties (left blank, as in the paper)"}
    return baseline_row(b, met, exp)


def _rows(gold: Gold, preds: dict[str, ArmPredictions], mask: np.ndarray, st: ScoreSettings) -> list[dict[str, Any]]:
    """The arm, baseline and oracle rows on the matches in ``mask``."""
    oracle = B.oracle_third_speaker(gold.winners, gold.debater_labels, gold.formats)
    return [
        *(_arm_row(a, pr, gold, mask, st) for a, pr in preds.items()),
        _random_row(gold, mask, st),
        _uniform_row(gold, mask, st),
        baseline_row(oracle, task3_metrics(list(oracle.predictions), gold, mask, st), {}),
    ]


def best_debater_table(gold: Gold, preds: dict[str, ArmPredictions], st: ScoreSettings, reliability: dict[str, Any], synthetic_labels: bool) -> dict[str, Any]:
    """The ``tasks.task3`` section of report.json: header, ``n_matches`` (with gold votes), ``rows``
    (ranked) and ``common_subset`` (the matches every arm parsed)."""
    reason = gold.applicability()[TASK]
    out = table_header(TASK, reason)
    if reason is not None:
        return out
    n = len(gold.match_ids)
    common = all_parsed([np.array([v is not None for v in pr.votes], dtype=bool) for pr in preds.values()], n)
    formats = sorted({f for f, has in zip(gold.formats, gold.has_votes) if has})
    out.update(
        top1_rule=TOP1_RULE,
        by_format=vote_shares_by_format(gold, preds, st) if len(formats) > 1 else {},
        pooling_caveat=POOLING_CAVEAT if len(formats) > 1 else None,
        n_matches=int(gold.has_votes.sum()),
        rows=rank(_rows(gold, preds, np.ones(n, bool), st) + human_rows(reliability, TASK, synthetic_labels), TASK),
        common_subset={"n": int((common & gold.has_votes).sum()), "arms": list(preds), "rows": rank(_rows(gold, preds, common, st), TASK)},
    )
    return out


def vote_shares_by_format(gold: Gold, preds: dict[str, ArmPredictions], st: ScoreSettings) -> dict[str, Any]:
    """Format -> {"n_matches", arm -> {vote_share_pearson, vote_share_spearman}}: the pooled correlations
    computed within each format alone (a pooled r mixes formats with 8 and 4 debaters)."""
    out: dict[str, Any] = {}
    for fmt_name in sorted({f for f, has in zip(gold.formats, gold.has_votes) if has}):
        sel = gold.has_votes & np.array([f == fmt_name for f in gold.formats], dtype=bool)
        hv = take(gold.votes, sel)
        entry: dict[str, Any] = {"n_matches": int(sel.sum())}
        for a, pr in preds.items():
            pv = take(pr.votes, sel)
            entry[a] = {"vote_share_pearson": scored(M.vote_share_pearson, [pv, hv], None, st), "vote_share_spearman": scored(M.vote_share_spearman, [pv, hv], None, st)}
        out[fmt_name] = entry
    return out


def paired_tests(a: ArmPredictions, b: ArmPredictions, gold: Gold, st: ScoreSettings) -> dict[str, Any]:
    """Arm ``a`` versus ``b`` on the matches with gold votes: paired bootstrap of top-1 (fractional and
    strict), vote-share MAE, vote-share Pearson and vote-share Spearman."""
    sel = gold.has_votes
    va, vb, hv = take(a.votes, sel), take(b.votes, sel), take(gold.votes, sel)
    return {
        name: paired_bootstrap_test(fn, [va, hv], [vb, hv], None, st)
        for name, fn in (
            ("best_debater_top1", M.best_debater_top1),
            ("best_debater_top1_strict", M.best_debater_top1_strict),
            ("vote_share_mae", M.vote_share_mae),
            ("vote_share_pearson", M.vote_share_pearson),
            ("vote_share_spearman", M.vote_share_spearman),
        )
    }

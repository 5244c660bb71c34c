"""Task 1, winner-tendency prediction (paper 2.3, 3.1; protocol 001 Task 1): the table, the
calibration of p, each arm against the structural baselines, and the paired tests of two arms.

Instances: the matches with a decisive gold winner (ties and missing winners have no 0/1 outcome).
Table rows: every arm, the comparable baselines (always affirmative, always negative, the seeded
random p ~ U(0, 1)), and as non-comparable references the majority class of this dataset and the
individual judges. Calibration: Brier score, ECE and the reliability curve of p read as
P(affirmative wins). Paired: exact McNemar on winner accuracy, paired bootstrap of the Brier score.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from adjudicator.bench.gold import Gold
from adjudicator.bench.predictions import ArmPredictions
from adjudicator.bench.scoring.leaves import ScoreSettings, clean, mcnemar_leaf, mcnemar_test, paired_bootstrap_test, scored, take
from adjudicator.bench.scoring.tables import all_parsed, baseline_row, human_rows, rank, row, table_header
from adjudicator.evaluation import baselines as B
from adjudicator.evaluation import metrics as M
from adjudicator.evaluation import uncertainty as S

TASK = "task1"


def task1_metrics(p: np.ndarray, gold: Gold, mask: np.ndarray, st: ScoreSettings) -> dict[str, Any]:
    """Winner accuracy of tendencies ``p`` (M,) on the matches in ``mask`` with a decisive gold."""
    sel = mask & gold.decisive
    winners = take(gold.winners, sel)
    return {"winner_accuracy": scored(M.winner_accuracy, [p[sel], winners], None, st)}


def task1_structural_baselines(gold_winner: Sequence[Any], seed: int) -> list[B.Baseline]:
    """The comparable Task 1 baselines of every table (paper 3.1 plus always negative): always
    affirmative, always negative, and the seeded random p ~ U(0, 1)."""
    return [B.constant_side_baseline("affirmative", gold_winner), B.constant_side_baseline("negative", gold_winner), B.random_winner(gold_winner, seed=seed)]


def _rows(gold: Gold, preds: dict[str, ArmPredictions], mask: np.ndarray, st: ScoreSettings) -> list[dict[str, Any]]:
    """The arm and baseline rows on the matches in ``mask``. A constant side's expected accuracy on
    the subset is that side's share of its decisive winners; the random one's stays 0.5."""
    majority = B.majority_side(gold.winners)
    bl = [*task1_structural_baselines(gold.winners, st.seed), B.majority_class_baseline(gold.winners)]
    const_side = {"always affirmative": "affirmative", "always negative": "negative", bl[-1].name: majority or "affirmative"}
    rows = [row(pr.label, "arm", True, task1_metrics(pr.p, gold, mask, st), arm=a) for a, pr in preds.items()]
    for b in bl:
        exp = b.expected if b.seed is not None else B.constant_side_baseline(const_side[b.name], take(gold.winners, mask)).expected
        rows.append(baseline_row(b, task1_metrics(np.asarray(b.predictions, float), gold, mask, st), exp))
    return rows


def winner_table(gold: Gold, preds: dict[str, ArmPredictions], st: ScoreSettings, reliability: dict[str, Any], synthetic_labels: bool) -> dict[str, Any]:
    """The ``tasks.task1`` section of report.json: header, ``majority_side``, counts, the gold
    balance, ``rows`` (ranked) and ``common_subset`` (the matches every arm parsed)."""
    reason = gold.applicability()[TASK]
    out = table_header(TASK, reason)
    if reason is not None:
        return out
    n = len(gold.match_ids)
    common = all_parsed([np.isfinite(pr.p) for pr in preds.values()], n)
    out.update(
        majority_side=B.majority_side(gold.winners),
        n_matches=n,
        n_decisive=int(gold.decisive.sum()),
        gold_balance={
            "affirmative": sum(w == "affirmative" for w in gold.winners),
            "negative": sum(w == "negative" for w in gold.winners),
            "tie_or_none": sum(w not in ("affirmative", "negative") for w in gold.winners),
        },
        rows=rank(_rows(gold, preds, np.ones(n, bool), st) + human_rows(reliability, TASK, synthetic_labels), TASK),
        common_subset={"n": int((common & gold.decisive).sum()), "arms": list(preds), "rows": rank(_rows(gold, preds, common, st), TASK)},
    )
    return out


def calibration(gold: Gold, preds: dict[str, ArmPredictions], st: ScoreSettings) -> dict[str, Any]:
    """The ``calibration`` section: per arm the Brier score (with its interval, resampled over the
    matches with a decisive gold winner, its instances), the ECE and the
    reliability curve of p over 10 equal-width bins; an arm run with ``--p-source logprob`` gets a
    second entry ``"<arm> (logprob p)"`` for its log-prob p on the same matches (marked
    ``"source": "logprob"``). Empty when Task 1 is not applicable."""
    if gold.applicability()[TASK] is not None:
        return {}
    out: dict[str, Any] = {}
    d = gold.decisive  # the Brier score's instances, as in the fold and pooled reports and the paired test
    wd = take(gold.winners, d)
    for a, pr in preds.items():
        sources = [(a, pr.label, pr.p, "p read as P(affirmative wins)")]
        if pr.p_logprob is not None:  # --p-source logprob: the same run's second reading of p
            sources.append((f"{a} (logprob p)", f"{pr.label} · logprob p", pr.p_logprob, "p read off the winner token's log-probabilities"))
        for key, label, p, what in sources:
            out[key] = {
                "label": label,
                **({"source": "logprob"} if key != a else {}),
                "brier": scored(S.brier_score, [p[d], wd], None, st),
                "ece": S.expected_calibration_error(p, gold.winners, 10).as_dict(),
                "curve": [{k: clean(v) if isinstance(v, float) else v for k, v in b.model_dump().items()} for b in S.reliability_curve(p, gold.winners, 10)],
                "note": f"{what}; Brier 0.25 = constant p 0.5; 10 equal-width bins",
            }
    return out


def arm_vs_baselines(gold: Gold, preds: dict[str, ArmPredictions], seed: int) -> list[dict[str, Any]]:
    """The ``arm_vs_baseline`` section: each arm against each comparable Task 1 baseline (exact
    McNemar on per-match correctness), and against the random baseline's expected accuracy
    (:func:`random_expected_test`, an exact binomial test). Empty when Task 1 is not applicable."""
    if gold.applicability()[TASK] is not None:
        return []
    out: list[dict[str, Any]] = []
    for a, pr in preds.items():
        ca = M.winner_correct(pr.p, gold.winners)
        for b in task1_structural_baselines(gold.winners, seed):
            cb = M.winner_correct(np.asarray(b.predictions, float), gold.winners)
            out.append({"arm": a, "baseline": b.name, "task": TASK, **mcnemar_leaf(S.mcnemar_exact(ca, cb))})
        out.append(random_expected_test(a, ca))
    return out


def random_expected_test(arm: str, correct: np.ndarray) -> dict[str, Any]:
    """The arm against the random baseline's *expected* accuracy 0.5 (a fair coin per decisive match),
    not against one seeded draw: an exact two-sided binomial test of k correct out of n (scipy's
    ``binomtest``, bit for bit: :func:`~adjudicator.evaluation.uncertainty.binomial_two_sided_p`).
    ``correct`` (M,) True/False/NaN (NaN: not parsed or not decisive, excluded)."""
    from adjudicator.evaluation.uncertainty import binomial_two_sided_p

    c = np.asarray(correct, dtype=float)
    c = c[np.isfinite(c)]
    n, k = int(c.size), int(c.sum())
    p = binomial_two_sided_p(k, n) if n else None
    return {"arm": arm, "baseline": "random (expected 0.5)", "task": TASK, "test": "exact binomial", "k": k, "n": n, "accuracy_a": k / n if n else None, "accuracy_b": 0.5, "p_value": p}


def paired_tests(a: ArmPredictions, b: ArmPredictions, gold: Gold, st: ScoreSettings) -> dict[str, Any]:
    """Arm ``a`` versus ``b``: exact McNemar on winner accuracy, and a paired bootstrap of the Brier
    score on the same instances as the report's Brier score (matches with a decisive gold winner, p
    parsed for both arms)."""
    d = gold.decisive
    wd = take(gold.winners, d)
    return {
        "winner_accuracy": mcnemar_test(M.winner_correct(a.p, gold.winners), M.winner_correct(b.p, gold.winners)),
        "brier": paired_bootstrap_test(S.brier_score, [a.p[d], wd], [b.p[d], wd], None, st),
    }


def selective(gold: Gold, preds: dict[str, ArmPredictions], probe_flips: set[str] | None = None) -> dict[str, Any]:
    """The ``selective`` section: per arm the selective accuracy against coverage for each band of
    |p - 0.5| (:func:`adjudicator.evaluation.selective.selective_accuracy`) and under the verdicts' own
    review rule (``review``); with ``probe_flips`` (match ids whose winner a probe moved, from
    ``bench --probe``) also under the review rule plus those flips (``review_with_probes``). Empty when
    Task 1 is not applicable."""
    from adjudicator.evaluation.selective import rule_selective, selective_accuracy

    if gold.applicability()[TASK] is not None:
        return {}
    out: dict[str, Any] = {}
    for a, pr in preds.items():
        p = [None if not np.isfinite(x) else float(x) for x in pr.p]
        flags = list(pr.escalated or [None] * len(p))
        entry: dict[str, Any] = {
            "label": pr.label,
            "curve": [pt.model_dump() for pt in selective_accuracy(p, gold.winners)],
            "review": rule_selective(p, gold.winners, flags).model_dump() if any(f is not None for f in flags) else None,
        }
        if probe_flips is not None:
            with_flips = [bool(f) or mid in probe_flips for f, mid in zip(flags, gold.match_ids)]
            entry["review_with_probes"] = rule_selective(p, gold.winners, with_flips).model_dump()
        out[a] = entry
    return out

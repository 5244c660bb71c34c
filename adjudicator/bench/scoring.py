"""Turn per-sample results and gold labels into the inputs of the metric functions, and score them.

Nothing here defines a metric: every number comes from :mod:`adjudicator.evaluation.metrics` (the CCDB task
metrics), :mod:`adjudicator.evaluation.baselines` (structural baselines), :mod:`adjudicator.evaluation.uncertainty` (bootstrap
intervals, paired tests, calibration) and :mod:`adjudicator.evaluation.reliability` (label reliability). This
module aligns predictions with gold labels (protocol 001 s.01-02; paper 2.3, 3, A.5, B.1):

- Instances. Task 1 and Task 3: one per match. Task 2: one per scored (stage, evaluated side) that
  every judge of the original panel scored; the reference is the judges' mean. Tendency pairs: stages
  scored for both sides; the human tendency is the sign of the difference of the two means.
- Parsing. An instance is parsed when the arm's verdict holds a value for it. Its parse mode comes
  from the verdict's per-task status (single-call arm) or, for the agentic arm, from the final
  attempt of every judge whose ballot made the verdict: ``strict`` JSON, ``recovered`` (normalised or
  regular-expression extraction), ``native`` (offline judge), ``failed`` (no value after all
  attempts, or the sample failed) and ``not-run`` (the run stopped before the sample). Unparsed
  instances are excluded from the metric, never scored as wrong or as zero; an extracted p = 0.5 is
  a parsed, incorrect Task 1 prediction.
- Common subset. Every metric is also computed on the instances that all model arms of the run
  parsed (one arm: the subset is that arm's parsed set).
- Not applicable. A task whose gold labels the dataset lacks (PanelBench has no stage scores and no
  best-debater votes) is reported as not applicable with the reason, never as 0.
- Baselines and references. Every table carries the task's structural baselines (seeded draws and
  their exact expectations) and, marked non-comparable and left out of rankings, the Task 3 oracle
  and the individual-judge references (Appendix B.1).
- Uncertainty. Every metric value carries a match-level percentile bootstrap 95% interval (seeded);
  arms are compared pairwise on the common subset with an exact McNemar test (winner accuracy) and
  paired bootstraps (the other metrics); p is checked for calibration (Brier score, ECE, reliability
  curve).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from adjudicator.bench.results import SampleResult, first_cause
from adjudicator.evaluation import baselines as B
from adjudicator.evaluation import metrics as M
from adjudicator.evaluation import uncertainty as S
from adjudicator.evaluation.metrics import MetricResult
from adjudicator.match import Match

TASK_TITLES = {
    "task1": "Task 1: winner-tendency prediction",
    "task2": "Task 2: stage-score prediction",
    "task3": "Task 3: best-debater prediction",
}

#: Metric name -> (task, higher is better). :data:`RANK_BY` names the metric that ranks each task's table.
METRICS: dict[str, tuple[str, bool]] = {
    "winner_accuracy": ("task1", True),
    "stage_mse": ("task2", False),
    "stage_pearson": ("task2", True),
    "stage_spearman": ("task2", True),
    "tendency_all_pairs": ("task2", True),
    "tendency_non_tie": ("task2", True),
    "best_debater_top1": ("task3", True),
    "vote_share_mae": ("task3", False),
    "vote_share_pearson": ("task3", True),
    "vote_share_spearman": ("task3", True),
    "pred_winner_third_speaker_top1": ("task3", True),
}
RANK_BY = {"task1": "winner_accuracy", "task2": "stage_pearson", "task3": "best_debater_top1"}
#: How the ranking metrics are named in the reports ("ranked by <label>").
RANK_LABELS = {"winner_accuracy": "winner accuracy", "stage_pearson": "Pearson r", "best_debater_top1": "top-1 accuracy"}


def ranked_by(task: str) -> dict[str, Any]:
    """What ranks ``task``'s tables, for report.json: ``{"metric", "label", "higher_is_better", "text"}``,
    ``text`` e.g. ``"ranked by Pearson r (higher is better); a row whose Pearson r is undefined is not
    ranked"``."""
    key = RANK_BY[task]
    label = RANK_LABELS[key]
    higher = METRICS[key][1]
    text = f"ranked by {label} ({'higher' if higher else 'lower'} is better); a row whose {label} is undefined is not ranked"
    return {"metric": key, "label": label, "higher_is_better": higher, "text": text}

ParseMode = str  # "strict" | "recovered" | "native" | "unknown" | "failed" | "not-run"


# ---------------------------------------------------------------------------------------------
# gold


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
            "task1": None if self.decisive.any() else f"no match of the {n} has a decisive gold winner",
            "task2": None if np.isfinite(self.unit_mean).any() else "the dataset has no judge stage scores (labels.judges[].stage_scores); e.g. PanelBench has match-level outcomes only",
            "task3": None if self.has_votes.any() else "the dataset has no best-debater votes (labels.judges[].best_debater_votes); e.g. PanelBench has match-level outcomes only",
        }


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
        if judges and any(j.best_debater_votes for j in judges):
            v = np.array([sum(j.best_debater_votes.get(lab, 0) for j in judges) for lab in dl], dtype=float)
            g.votes.append(v if v.sum() > 0 else None)
        else:
            g.votes.append(None)
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


# ---------------------------------------------------------------------------------------------
# predictions of one arm


@dataclass
class ArmPredictions:
    """One arm's predictions aligned with :class:`Gold` (NaN / None where not parsed).

    ``status`` match id -> ``ok`` / ``failed`` / ``not-run``; ``p`` (M,); ``votes`` (M,) vectors or
    None; ``unit_pred`` (S,); ``pair_aff``/``pair_neg`` (P,); ``parse`` task -> per-instance mode
    over *all* instances of the run's matches (Task 2: every scored unit, gold or not);
    ``failures`` the failed samples."""

    arm: str
    label: str
    status: dict[str, str]
    p: np.ndarray
    votes: list[np.ndarray | None]
    unit_pred: np.ndarray
    pair_aff: np.ndarray
    pair_neg: np.ndarray
    parse: dict[str, list[ParseMode]]
    failures: list[dict[str, Any]]


def _mode_of(parse: str | None) -> ParseMode:
    if parse == "strict":
        return "strict"
    if parse in ("normalised", "regex", "recovered"):
        return "recovered"
    if parse == "native":
        return "native"
    if parse == "failed":
        return "failed"
    return "unknown"


def _task_of(name: str) -> str | None:
    low = name.lower()
    if "1" in low or "winner" in low:
        return "task1"
    if "2" in low or "stage" in low or "score" in low:
        return "task2"
    if "3" in low or "best" in low or "debater" in low or "vote" in low:
        return "task3"
    return None


def _unit_key(key: str) -> str:
    return key.replace(":", "|").replace("/", "|")


def _agentic_mode(calls: Sequence[Any]) -> ParseMode:
    """Parse mode of an agentic verdict: over the final attempt of every judge that produced a ballot,
    ``recovered`` if any needed recovery, ``native`` if all were the offline judge, else ``strict``."""
    final: dict[str, Any] = {}
    for c in calls:
        if c.node != "judge":
            continue
        if c.key not in final or c.attempt >= final[c.key].attempt:
            final[c.key] = c
    modes = {_mode_of(c.parse) for c in final.values() if c.parse != "failed"}
    if not modes:
        return "unknown"
    if "recovered" in modes:
        return "recovered"
    if modes == {"native"}:
        return "native"
    if "strict" in modes:
        return "strict"
    return "unknown"


def predictions_for_arm(arm: str, label: str, gold: Gold, matches: Sequence[Match], results: dict[str, SampleResult]) -> ArmPredictions:
    """Align ``results`` (match id -> result; absent = not run) of ``arm`` with ``gold``."""
    m_index = {mid: i for i, mid in enumerate(gold.match_ids)}
    n = len(gold.match_ids)
    p = np.full(n, np.nan)
    votes: list[np.ndarray | None] = [None] * n
    unit_vals: dict[tuple[str, str, str], float] = {}
    status: dict[str, str] = {}
    parse: dict[str, list[ParseMode]] = {"task1": [], "task2": [], "task3": []}
    failures: list[dict[str, Any]] = []
    for match in matches:
        mid = match.match_id
        i = m_index[mid]
        res = results.get(mid)
        units = match.scored_units()
        if res is None:
            status[mid] = "not-run"
            parse["task1"].append("not-run")
            parse["task3"].append("not-run")
            parse["task2"].extend(["not-run"] * len(units))
            continue
        status[mid] = res.status
        if res.status != "ok":
            failures.append({
                "arm": arm, "sample_id": mid, "status": res.status, "error_type": res.error_type, "error": res.error, "session": res.session,
                "cause": first_cause(list(res.failures)),
                "failed_nodes": [{"node": f.node, "key": f.key, "reason": f.reason, "raw_outputs": len(f.raw_outputs)} for f in res.failures],
            })
        if res.verdict is None:
            parse["task1"].append("failed")
            parse["task3"].append("failed")
            parse["task2"].extend(["failed"] * len(units))
            continue
        v = res.verdict
        task_status: dict[tuple[str, str], dict[str, Any]] = {}
        for t in v.get("tasks") or []:
            task = _task_of(str(t.get("task", "")))
            if task:
                task_status[(task, _unit_key(str(t.get("key") or "")) if task == "task2" else "")] = t
        default_mode = _agentic_mode(res.calls) if not task_status else "unknown"

        def mode(task: str, key: str, has_value: bool, task_status=task_status, default_mode=default_mode) -> ParseMode:
            t = task_status.get((task, key))
            if t is None and task != "task2":
                t = next((s for (tk, _), s in task_status.items() if tk == task), None)
            if not has_value:
                return "failed"
            if t is not None:
                return _mode_of(t.get("parse")) if t.get("ok", True) else "failed"
            return default_mode

        pv = v.get("p")
        if pv is not None:
            p[i] = float(pv)
        parse["task1"].append(mode("task1", "", pv is not None))
        bd = v.get("best_debater_votes") or {}
        labels = gold.debater_labels[i]
        if bd and sum(bd.values()) > 0:
            votes[i] = np.array([float(bd.get(lab, 0)) for lab in labels])
        parse["task3"].append(mode("task3", "", votes[i] is not None))
        scores = {(s["stage_id"], s["side"]): float(s["mean"]) for s in v.get("stage_scores") or []}
        for sid, side in units:
            val = scores.get((sid, side))
            if val is not None:
                unit_vals[(mid, sid, side)] = val
            parse["task2"].append(mode("task2", f"{sid}|{side}", val is not None))
    unit_pred = np.array([unit_vals.get(u, np.nan) for u in gold.units], dtype=float)
    pair_aff = np.array([unit_vals.get((mid, sid, "affirmative"), np.nan) for mid, sid in gold.pairs], dtype=float)
    pair_neg = np.array([unit_vals.get((mid, sid, "negative"), np.nan) for mid, sid in gold.pairs], dtype=float)
    return ArmPredictions(arm, label, status, p, votes, unit_pred, pair_aff, pair_neg, parse, failures)


def parse_statistics(pred: ArmPredictions, results: dict[str, SampleResult]) -> dict[str, Any]:
    """Per task: instances, not run, parsed, parse rate (parsed / instances run), strict, recovered,
    native, unknown, failed; plus call-level counts (strict JSON, recovered, failed attempts)."""
    out: dict[str, Any] = {}
    for task, modes in pred.parse.items():
        run = [m for m in modes if m != "not-run"]
        parsed = [m for m in run if m != "failed"]
        out[task] = {
            "instances": len(run),
            "not_run": len(modes) - len(run),
            "parsed": len(parsed),
            "parse_rate": (len(parsed) / len(run)) if run else None,
            "strict": sum(m == "strict" for m in run),
            "recovered": sum(m == "recovered" for m in run),
            "native": sum(m == "native" for m in run),
            "unknown": sum(m == "unknown" for m in run),
            "failed": sum(m == "failed" for m in run),
        }
    calls = [c for r in results.values() for c in r.calls]
    out["calls"] = {
        "calls": len(calls),
        "strict_json": sum(c.parse == "strict" for c in calls),
        "recovered": sum(c.parse in ("normalised", "regex") for c in calls),
        "failed_attempts": sum(c.parse == "failed" for c in calls),
        "native": sum(c.parse == "native" for c in calls),
    }
    return out


# ---------------------------------------------------------------------------------------------
# scoring helpers


def _clean(x: float) -> float | None:
    return float(x) if x is not None and math.isfinite(x) else None


def _take(a: Any, mask: np.ndarray) -> Any:
    idx = np.flatnonzero(mask)
    if isinstance(a, np.ndarray):
        return a[idx]
    return [a[i] for i in idx]


@dataclass(frozen=True)
class ScoreSettings:
    """Bootstrap settings: ``n_bootstrap`` resamples (0 = no intervals), ``confidence``, ``seed``."""

    n_bootstrap: int = 2000
    confidence: float = 0.95
    seed: int = 0


def scored(fn: Callable[..., MetricResult], arrays: Sequence[Any], match_ids: Sequence[str] | None, settings: ScoreSettings, na_reason: str | None = None) -> dict[str, Any]:
    """``fn(*arrays)`` as ``{"value", "n", "n_excluded", "ci", "reason"}`` with a match-level
    bootstrap interval over the items where every input is present (items of one match resampled
    together when ``match_ids`` is given). ``value`` None with a reason when undefined."""
    res = fn(*arrays)
    out: dict[str, Any] = {"value": _clean(res.value), "n": res.n, "n_excluded": res.n_excluded, "ci": None}
    if not res.defined:
        out["reason"] = na_reason or ("no instance to score" if res.n == 0 else "undefined (too few items or zero variance)")
        return out
    if settings.n_bootstrap > 0 and res.n > 1:
        keep = S.common_subset(*arrays)
        sub = [_take(a, keep) for a in arrays]
        ids = None if match_ids is None else _take(list(match_ids), keep)
        ci = S.bootstrap_ci(fn, *sub, match_ids=ids, n_resamples=settings.n_bootstrap, confidence=settings.confidence, seed=settings.seed)
        out["ci"] = {"low": _clean(ci.low), "high": _clean(ci.high), "confidence": ci.confidence, "n_resamples": ci.n_resamples, "n_valid": ci.n_valid, "n_matches": ci.n_matches, "seed": ci.seed}
    return out


def _na(reason: str) -> dict[str, Any]:
    return {"value": None, "n": 0, "n_excluded": 0, "ci": None, "reason": f"not applicable: {reason}"}


def _tend_all(a, b, c, d) -> MetricResult:
    return M.tendency_agreement(a, b, c, d).all_pairs


def _tend_nt(a, b, c, d) -> MetricResult:
    return M.tendency_agreement(a, b, c, d).non_tie


def _winner_acc_decisive(p, gold) -> MetricResult:
    return M.winner_accuracy(p, gold)


# ---------------------------------------------------------------------------------------------
# per-task metric blocks (used for arms, baselines, and on the common subset)


def task1_metrics(p: np.ndarray, gold: Gold, mask: np.ndarray, st: ScoreSettings) -> dict[str, Any]:
    """Winner accuracy of tendencies ``p`` (M,) on the matches in ``mask`` with a decisive gold."""
    sel = mask & gold.decisive
    winners = _take(gold.winners, sel)
    return {"winner_accuracy": scored(_winner_acc_decisive, [p[sel], winners], None, st)}


def task2_metrics(unit_pred: np.ndarray, pair_aff: np.ndarray, pair_neg: np.ndarray, gold: Gold, unit_mask: np.ndarray, pair_mask: np.ndarray, st: ScoreSettings) -> dict[str, Any]:
    """MSE, Pearson, Spearman on the units in ``unit_mask``; tendency agreement on pairs in ``pair_mask``."""
    y = gold.unit_mean[unit_mask]
    x = unit_pred[unit_mask]
    ids = _take(gold.unit_match, unit_mask)
    out = {
        "stage_mse": scored(M.stage_mse, [x, y], ids, st),
        "stage_pearson": _why_undefined(scored(M.stage_pearson, [x, y], ids, st), x, y, "r"),
        "stage_spearman": _why_undefined(scored(M.stage_spearman, [x, y], ids, st), x, y, "ρ"),
    }
    if len(gold.pairs) == 0:
        reason = "no stage of the dataset is scored for both sides"
        out["tendency_all_pairs"] = _na(reason)
        out["tendency_non_tie"] = _na(reason)
    else:
        arrs = [pair_aff[pair_mask], pair_neg[pair_mask], gold.pair_aff[pair_mask], gold.pair_neg[pair_mask]]
        pids = _take(gold.pair_match, pair_mask)
        out["tendency_all_pairs"] = scored(_tend_all, arrs, pids, st)
        out["tendency_non_tie"] = scored(_tend_nt, arrs, pids, st)
    return out


def _why_undefined(leaf: dict[str, Any], pred: np.ndarray, gold: np.ndarray, symbol: str) -> dict[str, Any]:
    """A correlation leaf that is undefined on two or more items gets the reason when one side is
    constant (zero variance, so r = 0/0): ``"<symbol> undefined (constant predictions)"`` or
    ``"<symbol> undefined (constant human scores)"``. Other leaves are returned unchanged."""
    if leaf.get("value") is not None or leaf.get("n", 0) < 2:
        return leaf
    keep = np.isfinite(pred) & np.isfinite(gold)
    if keep.sum() < 2:
        return leaf
    if np.ptp(pred[keep]) == 0:
        return {**leaf, "reason": f"{symbol} undefined (constant predictions)"}
    if np.ptp(gold[keep]) == 0:
        return {**leaf, "reason": f"{symbol} undefined (constant human scores)"}
    return leaf


def task3_metrics(votes: list[np.ndarray | None], gold: Gold, mask: np.ndarray, st: ScoreSettings) -> dict[str, Any]:
    """Top-1, vote-share MAE, pooled vote-share Pearson and Spearman on the matches in ``mask``."""
    sel = mask & gold.has_votes
    pv = _take(votes, sel)
    hv = _take(gold.votes, sel)
    return {
        "best_debater_top1": scored(M.best_debater_top1, [pv, hv], None, st),
        "vote_share_mae": scored(M.vote_share_mae, [pv, hv], None, st),
        "vote_share_pearson": scored(M.vote_share_pearson, [pv, hv], None, st),
        "vote_share_spearman": scored(M.vote_share_spearman, [pv, hv], None, st),
    }


def third_speaker_metric(p: np.ndarray, gold: Gold, mask: np.ndarray, st: ScoreSettings) -> dict[str, Any]:
    """Top-1 of the predicted-winner third speaker (4v4 only; matches without a parsed p excluded)."""
    sel = mask & gold.has_votes
    heuristic = B.predicted_winner_third_speaker([None if not math.isfinite(x) else float(x) for x in p], gold.debater_labels, gold.formats)
    preds = heuristic.predictions
    if not any(preds[i] is not None for i in np.flatnonzero(sel)) and not any(f == "ccdb-4v4" for f in _take(gold.formats, sel)):
        return _na("defined for formats with a third speaker (ccdb-4v4) only")
    return scored(M.best_debater_top1, [_take(preds, sel), _take(gold.votes, sel)], None, st)


# ---------------------------------------------------------------------------------------------
# Task 1 constant-side baselines


def constant_side_baseline(side: str, gold_winner: Sequence[Any]) -> B.Baseline:
    """Task 1 "always ``side``": p = 1 (affirmative) or p = 0 (negative) for every match; a structural
    baseline that uses no label. ``expected["winner_accuracy"]`` is exact: ``side``'s share of the
    matches with a decisive gold winner (omitted when none is decisive). Raises ValueError for a
    side other than affirmative/negative."""
    if side == "affirmative":
        return B.always_affirmative(gold_winner)
    if side != "negative":
        raise ValueError(f"side must be 'affirmative' or 'negative', got {side!r}")
    decisive = [g for g in gold_winner if g in ("affirmative", "negative")]
    expected = {"winner_accuracy": sum(g == "negative" for g in decisive) / len(decisive)} if decisive else {}
    return B.Baseline("always negative", 1, np.zeros(len(list(gold_winner))), expected, note="p = 0; accuracy is the negative base rate")


def task1_structural_baselines(gold_winner: Sequence[Any], seed: int) -> list[B.Baseline]:
    """The comparable Task 1 baselines of every table (paper 3.1 plus always negative): always
    affirmative, always negative, and the seeded random p ~ U(0, 1)."""
    return [constant_side_baseline("affirmative", gold_winner), constant_side_baseline("negative", gold_winner), B.random_winner(gold_winner, seed=seed)]


def majority_side(gold_winner: Sequence[Any]) -> str | None:
    """The side that more decisive gold winners have (``"affirmative"`` on an exact tie of counts),
    or None when no winner is decisive."""
    aff = sum(g == "affirmative" for g in gold_winner)
    neg = sum(g == "negative" for g in gold_winner)
    if aff + neg == 0:
        return None
    return "negative" if neg > aff else "affirmative"


def majority_class_baseline(gold_winner: Sequence[Any]) -> B.Baseline:
    """Task 1 majority class, "always <majority side>" of *this* dataset (:func:`majority_side`),
    named ``"majority class (always <side>)"``.

    It reads the gold labels it is scored on, so it is a non-comparable reference (``comparable``
    False, never ranked): the protocol (001, fine-tuning) requires a data-dependent baseline to be
    fitted on the training folds only, which a benchmark run over the whole dataset cannot do. Its
    accuracy is the larger base rate, an upper bound for any constant-side predictor here."""
    side = majority_side(gold_winner) or "affirmative"
    counts = {k: sum(g == k for g in gold_winner) for k in ("affirmative", "negative")}
    const = constant_side_baseline(side, gold_winner)
    return B.Baseline(
        f"majority class (always {side})", 1, const.predictions, const.expected, comparable=False,
        note=f"{side} is the side most gold winners have in this dataset ({counts['affirmative']} affirmative, {counts['negative']} negative; "
             "an equal count goes to affirmative); fitted on the evaluation labels, so non-comparable and not ranked "
             "(the protocol fits data-dependent baselines on training folds only)",
    )


# ---------------------------------------------------------------------------------------------
# the full scoring of a run


def _row(predictor: str, kind: str, comparable: bool, metrics: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"predictor": predictor, "kind": kind, "comparable": comparable, "metrics": metrics, **extra}


def _rank(rows: list[dict[str, Any]], task: str) -> None:
    """Rank comparable rows by the task's ranking metric and sort ``rows`` in place so they read in
    rank order: ranked rows first, then comparable rows without a value, then the non-comparable
    references (rank None), each group otherwise in its original order.

    Competition ranking: 1 = best, and rows with equal values (to 12 decimals) share a rank, the next
    rank skipping as many places (values .6, .5, .5, .4 rank 1, 2, 2, 4)."""
    key = RANK_BY[task]
    higher = METRICS[key][1]
    vals = [(r["metrics"].get(key, {}).get("value"), i) for i, r in enumerate(rows) if r["comparable"]]
    vals = [(round(v if higher else -v, 12), i) for v, i in vals if v is not None]  # larger is better
    for r in rows:
        r["rank"] = None
    for v, i in vals:
        rows[i]["rank"] = 1 + sum(other > v for other, _ in vals)
    order = sorted(range(len(rows)), key=lambda i: (0, rows[i]["rank"]) if rows[i]["rank"] is not None else ((1 if rows[i]["comparable"] else 2), i))
    rows[:] = [rows[i] for i in order]


def _baseline_row(b: B.Baseline, metrics: dict[str, Any], expected: dict[str, float]) -> dict[str, Any]:
    return _row(
        b.name if b.comparable else f"{b.name}",
        "baseline" if b.comparable else "reference",
        b.comparable,
        metrics,
        expected={k: _clean(v) for k, v in expected.items()},
        seed=b.seed,
        note=b.note,
    )


def _human_rows(reliability: dict[str, Any], task: str, synthetic: bool = False) -> list[dict[str, Any]]:
    """The individual-judge references (Appendix B.1) for ``task``, non-comparable. With
    ``synthetic`` labels (written by developers) the rows are named "synthetic judge", not human."""
    ref = (reliability or {}).get("human_reference") or {}
    keys = {
        "task1": ("winner_accuracy",),
        "task2": ("stage_mse", "stage_pearson", "stage_spearman"),
        "task3": ("best_debater_top1", "vote_share_mae"),
    }[task]
    rows = []
    who = "synthetic judge" if synthetic else "human judge"
    for setting, title in (("self_included", f"{who} (self-included)"), ("leave_one_out", f"{who} (leave-one-out)")):
        vals = ref.get(setting) or {}
        metrics = {}
        for k in keys:
            leaf = vals.get(k)
            if leaf is not None:
                metrics[k] = {"value": leaf.get("value"), "n": leaf.get("n", 0), "n_excluded": leaf.get("n_excluded", 0), "ci": None, "reason": leaf.get("reason")}
        if any(m.get("value") is not None for m in metrics.values()):
            note = "non-comparable: individual judges against a panel that includes them / the other judges (Appendix B.1); n counts (match, judge) instances"
            if synthetic:
                note += "; SYNTHETIC labels written by developers, so these are not human judges"
            rows.append(_row(title, "reference", False, metrics, note=note))
    return rows


def _common(masks: list[np.ndarray], n: int) -> np.ndarray:
    out = np.ones(n, dtype=bool)
    for m in masks:
        out &= m
    return out


def score_run(
    matches: Sequence[Match],
    arm_results: dict[str, dict[str, SampleResult]],
    arm_labels: dict[str, str],
    settings: ScoreSettings,
    reliability: dict[str, Any] | None = None,
    *,
    synthetic_labels: bool = False,
) -> dict[str, Any]:
    """Score every arm of a run against the gold labels of ``matches``.

    ``arm_results`` arm -> match id -> result (absent = not run); ``arm_labels`` arm -> display name;
    ``synthetic_labels`` True when the labels were written by developers (the individual-judge
    reference rows are then named "synthetic judge"). Returns the ``tasks``, ``parsing``,
    ``failures``, ``paired`` and ``calibration`` sections of report.json (see report.py). Baseline
    draws use ``settings.seed``. Rows of every table are sorted by rank (see :func:`_rank`).
    """
    gold = gold_from_matches(matches)
    app = gold.applicability()
    arms = list(arm_results)
    preds = {a: predictions_for_arm(a, arm_labels.get(a, a), gold, matches, arm_results[a]) for a in arms}
    n_m, n_u, n_p = len(gold.match_ids), len(gold.units), len(gold.pairs)
    everything_m, everything_u, everything_p = np.ones(n_m, bool), np.ones(n_u, bool), np.ones(n_p, bool)

    parsed_m1 = {a: np.isfinite(preds[a].p) for a in arms}
    parsed_m3 = {a: np.array([v is not None for v in preds[a].votes], dtype=bool) for a in arms}
    parsed_u = {a: np.isfinite(preds[a].unit_pred) for a in arms}
    parsed_p = {a: np.isfinite(preds[a].pair_aff) & np.isfinite(preds[a].pair_neg) for a in arms}
    common = {
        "task1": _common(list(parsed_m1.values()), n_m),
        "task3": _common(list(parsed_m3.values()), n_m),
        "task2_units": _common(list(parsed_u.values()), n_u),
        "task2_pairs": _common(list(parsed_p.values()), n_p),
    }
    seed = settings.seed
    tasks: dict[str, Any] = {}

    # ---- Task 1
    t1: dict[str, Any] = {"title": TASK_TITLES["task1"], "applicable": app["task1"] is None, "reason": app["task1"], "ranked_by": ranked_by("task1")}
    if app["task1"] is None:
        majority = majority_side(gold.winners)
        bl = [*task1_structural_baselines(gold.winners, seed), majority_class_baseline(gold.winners)]
        const_side = {"always affirmative": "affirmative", "always negative": "negative", bl[-1].name: majority or "affirmative"}

        def t1_rows(mask: np.ndarray) -> list[dict[str, Any]]:
            rows = [_row(preds[a].label, "arm", True, task1_metrics(preds[a].p, gold, mask, settings), arm=a) for a in arms]
            for b in bl:
                # a constant side's accuracy on the subset is that side's share of its decisive winners
                exp = b.expected if b.seed is not None else constant_side_baseline(const_side[b.name], _take(gold.winners, mask)).expected
                rows.append(_baseline_row(b, task1_metrics(np.asarray(b.predictions, float), gold, mask, settings), exp))
            return rows

        rows = t1_rows(everything_m) + _human_rows(reliability or {}, "task1", synthetic_labels)
        _rank(rows, "task1")
        crows = t1_rows(common["task1"])
        _rank(crows, "task1")
        t1.update(
            majority_side=majority,
            n_matches=n_m,
            n_decisive=int(gold.decisive.sum()),
            gold_balance={"affirmative": sum(w == "affirmative" for w in gold.winners), "negative": sum(w == "negative" for w in gold.winners), "tie_or_none": sum(w not in ("affirmative", "negative") for w in gold.winners)},
            rows=rows,
            common_subset={"n": int((common["task1"] & gold.decisive).sum()), "arms": arms, "rows": crows},
        )
    tasks["task1"] = t1

    # ---- Task 2
    t2: dict[str, Any] = {"title": TASK_TITLES["task2"], "applicable": app["task2"] is None, "reason": app["task2"], "ranked_by": ranked_by("task2")}
    if app["task2"] is None:
        rnd = B.random_stage_scores(gold.unit_mean, seed=seed)
        sar = B.structure_aware_random_scores(gold.unit_role, gold.unit_mean, seed=seed)
        u_index = {u: i for i, u in enumerate(gold.units)}

        def to_pairs(unit_pred: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            a = np.array([unit_pred[u_index[(m, s, "affirmative")]] for m, s in gold.pairs], dtype=float)
            b = np.array([unit_pred[u_index[(m, s, "negative")]] for m, s in gold.pairs], dtype=float)
            return a, b

        def t2_rows(umask: np.ndarray, pmask: np.ndarray) -> list[dict[str, Any]]:
            rows = [_row(preds[a].label, "arm", True, task2_metrics(preds[a].unit_pred, preds[a].pair_aff, preds[a].pair_neg, gold, umask, pmask, settings), arm=a) for a in arms]
            for b, questioner in ((rnd, None), (sar, gold.pair_questioner)):
                up = np.asarray(b.predictions, float)
                pa, pn = to_pairs(up)
                y = gold.unit_mean[umask]
                exp = dict((B.random_stage_scores(y, seed=seed) if b is rnd else B.structure_aware_random_scores(_take(gold.unit_role, umask), y, seed=seed)).expected)
                if pmask.any():
                    q = None if questioner is None else _take(questioner, pmask)
                    exp.update(B.expected_tendency_agreement(gold.pair_aff[pmask], gold.pair_neg[pmask], q))
                rows.append(_baseline_row(b, task2_metrics(up, pa, pn, gold, umask, pmask, settings), exp))
            return rows

        rows = t2_rows(everything_u, everything_p) + _human_rows(reliability or {}, "task2", synthetic_labels)
        _rank(rows, "task2")
        crows = t2_rows(common["task2_units"], common["task2_pairs"])
        _rank(crows, "task2")
        t2.update(
            n_units=n_u,
            n_pairs=n_p,
            n_matches=len(set(gold.unit_match)),
            rows=rows,
            common_subset={"n_units": int(common["task2_units"].sum()), "n_pairs": int(common["task2_pairs"].sum()), "arms": arms, "rows": crows},
        )
    tasks["task2"] = t2

    # ---- Task 3
    t3: dict[str, Any] = {"title": TASK_TITLES["task3"], "applicable": app["task3"] is None, "reason": app["task3"], "ranked_by": ranked_by("task3")}
    if app["task3"] is None:
        rb = B.random_best_debater(gold.votes, seed=seed)
        t1_random = B.random_winner(gold.winners, seed=seed)
        uv = B.uniform_votes(gold.votes)
        oracle = B.oracle_third_speaker(gold.winners, gold.debater_labels, gold.formats)

        def t3_rows(mask: np.ndarray) -> list[dict[str, Any]]:
            rows = []
            for a in arms:
                met = task3_metrics(preds[a].votes, gold, mask, settings)
                met["pred_winner_third_speaker_top1"] = third_speaker_metric(preds[a].p, gold, mask, settings)
                rows.append(_row(preds[a].label, "arm", True, met, arm=a))
            for b in (rb, uv):
                hv = _take(gold.votes, mask & gold.has_votes)
                exp = (B.random_best_debater(hv, seed=seed) if b is rb else B.uniform_votes(hv)).expected
                met = task3_metrics(list(b.predictions), gold, mask, settings)
                if b is uv:  # every debater ties: only the vote-share MAE is meaningful (paper Table 4 leaves the rest blank)
                    for k in ("best_debater_top1", "vote_share_pearson", "vote_share_spearman"):
                        met[k] = {"value": None, "n": 0, "n_excluded": 0, "ci": None, "reason": "not defined for a uniform allocation: every debater ties (left blank, as in the paper)"}
                else:  # the random row's heuristic column: third speaker of the Task 1 random predictor's side
                    met["pred_winner_third_speaker_top1"] = third_speaker_metric(np.asarray(t1_random.predictions, float), gold, mask, settings)
                rows.append(_baseline_row(b, met, exp))
            om = task3_metrics(list(oracle.predictions), gold, mask, settings)
            rows.append(_baseline_row(oracle, om, {}))
            return rows

        rows = t3_rows(everything_m) + _human_rows(reliability or {}, "task3", synthetic_labels)
        _rank(rows, "task3")
        crows = t3_rows(common["task3"])
        _rank(crows, "task3")
        t3.update(n_matches=int(gold.has_votes.sum()), rows=rows, common_subset={"n": int((common["task3"] & gold.has_votes).sum()), "arms": arms, "rows": crows})
    tasks["task3"] = t3

    # ---- calibration of p (Task 1)
    calibration: dict[str, Any] = {}
    if app["task1"] is None:
        for a in arms:
            p = preds[a].p
            calibration[a] = {
                "label": preds[a].label,
                "brier": scored(S.brier_score, [p, gold.winners], None, settings),
                "ece": S.expected_calibration_error(p, gold.winners, 10).as_dict(),
                "curve": [{k: _clean(v) if isinstance(v, float) else v for k, v in b.model_dump().items()} for b in S.reliability_curve(p, gold.winners, 10)],
                "note": "p read as P(affirmative wins); Brier 0.25 = constant p 0.5; 10 equal-width bins",
            }

    # ---- paired comparisons on the common subset
    paired: list[dict[str, Any]] = []
    for a, b in combinations(arms, 2):
        paired.append(paired_comparison(preds[a], preds[b], gold, app, settings))
    # each arm against the comparable Task 1 baselines (exact McNemar)
    vs_baselines: list[dict[str, Any]] = []
    if app["task1"] is None:
        for a in arms:
            ca = M.winner_correct(preds[a].p, gold.winners)
            for b in task1_structural_baselines(gold.winners, seed):
                cb = M.winner_correct(np.asarray(b.predictions, float), gold.winners)
                mc = S.mcnemar_exact(ca, cb)
                vs_baselines.append({"arm": a, "baseline": b.name, "task": "task1", **_mc_dict(mc)})

    return {
        "tasks": tasks,
        "parsing": {a: parse_statistics(preds[a], arm_results[a]) for a in arms},
        "failures": [f for a in arms for f in preds[a].failures],
        "calibration": calibration,
        "paired": paired,
        "arm_vs_baseline": vs_baselines,
        "_predictions": preds,
        "_gold": gold,
    }


def _mc_dict(mc: S.McNemarResult) -> dict[str, Any]:
    d = mc.model_dump()
    return {k: _clean(v) if isinstance(v, float) else v for k, v in d.items()}


def paired_comparison(a: ArmPredictions, b: ArmPredictions, gold: Gold, app: dict[str, str | None], st: ScoreSettings) -> dict[str, Any]:
    """Arm ``a`` versus arm ``b`` on their common subset: exact McNemar on winner accuracy, paired
    bootstrap differences (a - b) of every other applicable metric."""
    out: dict[str, Any] = {"a": a.arm, "b": b.arm, "label_a": a.label, "label_b": b.label, "tests": {}}
    kw = {"n_resamples": max(st.n_bootstrap, 1), "confidence": st.confidence, "seed": st.seed}

    def pb(fn, arrays_a, arrays_b, ids=None) -> dict[str, Any]:
        if st.n_bootstrap <= 0:
            return {"reason": "bootstrap disabled (--bootstrap 0)"}
        r = S.paired_bootstrap(fn, arrays_a, arrays_b, match_ids=ids, **kw)
        return r.as_dict()

    if app["task1"] is None:
        out["tests"]["winner_accuracy"] = {"test": "exact McNemar", **_mc_dict(S.mcnemar_exact(M.winner_correct(a.p, gold.winners), M.winner_correct(b.p, gold.winners)))}
        # the same instances as the report's Brier score: matches with a decisive gold winner (ties
        # and missing winners have no 0/1 outcome), and both arms' p parsed
        d = gold.decisive
        wd = _take(gold.winners, d)
        out["tests"]["brier"] = {"test": "paired bootstrap", **pb(S.brier_score, [a.p[d], wd], [b.p[d], wd])}
    if app["task2"] is None:
        for name, fn in (("stage_mse", M.stage_mse), ("stage_pearson", M.stage_pearson), ("stage_spearman", M.stage_spearman)):
            out["tests"][name] = {"test": "paired bootstrap", **pb(fn, [a.unit_pred, gold.unit_mean], [b.unit_pred, gold.unit_mean], gold.unit_match)}
        if gold.pairs:
            out["tests"]["tendency_all_pairs"] = {
                "test": "paired bootstrap",
                **pb(_tend_all, [a.pair_aff, a.pair_neg, gold.pair_aff, gold.pair_neg], [b.pair_aff, b.pair_neg, gold.pair_aff, gold.pair_neg], gold.pair_match),
            }
    if app["task3"] is None:
        sel = gold.has_votes
        va, vb, hv = _take(a.votes, sel), _take(b.votes, sel), _take(gold.votes, sel)
        for name, fn in (("best_debater_top1", M.best_debater_top1), ("vote_share_mae", M.vote_share_mae), ("vote_share_pearson", M.vote_share_pearson)):
            out["tests"][name] = {"test": "paired bootstrap", **pb(fn, [va, hv], [vb, hv])}
    return out

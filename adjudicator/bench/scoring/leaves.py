"""Metric leaves of report.json: one metric value with its sample size, bootstrap interval and reason,
and the leaves of a paired test between two arms.

A leaf is ``{"value", "n", "n_excluded", "ci", "reason"?}``: ``value`` None with a ``reason`` when the
metric is undefined or not applicable, never 0; ``ci`` the match-level percentile bootstrap interval
(:func:`adjudicator.evaluation.uncertainty.bootstrap_ci`, seeded) or None. A paired test is
``{"test": "exact McNemar", ...}`` (:func:`adjudicator.evaluation.uncertainty.mcnemar_exact`) or
``{"test": "paired bootstrap", ...}`` (:func:`adjudicator.evaluation.uncertainty.paired_bootstrap`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from adjudicator.evaluation import uncertainty as S
from adjudicator.evaluation.metrics import MetricResult


@dataclass(frozen=True)
class ScoreSettings:
    """Bootstrap settings: ``n_bootstrap`` resamples (0 = no intervals), ``confidence``, ``seed``."""

    n_bootstrap: int = 2000
    confidence: float = 0.95
    seed: int = 0


def clean(x: float | None) -> float | None:
    """``x`` as a float, None when missing or not finite (JSON has no NaN)."""
    return float(x) if x is not None and math.isfinite(x) else None


def take(a: Any, mask: np.ndarray) -> Any:
    """The items of ``a`` (an array or a list) where the boolean ``mask`` is True."""
    idx = np.flatnonzero(mask)
    if isinstance(a, np.ndarray):
        return a[idx]
    return [a[i] for i in idx]


def not_applicable(reason: str) -> dict[str, Any]:
    """A leaf with no value: ``reason`` prefixed with "not applicable: "."""
    return {"value": None, "n": 0, "n_excluded": 0, "ci": None, "reason": f"not applicable: {reason}"}


def scored(fn: Callable[..., MetricResult], arrays: Sequence[Any], match_ids: Sequence[str] | None, settings: ScoreSettings, na_reason: str | None = None) -> dict[str, Any]:
    """``fn(*arrays)`` as ``{"value", "n", "n_excluded", "ci", "reason"}`` with a match-level
    bootstrap interval over the items where every input is present (items of one match resampled
    together when ``match_ids`` is given). ``value`` None with a reason when undefined."""
    res = fn(*arrays)
    out: dict[str, Any] = {"value": clean(res.value), "n": res.n, "n_excluded": res.n_excluded, "ci": None}
    if not res.defined:
        out["reason"] = na_reason or ("no instance to score" if res.n == 0 else "undefined (too few items or zero variance)")
        return out
    if settings.n_bootstrap > 0 and res.n > 1:
        keep = S.common_subset(*arrays)
        sub = [take(a, keep) for a in arrays]
        ids = None if match_ids is None else take(list(match_ids), keep)
        ci = S.bootstrap_ci(fn, *sub, match_ids=ids, n_resamples=settings.n_bootstrap, confidence=settings.confidence, seed=settings.seed)
        out["ci"] = {"low": clean(ci.low), "high": clean(ci.high), "confidence": ci.confidence, "n_resamples": ci.n_resamples, "n_valid": ci.n_valid, "n_matches": ci.n_matches, "seed": ci.seed}
    return out


def why_undefined(leaf: dict[str, Any], pred: np.ndarray, gold: np.ndarray, symbol: str) -> dict[str, Any]:
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


# ---------------------------------------------------------------------------------------------
# paired tests


def mcnemar_leaf(mc: S.McNemarResult) -> dict[str, Any]:
    """An exact McNemar result as JSON (NaN accuracies as None)."""
    d = mc.model_dump()
    return {k: clean(v) if isinstance(v, float) else v for k, v in d.items()}


def mcnemar_test(correct_a: np.ndarray, correct_b: np.ndarray) -> dict[str, Any]:
    """``{"test": "exact McNemar", ...}`` of two arms' per-match correctness (1/0/NaN)."""
    return {"test": "exact McNemar", **mcnemar_leaf(S.mcnemar_exact(correct_a, correct_b))}


def paired_bootstrap_test(
    fn: Callable[..., MetricResult | float], arrays_a: Sequence[Any], arrays_b: Sequence[Any], ids: Sequence[str] | None, st: ScoreSettings
) -> dict[str, Any]:
    """``{"test": "paired bootstrap", ...}``: the paired match-level bootstrap of ``fn(*arrays_a) -
    fn(*arrays_b)`` on the common subset, or only a reason when ``st.n_bootstrap`` is 0."""
    if st.n_bootstrap <= 0:
        return {"test": "paired bootstrap", "reason": "bootstrap disabled (--bootstrap 0)"}
    r = S.paired_bootstrap(fn, arrays_a, arrays_b, match_ids=ids, n_resamples=max(st.n_bootstrap, 1), confidence=st.confidence, seed=st.seed)
    # p = 0 means no resample fell on the other side of zero: the estimate is below 1/B, not zero
    return {"test": "paired bootstrap", **r.as_dict(), **({"p_text": f"< 1/{r.n_valid}"} if r.p_value == 0 and r.n_valid else {})}

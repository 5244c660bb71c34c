"""Selective accuracy against coverage: how accurate are the verdicts a person would not review?

If every verdict whose winner tendency lies within a band b of 0.5 is escalated to a human
(:mod:`adjudicator.verdict.review`), the remaining verdicts are the ones the tool decides alone. For each band:

    coverage(b) = #{i : |p_i - 0.5| > b} / n,   accuracy(b) = winner accuracy over those i,

over the n matches with a decisive gold winner and a p (the risk-coverage view of selective
prediction; El-Yaniv and Wiener, 2010). Band 0 keeps every verdict (coverage 1); a larger band keeps
fewer and, for a calibrated judge, more accurate ones. :func:`rule_selective` does the same for the
verdicts' own ``review.escalate`` flags (which also escalate split panels, failed judges and probe flips).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from adjudicator.evaluation.metrics import winner_from_p
from adjudicator.frozen import FrozenModel

#: Winner tendencies (M,): a sequence with None, or an array with NaN, where there is no verdict.
PValues = Sequence[float | None] | np.ndarray


def _p(pred_p: PValues, i: int) -> float | None:
    x = pred_p[i]
    return None if x is None or not np.isfinite(x) else float(x)

#: Bands of |p - 0.5| at which the curve is read (0 = escalate nothing).
DEFAULT_BANDS: tuple[float, ...] = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4)


class SelectivePoint(FrozenModel):
    """One point of the curve: the ``band`` (or None for the review rule), ``kept`` verdicts of ``n``,
    ``coverage`` = kept / n (0-1; None when n = 0) and ``accuracy`` on the kept ones (None when none is kept)."""

    band: float | None
    n: int
    kept: int
    coverage: float | None
    accuracy: float | None


def _eligible(pred_p: PValues, gold: Sequence[str | None]) -> list[int]:
    return [i for i in range(len(gold)) if gold[i] in ("affirmative", "negative") and winner_from_p(_p(pred_p, i)) is not None]


def _point(band: float | None, idx: list[int], kept: list[int], pred_p: PValues, gold: Sequence[str | None]) -> SelectivePoint:
    correct = sum(1 for i in kept if winner_from_p(_p(pred_p, i)) == gold[i])
    return SelectivePoint(band=band, n=len(idx), kept=len(kept), coverage=len(kept) / len(idx) if idx else None, accuracy=correct / len(kept) if kept else None)


def selective_accuracy(pred_p: PValues, gold: Sequence[str | None], bands: Sequence[float] = DEFAULT_BANDS) -> list[SelectivePoint]:
    """The curve (module docstring): one point per band of ``bands`` (each in [0, 0.5)).
    ``pred_p`` (M,) winner tendencies (None or NaN: no verdict), ``gold`` (M,) gold winners (a tie or
    None is not eligible). Raises ValueError for a band outside [0, 0.5) or mismatched lengths."""
    if len(pred_p) != len(gold):
        raise ValueError(f"pred_p and gold differ in length ({len(pred_p)} vs {len(gold)})")
    if any(not 0 <= b < 0.5 for b in bands):
        raise ValueError("bands must be in [0, 0.5)")
    idx = _eligible(pred_p, gold)
    dist = {i: abs((_p(pred_p, i) or 0.5) - 0.5) for i in idx}
    return [_point(b, idx, [i for i in idx if dist[i] > b + 1e-12], pred_p, gold) for b in bands]


def rule_selective(pred_p: PValues, gold: Sequence[str | None], escalated: Sequence[bool | None]) -> SelectivePoint:
    """Selective accuracy under the verdicts' own escalation flags: the eligible matches whose
    ``escalated`` is not True are kept (``band`` None)."""
    idx = _eligible(pred_p, gold)
    return _point(None, idx, [i for i in idx if not escalated[i]], pred_p, gold)

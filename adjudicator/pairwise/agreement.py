"""How far a pairwise panel's judges agree with each other and with themselves (seed 004, section 5.1).

- Percent agreement between two judges: the share of the pairs both resolved on which their
  outcomes (first better, second better, tie) are equal, in [0, 1].
- Cohen's kappa between two judges over the same pairs: ``(p_o - p_e) / (1 - p_e)``, where ``p_o``
  is the percent agreement and ``p_e = sum_k m1_k * m2_k`` the agreement expected from each judge's
  own outcome shares ``m_k`` over the three categories (Cohen 1960). Undefined (None) when
  ``p_e == 1`` (both judges gave one and the same outcome to every pair) or no pair is shared.
- The panel's figure for each is the mean over the judge pairs where it is defined.
- Order inconsistency: the share of resolved pairs whose two orders disagreed
  (:func:`~adjudicator.pairwise.comparisons.resolve`), in [0, 1].
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from pydantic import Field

from adjudicator.frozen import FrozenModel
from adjudicator.pairwise.comparisons import Level, PairResult

CATEGORIES = ("first", "second", "tie")


class JudgePairAgreement(FrozenModel):
    """Two judges on one level: ``pairs`` both resolved, ``agreement`` in [0, 1] and ``kappa`` in
    [-1, 1] (None when undefined; module docstring)."""

    judges: tuple[str, str]
    pairs: int = Field(ge=0)
    agreement: float | None
    kappa: float | None


class LevelAgreement(FrozenModel):
    """One level of a pairwise panel: ``results`` resolved pairs over all judges, ``inconsistent``
    of them order-inconsistent and their ``inconsistent_share`` (None with no result); the mean
    ``agreement`` and ``kappa`` over judge pairs (None when none is defined) and each judge pair's
    figures. Shares and kappas to 4 decimals."""

    level: Level
    results: int = Field(ge=0)
    inconsistent: int = Field(ge=0)
    inconsistent_share: float | None
    agreement: float | None
    kappa: float | None
    judge_pairs: list[JudgePairAgreement]


def cohen_kappa(x: list[str], y: list[str]) -> float | None:
    """Cohen's kappa of two equal-length label lists (module docstring); None when undefined.
    Raises ValueError when the lengths differ."""
    if len(x) != len(y):
        raise ValueError(f"cohen_kappa: {len(x)} and {len(y)} labels")
    n = len(x)
    if n == 0:
        return None
    po = sum(a == b for a, b in zip(x, y)) / n
    cx, cy = Counter(x), Counter(y)
    pe = sum(cx[k] * cy[k] for k in set(cx) | set(cy)) / (n * n)
    if pe >= 1.0:
        return None
    return (po - pe) / (1.0 - pe)


def _mean(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return round(sum(vals) / len(vals), 4) if vals else None


def level_agreement(results: list[PairResult], level: Level) -> LevelAgreement:
    """The agreement figures of ``level`` from a panel's resolved pairs (module docstring)."""
    own = [r for r in results if r.level == level]
    by_judge: dict[str, dict[tuple[str, str], str]] = {}
    for r in own:
        by_judge.setdefault(r.judge_id, {})[(r.first, r.second)] = r.outcome
    rows = []
    for j1, j2 in combinations(list(by_judge), 2):
        shared = [k for k in by_judge[j1] if k in by_judge[j2]]
        x = [by_judge[j1][k] for k in shared]
        y = [by_judge[j2][k] for k in shared]
        agree = round(sum(a == b for a, b in zip(x, y)) / len(shared), 4) if shared else None
        kappa = cohen_kappa(x, y)
        rows.append(JudgePairAgreement(judges=(j1, j2), pairs=len(shared), agreement=agree, kappa=None if kappa is None else round(kappa, 4)))
    bad = sum(not r.consistent for r in own)
    return LevelAgreement(
        level=level,
        results=len(own),
        inconsistent=bad,
        inconsistent_share=round(bad / len(own), 4) if own else None,
        agreement=_mean([r.agreement for r in rows]),
        kappa=_mean([r.kappa for r in rows]),
        judge_pairs=rows,
    )

"""The probes' statistics: pure functions from per-match records to the bias card's measures.

- :func:`rate_measure` -- a proportion with its Wilson 95 % interval (scipy's ``binomtest``).
- :func:`mean_measure` -- a mean with its Student-t 95 % interval.
- :func:`correlation_measure` -- Pearson's r with its Fisher-z 95 % interval (scipy's ``pearsonr``).
- :func:`flip_measures` -- panel and per-judge flip rates and the mean |p shift| of a flip probe.
- :func:`order_measures` -- first- and last-speaker preference against the gold rate (Liu et al., ACL
  2024, found LLM judges favour the side that spoke last).
- :func:`length_measures` -- r(p, affirmative word share) against r(gold, share), and winner
  accuracy within length strata (tertiles of the share).
- :func:`repeat_measures` -- the flip rate and spread of p across repeated runs.
- :func:`word_count` / :func:`affirmative_share` -- the length a probe reads.

Every function returns :class:`~adjudicator.probes.card.ProbeMeasure` lines; an undefined value
(no pair, n < 2 for an interval, a constant input for r) is None, never a number made up.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Literal

import numpy as np

from adjudicator.input.match import MatchView
from adjudicator.probes.card import ProbeMeasure, ProbeName, ProbeSample

RefKind = Literal["gold", "expected", ""]

_WORD = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\W_]+(?:['’][^\W_]+)*")


def word_count(text: str) -> int:
    """Words of ``text``: each CJK character counts as one word, and each run of letters or digits
    (an apostrophe inside allowed) as one more. ``"Don't stop, 2 times"`` -> 4; ``"我方认为 AI"`` -> 5."""
    return len(_WORD.findall(text))


def affirmative_share(match: MatchView) -> float | None:
    """The affirmative's share of the words spoken in ``match`` (its utterances' words over all
    utterances' words), in [0, 1]; None when nobody said a word."""
    words = {"affirmative": 0, "negative": 0}
    for st in match.stages:
        for u in st.utterances:
            if u.side is not None:  # unattributed machine-transcribed words count for neither side
                words[u.side] += word_count(u.text)
    total = words["affirmative"] + words["negative"]
    return words["affirmative"] / total if total else None


def rate_measure(probe: ProbeName, measure: str, k: int, n: int, reference: float | None = None, reference_kind: RefKind = "") -> ProbeMeasure:
    """``k`` of ``n`` as a rate with its Wilson 95 % interval (None for all three when n = 0)."""
    if n == 0:
        return ProbeMeasure(probe=probe, measure=measure, value=None, n=0, reference=reference, reference_kind=reference_kind)
    from scipy import stats  # here, not at import: scipy.stats costs about a second at start-up

    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return ProbeMeasure(probe=probe, measure=measure, value=k / n, ci_low=float(ci.low), ci_high=float(ci.high), n=n, reference=reference, reference_kind=reference_kind)


def mean_measure(probe: ProbeName, measure: str, values: Sequence[float], reference: float | None = None, reference_kind: RefKind = "", floor: float | None = None) -> ProbeMeasure:
    """The mean of ``values`` with its Student-t 95 % interval (mean ± t(0.975, n-1) · s / √n); the
    interval is None for n < 2, and collapses to the mean when every value is equal. ``floor``: the
    least value the quantity can take (0 for a mean of absolute values); the interval is cut there,
    as a mean of non-negative numbers cannot lie below zero."""
    x = np.asarray(values, dtype=float)
    n = int(x.size)
    if n == 0:
        return ProbeMeasure(probe=probe, measure=measure, value=None, n=0, reference=reference, reference_kind=reference_kind)
    mean = float(x.mean())
    lo = hi = None
    if n >= 2:
        from scipy import stats

        half = float(stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / math.sqrt(n))
        lo, hi = mean - half, mean + half
        if floor is not None:
            lo = max(lo, floor)
    return ProbeMeasure(probe=probe, measure=measure, value=mean, ci_low=lo, ci_high=hi, n=n, reference=reference, reference_kind=reference_kind)


def _pearson(x: np.ndarray, y: np.ndarray) -> tuple[float | None, float | None, float | None]:
    """(r, CI low, CI high); r None when n < 3 or an input is constant."""
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None, None, None
    from scipy import stats

    res = stats.pearsonr(x, y)
    ci = res.confidence_interval(0.95) if x.size > 3 else None
    return float(res.statistic), (float(ci.low) if ci else None), (float(ci.high) if ci else None)


def correlation_measure(probe: ProbeName, measure: str, x: Sequence[float], y: Sequence[float], reference: float | None = None) -> ProbeMeasure:
    """Pearson's r of ``x`` and ``y`` with its Fisher-z 95 % interval (n > 3); ``reference`` the
    gold correlation on the same matches."""
    r, lo, hi = _pearson(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    return ProbeMeasure(probe=probe, measure=measure, value=r, ci_low=lo, ci_high=hi, n=len(x), reference=reference, reference_kind="gold" if reference is not None else "")


def flip_measures(probe: ProbeName, samples: Sequence[ProbeSample], expected_p: str) -> list[ProbeMeasure]:
    """A flip probe's lines: the panel's flip rate over the matches with both verdicts, the judges'
    flip rate over the ballots compared, and the mean |p' - expected p'| (``expected_p`` ``"same"``:
    p' = p; ``"mirror"``: p' = 1 - p), each expected 0."""
    comparable = [s for s in samples if s.flipped is not None]
    k = sum(1 for s in comparable if s.flipped)
    judges_k = sum(s.judge_flips for s in samples)
    judges_n = sum(s.judges_compared for s in samples)
    shifts = [abs(s.probe_p[0] - (s.base_p if expected_p == "same" else 1.0 - s.base_p)) for s in comparable if s.base_p is not None and s.probe_p]
    return [
        rate_measure(probe, "panel flip rate", k, len(comparable), 0.0, "expected"),
        rate_measure(probe, "judge flip rate", judges_k, judges_n, 0.0, "expected"),
        mean_measure(probe, "mean absolute p shift" if expected_p == "same" else "mean absolute p' - (1 - p)", shifts, 0.0, "expected", floor=0.0),
    ]


def order_measures(first: Sequence[str | None], last: Sequence[str | None], predicted: Sequence[str | None], gold: Sequence[str | None], ballots: Sequence[Sequence[str]]) -> list[ProbeMeasure]:
    """Speaker-order preference over matches: ``first``/``last`` the side that spoke first/last (None
    when a stage had both sides), ``predicted`` the panel's winner, ``gold`` the gold winner
    (``affirmative``/``negative``, else None), ``ballots`` each match's judges' winners.

    Over the matches with a panel winner, a decisive gold winner and a single last (first) speaker:
    the rate at which the panel picks the last (first) speaker, with the gold rate on the same matches
    as reference; and the same over every ballot of those matches."""
    out = []
    for name, order in (("last", last), ("first", first)):
        idx = [i for i in range(len(order)) if order[i] and predicted[i] and gold[i] in ("affirmative", "negative")]
        k = sum(1 for i in idx if predicted[i] == order[i])
        gold_rate = sum(1 for i in idx if gold[i] == order[i]) / len(idx) if idx else None
        out.append(rate_measure("order", f"panel picks the {name} speaker", k, len(idx), gold_rate, "gold" if gold_rate is not None else ""))
        bk = sum(1 for i in idx for w in ballots[i] if w == order[i])
        bn = sum(len(ballots[i]) for i in idx)
        out.append(rate_measure("order", f"judges pick the {name} speaker", bk, bn, gold_rate, "gold" if gold_rate is not None else ""))
    return out + order_confound(first, predicted, gold)


#: The measure name of the speaking-order confound (read back by the card's Markdown).
ORDER_CONFOUND = "confound: the affirmative spoke first"
#: The measure name of the length confound.
LENGTH_CONFOUND = "confound: the affirmative has more words"


def order_confound(first: Sequence[str | None], predicted: Sequence[str | None], gold: Sequence[str | None]) -> list[ProbeMeasure]:
    """Speaking order against side, on the matches the first-speaker line counts: how often the
    affirmative spoke first (:data:`ORDER_CONFOUND`; near 0 or 1 the order probe cannot be told apart
    from a side preference), then, only where both orders occur, the panel's first-speaker rate within
    each stratum (affirmative first, negative first) against the gold rate there."""
    idx = [i for i in range(len(first)) if first[i] and predicted[i] and gold[i] in ("affirmative", "negative")]
    out = [rate_measure("order", ORDER_CONFOUND, sum(1 for i in idx if first[i] == "affirmative"), len(idx))]
    strata = {side: [i for i in idx if first[i] == side] for side in ("affirmative", "negative")}
    if all(strata.values()):
        for side, sub in strata.items():
            gold_rate = sum(1 for i in sub if gold[i] == side) / len(sub)
            out.append(rate_measure("order", f"panel picks the first speaker, {side} first", sum(1 for i in sub if predicted[i] == side), len(sub), gold_rate, "gold"))
    return out


def length_measures(share: Sequence[float | None], p: Sequence[float | None], gold: Sequence[str | None]) -> list[ProbeMeasure]:
    """Length lines: r(p, affirmative share) over matches with both, against r(gold affirmative win
    as 1/0, share) over the matches that also have a decisive gold winner; then the panel's winner
    accuracy within the share's tertiles (the bounds are the 1/3 and 2/3 quantiles of the shares of
    the matches with a decisive gold winner and a p), so a judge that wins on length alone shows a
    spread across strata that gold does not."""
    both = [i for i in range(len(share)) if share[i] is not None and p[i] is not None]
    decisive = [i for i in both if gold[i] in ("affirmative", "negative")]
    gold_r, _, _ = _pearson(np.array([share[i] for i in decisive], dtype=float), np.array([1.0 if gold[i] == "affirmative" else 0.0 for i in decisive]))
    out = [correlation_measure("length", "r(p, affirmative word share)", [float(share[i]) for i in both], [float(p[i]) for i in both], gold_r)]  # type: ignore[arg-type]
    longer = [i for i in both if (x := share[i]) is not None and x > 0.5]
    out.append(rate_measure("length", LENGTH_CONFOUND, len(longer), len(both)))
    if len(decisive) >= 3:
        s = np.array([share[i] for i in decisive], dtype=float)
        q1, q2 = (float(v) for v in np.quantile(s, [1 / 3, 2 / 3]))
        shares = {i: float(share[i]) for i in decisive}  # type: ignore[arg-type]  # decisive implies both present
        winners = {i: "affirmative" if float(p[i]) > 0.5 else "negative" for i in decisive}  # type: ignore[arg-type]
        for lo, hi, label in ((-math.inf, q1, f"share < {q1:.3f}"), (q1, q2, f"{q1:.3f} ≤ share < {q2:.3f}"), (q2, math.inf, f"share ≥ {q2:.3f}")):
            idx = [i for i in decisive if lo <= shares[i] < hi]
            k = sum(1 for i in idx if winners[i] == gold[i])
            out.append(rate_measure("length", f"accuracy, {label}", k, len(idx)))
    return out


def repeat_measures(samples: Sequence[ProbeSample]) -> list[ProbeMeasure]:
    """Repeats lines over the matches with at least two successful runs: the panel's flip rate (the
    runs do not all give the same winner), the judges' (a judge's winner not constant across runs), and
    the mean spread of p (max - min over the runs), each expected 0."""
    multi = [s for s in samples if len(s.probe_p) >= 2]
    k = sum(1 for s in multi if s.flipped)
    return [
        rate_measure("repeats", "panel flip rate", k, len(multi), 0.0, "expected"),
        rate_measure("repeats", "judge flip rate", sum(s.judge_flips for s in multi), sum(s.judges_compared for s in multi), 0.0, "expected"),
        mean_measure("repeats", "mean spread of p (max - min)", [max(s.probe_p) - min(s.probe_p) for s in multi], 0.0, "expected"),
    ]

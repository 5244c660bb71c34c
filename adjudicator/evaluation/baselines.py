"""Structural baselines of the CCDB benchmark (paper 3.1-3.3, Appendix A.5/B.1; protocol 001 s.01).

Each function returns a :class:`Baseline`: predictions in exactly the shapes the functions of
:mod:`adjudicator.evaluation.metrics` take, and ``expected``, the value of a metric in expectation over the
baseline's randomness (computed exactly from the gold labels) or, for a deterministic baseline, the
exact value where the paper reports one. Random baselines are seeded (``numpy.random.default_rng``);
report the seeded draw (metric on ``predictions``) beside ``expected``. (:func:`majority_side` is the
one helper that returns a side, the one the Task 1 majority-class reference predicts.)

Metric names used as ``expected`` keys: ``winner_accuracy``, ``stage_mse``, ``stage_pearson``,
``stage_spearman``, ``tendency_all_pairs``, ``tendency_non_tie``, ``best_debater_top1``,
``vote_share_mae``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from adjudicator.errors import InputError
from adjudicator.evaluation.inputs import GoldWinner, Numbers, gold_winners
from adjudicator.evaluation.metrics import tendency_sign, top_set, vote_shares, winner_from_p
from adjudicator.input.formats import Side, get_format, position_label

#: Discrete uniform score on 1..10: mean 5.5, variance (10^2 - 1) / 12 = 8.25.
UNIFORM_SCORE_MEAN = 5.5
UNIFORM_SCORE_VAR = 8.25
#: Structure-aware random (paper 3.2): fixed scores of the questioning and the answering side.
QUESTIONER_SCORE = 8
RESPONDENT_SCORE = 6
PANEL_VOTES = 9


@dataclass(frozen=True)
class Baseline:
    """One baseline's predictions and expected metric values.

    ``predictions``: Task 1 an (M,) float array of p; Task 2 an (S,) float array of scores 1-10;
    Task 3 a list of M vote vectors (length K_m) or None where the baseline does not apply.
    ``expected``: metric name -> value (see module docstring). ``comparable`` is False for oracles
    that use gold information (excluded from rankings, Appendix B.1). ``seed`` is None when
    deterministic.
    """

    name: str
    task: Literal[1, 2, 3]
    predictions: Any
    expected: dict[str, float] = field(default_factory=dict)
    comparable: bool = True
    seed: int | None = None
    note: str = ""


# ---------------------------------------------------------------------------------------------
# Task 1


def always_affirmative(gold_winner: Sequence[GoldWinner]) -> Baseline:
    """Task 1 "always affirmative" (paper 3.1): p = 1 for every match.

    ``expected["winner_accuracy"]`` is exact: the affirmative share of the matches with a decisive
    gold winner (the base rate; paper .507). Omitted when no gold winner is decisive.
    """
    gold = gold_winners(gold_winner)
    decisive = [g for g in gold if g in ("affirmative", "negative")]
    expected = {"winner_accuracy": sum(g == "affirmative" for g in decisive) / len(decisive)} if decisive else {}
    return Baseline("always affirmative", 1, np.ones(len(gold)), expected, note="p = 1; accuracy is the affirmative base rate")


def random_winner(gold_winner: Sequence[GoldWinner], *, seed: int = 0) -> Baseline:
    """Task 1 random predictor (paper 3.1): p ~ U(0, 1) per match, seeded.

    ``expected["winner_accuracy"] = 0.5``: P(p > 0.5) = P(p < 0.5) = 1/2 whatever the gold, and
    p == 0.5 has probability 0.
    """
    gold = gold_winners(gold_winner)
    rng = np.random.default_rng(seed)
    return Baseline("random", 1, rng.uniform(0.0, 1.0, size=len(gold)), {"winner_accuracy": 0.5}, seed=seed, note="p ~ U(0, 1)")


def constant_side_baseline(side: str, gold_winner: Sequence[Any]) -> Baseline:
    """Task 1 "always ``side``": p = 1 (affirmative) or p = 0 (negative) for every match; a structural
    baseline that uses no label. ``expected["winner_accuracy"]`` is exact: ``side``'s share of the
    matches with a decisive gold winner (omitted when none is decisive). Raises ValueError for a
    side other than affirmative/negative."""
    if side == "affirmative":
        return always_affirmative(gold_winner)
    if side != "negative":
        raise ValueError(f"side must be 'affirmative' or 'negative', got {side!r}")
    decisive = [g for g in gold_winner if g in ("affirmative", "negative")]
    expected = {"winner_accuracy": sum(g == "negative" for g in decisive) / len(decisive)} if decisive else {}
    return Baseline("always negative", 1, np.zeros(len(list(gold_winner))), expected, note="p = 0; accuracy is the negative base rate")


def majority_side(gold_winner: Sequence[Any]) -> str | None:
    """The side that more decisive gold winners have (``"affirmative"`` on an exact tie of counts),
    or None when no winner is decisive."""
    aff = sum(g == "affirmative" for g in gold_winner)
    neg = sum(g == "negative" for g in gold_winner)
    if aff + neg == 0:
        return None
    return "negative" if neg > aff else "affirmative"


def majority_class_baseline(gold_winner: Sequence[Any]) -> Baseline:
    """Task 1 majority class, "always <majority side>" of *this* dataset (:func:`majority_side`),
    named ``"majority class (always <side>)"``.

    It reads the gold labels it is scored on, so it is a non-comparable reference (``comparable``
    False, never ranked): the protocol (001, fine-tuning) requires a data-dependent baseline to be
    fitted on the training folds only, which a benchmark run over the whole dataset cannot do. Its
    accuracy is the larger base rate, an upper bound for any constant-side predictor here."""
    side = majority_side(gold_winner) or "affirmative"
    counts = {k: sum(g == k for g in gold_winner) for k in ("affirmative", "negative")}
    const = constant_side_baseline(side, gold_winner)
    return Baseline(
        f"majority class (always {side})", 1, const.predictions, const.expected, comparable=False,
        note=f"{side} is the side most gold winners have in this dataset ({counts['affirmative']} affirmative, {counts['negative']} negative; "
             "an equal count goes to affirmative); fitted on the evaluation labels, so non-comparable and not ranked "
             "(the protocol fits data-dependent baselines on training folds only)",
    )


# ---------------------------------------------------------------------------------------------
# Task 2


def _gold_mean(gold_mean: Numbers) -> np.ndarray:
    y = np.asarray(gold_mean, dtype=float)
    if y.ndim != 1:
        raise InputError(f"gold_mean: expected one 3-judge mean per scored (stage, side), got shape {y.shape}")
    return y


def expected_uniform_sq_error(y: np.ndarray) -> np.ndarray:
    """E[(U - y)^2] for U uniform on the integers 1..10: ``8.25 + (5.5 - y)^2`` (variance plus squared
    bias), elementwise."""
    return UNIFORM_SCORE_VAR + (UNIFORM_SCORE_MEAN - y) ** 2


def random_stage_scores(gold_mean: Numbers, *, seed: int = 0) -> Baseline:
    """Task 2 random baseline (paper 3.2): an integer score uniform on 1..10 per scored (stage, side).

    ``gold_mean`` (S,): the 3-judge means (used for the expectations and the shape; NaN entries are
    ignored in the expectation). ``expected``: ``stage_mse = mean_s [8.25 + (5.5 - y_s)^2]`` exactly;
    ``stage_pearson = stage_spearman = 0`` (independent of the gold). Tendency expectations need the
    pairing: see :func:`expected_tendency_agreement`.
    """
    y = _gold_mean(gold_mean)
    rng = np.random.default_rng(seed)
    pred = rng.integers(1, 11, size=y.size).astype(float)
    ok = np.isfinite(y)
    expected = {"stage_pearson": 0.0, "stage_spearman": 0.0}
    if ok.any():
        expected["stage_mse"] = float(np.mean(expected_uniform_sq_error(y[ok])))
    return Baseline("random", 2, pred, expected, seed=seed, note="score ~ uniform integer 1-10")


def structure_aware_random_scores(
    roles: Sequence[Literal["questioner", "respondent"] | None], gold_mean: Numbers, *, seed: int = 0
) -> Baseline:
    """Task 2 structure-aware random baseline (paper 3.2): in questioning and cross-examination stages
    the questioning side gets 8 and the answering side 6; every other (stage, side) a uniform integer
    1..10, seeded.

    ``roles`` (S,): the evaluated side's role in its stage (``"questioner"``/``"respondent"``, None for
    monologue and alternating stages), aligned with ``gold_mean`` (S,). ``expected["stage_mse"]`` is
    exact: ``(8 - y)^2`` / ``(6 - y)^2`` on fixed units, ``8.25 + (5.5 - y)^2`` elsewhere, averaged.
    No closed form is given for the correlations (they depend on the gold's structure).
    """
    y = _gold_mean(gold_mean)
    rl = list(roles)
    if len(rl) != y.size:
        raise InputError(f"roles has {len(rl)} entries but gold_mean has {y.size}; give one role (or None) per scored unit")
    for i, r in enumerate(rl):
        if r not in ("questioner", "respondent", None):
            raise InputError(f"roles[{i}]: {r!r} is not a role; use 'questioner', 'respondent' or None")
    rng = np.random.default_rng(seed)
    draws = rng.integers(1, 11, size=y.size).astype(float)
    fixed = np.array([QUESTIONER_SCORE if r == "questioner" else RESPONDENT_SCORE if r == "respondent" else np.nan for r in rl], dtype=float)
    is_fixed = np.isfinite(fixed)
    pred = np.where(is_fixed, fixed, draws)
    err = np.where(is_fixed, (fixed - y) ** 2, expected_uniform_sq_error(y))
    ok = np.isfinite(y)
    expected = {"stage_mse": float(np.mean(err[ok]))} if ok.any() else {}
    return Baseline("structure-aware random", 2, pred, expected, seed=seed, note="questioner 8, respondent 6, uniform 1-10 elsewhere")


def expected_tendency_agreement(
    human_aff_mean: Numbers,
    human_neg_mean: Numbers,
    questioner: Sequence[Literal["affirmative", "negative"] | None] | None = None,
) -> dict[str, float]:
    """Expected tendency agreement (metrics.tendency_agreement rule) of the random baselines.

    Per paired stage, the random baseline draws two independent uniform integers 1..10, so its
    tendency is affirmative with probability 45/100, a tie with 10/100, negative with 45/100. Under
    the structure-aware baseline a questioning/cross-examination pair (``questioner`` given for that
    pair) always favours the questioning side (8 vs 6). The agreement probability of a pair is the
    probability of the human sign; ``tendency_all_pairs`` averages it over all pairs,
    ``tendency_non_tie`` over pairs with a non-tie human tendency (random: exactly 0.45). Inputs
    (P,) each; ``questioner=None`` means the plain random baseline. NaN entries skipped; keys absent
    when their set is empty.
    """
    h = tendency_sign(human_aff_mean, human_neg_mean)
    q = [None] * h.size if questioner is None else list(questioner)
    if len(q) != h.size:
        raise InputError(f"questioner has {len(q)} entries but there are {h.size} paired stages")
    probs = []  # (P(+), P(0), P(-)) of the model per pair
    for i, side in enumerate(q):
        if side is None:
            probs.append((0.45, 0.10, 0.45))
        elif side == "affirmative":
            probs.append((1.0, 0.0, 0.0))
        elif side == "negative":
            probs.append((0.0, 0.0, 1.0))
        else:
            raise InputError(f"questioner[{i}]: {side!r} is not a side; use 'affirmative', 'negative' or None")
    agree = np.array([pr[0] if s == 1 else pr[1] if s == 0 else pr[2] if s == -1 else np.nan for pr, s in zip(probs, h)])
    ok = np.isfinite(agree)
    decisive = ok & (h != 0)
    out: dict[str, float] = {}
    if ok.any():
        out["tendency_all_pairs"] = float(agree[ok].mean())
    if decisive.any():
        out["tendency_non_tie"] = float(agree[decisive].mean())
    return out


# ---------------------------------------------------------------------------------------------
# Task 3


def _human_vectors(human_votes: Sequence[Any]) -> list[np.ndarray | None]:
    out: list[np.ndarray | None] = []
    for i, v in enumerate(human_votes):
        if v is None:
            out.append(None)
            continue
        a = np.asarray(v, dtype=float)
        if a.ndim != 1 or a.size == 0:
            raise InputError(f"human_votes[{i}]: expected one vote count per debater")
        out.append(a if np.all(np.isfinite(a)) and a.sum() > 0 else None)
    return out


def random_best_debater(human_votes: Sequence[Any], *, seed: int = 0) -> Baseline:
    """Task 3 random baseline (paper 3.3 "random selection"): one debater, uniformly at random, gets
    all 9 votes.

    ``human_votes``: per match the aggregated human votes (K_m,), used for K_m and the expectations;
    matches with no human vote are skipped in the expectations. ``expected``:
    ``best_debater_top1 = mean_m |D*_m| / K_m`` (the pick lands in the human top set with that
    probability); ``vote_share_mae = mean_m 2 (K_m - 1) / K_m^2`` (a one-hot share vector at c has
    MAE (2 - 2 q_c) / K, and E[q_c] = 1/K). The per-match expected vote-share correlation is 0; the
    pooled one is not exactly 0 when formats with different K are mixed (see metrics caveat).
    """
    hv = _human_vectors(human_votes)
    rng = np.random.default_rng(seed)
    preds: list[np.ndarray | None] = []
    for v in human_votes:
        k = np.asarray(v, dtype=float).size if v is not None else 0
        if k == 0:
            preds.append(None)
            continue
        p = np.zeros(k)
        p[rng.integers(0, k)] = PANEL_VOTES
        preds.append(p)
    used = [v for v in hv if v is not None]
    expected = {}
    if used:
        expected["best_debater_top1"] = float(np.mean([top_set(v).size / v.size for v in used]))
        expected["vote_share_mae"] = float(np.mean([2.0 * (v.size - 1) / v.size**2 for v in used]))
    return Baseline("random", 3, preds, expected, seed=seed, note="all 9 votes to one uniformly chosen debater")


def uniform_votes(human_votes: Sequence[Any]) -> Baseline:
    """Task 3 uniform votes (paper 3.3): 9/K votes to every debater (fractional), deterministic.

    ``expected["vote_share_mae"]`` is the exact value ``mean_m (1/K) sum_i |1/K - q_i|`` (paper .154).
    Its top-1 under the tie rule of :func:`adjudicator.evaluation.metrics.top1_credit` equals the random
    expectation (all K debaters tie), and its vote-share correlation is undefined within a format;
    the paper leaves both blank, so neither is given here.
    """
    hv = _human_vectors(human_votes)
    preds = []
    for v in human_votes:
        k = np.asarray(v, dtype=float).size if v is not None else 0
        preds.append(np.full(k, PANEL_VOTES / k) if k else None)
    used = [v for v in hv if v is not None]
    expected = {}
    if used:
        expected["vote_share_mae"] = float(np.mean([np.mean(np.abs(1.0 / v.size - vote_shares(v))) for v in used]))
    return Baseline("uniform votes", 3, preds, expected, note="9/K votes each")


def _third_speaker(sides: Sequence[Side | None], debater_labels: Sequence[Sequence[str]], formats: Sequence[str]) -> list[np.ndarray | None]:
    if not (len(sides) == len(debater_labels) == len(formats)):
        raise InputError(f"winners ({len(sides)}), debater_labels ({len(debater_labels)}) and formats ({len(formats)}) must be aligned per match")
    preds: list[np.ndarray | None] = []
    for i, (side, labels, fmt) in enumerate(zip(sides, debater_labels, formats)):
        try:
            has_third = get_format(fmt).has_third_speaker
        except KeyError:
            raise InputError(f"formats[{i}]: {fmt!r} is not a known format") from None
        labels = list(labels)
        if not has_third or side is None:
            preds.append(None)
            continue
        target = position_label(side, 3)
        if target not in labels:
            raise InputError(f"debater_labels[{i}]: {target!r} is missing from a {fmt} match")
        v = np.zeros(len(labels))
        v[labels.index(target)] = PANEL_VOTES
        preds.append(v)
    return preds


def predicted_winner_third_speaker(
    pred_p: Numbers, debater_labels: Sequence[Sequence[str]], formats: Sequence[str]
) -> Baseline:
    """Task 3 heuristic (paper 3.3, A.5): all 9 votes to Speaker 3 of the side the arm's Task 1 ``p``
    predicts (p > 0.5 affirmative, p < 0.5 negative).

    ``pred_p`` (M,), ``debater_labels``: per match the position labels in the order of the vote
    vectors (``MatchView.debater_labels()``), ``formats`` (M,). The prediction is None (excluded)
    for formats without a third speaker (only ccdb-4v4 has one) and where the arm has no predicted
    side (missing p or p == 0.5).
    """
    sides = [winner_from_p(None if p is None else float(p)) for p in pred_p]
    return Baseline(
        "predicted-winner third speaker", 3, _third_speaker(sides, debater_labels, formats), note="4v4 only; Speaker 3 of the predicted winning side"
    )


def oracle_third_speaker(gold_winner: Sequence[GoldWinner], debater_labels: Sequence[Sequence[str]], formats: Sequence[str]) -> Baseline:
    """Task 3 oracle reference (Appendix B.1): all 9 votes to Speaker 3 of the *gold* winning side.

    Uses gold information and only the 4v4 subset, so it is marked ``comparable=False`` and must be
    kept out of rankings. None for formats without a third speaker or a non-decisive gold winner.
    """
    gold = gold_winners(gold_winner)
    sides: list[Side | None] = ["affirmative" if g == "affirmative" else "negative" if g == "negative" else None for g in gold]
    return Baseline(
        "winning-side third speaker (oracle)", 3, _third_speaker(sides, debater_labels, formats), comparable=False, note="non-comparable: uses the gold winner; 4v4 only"
    )


__all__ = [
    "Baseline",
    "always_affirmative",
    "constant_side_baseline",
    "expected_tendency_agreement",
    "expected_uniform_sq_error",
    "majority_class_baseline",
    "majority_side",
    "oracle_third_speaker",
    "predicted_winner_third_speaker",
    "random_best_debater",
    "random_stage_scores",
    "random_winner",
    "structure_aware_random_scores",
    "uniform_votes",
]

"""The alternative annotator test: could the arm replace one of the human judges?

Calderon, Reichart and Dror, "The Alternative Annotator Test for LLM-as-a-Judge" (ACL 2025), section 3,
computed as the authors' own code computes it (``nitaytech/AltTest``, ``alt_test_example.ipynb``, function
``alt_test``; checked against its worked example in ``tests/test_alt_test.py``):

- Instances. An instance counts when at least :data:`MIN_HUMANS_PER_INSTANCE` (2) judges annotated it
  and the arm has an annotation for it (a missing or None annotation is no annotation).
- Leave one judge h out at a time. On every counted instance i that h annotated, score the arm's
  annotation f and h's own against the *remaining* judges' annotations R(i) with the task's scoring
  function: :func:`accuracy` (the share of R(i) equal to the annotation: labels such as a winner) or
  :func:`neg_rmse` (minus the root mean squared difference to R(i): numbers such as a stage score, or
  equal-length vectors such as vote shares, where the mean runs over judges and components). Then

      W_f = 1 if S(f) >= S(h) else 0,   W_h = 1 if S(h) >= S(f) else 0,

  the arm's advantage probability rho_f = mean W_f and the judge's rho_h = mean W_h.
- A judge with fewer than :data:`MIN_INSTANCES` (30) counted instances is not tested (the authors skip
  it: below 30 the t-test's normality assumption does not hold); when no judge can be tested the test
  has no result, and the report says "not enough instances", never pass or fail.
- The arm *wins* against h when the one-sided one-sample t-test of d = W_h - W_f against the margin
  epsilon (scipy's ``ttest_1samp(d, epsilon, alternative="less")``, H0: mean(d) >= epsilon) is rejected
  by the Benjamini-Yekutieli procedure over the tested judges at level alpha (step-up: reject the k
  smallest p-values where k is the largest rank with p_(k) <= k / m * alpha / H_m, H_m = 1 + 1/2 + ...
  + 1/m; scipy's ``false_discovery_control(method="by")`` adjusted p <= alpha is the same rule). A
  constant d is what scipy makes of it: t = -inf and p = 0 when mean(d) < epsilon, t = +inf and p = 1
  when it is above; t = 0/0 (mean(d) = epsilon) gives no p, and that judge is not won.
- omega, the winning rate, is the share of tested judges the arm wins against; the arm *passes* when
  omega >= 0.5. rho, the average advantage probability, is the mean of rho_f over the tested judges
  (the measure to compare arms by).

epsilon is the cost-benefit margin granted to the cheaper annotator: the authors' rule of thumb is 0.2
for experts (debate judges are), 0.15 for skilled annotators, 0.1 for crowd workers.

A constant answer is an answer: an arm that answers "tie" (p = 0.5) on every match agrees with no
judge's winner, scores 0 everywhere, and wins W_f only where the left-out judge agrees with none of the
others; the test gives it omega = 0 and a small rho, not "not testable".

Annotators here are judge *slots* (``j1``, ``j2``, ``j3`` of each match's panel): a CCDB match is judged
by its own panel, so one "judge" combines the people who sat in that seat -- the paper's combined
annotator (its FAQ), which it notes may raise the variance.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from adjudicator.frozen import FrozenModel

#: Cost-benefit margin epsilon for expert annotators (Calderon et al. 2025, section 3.3 and FAQ).
DEFAULT_EPSILON = 0.2
#: The false discovery rate of the Benjamini-Yekutieli procedure over the judges (the authors' q_fdr).
DEFAULT_ALPHA = 0.05
#: Fewest counted instances a left-out judge needs to be tested (the authors' min_instances_per_human).
MIN_INSTANCES = 30
#: Fewest judges an instance needs to count (the authors' min_humans_per_instance).
MIN_HUMANS_PER_INSTANCE = 2
#: What the report says when no judge has enough instances.
NOT_ENOUGH = "not enough instances"

Scoring = Callable[[Any, Sequence[Any]], float]


def accuracy(annotation: Any, others: Sequence[Any]) -> float:
    """The share of ``others`` equal to ``annotation`` (labels), in [0, 1]."""
    return float(np.mean([annotation == o for o in others]))


def neg_rmse(annotation: Any, others: Sequence[Any]) -> float:
    """Minus the root mean squared difference between ``annotation`` and each of ``others`` (numbers,
    or equal-length vectors: the mean then runs over every judge and component), <= 0."""
    a = np.asarray(annotation, dtype=float)
    return -1.0 * float(np.sqrt(np.mean([(a - np.asarray(o, dtype=float)) ** 2 for o in others])))


class JudgeTest(FrozenModel):
    """The arm against one left-out judge: ``n`` counted instances, ``rho_f``/``rho_h`` the advantage
    probabilities of the arm and the judge (0-1), the t statistic (None when not finite: a constant
    difference), the raw and Benjamini-Yekutieli adjusted one-sided p-values (None when undefined),
    whether the arm ``won`` (None: not tested), and a ``note``."""

    judge: str
    n: int
    rho_f: float | None = None
    rho_h: float | None = None
    t: float | None = None
    p_value: float | None = None
    p_adjusted: float | None = None
    won: bool | None = None
    note: str = ""


class AltTestResult(FrozenModel):
    """One task's alternative annotator test: ``epsilon``, ``alpha`` and ``min_instances``, the winning
    rate ``omega`` (None when no judge has enough instances), ``passed`` (omega >= 0.5; None then too),
    the average advantage probability ``rho`` (mean rho_f over the tested judges), one
    :class:`JudgeTest` per judge and the ``scoring`` function's name (``accuracy`` / ``neg_rmse``)."""

    epsilon: float
    alpha: float
    min_instances: int = MIN_INSTANCES
    omega: float | None
    passed: bool | None
    rho: float | None
    judges: list[JudgeTest]
    scoring: str

    def verdict_text(self) -> str:
        """One plain sentence: passes, does not pass, or not enough instances."""
        if self.omega is None:
            most = max((j.n for j in self.judges), default=0)
            return f"{NOT_ENOUGH}: no judge has the {self.min_instances} instances the test needs (most: {most}), so there is no result, neither pass nor fail"
        tested = [j for j in self.judges if j.won is not None]
        won = sum(1 for j in tested if j.won)
        word = "passes" if self.passed else "does not pass"
        return (
            f"the arm {word} the alternative annotator test: it beats {won} of {len(tested)} judges "
            f"(ω = {self.omega:.3f}, needs ≥ 0.5; ε = {self.epsilon}, α = {self.alpha}, Benjamini–Yekutieli)"
        )


def _t_test(d: np.ndarray, epsilon: float) -> tuple[float | None, float | None]:
    """(t, one-sided p) of H0: mean(d) >= epsilon, as scipy gives them; t None when not finite, p None
    when undefined."""
    from scipy import stats  # here, not at import: scipy.stats costs about a second at start-up

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a constant d: scipy warns, then returns +-inf
        res = stats.ttest_1samp(d, epsilon, alternative="less")
    t, p = float(res.statistic), float(res.pvalue)
    return (t if math.isfinite(t) else None), (p if math.isfinite(p) else None)


def _indicators(humans: Mapping[str, Mapping[Hashable, Any]], judge: str, model: Mapping[Hashable, Any], counted: set[Hashable], scoring: Scoring) -> tuple[list[int], list[int]]:
    """(W_f, W_h) over the counted instances ``judge`` annotated."""
    w_f: list[int] = []
    w_h: list[int] = []
    for inst, label in humans[judge].items():
        if inst not in counted or label is None:
            continue
        others = [h[inst] for k, h in humans.items() if k != judge and h.get(inst) is not None]
        s_h, s_f = scoring(label, others), scoring(model[inst], others)
        w_f.append(1 if s_f >= s_h else 0)
        w_h.append(1 if s_h >= s_f else 0)
    return w_f, w_h


def _by_rejections(p_values: Sequence[float | None], alpha: float) -> tuple[list[float | None], list[bool]]:
    """Benjamini-Yekutieli adjusted p-values and rejections (adjusted p <= alpha); an undefined p
    takes part as 1 (it ranks last and is never rejected, as the authors' step-up treats it)."""
    from scipy import stats

    if not p_values:
        return [], []
    filled = [1.0 if p is None else p for p in p_values]
    adjusted = [float(q) for q in stats.false_discovery_control(filled, method="by")]
    return [None if p is None else q for p, q in zip(p_values, adjusted)], [p is not None and q <= alpha for p, q in zip(p_values, adjusted)]


def alt_test(
    humans: Mapping[str, Mapping[Hashable, Any]],
    model: Mapping[Hashable, Any],
    scoring: Scoring = accuracy,
    *,
    epsilon: float = DEFAULT_EPSILON,
    alpha: float = DEFAULT_ALPHA,
    min_instances: int = MIN_INSTANCES,
) -> AltTestResult:
    """The alternative annotator test (module docstring) of ``model`` against ``humans``.

    ``humans`` judge -> instance -> annotation (None: not annotated); ``model`` instance -> the arm's
    annotation (missing or None: none, the instance does not count); ``scoring`` :func:`accuracy` for
    labels or :func:`neg_rmse` for numbers; ``epsilon`` in [0, 1); ``alpha`` in (0, 1);
    ``min_instances`` >= 2 (the authors' 30 unless a caller asks otherwise). Raises ValueError for
    fewer than two judges or an argument out of range."""
    if len(humans) < 2:
        raise ValueError(f"the alternative annotator test needs at least 2 human judges, got {len(humans)}")
    if not 0 <= epsilon < 1 or not 0 < alpha < 1 or min_instances < 2:
        raise ValueError(f"epsilon must be in [0, 1), alpha in (0, 1) and min_instances at least 2, got {epsilon}, {alpha}, {min_instances}")
    coverage: dict[Hashable, int] = {}
    for own in humans.values():
        for inst, label in own.items():
            if label is not None:
                coverage[inst] = coverage.get(inst, 0) + 1
    counted = {i for i, k in coverage.items() if k >= MIN_HUMANS_PER_INSTANCE and model.get(i) is not None}
    rows: list[dict[str, Any]] = []
    for judge in humans:
        w_f, w_h = _indicators(humans, judge, model, counted, scoring)
        n = len(w_f)
        if n < min_instances:
            rows.append({"judge": judge, "n": n, "note": f"{NOT_ENOUGH} ({n} < {min_instances}): not tested"})
            continue
        t, p = _t_test(np.array(w_h, dtype=float) - np.array(w_f, dtype=float), epsilon)
        note = "" if t is not None else ("the difference W_h - W_f is constant: t is infinite" if p is not None else "the difference W_h - W_f is constant and equals ε: no p")
        rows.append({"judge": judge, "n": n, "rho_f": float(np.mean(w_f)), "rho_h": float(np.mean(w_h)), "t": t, "p_value": p, "note": note})
    tested = [r for r in rows if "rho_f" in r]
    adjusted, won = _by_rejections([r["p_value"] for r in tested], alpha)
    for r, q, w in zip(tested, adjusted, won):
        r.update(p_adjusted=q, won=w)
    omega = sum(won) / len(tested) if tested else None
    return AltTestResult(
        epsilon=epsilon,
        alpha=alpha,
        min_instances=min_instances,
        omega=omega,
        passed=None if omega is None else omega >= 0.5,
        rho=float(np.mean([r["rho_f"] for r in tested])) if tested else None,
        judges=[JudgeTest(**r) for r in rows],
        scoring=getattr(scoring, "__name__", "scoring"),
    )

"""The alternative annotator test: could the arm replace one of the human judges?

Calderon, Reichart and Dror, "The Alternative Annotator Test for LLM-as-a-Judge" (ACL 2025), section 3.
Leave one human judge out at a time. On every instance that judge labelled, compare two annotators
against the *remaining* judges: the arm (f) and the left-out judge (h). The alignment of an annotation x
with the remaining judges R on instance i is S(x, i) = mean over r in R of sim(x, r's label), with
``sim`` 1/0 agreement for labels (a winner) and minus the absolute difference for numbers (a stage
score, a vote share). Then per instance

    W_f = 1 if S(f) >= S(h) else 0,   W_h = 1 if S(h) >= S(f) else 0,

and per left-out judge j the advantage probabilities rho_f = mean W_f and rho_h = mean W_h. The arm
*wins* against judge j when a one-sided paired t-test on d = W_h - W_f rejects H0: mean(d) >= epsilon
(i.e. rho_f <= rho_h - epsilon) in favour of rho_f > rho_h - epsilon; epsilon is the cost-benefit
margin granted to the cheaper annotator (the paper's rule of thumb: 0.2 for experts, which debate
judges are). The p-values of all left-out judges are corrected together with Benjamini-Yekutieli
(scipy's ``false_discovery_control(method="by")``, valid under any dependence). The winning rate omega
is the share of judges the arm beats at level alpha; the arm *passes* when omega >= 0.5. The average
advantage probability rho is the mean of rho_f over the judges (a measure to compare arms by).

Edge cases, stated rather than guessed: a judge with fewer than :data:`MIN_INSTANCES` instances is left
out of omega (its row says why); when every d is equal the t statistic is undefined and the test is
decided by the sign: p = 0 when mean(d) < epsilon, else p = 1. The paper asks for at least 30
instances per judge for the t-test's normality; rows with fewer carry that caveat.

Annotators here are judge *slots* (``j1``, ``j2``, ``j3`` of each match's panel): a CCDB match is judged
by its own panel, so one "judge" combines the people who sat in that seat -- the paper's combined
annotator (its FAQ), which it notes may raise the variance.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

import numpy as np

from adjudicator.frozen import FrozenModel

#: Cost-benefit margin epsilon for expert annotators (Calderon et al. 2025, section 3.3 and FAQ).
DEFAULT_EPSILON = 0.2
#: Significance level of each judge's test after the Benjamini-Yekutieli correction.
DEFAULT_ALPHA = 0.05
#: Fewest instances a left-out judge needs to be tested at all.
MIN_INSTANCES = 2
#: Instances per judge the paper asks for (t-test normality); fewer are reported with a caveat.
RECOMMENDED_INSTANCES = 30

Similarity = Callable[[Any, Any], float]


def agreement(a: Any, b: Any) -> float:
    """1.0 when two labels are equal, else 0.0 (winners)."""
    return 1.0 if a == b else 0.0


def negative_distance(a: Any, b: Any) -> float:
    """Minus the absolute difference of two numbers (stage scores), or minus the L1 distance of two
    equal-length vectors (vote shares)."""
    return -float(np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float)).sum())


class JudgeTest(FrozenModel):
    """The arm against one left-out judge: ``n`` instances, ``rho_f``/``rho_h`` the advantage
    probabilities of the arm and the judge (0-1), the t statistic (None when undefined), the raw and
    Benjamini-Yekutieli adjusted one-sided p-values, whether the arm ``won`` (adjusted p < alpha), and a
    ``note`` (too few instances, fewer than recommended, a constant difference)."""

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
    """One task's alternative annotator test: ``epsilon`` and ``alpha``, the winning rate ``omega`` (share
    of tested judges the arm beats; None when no judge could be tested), ``passed`` (omega >= 0.5), the
    average advantage probability ``rho`` (mean rho_f), and one :class:`JudgeTest` per judge."""

    epsilon: float
    alpha: float
    omega: float | None
    passed: bool | None
    rho: float | None
    judges: list[JudgeTest]
    similarity: str

    def verdict_text(self) -> str:
        """One plain sentence on whether the arm passes."""
        if self.omega is None:
            return "not testable: no judge has enough instances shared with the arm and another judge"
        tested = [j for j in self.judges if j.won is not None]
        won = sum(1 for j in tested if j.won)
        word = "PASSES" if self.passed else "does not pass"
        return f"the arm {word} the alternative annotator test: it beats {won} of {len(tested)} judges (omega = {self.omega:.3f}, needs >= 0.5; epsilon = {self.epsilon}, alpha = {self.alpha}, Benjamini-Yekutieli)"


def _p_value(d: np.ndarray, epsilon: float) -> tuple[float | None, float]:
    """(t, one-sided p) of H0: mean(d) >= epsilon against mean(d) < epsilon; a constant d is decided
    by its sign (t None, p 0 or 1)."""
    if np.ptp(d) == 0:
        return None, 0.0 if float(d[0]) < epsilon else 1.0
    from scipy import stats  # here, not at import: scipy.stats costs about a second at start-up

    res = stats.ttest_1samp(d, epsilon, alternative="less")
    return float(res.statistic), float(res.pvalue)


def alt_test(
    humans: Mapping[str, Mapping[Hashable, Any]],
    model: Mapping[Hashable, Any],
    similarity: Similarity = agreement,
    *,
    epsilon: float = DEFAULT_EPSILON,
    alpha: float = DEFAULT_ALPHA,
) -> AltTestResult:
    """The alternative annotator test (module docstring) of ``model`` against ``humans``.

    ``humans`` judge -> instance -> annotation; ``model`` instance -> the arm's annotation (missing or
    None: the arm has none, the instance is skipped); ``similarity`` :func:`agreement` for labels or
    :func:`negative_distance` for numbers; ``epsilon`` in [0, 1); ``alpha`` in (0, 1). Raises ValueError
    for fewer than two judges or an epsilon or alpha out of range."""
    if len(humans) < 2:
        raise ValueError(f"the alternative annotator test needs at least 2 human judges, got {len(humans)}")
    if not 0 <= epsilon < 1 or not 0 < alpha < 1:
        raise ValueError(f"epsilon must be in [0, 1) and alpha in (0, 1), got {epsilon}, {alpha}")
    rows: list[dict[str, Any]] = []
    for judge, own in humans.items():
        w_f: list[float] = []
        w_h: list[float] = []
        for inst, label in own.items():
            if label is None or model.get(inst) is None:
                continue
            others = [h[inst] for k, h in humans.items() if k != judge and h.get(inst) is not None]
            if not others:
                continue
            s_f = float(np.mean([similarity(model[inst], o) for o in others]))
            s_h = float(np.mean([similarity(label, o) for o in others]))
            w_f.append(1.0 if s_f >= s_h else 0.0)
            w_h.append(1.0 if s_h >= s_f else 0.0)
        n = len(w_f)
        if n < MIN_INSTANCES:
            rows.append({"judge": judge, "n": n, "note": f"fewer than {MIN_INSTANCES} instances shared with the arm and another judge; not tested"})
            continue
        d = np.array(w_h) - np.array(w_f)
        t, p = _p_value(d, epsilon)
        notes = []
        if t is None:
            notes.append("every instance gave the same difference; decided by its sign")
        if n < RECOMMENDED_INSTANCES:
            notes.append(f"n < {RECOMMENDED_INSTANCES}: the paper's t-test normality assumption is weak here")
        rows.append({"judge": judge, "n": n, "rho_f": float(np.mean(w_f)), "rho_h": float(np.mean(w_h)), "t": t, "p_value": p, "note": "; ".join(notes)})
    tested = [r for r in rows if "p_value" in r]
    if tested:
        from scipy import stats

        adjusted = stats.false_discovery_control([r["p_value"] for r in tested], method="by")
        for r, q in zip(tested, adjusted):
            r["p_adjusted"] = float(q)
            r["won"] = bool(q < alpha)
    omega = sum(1 for r in tested if r["won"]) / len(tested) if tested else None
    rho = float(np.mean([r["rho_f"] for r in tested])) if tested else None
    return AltTestResult(
        epsilon=epsilon,
        alpha=alpha,
        omega=omega,
        passed=None if omega is None else omega >= 0.5,
        rho=rho,
        judges=[JudgeTest(**r) for r in rows],
        similarity=getattr(similarity, "__name__", "similarity"),
    )

"""Calibration of the winner tendency p, fitted on a fold's training portion only (protocol 001
s.03: "any data-dependent baseline or calibration must be fitted on the training portion of each
fold only").

Method: Platt scaling (Platt 1999) on the logit of p,

    p_cal = sigmoid(a * logit(p) + b),   logit(p) = ln(p / (1 - p)),  p clipped to [0.005, 0.995],

with (a, b) maximising the Bernoulli likelihood of the training matches' outcomes (affirmative won
= 1, negative won = 0; ties and matches without a parsed p are left out), the outcomes smoothed
as Platt proposed: a target of (N+ + 1) / (N+ + 2) for an affirmative win and 1 / (N- + 2) for a
negative one, so that a training portion that a constant separates perfectly still gives finite
parameters. Fitted with ``scipy.optimize.minimize`` (L-BFGS-B) from (a, b) = (1, 0), the identity.

Why Platt and not isotonic regression: a fold's training portion holds tens of matches (CCDB's
148 matches give about 99; PanelBench DebateArt's 61 about 41). Isotonic regression fits a free
step function, one step per block of training points, which with so few points is mostly noise
(Niculescu-Mizil and Caruana, ICML 2005, found it overfits below about a thousand calibration
points) and returns p of exactly 0 or 1 on whole ranges. Platt has two parameters, is monotone in
p (so it keeps the order of the matches when a > 0) and stays smooth. It can move the 0.5
threshold (through b), so calibrated winner accuracy may differ from raw: both are reported.

Edge cases: fewer than :data:`MIN_POINTS` usable training matches -> not fitted (None, with the
reason); every training p identical (no spread to fit a slope) -> a = 0 and b the smoothed log-odds
of the affirmative rate, i.e. a constant p_cal equal to the training base rate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from adjudicator.frozen import FrozenModel

METHOD = "platt"
#: p is clipped to [EPS, 1 - EPS] before the logit (the protocol's p has steps of 0.01, and 0 or 1
#: would make the logit infinite).
EPS = 0.005
#: Fewest training matches (decisive gold, parsed p) a fit needs.
MIN_POINTS = 4


class PlattFit(FrozenModel):
    """A fitted calibration: p_cal = sigmoid(a * logit(clip(p)) + b) (module docstring), fitted on
    ``n`` training matches of which ``n_affirmative`` the affirmative won; ``log_loss`` the smoothed
    training negative log-likelihood per match at the fit (nats); ``method`` always ``"platt"``."""

    method: str = METHOD
    a: float
    b: float
    n: int
    n_affirmative: int
    log_loss: float

    def apply(self, p: Sequence[float] | np.ndarray) -> np.ndarray:
        """The calibrated p of tendencies ``p`` (shape (M,), NaN kept as NaN)."""
        x = np.asarray(p, dtype=float)
        return _sigmoid(self.a * _logit(x) + self.b)


def _logit(p: np.ndarray) -> np.ndarray:
    q = np.clip(p, EPS, 1.0 - EPS)
    return np.log(q / (1.0 - q))


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def training_points(p: Sequence[float] | np.ndarray, winners: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """The usable (p, y) pairs of a training portion: matches with a parsed p (finite) and a
    decisive gold winner; y = 1 for an affirmative win, 0 for a negative one."""
    x = np.asarray(p, dtype=float)
    keep = [i for i, w in enumerate(winners) if w in ("affirmative", "negative") and math.isfinite(x[i])]
    return x[keep], np.array([1.0 if winners[i] == "affirmative" else 0.0 for i in keep])


def fit_platt(p: Sequence[float] | np.ndarray, winners: Sequence[Any]) -> PlattFit | str:
    """Fit Platt scaling on training tendencies ``p`` (M,) and their gold ``winners`` (M,: side,
    ``"tie"`` or None). Returns the fit, or a one-line reason when it cannot be fitted (fewer than
    :data:`MIN_POINTS` usable matches)."""
    from scipy.optimize import minimize

    x, y = training_points(p, winners)
    n = len(y)
    if n < MIN_POINTS:
        return f"not fitted: {n} training match(es) with a decisive gold winner and a parsed p, at least {MIN_POINTS} needed"
    n_pos = int(y.sum())
    t = np.where(y == 1.0, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n - n_pos + 2.0))
    z = _logit(x)

    def nll(theta: np.ndarray) -> tuple[float, np.ndarray]:
        s = theta[0] * z + theta[1]
        # log(1 + e^s) - t * s, written stably; its gradient is (sigmoid(s) - t) * (z, 1)
        loss = np.logaddexp(0.0, s) - t * s
        g = _sigmoid(s) - t
        return float(loss.mean()), np.array([float((g * z).mean()), float(g.mean())])

    if float(np.ptp(z)) == 0.0:  # no spread: only the intercept is identified
        b = math.log(float(t.mean()) / (1.0 - float(t.mean())))
        return PlattFit(a=0.0, b=b, n=n, n_affirmative=n_pos, log_loss=nll(np.array([0.0, b]))[0])
    res = minimize(nll, np.array([1.0, 0.0]), jac=True, method="L-BFGS-B")
    a, b = (float(v) for v in res.x)
    return PlattFit(a=a, b=b, n=n, n_affirmative=n_pos, log_loss=float(res.fun))

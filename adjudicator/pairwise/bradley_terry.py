"""Bradley-Terry strengths from pairwise comparisons (seed 004, section 3.2; Hunter 2004).

Model: competitor ``i`` has a log-strength ``theta_i`` and beats ``j`` with probability
``P(i > j) = exp(theta_i) / (exp(theta_i) + exp(theta_j))``.

Ties: a tie counts as half a win for each of the two competitors ("two half comparisons"), so a
tie weighs as much as one decisive comparison. Seed 004 instead counts a tie as two full reciprocal
comparisons (one win each way), which gives ties twice the weight of a decisive answer; we keep the
weight of every judged pair equal. No tie parameter is fitted (Rao-Kupper is not used).

Fit: the maximum a posteriori estimate under an isotropic Gaussian prior ``theta ~ N(0, 1/alpha)``
(``alpha`` = :data:`PRIOR_PRECISION` by default), computed by ``choix.opt_pairwise`` (Newton-CG).
The prior keeps strengths finite when a competitor wins every comparison (a panel of three that
agrees on a pair would otherwise drive the maximum-likelihood estimate to infinity). choix reads
(winner, loser) pairs with unit weight, so every decisive result is passed twice and a tie once in
each direction: choix's objective is then twice the weighted negative log-likelihood plus
``alpha * sum(theta^2)``, whose minimiser is the weighted MAP above. The returned log-strengths are
centred (mean 0), rounded to 6 decimals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from pydantic import Field

from adjudicator.frozen import FrozenModel

#: Precision of the Gaussian prior on each log-strength (variance 1 / 0.1 = 10): weak enough that a
#: 2:1 split of three judges gives P close to 2/3, strong enough that a 3:0 split stays finite (P ~ 0.95).
PRIOR_PRECISION = 0.1

Outcome = Literal["first", "second", "tie"]


class BradleyTerryFit(FrozenModel):
    """One fit's inputs and outputs.

    - ``items``: the competitors, in the order the fit was given them.
    - ``wins``: ``wins[i][j]`` = comparisons ``items[i]`` won against ``items[j]`` (a tie adds 0.5
      to both cells); the fit's whole input besides ``alpha``.
    - ``alpha``: the prior precision used.
    - ``log_strengths``: centred theta per item (same order), 6 decimals.
    - ``comparisons``: the number of results fitted (ties included).
    """

    items: list[str]
    wins: list[list[float]]
    alpha: float = Field(ge=0.0)
    log_strengths: list[float]
    comparisons: int = Field(ge=0)

    def theta(self, item: str) -> float:
        """The log-strength of ``item``. Raises KeyError for an item not fitted."""
        try:
            return self.log_strengths[self.items.index(item)]
        except ValueError:
            raise KeyError(item) from None

    def probability(self, a: str, b: str) -> float:
        """P(a beats b) under the fit, in (0, 1): ``1 / (1 + exp(theta_b - theta_a))``."""
        return 1.0 / (1.0 + math.exp(self.theta(b) - self.theta(a)))

    def order(self) -> list[str]:
        """The items by strength, strongest first; equal strengths (to 6 decimals) keep the given order."""
        index = {it: k for k, it in enumerate(self.items)}
        return sorted(self.items, key=lambda it: (-self.theta(it), index[it]))

    def ranks(self) -> dict[str, int]:
        """Item -> rank 1..n by :meth:`order` (1 = strongest; no ties)."""
        return {it: r for r, it in enumerate(self.order(), start=1)}


def win_matrix(items: Sequence[str], results: Sequence[tuple[str, str, Outcome]]) -> list[list[float]]:
    """``results`` as (first, second, outcome) -> the ``wins`` matrix of :class:`BradleyTerryFit`.
    Raises ValueError for an item not in ``items`` or a competitor compared with itself."""
    index = {it: k for k, it in enumerate(items)}
    wins = [[0.0] * len(items) for _ in items]
    for first, second, outcome in results:
        if first not in index or second not in index:
            raise ValueError(f"bradley-terry: {first!r} or {second!r} is not one of {list(items)}")
        if first == second:
            raise ValueError(f"bradley-terry: {first!r} is compared with itself")
        i, j = index[first], index[second]
        if outcome == "first":
            wins[i][j] += 1.0
        elif outcome == "second":
            wins[j][i] += 1.0
        else:
            wins[i][j] += 0.5
            wins[j][i] += 0.5
    return wins


def fit(items: Sequence[str], results: Sequence[tuple[str, str, Outcome]], alpha: float = PRIOR_PRECISION) -> BradleyTerryFit:
    """Fit Bradley-Terry strengths of ``items`` (n >= 1 distinct names) to ``results``, each
    (first, second, outcome) with outcome ``"first"``, ``"second"`` or ``"tie"`` (module docstring).

    With no results every strength is 0. ``alpha`` = 0 gives the maximum-likelihood estimate, which
    exists only when every split of the items has a comparison won across it in both directions.
    Raises ValueError for duplicate items, an unknown item in ``results``, or a negative alpha.
    """
    items = list(items)
    if len(set(items)) != len(items):
        raise ValueError("bradley-terry: duplicate items")
    if alpha < 0:
        raise ValueError(f"bradley-terry: alpha must be >= 0, got {alpha}")
    wins = win_matrix(items, results)
    index = {it: k for k, it in enumerate(items)}
    data: list[tuple[int, int]] = []
    for first, second, outcome in results:
        i, j = index[first], index[second]
        if outcome == "first":
            data += [(i, j), (i, j)]
        elif outcome == "second":
            data += [(j, i), (j, i)]
        else:
            data += [(i, j), (j, i)]
    if len(items) < 2 or not data:
        theta = [0.0] * len(items)
    else:
        import choix

        params = choix.opt_pairwise(len(items), data, alpha=alpha)
        centre = float(sum(params)) / len(items)
        theta = [round(float(x) - centre, 6) + 0.0 for x in params]
    return BradleyTerryFit(items=items, wins=wins, alpha=alpha, log_strengths=theta, comparisons=len(results))

"""Checks shared by every statistic of :mod:`adjudicator.evaluation`: aligned inputs, gold winners, p.

Inputs are aligned by position (item ``i`` of a prediction belongs to item ``i`` of the gold); a
missing value is ``NaN`` (numbers) or ``None``. A bad input raises
:class:`adjudicator.errors.InputError` naming the argument (and the item, where there is one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from adjudicator.errors import InputError

GoldWinner = Literal["affirmative", "negative", "tie"] | None
GOLD_WINNERS = ("affirmative", "negative", "tie", None)

#: A 1-D sequence of numbers as the metric functions take it: a list (``None`` = missing) or a
#: float array (``NaN`` = missing).
Numbers = Sequence[float | None] | np.ndarray


def vector(x: Any, name: str) -> np.ndarray:
    """A 1-D float array; ``None`` entries become NaN. Raises InputError for anything else."""
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected a 1-D sequence of numbers (NaN or None for missing)") from None
    if arr.ndim != 1:
        raise InputError(f"{name}: expected a 1-D sequence, got shape {arr.shape}")
    return arr


def same_length(*pairs: tuple[str, Any]) -> int:
    """The common length of the named inputs ``(name, sequence)``; InputError naming every length
    when they differ."""
    lengths = {name: len(a) for name, a in pairs}
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"{k} has {v}" for k, v in lengths.items())
        raise InputError(f"inputs must be aligned item by item: {desc}")
    return next(iter(lengths.values()))


def gold_winners(gold: Sequence[Any], name: str = "gold_winner") -> list[GoldWinner]:
    """``gold`` as a list, each item ``"affirmative" | "negative" | "tie" | None``; InputError naming
    the first other item."""
    out = list(gold)
    for i, g in enumerate(out):
        if g not in GOLD_WINNERS:
            raise InputError(f"{name}[{i}]: {g!r} is not a winner; use 'affirmative', 'negative', 'tie' or None")
    return out


def check_p(p: np.ndarray, name: str = "pred_p") -> None:
    """InputError when a finite winner tendency lies outside [0, 1] (NaN = missing is allowed)."""
    finite = p[np.isfinite(p)]
    if finite.size and (finite.min() < 0.0 or finite.max() > 1.0):
        raise InputError(f"{name}: winner tendency p must lie in [0, 1] (NaN for a missing prediction)")

"""The single-call protocol's answers as pydantic models; each model's JSON schema
(:func:`~adjudicator.model.schema.response_schema`) is the task's response schema.

Each answer gives its ``basis`` (the reasons) before the value. The readers of
:mod:`adjudicator.single_call.recovery` accept more than these shapes (the paper's ``p`` for a score,
labels as top-level keys for votes).
"""

from __future__ import annotations

from functools import lru_cache

from adjudicator.model.schema import OutputModel, output_model, votes_model


class WinnerTendencyAnswer(OutputModel):
    """Task 1: the reasons, then p in [0, 1] (above 0.5 the affirmative)."""

    basis: str
    p: float


class StageScoreAnswer(OutputModel):
    """Task 2: the reasons, then the side's integer score 1-10 in the stage."""

    basis: str
    score: int


@lru_cache(maxsize=64)
def best_debater_answer(labels: tuple[str, ...]) -> type[OutputModel]:
    """Task 3: the reasons, then the votes as an object with one integer per position label."""
    return output_model("BestDebaterAnswer", basis=str, votes=votes_model(labels))

"""The single-call protocol's answers as pydantic models; each model's JSON schema
(:func:`~adjudicator.model.schema.response_schema`) is the task's response schema, exact
(:mod:`adjudicator.model.schema`): p a number in [0, 1], a score an integer 1-10, the votes exactly
nine position labels (one per vote, a label repeated for each of its votes).

Each answer gives its ``basis`` (the reasons) before the value. The readers of
:mod:`adjudicator.single_call.recovery` accept more than these shapes (the paper's ``p`` for a score,
a label -> count mapping, labels as top-level keys for votes).
"""

from __future__ import annotations

from functools import lru_cache

from adjudicator.model.schema import OutputModel, ballots_of, output_model, probability, score
from adjudicator.verdict.ballots import PANEL_VOTES

#: Task 1: the reasons, then p in [0, 1] (above 0.5 the affirmative).
WinnerTendencyAnswer: type[OutputModel] = output_model("WinnerTendencyAnswer", basis=str, p=probability())

#: Task 2: the reasons, then the side's integer score 1-10 in the stage.
StageScoreAnswer: type[OutputModel] = output_model("StageScoreAnswer", basis=str, score=score())


@lru_cache(maxsize=64)
def best_debater_answer(labels: tuple[str, ...]) -> type[OutputModel]:
    """Task 3: the reasons, then the nine votes, each a position label of ``labels``."""
    return output_model("BestDebaterAnswer", basis=str, votes=ballots_of(labels, PANEL_VOTES))

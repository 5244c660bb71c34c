"""Reading the single-call protocol's answers: validators (decoded object -> value) and the stage-3
recoveries (text -> candidate object) of :func:`~adjudicator.model.parsing.parse_output`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adjudicator.model.parsing import find_labels, find_number, find_votes
from adjudicator.model.validators import OutputInvalid, as_probability, as_score, as_votes
from adjudicator.verdict.ballots import PANEL_VOTES


def read_task1(obj: Mapping[str, Any]) -> float:
    """p from a decoded Task 1 answer: a number in [0, 1], rounded to 0.01. 0.5 is accepted (an
    incorrect prediction, not a parse failure). Raises OutputInvalid."""
    if "p" not in obj:
        raise OutputInvalid("p: missing", [("p",)])
    try:
        return as_probability(obj["p"], "p")
    except OutputInvalid as exc:
        raise OutputInvalid(str(exc), [("p",)]) from None


def recover_task1(text: str) -> dict[str, Any] | None:
    """Stage 3 for Task 1: the last ``p: <number>`` in the text."""
    p = find_number(text, ["p"])
    return None if p is None else {"p": p}


def read_task2(obj: Mapping[str, Any]) -> int:
    """The integer score 1-10 of a decoded Task 2 answer (key ``score``; the paper's ``p`` is
    accepted too). Raises OutputInvalid."""
    for key in ("score", "p"):
        if key in obj:
            try:
                return as_score(obj[key], key)
            except OutputInvalid as exc:
                raise OutputInvalid(str(exc), [("score",)]) from None
    raise OutputInvalid("score: missing", [("score",)])


def recover_task2(text: str) -> dict[str, Any] | None:
    """Stage 3 for Task 2: the last ``score: <number>`` (or ``得分``/``分数``) in the text."""
    score = find_number(text, ["score", "得分", "分数"])
    return None if score is None else {"score": score}


def read_task3(obj: Mapping[str, Any], labels: list[str]) -> dict[str, int]:
    """Nine votes from a decoded Task 3 answer: ``{"votes": [label, ...]}`` (one label per vote, the
    response schema's shape), ``{"votes": {label: n}}``, or the labels as top-level keys (the paper's
    shape). Labels must be known (Chinese forms accepted), counts non-negative integers summing to 9.
    Raises OutputInvalid."""
    votes = obj.get("votes")
    if votes is None:
        votes = {k: v for k, v in obj.items() if k not in ("basis", "reasoning")}
    try:
        return as_votes(votes, labels, PANEL_VOTES, "votes")
    except OutputInvalid as exc:
        raise OutputInvalid(str(exc), [("votes",)]) from None


def recover_task3(text: str, labels: list[str]) -> dict[str, Any] | None:
    """Stage 3 for Task 3: the labels of a ``"votes": [...]`` array, else ``label: <integer>`` pairs
    for the known labels."""
    votes: list[str] | dict[str, int] = find_labels(text, ["votes"], labels) or find_votes(text, labels)
    return {"votes": votes} if votes else None

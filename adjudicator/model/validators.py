"""The field validators every node shares, and the error they raise.

A node reads a decoded answer with a ``validate(obj) -> value`` callable that raises
:class:`OutputInvalid` (a ValueError) with a short reason and the offending fields. The checks here
implement the protocol's ranges (seed 001; paper 2.5): a score is an integer 1-10 (:func:`as_score`);
p is in [0, 1] in steps of 0.01 (:func:`as_probability`); votes are non-negative integers over known
position labels summing to the required total (:func:`as_votes`); a side or a choice is one of a
closed set, aliases allowed (:func:`as_side`, :func:`as_choice`). Lax type coercion (``"7"`` -> 7,
``7.0`` -> 7) is part of validation and does not change the parse stage. :class:`FieldChecks` runs a
validator's checks to the end, so one repair turn can ask for every failed field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar, cast

from adjudicator.input.formats import Side, position_label_zh

T = TypeVar("T")

#: The number ranges a field accepts, each ``(low, high)`` inclusive, where the validator's rule is
#: narrower than the response schema's ``minimum``/``maximum``: a judge's p is ``((0.0, 0.49), (0.51,
#: 1.0))`` (no tie), or one of the two when the ballot's winner is given.
Ranges = tuple[tuple[float, float], ...]


class OutputInvalid(ValueError):
    """A model output (or a field of it) that does not meet the node's requirements.

    ``fields`` names the offending fields as key paths into the answer object (``("p",)``,
    ``("stage_scores", "s03|affirmative")``), when the validator knows them; a repair turn then asks
    for those fields only (:mod:`adjudicator.model.repair`). Empty when the whole answer is at fault.
    ``ranges`` maps a field path to the :data:`Ranges` its rule accepts where they are narrower than
    the schema's, so the repair turn states the rule itself, not only the schema's range (issue 25:
    told "a number from 0.0 to 1.0", a 0.5B judge answered p = 0.5 twice, which no judge may give).

    ``fallback`` (issue 38): the value the answer gives without the fields at fault, where the node can
    stand on it (a ballot whose decision fields are valid, without its bad feedback points; a ballot
    whose only fault is p = 0.5, kept as one that does not decide), and ``dropped`` the fields it
    leaves out (:class:`~adjudicator.records.Dropped`). The attempts runner takes it only once a repair
    turn has asked for those fields and still got them wrong (:func:`~adjudicator.model.attempts.run_attempts`)."""

    def __init__(
        self, message: str, fields: Iterable[Sequence[str]] = (), ranges: Mapping[tuple[str, ...], Ranges] | None = None, *, fallback: Any = None, dropped: Sequence[Any] = ()
    ) -> None:
        super().__init__(message)
        self.fields: tuple[tuple[str, ...], ...] = tuple(tuple(f) for f in fields)
        self.ranges: dict[tuple[str, ...], Ranges] = dict(ranges or {})
        self.fallback = fallback
        self.dropped: tuple[Any, ...] = tuple(dropped)


class FieldChecks:
    """A validator's field checks run to the end: each :meth:`run` returns the check's value, or None
    after recording its :class:`OutputInvalid` (named with the check's field path when the error
    names none); :meth:`raise_if_failed` then raises one OutputInvalid holding every message and
    every failed field, so a repair turn can ask for all of them at once."""

    def __init__(self) -> None:
        self.errors: list[OutputInvalid] = []

    def run(self, path: Sequence[str], check: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
        """``check(*args, **kwargs)``, or None when it raised OutputInvalid (recorded under ``path``)."""
        try:
            return check(*args, **kwargs)
        except OutputInvalid as exc:
            self.errors.append(exc if exc.fields else OutputInvalid(str(exc), [tuple(path)]))
            return None

    def raise_if_failed(self) -> None:
        """Raise the combined OutputInvalid when any check failed (messages joined by ``"; "``)."""
        if self.errors:
            fields = [f for e in self.errors for f in e.fields]
            ranges = {path: r for e in self.errors for path, r in e.ranges.items()}
            raise OutputInvalid("; ".join(str(e) for e in self.errors), list(dict.fromkeys(fields)), ranges)


def as_int(value: Any, field: str) -> int:
    """An integer from an int, an integral float (7.0) or a numeric string ("7"). Rejects bools,
    fractions and anything else with :class:`OutputInvalid` naming ``field``."""
    if isinstance(value, bool):
        raise OutputInvalid(f"{field}: expected an integer, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+(?:\.0+)?\s*", value):
        return int(float(value))
    raise OutputInvalid(f"{field}: expected an integer, got {value!r}")


def as_number(value: Any, field: str) -> float:
    """A finite float from a number or numeric string; :class:`OutputInvalid` otherwise."""
    if isinstance(value, bool):
        raise OutputInvalid(f"{field}: expected a number, got {value!r}")
    if isinstance(value, (int, float)):
        out = float(value)
    elif isinstance(value, str) and re.fullmatch(r"\s*-?\d+(?:\.\d+)?\s*", value):
        out = float(value)
    else:
        raise OutputInvalid(f"{field}: expected a number, got {value!r}")
    if not math.isfinite(out):
        raise OutputInvalid(f"{field}: expected a finite number, got {value!r}")
    return out


def as_score(value: Any, field: str = "score", lo: int = 1, hi: int = 10) -> int:
    """An integer score in ``lo``-``hi`` (default 1-10, paper 2.5). Raises :class:`OutputInvalid`."""
    score = as_int(value, field)
    if not lo <= score <= hi:
        raise OutputInvalid(f"{field}: {score} is outside {lo}-{hi}")
    return score


def as_probability(value: Any, field: str = "p") -> float:
    """A winner tendency in [0, 1], rounded to steps of 0.01 (protocol Task 1). 0.5 is accepted here
    (the single-call protocol scores it as incorrect; the judge ballot rejects it separately).
    Raises :class:`OutputInvalid` outside [0, 1]."""
    p = as_number(value, field)
    if not 0.0 <= p <= 1.0:
        raise OutputInvalid(f"{field}: {p} is outside [0, 1]")
    return round(p, 2)


_SIDE_ALIASES = {
    "affirmative": "affirmative",
    "aff": "affirmative",
    "pro": "affirmative",
    "正方": "affirmative",
    "negative": "negative",
    "neg": "negative",
    "con": "negative",
    "opposition": "negative",
    "反方": "negative",
}


def as_side(value: Any, field: str = "side") -> Side:
    """``"affirmative"`` or ``"negative"`` from those words or common aliases (aff/pro/正方,
    neg/con/反方). Raises :class:`OutputInvalid`."""
    if isinstance(value, str):
        side = _SIDE_ALIASES.get(value.strip().lower())
        if side:
            return cast(Side, side)
    raise OutputInvalid(f"{field}: expected affirmative or negative, got {value!r}")


def as_choice(value: Any, choices: Sequence[str], field: str, aliases: Mapping[str, str] | None = None) -> str:
    """One of ``choices`` (exact, case- and separator-insensitive, or via ``aliases``, e.g. the
    rubric's written-out level names). Raises :class:`OutputInvalid` listing the choices."""
    if isinstance(value, str):
        key = re.sub(r"[\s\-]+", "_", value.strip().lower())
        for c in choices:
            if key == c.lower():
                return c
        if aliases:
            hit = aliases.get(value.strip().lower()) or aliases.get(value.strip())
            if hit:
                return hit
    raise OutputInvalid(f"{field}: expected one of {', '.join(choices)}, got {value!r}")


def canonical_label(name: Any, labels: Sequence[str]) -> str | None:
    """The position label in ``labels`` that ``name`` denotes: exact, case/space-insensitive, or the
    Chinese form (正方三辩 -> Affirmative Speaker 3). None when it names no known debater."""
    if not isinstance(name, str):
        return None
    key = " ".join(name.split()).lower()
    for label in labels:
        if key == label.lower() or name.strip() == position_label_zh(label):
            return label
    return None


def as_votes(value: Any, labels: Sequence[str], total: int, field: str = "best_debater_votes") -> dict[str, int]:
    """Best-debater votes: a mapping label -> count, a list of ``{"debater": label, "votes": n}``, or a
    list of labels, one per vote (the response schema's shape, :func:`~adjudicator.model.schema.ballots_of`).

    Keys must be known position labels (:func:`canonical_label`), counts non-negative integers, and
    the counts must sum to exactly ``total`` (3 for one judge, 9 for the panel, protocol Task 3).
    Zero counts are dropped. Raises :class:`OutputInvalid` naming the problem.
    """
    pairs: list[tuple[Any, Any]]
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        pairs = [(item, 1) for item in value]
    elif isinstance(value, list):
        pairs = []
        for item in value:
            if not isinstance(item, Mapping):
                raise OutputInvalid(f"{field}: expected objects with debater and votes, got {item!r}")
            pairs.append((item.get("debater", item.get("label")), item.get("votes", item.get("count"))))
    else:
        raise OutputInvalid(f"{field}: expected an object mapping position labels to counts, got {type(value).__name__}")
    votes: dict[str, int] = {}
    for name, count in pairs:
        label = canonical_label(name, labels)
        if label is None:
            raise OutputInvalid(f"{field}: {name!r} is not a debater of this match; use one of {', '.join(labels)}")
        n = as_int(count, f"{field}.{label}")
        if n < 0:
            raise OutputInvalid(f"{field}.{label}: a vote count cannot be negative")
        votes[label] = votes.get(label, 0) + n
    if sum(votes.values()) != total:
        raise OutputInvalid(f"{field}: the counts sum to {sum(votes.values())}, not {total}")
    return {k: v for k, v in votes.items() if v > 0}


def one_line(value: Any, limit: int) -> str:
    """``value`` as one line of text (whitespace runs collapsed), at most ``limit`` characters."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    text = " ".join(text.split())
    return text[:limit]


def required_text(value: Any, limit: int, field: str) -> str:
    """:func:`one_line` of ``value``, which must not be empty: a required text (a reasoning, a rationale,
    a clash's title or note, a summary) left empty is not an answer, in a first answer or a repair
    (issue 25: repairs that returned empty strings were accepted). Raises :class:`OutputInvalid`
    naming ``field`` (dotted path)."""
    text = one_line(value, limit)
    if not text:
        raise OutputInvalid(f"{field}: empty; write it in your own words", [tuple(field.split("."))])
    return text

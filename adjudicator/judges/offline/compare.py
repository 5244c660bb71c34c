"""The offline judge's pairwise comparison (the ``compare`` node of a pairwise panel):
:func:`compare_pair` answers "A", "B" or "tie" for two competitors from the same values its
scoring ballots use, so it is order-consistent by construction (its position-swap inconsistency
is 0: a baseline, not a model with a position bias).

A competitor's value, by level and format:

- two-sided units (the sides): the stage-weighted mean unit value of the side (1-10) plus half the
  perspective's momentum weight x the event-weighted mean clash momentum (the affirmative gets
  +, the negative -), so the difference of the two values is the scoring ballot's D
  (:func:`~adjudicator.judges.offline.ballot.judge_ballot`);
- two-sided speakers (debaters): the debater weight of
  :func:`~adjudicator.judges.offline.ballot.debater_weights` (contribution-weighted unit values
  and clash credit, without the winning-side factor, which needs a winner the comparison does
  not have);
- ranking formats (BP): a house's value is the sum of its speeches' values and a speech's its
  value (:func:`~adjudicator.judges.offline.ranking.speech_values`).

Two values within :data:`TIE_MARGIN` of each other (units and speeches: rubric points; debaters: a
share of the larger weight) are a tie.

A judge makes n(n-1) comparisons over the same input, so the values of one judge input (keyed by
the SHA-256 of its JSON and the level) are kept in a small bounded cache: a pure function, computed
once instead of once per comparison.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from adjudicator.input.formats import position_label_zh
from adjudicator.judges.base import CompareRequest, JudgeRequest
from adjudicator.judges.offline.ballot import MOMENTUM_WEIGHT, _analyses_by_unit, _momentum, _weighted_means, debater_weights, unit_value
from adjudicator.judges.offline.ranking import speech_values
from adjudicator.judges.offline.words import Words

#: Values closer than this are a tie: units and speeches in rubric points (1-10 scale); debaters as a
#: share of the larger of the two weights.
TIE_MARGIN = {"unit": 0.1, "speaker": 0.05}


def competitor_values(request: JudgeRequest, level: str) -> dict[str, float]:
    """Competitor -> the judge's value of it at ``level`` (module docstring)."""
    match = request.match
    if match.spec().verdict == "ranking":
        values = speech_values(request)
        if level == "speaker":
            return {sid: values[sid] for sid in match.competitors("speaker") if sid in values}
        return {u: sum(values[sid] for sid, unit, _ in match.speeches() if unit == u) for u in match.units()}
    by_unit = _analyses_by_unit(request)
    units = match.scored_units()
    unit_values = [unit_value(by_unit[u], request.perspective) for u in units]
    if level == "speaker":
        weights = debater_weights(request, by_unit, dict(zip(units, unit_values)))
        return {label: weights.get(label, 0.0) for label in match.competitors("speaker")}
    mean = _weighted_means(match, units, unit_values, request.perspective)
    half = MOMENTUM_WEIGHT.get(request.perspective, 0.5) * _momentum(request.clashes) / 2
    return {"affirmative": mean["affirmative"] + half, "negative": mean["negative"] - half}


_CACHE: OrderedDict[tuple[str, str], dict[str, float]] = OrderedDict()
_CACHE_SIZE = 32
_LOCK = threading.Lock()


def cached_values(request: JudgeRequest, level: str) -> dict[str, float]:
    """:func:`competitor_values`, computed once per judge input and level (module docstring)."""
    key = (hashlib.sha256(request.model_dump_json().encode("utf-8")).hexdigest(), level)
    with _LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    values = competitor_values(request, level)
    with _LOCK:
        _CACHE[key] = values
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return values


def compare_pair(request: CompareRequest) -> tuple[str, str]:
    """(answer, reasoning) for ``request``: "A" when ``request.a`` has the larger value by more than
    the tie margin, "B" for ``request.b``, else "tie"."""
    values = cached_values(request.judge_request(), request.level)
    va, vb = values[request.a], values[request.b]
    margin = TIE_MARGIN[request.level]
    if request.level == "speaker" and request.match.spec().verdict != "ranking":
        margin *= max(abs(va), abs(vb))
    answer = "tie" if abs(va - vb) <= margin else ("A" if va > vb else "B")
    w = Words(request.match.language)
    a, b = _name(w, request.a), _name(w, request.b)
    winner_first = (a, b, va, vb) if answer != "B" else (b, a, vb, va)
    key = "reason.compare_tie" if answer == "tie" else "reason.compare"
    x, y, vx, vy = winner_first
    return answer, w.sentence(w.t(key, a=x, b=y, va=f"{vx:.2f}", vb=f"{vy:.2f}"))


def _name(w: Words, competitor: str) -> str:
    """A competitor as the sentence names it: a side or house by its name, a debater by its position
    label in the match's language, a speech by its id."""
    if f"side.{competitor}" in w.labels:
        return w.side(competitor)
    return (position_label_zh(competitor) or competitor) if w.lang == "zh" else competitor

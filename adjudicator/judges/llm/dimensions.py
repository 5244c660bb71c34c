"""The LLM judge on a dimensional rubric: what the tracker and the judges are asked beyond the CCDB
levels, and how their answers are read into dimension ratings and votes (issue 13).

- Tracker (``prompts/track_stage_dimensions.<lang>.j2``, which extends ``track_stage``): each side
  entry also carries ``dimension_scores`` (one score per rating dimension of the rubric, on its
  scale, with a short note); under a ``logical_validity`` dimension, ``arguments`` (each with its
  stated premises, the inference, the conclusion and whether the conclusion follows from those
  premises alone); under ``fact_authenticity`` with an evidence source configured, ``claims`` (the
  side's atomic factual claims, one checkable fact each), which code checks against the source with
  :func:`adjudicator.input.evidence.support` -- the model never sees the evidence and never scores a fact.
- Judge (``prompts/judge_dimensions.<lang>.j2``, which extends ``judge``): ``dimension_votes``, per
  subjective dimension the judge's score for each side and the winner or ``"tie"``. Objective
  dimensions are not voted on by the model: every judge takes them from the tracker's pooled counts
  (:func:`adjudicator.verdict.dimensions.votes_from_ratings`), as it does for a subjective dimension the
  judge left out (the vote's note says so).

Reading is lenient like the rest of :mod:`adjudicator.judges.llm.recovery`: a score outside the scale
is clamped, an unknown dimension key ignored, a missing one not assessed ("not rated by the model").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adjudicator.input.evidence import EvidenceSource, source_for_match, support
from adjudicator.input.formats import Side
from adjudicator.input.rubric import Dimension, Rubric
from adjudicator.judges.base import JudgeRequest, StageRequest
from adjudicator.model.schema import keyed_model, list_of, one_of, output_model
from adjudicator.verdict.dimensions import NO_EVIDENCE, SIDES, DimensionRating, DimensionVote, decide, votes_from_ratings

RATING_CHECKS = ("rating",)
MAX_ITEMS = 12


def rating_dimensions(rubric: Rubric) -> list[Dimension]:
    """The rubric's dimensions the model scores directly (``check == "rating"``)."""
    return [d for d in rubric.dimensions if d.check in RATING_CHECKS]


def has_check(rubric: Rubric, check: str) -> bool:
    """True when some dimension of ``rubric`` is assessed by ``check``."""
    return any(d.check == check for d in rubric.dimensions)


def dimension_variables(rubric: Rubric, language: str, evidence: Any = None) -> dict[str, Any]:
    """Template variables of a dimensional rubric: ``dimensions`` (key, name, definition in
    ``language``, kind, check, scale), ``rating_keys``, ``validity`` (ask for arguments) and
    ``claims`` (ask for factual claims: only with an evidence source)."""
    return {
        "rubric_name": rubric.name,
        "dimensions": [
            {"key": d.key, "name": d.name, "definition": d.definition_in(language), "kind": d.kind, "check": d.check, "scale_min": f"{d.scale_min:g}", "scale_max": f"{d.scale_max:g}"}
            for d in rubric.dimensions
        ],
        "rating_keys": [d.key for d in rating_dimensions(rubric)],
        "validity": has_check(rubric, "logical_validity"),
        "claims": has_check(rubric, "fact_authenticity") and evidence is not None,
    }


def answer_spec(rubric: Rubric | None, evidence: Any = None) -> tuple[tuple[str, ...], bool, bool] | None:
    """The hashable shape of the extra answer fields: (rating keys, ask for arguments, ask for
    claims), or None without a dimensional rubric."""
    if rubric is None or not rubric.dimensional:
        return None
    return (tuple(d.key for d in rating_dimensions(rubric)), has_check(rubric, "logical_validity"), has_check(rubric, "fact_authenticity") and evidence is not None)


def side_answer_fields(spec: tuple[tuple[str, ...], bool, bool] | None) -> dict[str, Any]:
    """The extra fields of a tracker's side entry for ``spec`` (:func:`answer_spec`):
    ``dimension_scores`` an object with one required key per rating dimension (each ``{"note",
    "score"}``, so a server that constrains decoding returns every dimension; the score's range is
    the dimension's own scale, checked and clamped when read), ``arguments`` and ``claims`` lists."""
    if spec is None:
        return {}
    keys, validity, claims = spec
    fields: dict[str, Any] = {}
    if keys:
        fields["dimension_scores"] = keyed_model("DimensionScores", keys, output_model("DimensionScoreAnswer", note=str, score=float))
    if validity:
        fields["arguments"] = list_of(output_model("ArgumentAnswer", premises=str, inference=str, conclusion=str, valid=bool))
    if claims:
        fields["claims"] = list_of(str)
    return fields


def ballot_answer_fields(spec: tuple[tuple[str, ...], bool, bool] | None) -> dict[str, Any]:
    """The extra field of a judge's ballot: ``dimension_votes``, an object with one required key per
    subjective (rating) dimension of ``spec``, each ``{"affirmative", "negative", "winner"}``."""
    keys = spec[0] if spec is not None else ()
    if not keys:
        return {}
    vote = output_model("DimensionVoteAnswer", affirmative=float, negative=float, winner=one_of(("affirmative", "negative", "tie")))
    return {"dimension_votes": keyed_model("DimensionVotes", keys, vote)}


def number(value: Any) -> float | None:
    """``value`` as a float, or None when it is not a number (or NaN); lenient reading of scores."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if x == x else None


def _clamped(dim: Dimension, x: float) -> float:
    return round(min(dim.scale_max, max(dim.scale_min, x)), 2)


def _score_items(raw: Any) -> dict[str, tuple[float, str]]:
    """``dimension_scores`` as key -> (score, note): a list of {dimension, score, note} or a mapping key -> score."""
    out: dict[str, tuple[float, str]] = {}
    if isinstance(raw, Mapping):
        for k, v in raw.items():
            x = number(v.get("score") if isinstance(v, Mapping) else v)
            if x is not None:
                out[str(k)] = (x, str(v.get("note", "")) if isinstance(v, Mapping) else "")
    elif isinstance(raw, list):
        for it in raw:
            if isinstance(it, Mapping) and it.get("dimension") is not None:
                x = number(it.get("score"))
                if x is not None:
                    out.setdefault(str(it["dimension"]), (x, str(it.get("note") or "")[:300]))
    return out


def read_side_dimensions(item: Mapping[str, Any], request: StageRequest, side: Side) -> list[DimensionRating]:
    """The side's :class:`DimensionRating` per dimension of ``request.rubric`` from its tracker entry
    (module docstring); [] without a dimensional rubric."""
    rubric = request.rubric
    if rubric is None or not rubric.dimensional:
        return []
    scores = _score_items(item.get("dimension_scores"))
    out: list[DimensionRating] = []
    for dim in rubric.dimensions:
        if dim.check == "rating":
            got = scores.get(dim.key)
            out.append(DimensionRating(dimension=dim.key, score=_clamped(dim, got[0]), note=got[1]) if got else DimensionRating(dimension=dim.key, note="not assessed: not rated by the model"))
        elif dim.check == "logical_validity":
            args = [a for a in (item.get("arguments") or []) if isinstance(a, Mapping)][:MAX_ITEMS] if isinstance(item.get("arguments"), list) else []
            valid = sum(1 for a in args if a.get("valid") is True or str(a.get("valid")).lower() == "true")
            score = round(valid / len(args), 4) if args else None
            out.append(DimensionRating(dimension=dim.key, score=score, checked=len(args), passed=valid, note=f"{valid} of {len(args)} argument(s) valid (model)"))
        elif dim.check == "fact_authenticity":
            out.append(_facts(item, request, dim))
    return out


def _facts(item: Mapping[str, Any], request: StageRequest, dim: Dimension) -> DimensionRating:
    """The model's claims checked against the evidence source by code."""
    stages = [*request.previous, request.stage]
    source: EvidenceSource | None = source_for_match(request.evidence, [(s.stage_id, "\n".join(u.text for u in s.utterances)) for s in stages])
    if source is None:
        return DimensionRating(dimension=dim.key, note=NO_EVIDENCE)
    claims = [str(c).strip() for c in (item.get("claims") or []) if str(c).strip()][:MAX_ITEMS] if isinstance(item.get("claims"), list) else []
    passed = sum(1 for c in claims if support(c, source.retrieve(c))[0])
    return DimensionRating(
        dimension=dim.key,
        score=round(passed / len(claims), 4) if claims else None,
        checked=len(claims),
        passed=passed,
        note=f"{passed} of {len(claims)} claim(s) supported by {source.name}",
    )


def _tracker_ratings(request: JudgeRequest) -> dict[Side, list[DimensionRating]]:
    out: dict[Side, list[DimensionRating]] = {"affirmative": [], "negative": []}
    for a in request.analyses:
        for s in a.sides:
            out[s.side].extend(s.dimensions)
    return out


def read_ballot_dimensions(obj: Mapping[str, Any], request: JudgeRequest) -> list[DimensionVote]:
    """The ballot's votes per dimension of ``request.rubric``: the judge's own for the rating
    dimensions it answered (an object keyed by dimension, or a list of ``{"dimension", ...}``; scores clamped to the scale; the winner as given, or from the scores
    when absent or unreadable), the tracker-based rule for the rest (module docstring)."""
    rubric = request.rubric
    if rubric is None or not rubric.dimensional:
        return []
    fallback = {v.dimension: v for v in votes_from_ratings(rubric, _tracker_ratings(request))}
    given: dict[str, Mapping[str, Any]] = {}
    raw = obj.get("dimension_votes")
    if isinstance(raw, Mapping):  # the response schema's shape: dimension key -> vote
        given.update({str(k): v for k, v in raw.items() if isinstance(v, Mapping)})
    elif isinstance(raw, list):
        for it in raw:
            if isinstance(it, Mapping) and it.get("dimension") is not None:
                given.setdefault(str(it["dimension"]), it)
    out: list[DimensionVote] = []
    for dim in rubric.dimensions:
        it = given.get(dim.key) if dim.check == "rating" else None
        nums = {s: number(it.get(s)) for s in SIDES} if it is not None else {}
        if it is None or any(v is None for v in nums.values()):
            fb = fallback[dim.key]
            why = "from the tracker's ratings (objective dimension)" if dim.check != "rating" else "from the tracker's ratings (the judge gave no vote)"
            out.append(fb.model_copy(update={"note": "; ".join(x for x in (fb.note, why) if x)}))
            continue
        scores: dict[Side, float] = {s: _clamped(dim, v) for s, v in nums.items() if v is not None}
        w = str(it.get("winner") or "").strip().lower()
        winner = w if w in ("affirmative", "negative", "tie") else decide(dim, scores, rubric.tie_margin)
        out.append(DimensionVote(dimension=dim.key, scores=scores, winner=winner))  # type: ignore[arg-type]  # w is one of the three outcomes
    return out


def judge_dimension_units(request: JudgeRequest) -> list[dict[str, Any]]:
    """Per analysed (stage, side): the tracker's dimension scores as ``{"stage_id", "side", "text"}``
    (e.g. ``"argument 7, source 3, logical_validity 2/3"``), for the judge's prompt."""
    out = []
    for a in request.analyses:
        for s in a.sides:
            parts = []
            for r in s.dimensions:
                if r.checked:
                    parts.append(f"{r.dimension} {r.passed}/{r.checked}")
                elif r.score is not None:
                    parts.append(f"{r.dimension} {r.score:g}")
                else:
                    parts.append(f"{r.dimension} n/a")
            out.append({"stage_id": a.stage_id, "side": s.side, "text": ", ".join(parts)})
    return out


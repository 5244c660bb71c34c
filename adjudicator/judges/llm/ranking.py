"""The LLM judge on a ranking format (BP): what a judge sees, the answer's shape, and how it is read.

The units come from the format's declaration (:attr:`~adjudicator.input.formats.FormatSpec.units`) and the
speeches from the match (:meth:`~adjudicator.input.match.MatchView.speeches`), so the response schema and
the reader are driven by the request's units, not by the format's name:

- :func:`ranking_judge_variables` feeds ``prompts/judge_bp.<lang>.j2`` (the format's judge template):
  the match header, the full ledger (the template shows its clash lines), and per speech its house, short name, role, the tracker's
  suggested 1-10 rating with its levels, rationale (first 400 characters) and summary (first 300);
  never the transcript, so a judge's prompt grows with the ledger, not with the speeches' length.
- :func:`ranking_answer` / :func:`ranking_schema`: ``reasoning``, ``ranking`` (one integer per
  unit) and ``speaker_scores`` (``stage_id`` one of the speeches, ``score``, ``rank``).
- :func:`read_ranking_ballot` validates a decoded answer into a ranking
  :class:`~adjudicator.verdict.ballots.Ballot` (every unit ranked 1..n once, every speech scored on the
  format's scale, speech ranks without ties that follow the scores, no low-point wins) or raises
  :class:`~adjudicator.model.validators.OutputInvalid`, which spends another attempt;
  :func:`recover_ranking_ballot` is the stage-3 recovery from field-level patterns.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from adjudicator.judges.base import JudgeRequest
from adjudicator.judges.llm.ledger import ledger_view
from adjudicator.judges.llm.variables import header
from adjudicator.model.parsing import find_number, find_string, small_objects
from adjudicator.model.schema import OutputModel, keyed_model, list_of, one_of, output_model, response_schema
from adjudicator.model.validators import OutputInvalid, as_int
from adjudicator.verdict.ballots import Ballot, SpeakerScore
from adjudicator.verdict.battlefield import SideAnalysis


def ranking_judge_variables(request: JudgeRequest) -> dict[str, Any]:
    """Template variables of one judge of a ranking format (module docstring)."""
    match = request.match
    spec = match.spec()
    by_stage: dict[str, SideAnalysis] = {s.stage_id: s for a in request.analyses for s in a.sides}
    summaries = {a.stage_id: a.summary for a in request.analyses}
    speeches = []
    for sid, unit, abbr in match.speeches():
        slot = match.slot_of(sid)
        sa = by_stage.get(sid)
        speeches.append(
            {
                "stage_id": sid,
                "abbr": abbr,
                "house": unit,
                "role": slot.speech_role if slot else "",
                "suggested_score": sa.suggested_score if sa else None,
                "task": sa.task_performance if sa else None,
                "battlefield": sa.battlefield_judgement if sa else None,
                "advancement": sa.advancement if sa else None,
                "rationale": (sa.rationale if sa else "")[:400],
                "summary": summaries.get(sid, "")[:300],
            }
        )
    lo, hi = spec.speaker_scale or (50, 100)
    return {
        **header(match),
        "judge_id": request.judge_id,
        "perspective": request.perspective,
        "ledger": ledger_view(request.clashes, request.analyses),
        "houses": spec.unit_ids(),
        "speeches": speeches,
        "scale_min": lo,
        "scale_max": hi,
    }


@lru_cache(maxsize=64)
def ranking_answer(units: tuple[str, ...], stage_ids: tuple[str, ...]) -> type[OutputModel]:
    """A ranking judge's answer: reasoning, ``ranking`` (one integer per unit of ``units``) and
    ``speaker_scores`` (``stage_id`` one of ``stage_ids``, an integer ``score`` and ``rank``)."""
    speech = output_model("SpeakerScoreAnswer", stage_id=one_of(stage_ids), score=int, rank=int)
    return output_model("RankingBallotAnswer", reasoning=str, ranking=keyed_model("UnitRanking", units, int), speaker_scores=list_of(speech))


def ranking_schema(request: JudgeRequest) -> dict[str, Any]:
    """JSON Schema of a ranking judge's answer (:func:`ranking_answer`) for this match's units and speeches."""
    units = tuple(request.match.units())
    return response_schema(ranking_answer(units, tuple(sid for sid, _, _ in request.match.speeches())))


def _ranks(raw: Any, units: list[str]) -> dict[str, int]:
    """``{"OG": 1, ...}`` or a list ``["OO", "OG", ...]`` (best first) -> unit -> rank."""
    if isinstance(raw, list) and all(isinstance(x, str) for x in raw):
        raw = {u: k for k, u in enumerate(raw, start=1)}
    if not isinstance(raw, Mapping):
        raise OutputInvalid("ranking: expected an object with one rank per house")
    out = {}
    for key, value in raw.items():
        unit = str(key).strip().upper()
        if unit not in units:
            raise OutputInvalid(f"ranking: {key!r} is not a house; use {', '.join(units)}")
        out[unit] = as_int(value, f"ranking.{unit}")
    return out


def read_ranking_ballot(obj: Mapping[str, Any], request: JudgeRequest, model: str) -> Ballot:
    """Validate a decoded ranking answer into a :class:`Ballot` (module docstring). A speech given
    without a rank gets the rank its score implies (ties by speaking order) only when no speech has
    a rank; a partial set of ranks is invalid. Raises :class:`OutputInvalid` or pydantic's
    ValidationError (a ValueError) for duplicate ranks, a missing house or speech, a score off the
    scale, ranks against the scores, or a low-point win."""
    match = request.match
    units = match.units()
    lo, hi = match.spec().speaker_scale or (50, 100)
    ranking = _ranks(obj.get("ranking"), units)
    speeches = match.speeches()
    raw = obj.get("speaker_scores")
    if isinstance(raw, Mapping):
        raw = [{"stage_id": k, **(v if isinstance(v, Mapping) else {"score": v})} for k, v in raw.items()]
    if not isinstance(raw, list):
        raise OutputInvalid("speaker_scores: expected a list of {stage_id, score, rank}")
    given: dict[str, tuple[int, int | None]] = {}
    known = {sid for sid, _, _ in speeches}
    for item in raw:
        if not isinstance(item, Mapping):
            raise OutputInvalid("speaker_scores: every entry must be an object")
        sid = str(item.get("stage_id", "")).strip()
        if sid not in known:
            raise OutputInvalid(f"speaker_scores: {sid!r} is not a speech of this debate")
        score = as_int(item.get("score"), f"speaker_scores.{sid}.score")
        if not lo <= score <= hi:
            raise OutputInvalid(f"speaker_scores.{sid}.score: {score} is outside {lo}-{hi}")
        rank = None if item.get("rank") in (None, "") else as_int(item.get("rank"), f"speaker_scores.{sid}.rank")
        if sid in given and given[sid] != (score, rank):
            raise OutputInvalid(f"speaker_scores: {sid} is scored twice")
        given[sid] = (score, rank)
    missing = [sid for sid in known if sid not in given]
    if missing:
        raise OutputInvalid(f"speaker_scores: missing {', '.join(sorted(missing))}")
    ranks = {sid: r for sid, (_, r) in given.items()}
    if all(r is None for r in ranks.values()):
        order = sorted(range(len(speeches)), key=lambda k: (-given[speeches[k][0]][0], k))
        ranks = {speeches[k][0]: r for r, k in enumerate(order, start=1)}
    elif any(r is None for r in ranks.values()):
        raise OutputInvalid("speaker_scores: give every speech a rank, or none")
    return Ballot(
        judge_id=request.judge_id,
        perspective=request.perspective,
        model=model,
        winner=None,
        p=None,
        stage_scores=[],
        best_debater_votes={},
        reasoning=" ".join(str(obj.get("reasoning") or "").split())[:2000],
        ranking=ranking,
        speaker_scores=[SpeakerScore(stage_id=sid, unit=unit, speech=abbr, score=given[sid][0], rank=int(ranks[sid] or 0)) for sid, unit, abbr in speeches],
    )




def recover_ranking_ballot(text: str, units: list[str]) -> dict[str, Any] | None:
    """Stage-3 recovery for a ranking judge: speaker scores from every small ``{...}`` holding a
    stage_id and a score (and a rank when written), the ranking from ``"OG": 1``-style pairs or
    DebateBench's ``First: OG`` lines. None when either part is missing."""
    scores = []
    for span in small_objects(text):
        sid = find_string(span, ["stage_id"])
        score = find_number(span, ["score"])
        if sid and score is not None:
            rank = find_number(span, ["rank"])
            scores.append({"stage_id": sid, "score": score, **({"rank": rank} if rank is not None else {})})
    ranking: dict[str, int] = {}
    for unit in units:
        n = find_number(text, [unit])
        if n is not None:
            ranking[unit] = int(n)
    if len(ranking) != len(units):
        words = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth"]
        for k, word in enumerate(words[: len(units)], start=1):
            m = re.search(rf"\b{word}\s*:\s*\"?({'|'.join(units)})\b", text, re.I)
            if m:
                ranking[m.group(1).upper()] = k
    if not scores or len(ranking) != len(units):
        return None
    return {"ranking": ranking, "speaker_scores": scores, "reasoning": find_string(text, ["reasoning"]) or ""}

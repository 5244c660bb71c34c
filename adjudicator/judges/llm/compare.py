"""The LLM judge's pairwise comparison: what a judge sees for one ordered pair, the answer's shape,
and how it is read (the ``compare`` node of a pairwise panel, ``prompts/compare.<lang>.j2``).

What a comparison sees (issue 12: the tracker's work plus bounded excerpts, never the whole
transcript per pair): the match header, the battlefield ledger's clashes (compact, the latest
:data:`COMPARE_LEDGER_EVENTS` events each, no stage lines), and per competitor (shown as A or
B) its kind (side, house, debater or speech), the tracker's analysis lines of the stages it acts in
(stage, suggested 1-10 rating, rationale cut to :data:`RATIONALE_CHARS`) and one excerpt of its own
words cut to :data:`EXCERPT_CHARS` characters (first and last halves,
:func:`~adjudicator.judges.llm.variables.excerpt`). A prompt's size is then the ledger's plus a
bound, whatever the speeches' length.

The answer: ``{"reasoning": ..., "answer": "A" | "B" | "tie"}`` (:func:`compare_answer`). The reader
also takes a bare "A", "B" or "Tie" (seed 004's answer format) and "draw"/"equal" for a tie.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from adjudicator.input.match import MatchView
from adjudicator.judges.base import CompareRequest
from adjudicator.judges.llm.ledger import ledger_view
from adjudicator.judges.llm.variables import excerpt, header
from adjudicator.model.parsing import find_string, find_word
from adjudicator.model.prompts import prompt_language, utterance_lines
from adjudicator.model.schema import OutputModel, one_of, output_model, response_schema
from adjudicator.model.validators import as_choice
from adjudicator.pairwise.comparisons import PairChoice
from adjudicator.verdict.battlefield import SideAnalysis

ANSWERS = ("A", "B", "tie")
_ALIASES = {"a": "A", "b": "B", "tie": "tie", "draw": "tie", "equal": "tie", "平": "tie", "平局": "tie"}
#: Characters of each competitor's own words a comparison sees (Chinese runs at about one token per
#: 1-1.5 characters, English about four characters per token: both about 300-400 tokens).
EXCERPT_CHARS: dict[str, int] = {"zh": 400, "en": 1000}
RATIONALE_CHARS = 240
#: A comparison reads the ledger's clashes with their latest events only, in compact form, and no
#: stage lines (the two competitors' own stage analyses come with them): a judge makes n(n-1)
#: comparisons, so every token here is paid 68 times per judge on a BP round.
COMPARE_LEDGER_EVENTS = 2


def competitor_kind(match: MatchView, level: str) -> str:
    """``"side"``, ``"house"``, ``"debater"`` or ``"speech"``: what ``level`` compares in ``match``."""
    ranking = match.spec().verdict == "ranking"
    if level == "unit":
        return "house" if ranking else "side"
    return "speech" if match.competitors("speaker") and not match.debaters and match.speeches() else "debater"


def _stages_of(match: MatchView, level: str, who: str) -> list[str]:
    """The stage ids a competitor acts in, in stage order."""
    if level == "unit":
        if match.spec().verdict == "ranking":
            return [sid for sid, unit, _ in match.speeches() if unit == who]
        return [s.stage_id for s in match.stages if who in s.evaluated_sides()]
    if competitor_kind(match, level) == "speech":
        return [who]
    return [s.stage_id for s in match.stages if any(u.speaker == who for u in s.utterances) or who in s.speakers]


def _words(match: MatchView, level: str, who: str, stage_ids: list[str]) -> str:
    """The competitor's own utterances, one per line."""
    out = []
    for sid in stage_ids:
        st = match.stage(sid)
        if level == "unit" and match.spec().verdict != "ranking":
            out += [u for u in st.utterances if u.side == who]
        elif level == "speaker" and competitor_kind(match, level) == "debater":
            out += [u for u in st.utterances if u.speaker == who]
        else:
            out += list(st.utterances)
    return utterance_lines(out)


def _naming(match: MatchView, level: str, who: str) -> dict[str, str]:
    """How a competitor is named: its id, and for a house its name, for a speech its short name,
    house name and role (empty strings otherwise); the template writes them out."""
    kind = competitor_kind(match, level)
    out = {"id": who, "house_name": "", "abbr": "", "role": ""}
    if kind == "house":
        out["house_name"] = match.spec().unit(who).name
    elif kind == "speech":
        slot = match.slot_of(who)
        if slot is not None and slot.unit:
            out.update(abbr=slot.abbr, house_name=match.spec().unit(slot.unit).name, role=slot.speech_role)
    return out


def dossier(request: CompareRequest, who: str) -> dict[str, Any]:
    """What the judge sees of one competitor (module docstring): its naming (:func:`_naming`), the
    tracker's analysis of each stage it acts in (stage id and name, side, suggested rating or None,
    the competitor's contribution share for a debater, rationale) and the excerpt of its words."""
    match = request.match
    lang = prompt_language(match.format)
    kind = competitor_kind(match, request.level)
    stage_ids = _stages_of(match, request.level, who)
    by_unit: dict[tuple[str, str], SideAnalysis] = {(s.stage_id, s.side): s for a in request.analyses for s in a.sides}
    rows = []
    for sid in stage_ids:
        st = match.stage(sid)
        for side in st.evaluated_sides():
            sa = by_unit.get((sid, side))
            if sa is None:
                continue
            if request.level == "unit" and match.spec().verdict != "ranking" and side != who:
                continue
            share = sa.contributions.get(who) if kind == "debater" else None
            if kind == "debater" and not share and match.side_of(who) != side:
                continue
            rows.append({"stage_id": sid, "stage_name": st.name, "side": side, "rating": sa.suggested_score, "share": round(share, 2) if share else None, "rationale": sa.rationale[:RATIONALE_CHARS]})
    return {**_naming(match, request.level, who), "analyses": rows, "excerpt": excerpt(_words(match, request.level, who, stage_ids), EXCERPT_CHARS[lang])}


def compare_variables(request: CompareRequest) -> dict[str, Any]:
    """Template variables of one ordered comparison (module docstring)."""
    return {
        **header(request.match),
        "judge_id": request.judge_id,
        "perspective": request.perspective,
        "kind": competitor_kind(request.match, request.level),
        "level": request.level,
        "ledger": ledger_view(request.clashes, request.analyses, max_events=COMPARE_LEDGER_EVENTS, max_stages=0, compact=True),
        "a": dossier(request, request.a),
        "b": dossier(request, request.b),
    }


@lru_cache(maxsize=1)
def compare_answer() -> type[OutputModel]:
    """A comparison's answer: ``reasoning`` and ``answer`` (one of "A", "B", "tie")."""
    return output_model("PairAnswer", reasoning=str, answer=one_of(ANSWERS))


def compare_schema() -> dict[str, Any]:
    """JSON Schema of :func:`compare_answer`."""
    return response_schema(compare_answer())


def read_choice(obj: Mapping[str, Any], request: CompareRequest) -> PairChoice:
    """A decoded answer -> :class:`PairChoice`. Raises :class:`OutputInvalid` for a missing or
    unknown answer."""
    answer = as_choice(obj.get("answer"), ANSWERS, "answer", _ALIASES)
    reasoning = obj.get("reasoning")
    return PairChoice(judge_id=request.judge_id, level=request.level, a=request.a, b=request.b, answer=answer, reasoning=str(reasoning or "")[:1000])  # type: ignore[arg-type]


_BARE = re.compile(r"^\s*[\"'“]?(A|B|tie|draw|equal)[\"'”]?\s*[.!]?\s*$", re.I)


def recover_choice(text: str) -> dict[str, Any] | None:
    """Stage-3 recovery: ``"answer": "B"`` anywhere, or a line holding only A, B or Tie (the last one)."""
    word = find_word(text, ["answer"], ["A", "B", "tie", "draw", "equal"])
    if word is None:
        bare = [m.group(1) for line in text.splitlines() if (m := _BARE.match(line))]
        word = bare[-1] if bare else None
    if word is None:
        return None
    return {"answer": word, "reasoning": find_string(text, ["reasoning"]) or ""}

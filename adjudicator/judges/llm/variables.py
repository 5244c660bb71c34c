"""Template variables of the LLM judge's two nodes: what the clash tracker and a judge see.

:func:`stage_variables` feeds ``prompts/track_stage.<lang>.j2`` and :func:`judge_variables` feeds
``prompts/judge.<lang>.j2``; :func:`judge_units` is the list of (stage_id, side) units a judge must
score (also the enum of its answer's ``stage_id``, :mod:`adjudicator.judges.llm.outputs`).

What each node sees (the design card, Data flow):

- the clash tracker: format, motion, both positions, the stage (name, type, roles, speakers,
  utterances), the text of the immediately preceding stage only (for engagement) and the compact,
  bounded ledger (:func:`tracker_ledger`) -- never the whole preceding transcript, so tokens grow
  linearly with the number of stages;
- a judge: the match header (a position that only restates the motion shown as its stance), the
  full ledger's clash lines, every analysed stage's summary with its units' levels, suggested scores
  and rationales (each fact once: the ledger's stage lines would repeat the scores and summaries), the
  rubric with each level pair written once, its perspective (last, after everything the three judges
  share), the units it must score and the debater labels. Units of a stage the tracker failed on are
  not offered: a judge scores only what it has evidence about.

Both are built from the label-free :class:`~adjudicator.input.match.MatchView` and tracker outputs, so
gold labels cannot reach a prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adjudicator.input.formats import Side, get_format
from adjudicator.input.match import MatchView, Stage
from adjudicator.input.rubric import ADVANCEMENT_LEVELS, BATTLEFIELD_LEVELS, LEVEL_TEXT, RUBRIC_TABLE, TASK_LEVELS, rubric_rows
from adjudicator.judges.base import JudgeRequest, StageRequest
from adjudicator.judges.llm.ledger import Ledger, ledger_view
from adjudicator.model.prompts import match_fence_code, prompt_language, utterance_lines
from adjudicator.verdict.ballots import BALLOT_VOTES
from adjudicator.verdict.battlefield import CLASH_KINDS, SideAnalysis
from adjudicator.verdict.feedback import asks_feedback, writes_feedback

#: The tracker reads the previous stage (for engagement) only as a bounded excerpt, and a bounded
#: ledger (the most recently active clashes, the latest stage lines): its prompt size then does not
#: grow with the number of stages before it, so tracker tokens grow linearly with the stage count
#: (the design card, Data flow). Characters: Chinese text runs at about one token per 1-1.5 characters,
#: English at about four characters per token, so both caps are roughly 400-500 tokens.
PREVIOUS_STAGE_CHARS: dict[str, int] = {"zh": 500, "en": 1600}
TRACKER_LEDGER_CLASHES = 6
TRACKER_LEDGER_STAGES = 3
TRACKER_LEDGER_EVENTS = 1


def header(match: MatchView) -> dict[str, Any]:
    """The match header both nodes share: format (name and description), motion, both positions,
    background info ("" when none), the labels that may speak (the debaters' position labels;
    BP also its houses' names, for team-level speakers) and the match's fence code
    (:func:`~adjudicator.model.prompts.match_fence_code`: every fence of the match's prompts opens
    with the same line)."""
    spec = get_format(match.format)
    return {
        "fence_code": match_fence_code(match),
        "format": match.format,
        "format_description": spec.description,
        "motion": match.motion,
        "affirmative_position": match.affirmative_position,
        "negative_position": match.negative_position,
        "info": match.info or "",
        "debaters": match.speaker_labels(),
    }


def side_debaters(match: MatchView, stage: Stage, side: str) -> list[str]:
    """The debaters of ``side`` who speak in ``stage`` (in order of first utterance), else the
    stage's declared speakers of that side, else every debater of that side."""
    spoke = list(dict.fromkeys(u.speaker for u in stage.utterances if u.side == side and u.speaker))
    if spoke:
        return spoke
    declared = [s for s in stage.speakers if match.side_of(s) == side]
    if declared:
        return declared
    return [label for label in match.debater_labels() if match.side_of(label) == side]


def excerpt(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters, else its first and last ``limit // 2``
    characters joined by an elision line (the opening states the case, the end its latest replies)."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half].rstrip()}\n[...]\n{text[-half:].lstrip()}"


def tracker_ledger(request: StageRequest) -> Ledger:
    """The ledger the tracker reads: the most recently touched clashes with their latest event and
    the latest stage lines, texts compact (:data:`TRACKER_LEDGER_CLASHES` and friends), so its size is
    bounded whatever the number of stages before."""
    return ledger_view(request.clashes, request.analyses, max_events=TRACKER_LEDGER_EVENTS, max_clashes=TRACKER_LEDGER_CLASHES, max_stages=TRACKER_LEDGER_STAGES, compact=True)


def _levels(lang: str) -> dict[str, list[tuple[str, str]]]:
    """The rubric's level keys with their written-out names in ``lang``, per dimension."""
    i = 1 if lang == "zh" else 0
    return {
        "task": [(k, LEVEL_TEXT[k][i]) for k in TASK_LEVELS],
        "battlefield": [(k, LEVEL_TEXT[k][i]) for k in BATTLEFIELD_LEVELS],
        "advancement": [(k, LEVEL_TEXT[k][i]) for k in ADVANCEMENT_LEVELS],
    }


def machine_note(stage: Stage) -> dict[str, int] | None:
    """What the tracker is told about a machine-made stage (:class:`~adjudicator.input.stages.Transcript`):
    how many utterances have no known speaker at all (``unattributed``) and how many only a side
    (``side_only``); None for a typed stage (its prompt then reads as before)."""
    if stage.transcript is None:
        return None
    return {
        "unattributed": sum(1 for u in stage.utterances if u.speaker is None and u.side is None),
        "side_only": sum(1 for u in stage.utterances if u.speaker is None and u.side is not None),
    }


def stage_variables(request: StageRequest, one_rating: bool = False) -> dict[str, Any]:
    """Template variables of the clash tracker for one stage (see the module docstring);
    ``one_rating``: the answer rates the stage's one evaluated side under ``"rating"``
    (:func:`rates_one_side`), not under its side's key in ``"sides"``."""
    match, st = request.match, request.stage
    lang = prompt_language(match.format)
    prev = request.previous[-1] if request.previous else None
    return {
        **header(match),
        "stage": {
            "id": st.stage_id,
            "name": st.name,
            "type": st.type,
            "interaction": st.interaction,
            "sides": list(st.sides),
            "speakers": list(st.speakers),
            "number": request.index + 1,
            "surprise": st.surprise,
            "machine": machine_note(st),
        },
        "evaluated": [
            {"side": side, "role": st.role_of(side), "debaters": side_debaters(match, st, side)} for side in st.evaluated_sides()
        ],
        "stage_text": utterance_lines(st.utterances),
        "speech": speech_slot(match, st.stage_id),
        "previous": None if prev is None else {"id": prev.stage_id, "name": prev.name, "type": prev.type, "text": excerpt(utterance_lines(prev.utterances), PREVIOUS_STAGE_CHARS[lang])},
        "ledger": tracker_ledger(request),
        "clash_ids": list(request.clashes),
        "rubric": rubric_rows(lang),
        "rubric_keys": rubric_key_groups(),
        "levels": _levels(lang),
        "clash_kinds": list(CLASH_KINDS),
        "contributions": asks_contributions(match, st),
        "update_debater": asks_update_debater(match),
        "one_rating": one_rating,
        "affirmative_stance": stance(match.affirmative_position, match.motion),
        "negative_stance": stance(match.negative_position, match.motion),
    }


def asks_contributions(match: MatchView, stage: Stage) -> bool:
    """Whether the tracker is asked to share a side's work in ``stage`` among its debaters: only when
    some evaluated side has more than one debater there (:func:`side_debaters`). With one debater the
    share is 1 by construction (the reader gives an absent ``contributions`` equal shares,
    :mod:`adjudicator.judges.llm.recovery`), so asking for it would only cost tokens."""
    return any(len(side_debaters(match, stage, side)) > 1 for side in stage.evaluated_sides())


def rates_one_side(request: StageRequest) -> bool:
    """Whether the tracker's answer can be one schema for every stage of ``request``'s match: every
    stage evaluates exactly one side, none asks contributions (:func:`asks_contributions`), the rubric
    is not dimensional and the format has no tracker template of its own (BP). Its answer then rates
    that side under ``"rating"``, the side implied by the stage, instead of under the side's key in
    ``"sides"``, whose keys change from stage to stage (issue 39: the response schema heads a
    provider's cached prefix, so with one schema stage 2 reads stage 1's cached instructions; on
    debateart_4395 1,408 tokens a stage). The backend asks for it only where the request goes out
    as strict ``json_schema`` (:meth:`~adjudicator.model.llm.LLMClient.asks_json_schema`): on a local
    ``json_object`` server Qwen2.5-Coder 0.5B looped on it (session 7), and a local server bills nothing."""
    match = request.match
    if (request.rubric is not None and request.rubric.dimensional) or "track_stage" in get_format(match.format).templates:
        return False
    return all(len(st.evaluated_sides()) == 1 and not asks_contributions(match, st) for st in match.stages)


def sole_debaters(match: MatchView) -> dict[str, str] | None:
    """Each side's only speaker label (``{"affirmative": "Affirmative Speaker 1", "negative":
    "Negative Speaker 1"}``) when every side of the match has exactly one label that may speak
    (:meth:`~adjudicator.input.match.MatchView.speaker_labels`; an online 1v1), else None (a side with
    two or more debaters, a format whose houses speak as teams, a side with none)."""
    by_side: dict[str, list[str]] = {}
    for label in match.speaker_labels():
        by_side.setdefault(match.side_of(label) or "", []).append(label)
    if set(by_side) != {"affirmative", "negative"} or any(len(labels) != 1 for labels in by_side.values()):
        return None
    return {side: labels[0] for side, labels in by_side.items()}


def asks_update_debater(match: MatchView) -> bool:
    """Whether the tracker's clash updates name their ``debater``: unless every side of the match has
    one debater (:func:`sole_debaters`), where an update's side names it, so asking would only cost
    completion tokens (issue 39: about 22 a stage on the bundled 1v1 debates); the reader then fills
    in the side's debater (:mod:`adjudicator.judges.llm.recovery`)."""
    return sole_debaters(match) is None


def window_variables(requests: Sequence[StageRequest]) -> dict[str, Any]:
    """Template variables of the clash tracker for a window of consecutive stages
    (``prompts/track_window.<lang>.j2``): those of the window's first stage (:func:`stage_variables`:
    header, the ledger as it stood before the window, the stage before the window, clash ids, rubric)
    plus ``window``, one entry per stage in order with its ``stage`` (id, name, type, number, ...),
    ``evaluated`` sides, ``stage_text`` and ``contributions`` (:func:`asks_contributions`). Raises ValueError for an empty window."""
    if not requests:
        raise ValueError("a stage window holds at least one stage")
    out = stage_variables(requests[0])
    window = []
    for r in requests:
        v = stage_variables(r) if r is not requests[0] else out
        window.append({"stage": v["stage"], "evaluated": v["evaluated"], "stage_text": v["stage_text"], "contributions": v["contributions"]})
    out["window"] = window
    return out


def speech_slot(match: MatchView, stage_id: str) -> dict[str, str] | None:
    """A speech of a format with speaking units (BP): its short name, house, house name and role
    (``{"abbr": "MG", "house": "CG", "house_name": "Closing Government", "role": "extension"}``); None
    for formats without them."""
    slot = match.slot_of(stage_id)
    if slot is None or not slot.unit:
        return None
    return {"abbr": slot.abbr, "house": slot.unit, "house_name": match.spec().unit(slot.unit).name, "role": slot.speech_role}


def unit_key(stage_id: str, side: str) -> str:
    """The key of a scored unit in a judge's answer and in gold labels: ``"<stage_id>|<side>"``."""
    return f"{stage_id}|{side}"


def judge_units(request: JudgeRequest) -> list[tuple[str, Side]]:
    """The (stage_id, side) units a judge must score: the match's scored units of every stage that
    has a tracker analysis, in stage order."""
    analysed = {a.stage_id for a in request.analyses}
    return [(sid, side) for sid, side in request.match.scored_units() if sid in analysed]


def rubric_key_groups() -> list[dict[str, Any]]:
    """Table 5 (:data:`~adjudicator.input.rubric.RUBRIC_TABLE`) with consecutive rows of the same task
    performance and battlefield judgement merged: ``[{"task", "battlefield", "scores": [(advancement,
    score), ...]}]``, in table order (11 rows -> 6 groups; every row's content kept, each level pair
    written once), in the level keys (``perfect``, ``correct_important``, ``decisive``) that the
    tracker answers in and the judges' analyses show; the tracker's prompt gives each key's
    written-out name once. The compact rubric of the tracker and of the judges."""
    groups: list[dict[str, Any]] = []
    for t, b, a, s in RUBRIC_TABLE:
        if groups and (groups[-1]["task"], groups[-1]["battlefield"]) == (t, b):
            groups[-1]["scores"].append((a, s))
        else:
            groups.append({"task": t, "battlefield": b, "scores": [(a, s)]})
    return groups


#: A position written as "<stance><separator><motion>" repeats the motion; the stance alone is shown
#: when it has at most this many characters ("For the motion", "Against the motion").
STANCE_CHARS = 30


def stance(position: str, motion: str) -> str | None:
    """What ``position`` says beyond ``motion`` when it only restates it: the stance before the
    motion's text with its separator stripped (``"For the motion: X"`` with motion ``"X"`` ->
    ``"For the motion"``; ``"X"`` itself -> ``""``), or None when the position is its own text (then
    the prompt shows it whole). Only a true repeat is shortened: the position must end with the
    whole motion (spaces and a final full stop ignored) and the stance be at most
    :data:`STANCE_CHARS` characters."""
    pos, mot = position.strip().rstrip(".。"), motion.strip().rstrip(".。")
    if not mot or not pos.endswith(mot):
        return None
    head = pos[: len(pos) - len(mot)].rstrip(" :：,，-—")
    return head if len(head) <= STANCE_CHARS else None


def judge_stages(request: JudgeRequest, ledger: Ledger) -> list[dict[str, Any]]:
    """The units a judge must score (:func:`judge_units`) grouped by stage, in stage order:
    ``[{"stage_id", "name", "type", "summary", "units": [{"key", "side", "role", "suggested_score",
    "task", "battlefield", "advancement", "rationale"}]}]``. A stage's summary is the ledger's (cut as
    the ledger cuts it), a unit's rationale its first 400 characters; a unit the analysis does not
    cover has None for its score and levels and "" for its rationale."""
    match = request.match
    by_unit: dict[tuple[str, str], SideAnalysis] = {(s.stage_id, s.side): s for a in request.analyses for s in a.sides}
    summaries = {s.stage_id: s.summary for s in ledger.stages}
    stages: list[dict[str, Any]] = []
    for sid, side in judge_units(request):
        if not stages or stages[-1]["stage_id"] != sid:
            st = match.stage(sid)
            stages.append({"stage_id": sid, "name": st.name, "type": st.type, "summary": summaries.get(sid, ""), "units": []})
        sa = by_unit.get((sid, side))
        stages[-1]["units"].append(
            {
                "key": unit_key(sid, side),
                "side": side,
                "role": match.stage(sid).role_of(side),
                "suggested_score": sa.suggested_score if sa else None,
                "task": sa.task_performance if sa else None,
                "battlefield": sa.battlefield_judgement if sa else None,
                "advancement": sa.advancement if sa else None,
                "rationale": (sa.rationale if sa else "")[:400],
            }
        )
    return stages


def judge_variables(request: JudgeRequest) -> dict[str, Any]:
    """Template variables of one judge (see the module docstring): the match header (with
    ``affirmative_stance`` / ``negative_stance``, :func:`stance`, where a position only restates the
    motion), the ledger (the judge template shows its clash lines; the stage lines' scores and
    summaries travel in ``stages``), the units grouped by stage (:func:`judge_stages`; ``units`` is the
    flat list of unit keys), the compact rubric in level keys (:func:`rubric_key_groups`), the vote total, whether the
    ballot carries the coach's feedback (``feedback``: the chair's, :func:`~adjudicator.verdict.feedback.writes_feedback`;
    ``feedback_null``: a wing on a match with feedback, which answers ``"feedback": null`` in the shared schema),
    its id and perspective."""
    match = request.match
    ledger = ledger_view(request.clashes, request.analyses)
    stages = judge_stages(request, ledger)
    return {
        **header(match),
        "affirmative_stance": stance(match.affirmative_position, match.motion),
        "negative_stance": stance(match.negative_position, match.motion),
        "judge_id": request.judge_id,
        "perspective": request.perspective,
        "ledger": ledger,
        "stages": stages,
        "units": [u["key"] for st in stages for u in st["units"]],
        "votes_total": BALLOT_VOTES,
        "rubric": rubric_key_groups(),
        "feedback": writes_feedback(request),
        "feedback_null": asks_feedback(request) and not writes_feedback(request),
    }

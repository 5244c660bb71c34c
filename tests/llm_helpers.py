"""Shared helpers for the LLM tests: small matches and valid model answers.

- :func:`online_match` / :func:`ccdb_2v2_match` build label-carrying matches (the labels hold unique
  marker strings so tests can prove they never reach a request).
- :func:`tracker_json` / :func:`ballot_json` write valid answers for a request.
- :func:`parse_p` is the three-stage parser for an answer that holds only p (strict, repaired,
  field-level), for the parser's own tests.
- :func:`schema_responder` answers any request from the JSON schema the client sent in
  ``response_format`` (use ``json_mode="object"`` or ``"schema"``; a tracker window's schema gets one
  stage answer per stage id; a BP judge a ranking ballot, :func:`bp_ballot_json`), and the single-call
  arm's plain-text BP tasks (:func:`bp_single_call_answer`), so a whole match, BP too, can run
  through the loopback server without scripting each call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import partial
from typing import Any

from adjudicator.input.formats import CCDB_2V2
from adjudicator.input.match import Match
from adjudicator.model.parsing import find_number, parse_output
from adjudicator.model.validators import as_probability

GOLD_MARKER = "GOLD-LABEL-MARKER-7f3a"


def _u(speaker: str, text: str) -> dict[str, Any]:
    return {"speaker": speaker, "side": "affirmative" if speaker.startswith("Affirmative") else "negative", "text": text}


def online_match(texts: list[str] | None = None, match_id: str = "online-demo") -> Match:
    """An online-1v1 match, speeches alternating affirmative/negative (default: four speeches)."""
    texts = texts or [
        "Homework takes sleep from teenagers, and sleep matters more for learning than drills.",
        "Homework builds discipline and lets teachers see what students have understood.",
        "Discipline can be built in class; the sleep studies my opponent ignored still stand.",
        "My opponent never answered the feedback point: without homework teachers fly blind.",
    ]
    stages = []
    for i, text in enumerate(texts):
        side = "affirmative" if i % 2 == 0 else "negative"
        last = i >= len(texts) - 2
        kind = "constructive" if i < 2 else ("closing" if last else "supplementary")
        speaker = "Affirmative Speaker 1" if side == "affirmative" else "Negative Speaker 1"
        stages.append({"stage_id": f"s{i + 1}", "name": f"Speech {i + 1}", "type": kind, "sides": [side], "utterances": [_u(speaker, text)]})
    return Match.model_validate(
        {
            "match_id": match_id,
            "format": "online-1v1",
            "language": "en",
            "motion": "This house would abolish homework",
            "affirmative_position": "Homework should be abolished",
            "negative_position": "Homework should stay",
            "debaters": [{"side": "affirmative", "position": 1}, {"side": "negative", "position": 1}],
            "stages": stages,
            "labels": {"outcome": "negative", "note": GOLD_MARKER},
            "source": {"kind": "synthetic", "origin": "test", "note": GOLD_MARKER},
        }
    )


def ccdb_2v2_match(match_id: str = "ccdb-demo") -> Match:
    """A synthetic ccdb-2v2 match following the format's twelve-stage order (short Chinese turns)."""
    stages = []
    for i, slot in enumerate(CCDB_2V2.order):
        utterances = []
        if slot.type in ("questioning", "cross_examination", "head_to_head", "free_debate"):
            a = next((s for s in slot.speakers if s.startswith("Affirmative")), "Affirmative Speaker 1")
            n = next((s for s in slot.speakers if s.startswith("Negative")), "Negative Speaker 1")
            utterances = [_u(a, f"第{i + 1}环节正方发问或发言。"), _u(n, f"第{i + 1}环节反方回应。"), _u(a, "正方继续追问。")]
        else:
            utterances = [_u(slot.speakers[0], f"第{i + 1}环节的陈词内容，论证与回应。")]
        stage: dict[str, Any] = {
            "stage_id": f"s{i + 1:02d}",
            "name": slot.name_zh,
            "type": slot.type,
            "sides": list(slot.sides) if slot.type not in ("questioning", "cross_examination") else ["affirmative", "negative"],
            "speakers": list(slot.speakers),
            "utterances": utterances,
        }
        if slot.questioner:
            other = "negative" if slot.questioner == "affirmative" else "affirmative"
            stage["roles"] = {slot.questioner: "questioner", other: "respondent"}
        stages.append(stage)
    judges = [
        {"judge_id": f"gold-{k}", "winner": "affirmative", "best_debater_votes": {"Affirmative Speaker 1": 3}} for k in range(3)
    ]
    return Match.model_validate(
        {
            "match_id": match_id,
            "format": "ccdb-2v2",
            "language": "zh",
            "motion": "人工智能的发展利大于弊",
            "affirmative_position": "利大于弊",
            "negative_position": "弊大于利",
            "debaters": [{"side": s, "position": p} for s in ("affirmative", "negative") for p in (1, 2)],
            "stages": stages,
            "labels": {"judges": judges, "note": GOLD_MARKER},
        }
    )


def tracker_json(sides: list[str], debaters: dict[str, str] | None = None, clash_id: str = "c1", level: str = "well") -> str:
    """A valid tracker answer rating each side in ``sides`` (well / correct_important / effective)."""
    debaters = debaters or {"affirmative": "Affirmative Speaker 1", "negative": "Negative Speaker 1"}
    return json.dumps(
        {
            "sides": [
                {
                    "side": s,
                    "rationale": f"{s} did its job",
                    "task_performance": level,
                    "battlefield_judgement": "correct_important",
                    "advancement": "effective",
                    "score": None,
                    "contributions": [{"debater": debaters[s], "share": 1.0}],
                }
                for s in sides
            ],
            "clash_updates": [
                {"clash_id": clash_id, "title": "sleep versus discipline", "side": sides[0], "kind": "advanced", "note": "pressed", "debater": debaters[sides[0]], "affirmative_position": "", "negative_position": ""}
            ],
            "summary": "the sleep clash moved",
        }
    )


def loopback_backend(server: Any, cache: Any = None) -> Any:
    """An :class:`~adjudicator.judges.llm.backend.LLMBackend` on the loopback ``server`` (a
    ``fake_openai`` FakeOpenAI): model ``openai/test-model``, JSON mode ``object``, ``cache`` if given."""
    from adjudicator.judges.llm.backend import LLMBackend
    from adjudicator.model.llm import LLMClient
    from adjudicator.model.prompts import PromptStore

    client = LLMClient("openai/test-model", api_base=server.base_url, api_key="sk-test-0123456789", json_mode="object", cache=cache)
    return LLMBackend(client, PromptStore())


def judge_request_over(view: Any) -> Any:
    """judge-1's :class:`~adjudicator.judges.base.JudgeRequest` (perspective ``task``, no clashes) over
    ``view``'s stages, each analysed from :func:`tracker_json` by the tracker's reader."""
    from adjudicator.judges.base import JudgeRequest, StageRequest
    from adjudicator.judges.llm.recovery import read_stage_analysis

    analyses = [parse_output(tracker_json(st.evaluated_sides()), validate=partial(read_stage_analysis, request=StageRequest(match=view, stage=st, index=i))).value
                for i, st in enumerate(view.stages)]
    return JudgeRequest(judge_id="judge-1", perspective="task", match=view, clashes={}, analyses=analyses)


def feedback_for(labels: list[str], stage_id: str = "s1", clash_id: str = "") -> dict[str, Any]:
    """A coach's feedback to each debater of ``labels``: three points, each on ``stage_id`` and ``clash_id``."""
    return {label: {kind: {"text": f"{label}: {kind} in {stage_id}", "stage_id": stage_id, "clash_id": clash_id} for kind in ("worked", "missed", "work_on")} for label in labels}


def ballot_json(units: list[tuple[str, str]], p: float = 0.62, votes: dict[str, int] | None = None, score: int = 7, feedback: dict[str, Any] | None = None) -> str:
    """A valid judge answer scoring every unit ``score`` (with ``feedback`` when given; an online
    match's judge needs it, :func:`feedback_for`)."""
    votes = votes if votes is not None else {"Affirmative Speaker 1": 2, "Negative Speaker 1": 1}
    answer: dict[str, Any] = {
        "reasoning": "the affirmative won the sleep clash",
        "stage_scores": [{"stage_id": sid, "side": side, "score": score} for sid, side in units],
        "winner": "affirmative" if p > 0.5 else "negative",
        "p": p,
        "best_debater_votes": votes,
    }
    if feedback is not None:
        answer["feedback"] = feedback
    return json.dumps(answer, ensure_ascii=False)


def request_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The plain response schema a request body sent (``json_schema`` or the ``json_object`` form),
    its ``$defs`` references inlined (:func:`adjudicator.model.schema.inline_refs`); None without one."""
    from adjudicator.model.schema import inline_refs

    rf = body.get("response_format") or {}
    schema = rf.get("schema") or (rf.get("json_schema") or {}).get("schema")
    return inline_refs(schema) if isinstance(schema, dict) else None


def schema_responder(body: dict[str, Any]) -> str:
    """A valid answer for any request of either arm, read off the schema in ``response_format``
    (tracker: the keys of ``sides``; judge: the unit keys of ``stage_scores`` and the vote labels;
    single-call Task 1 / 2 / 3: p, score, votes). The answers keep the older list and mapping shapes
    the readers also accept, so the golden verdicts show what the parser does with them."""
    schema = request_schema(body)
    if not schema:
        return bp_single_call_answer(body) or "no schema in the request"
    props = schema["properties"]
    if "ranking" in props:  # a BP judge's ballot
        return bp_ballot_json(props)
    # the single-call protocol's three tasks (adjudicator/single_call/)
    if set(props) == {"basis", "p"}:
        return json.dumps({"basis": "closer engagement on the main clash", "p": 0.62})
    if set(props) == {"basis", "score"}:
        return json.dumps({"basis": "completed the stage's task", "score": 6})
    if "votes" in props:
        labels = props["votes"]["items"]["enum"]
        return json.dumps({"basis": "most influential debaters", "votes": {labels[0]: 5, labels[-1]: 4}})
    if "sides" in props or "rating" in props:
        return _tracker_answer(props, body)
    if not ({"stages", "stage_scores"} & set(props)) or ("stage_scores" in props and "best_debater_votes" not in props):
        return _repair_answer(props, body)
    if "stages" in props:  # the tracker's window of stages: one stage answer per stage id
        stages = props["stages"]
        return json.dumps({"stages": {sid: json.loads(_tracker_answer(stages["properties"][sid]["properties"], body)) for sid in stages["required"]}})
    units = [tuple(key.split("|")) for key in props["stage_scores"]["required"]]
    labels = props["best_debater_votes"]["items"]["enum"]
    feedback = None
    if "feedback" in props and not any(said in _request_text(body) for said in WING_FEEDBACK_NULL):  # the chair's feedback: each debater, on the first stage and the first clash it may name
        feedback = feedback_for(props["feedback"]["required"], units[0][0], first_clash_id(body))
    answer = ballot_json(units, votes={labels[0]: 2, labels[-1]: 1}, feedback=feedback)
    if "feedback" in props and feedback is None:  # a wing: the shared schema's feedback, null as its prompt asks
        answer = json.dumps({**json.loads(answer), "feedback": None})
    return answer


#: What a wing's prompt says of the shared schema's feedback (prompts/judge.{en,zh}.j2, ``feedback_null``).
WING_FEEDBACK_NULL = ('your ballot\'s "feedback" is null', '"feedback" 填 null')


def bp_ballot_json(props: dict[str, Any]) -> str:
    """A valid BP judge's ballot for the schema properties ``props``: the houses ranked in the order the
    schema lists them (OG 1, OO 2, CG 3, CO 4) and the speeches scored 80, 79, ... in speaking order,
    ranked 1..8, so each house's two speeches (PM + DPM 158, LO + DLO 156, MG + GW 150, MO + OW 148)
    agree with its rank: no low-point win."""
    houses = list(props["ranking"]["properties"])
    stage_ids = props["speaker_scores"]["items"]["properties"]["stage_id"]["enum"]
    return json.dumps({
        "reasoning": "the opening government framed the health clash and every later house answered it",
        "ranking": {h: k + 1 for k, h in enumerate(houses)},
        "speaker_scores": [{"stage_id": sid, "score": 80 - k, "rank": k + 1} for k, sid in enumerate(stage_ids)],
    })  # fmt: skip


def bp_single_call_answer(body: dict[str, Any]) -> str | None:
    """The single-call arm's plain-text BP answers (no schema; prompts/single_call_bp_*): the house order
    OG, OO, CG, CO; speaker scores 80, 79, ... and ranks 1..8 in speaking order, for the speech
    abbreviations the request lists (``PM: <score>``); None for another request."""
    text = _request_text(body)
    if "rank the four houses" in text:
        return "First: OG\nSecond: OO\nThird: CG\nFourth: CO"
    for slot, value in (("<score>", lambda k: 80 - k), ("<rank>", lambda k: k + 1)):
        abbrs = re.findall(rf"^(\w+): {slot}$", text, re.M)
        if abbrs:
            return "\n".join(f"{a}: {value(k)}" for k, a in enumerate(abbrs))
    return None


def _request_text(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content") or "") for m in body.get("messages", []))


def first_clash_id(body: dict[str, Any]) -> str:
    """The first clash id of the ledger a judge's request shows (``- [c1] ...``), "" when it shows none:
    what a feedback point may name (the schema leaves the ids to the prompt)."""
    m = re.search(r"^- \[([\w-]+)\] ", _request_text(body), re.M)
    return m.group(1) if m else ""


def first_stage_id(body: dict[str, Any]) -> str:
    """The first unit's stage id a judge's request names (``"s01|negative"``), "s01" when none is found."""
    m = re.search(r'"([\w-]+)\|(?:affirmative|negative)"', _request_text(body))
    return m.group(1) if m else "s01"


def _repair_answer(props: dict[str, Any], body: dict[str, Any]) -> str:
    """A valid reply to a repair turn (a schema cut down to the fields asked for, ``model/schema.sub_schema``):
    one value for each field, as the full answers of :func:`tracker_json` and :func:`ballot_json` have it."""
    out: dict[str, Any] = {}
    for key, spec in props.items():
        if key == "clash_updates":
            item = spec["items"]["properties"]
            update = {"clash_id": "c1", "title": "sleep versus discipline", "side": item["side"]["enum"][0], "kind": "advanced", "note": "pressed again",
                      "debater": None, "affirmative_position": "", "negative_position": ""}  # fmt: skip
            out[key] = [{k: v for k, v in update.items() if k in item}]  # no "debater" where every side has one debater
        elif key == "stage_scores":
            out[key] = dict.fromkeys(spec["required"], 7)
        elif key == "p":
            out[key] = 0.62
        elif key == "winner":
            out[key] = "affirmative"
        elif key == "best_debater_votes":
            labels = spec["items"]["enum"]
            out[key] = [labels[0], labels[0], labels[-1]]
        elif key == "feedback":
            out[key] = feedback_for(spec["required"], first_stage_id(body), first_clash_id(body))
        else:  # a text field: reasoning, summary
            out[key] = "the affirmative won the sleep clash, which the negative never answered"
    return json.dumps(out)


#: What a tracker request in the match's one-schema form (``"rating"``) says of the side it rates
#: (prompts/track_stage.{en,zh}.j2, ``one_rating``).
RATED_SIDE = re.compile(r'"rating" (?:rates the side listed under "What to evaluate" \(the (affirmative|negative)\)|评价"评价对象"所列的那一方（(正方|反方)）)')


def rated_side(body: dict[str, Any]) -> str:
    """The side a tracker request in the one-schema form rates, read off its prompt (:data:`RATED_SIDE`).
    Raises ValueError when the prompt names none."""
    m = RATED_SIDE.search(_request_text(body))
    if m is None:
        raise ValueError("a tracker request with a \"rating\" schema whose prompt names no side to rate")
    return m.group(1) or ("affirmative" if m.group(2) == "正方" else "negative")


def _evaluated_sides(props: dict[str, Any], body: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """The sides a tracker request rates and the schema properties of one side's entry."""
    if "rating" in props:
        return [rated_side(body)], props["rating"]["properties"]
    sides = props["sides"]["required"]
    return sides, props["sides"]["properties"][sides[0]]["properties"]


def side_debaters_of(props: dict[str, Any], body: dict[str, Any]) -> dict[str, str]:
    """Each evaluated side's first debater label for a tracker request (``props``: its answer schema's
    properties; ``body``: the request): from the contributions' enum when the schema asks for shares,
    else from the labels the prompt names (a stage where every side has one debater asks none)."""
    sides, side_props = _evaluated_sides(props, body)
    if "contributions" in side_props:
        labels = side_props["contributions"]["items"]["properties"]["debater"]["enum"]
    else:
        text = _request_text(body)
        listed = re.search(r"Speakers \(use exactly these labels\): (.+)", text)
        labels = listed.group(1).split(", ") if listed else list(dict.fromkeys(re.findall(r"(?:Affirmative|Negative) Speaker \d+", text)))
    # a BP house speaks for a side: Opening / Closing Government the affirmative, Opposition the negative
    house = {"affirmative": "government", "negative": "opposition"}
    return {s: next(label for label in labels if label.lower().startswith(s) or label.lower().endswith(house[s])) for s in sides}


def _tracker_answer(props: dict[str, Any], body: dict[str, Any]) -> str:
    """:func:`tracker_json` for the sides of one stage answer's schema properties, each side's first
    debater label (from the contributions' enum when the schema asks for shares, else from the labels
    the prompt lists); without ``contributions`` in the schema (every side has one debater there) the
    answer gives none, and without an update's ``debater`` (every side of the match has one debater)
    its updates name none."""
    sides, side_props = _evaluated_sides(props, body)
    answer = json.loads(tracker_json(sides, side_debaters_of(props, body)))
    if "contributions" not in side_props:
        for side in answer["sides"]:
            del side["contributions"]
    if "debater" not in props.get("clash_updates", {}).get("items", {}).get("properties", {"debater": None}):
        for update in answer["clash_updates"]:
            del update["debater"]
    if "rating" in props:  # the match's one schema: the one side's entry, its side implied by the stage
        answer = {"rating": {k: v for k, v in answer.pop("sides")[0].items() if k != "side"}, **answer}
    return json.dumps(answer)


def read_p(obj: Any) -> float:
    """Validate ``{"p": ...}``: p in [0, 1]."""
    return as_probability(obj["p"])


def recover_p(text: str) -> dict[str, Any] | None:
    """Field-level recovery of p."""
    p = find_number(text, ["p"])
    return None if p is None else {"p": p}


parse_p = partial(parse_output, validate=read_p, recover=recover_p)


def weak_model_ballot(view: Any, p: Any, stage_ids: list[str] | dict[str, list[str]], winner: str | None = "affirmative",
                      reasoning: str = "the affirmative held the clash in s1 with its evidence") -> str:
    """A judge's answer as the real Qwen2.5-Coder 0.5B wrote them at 0cefc6c (issue 38): its decision
    fields well formed, p written as given (``8``, ``8.5`` on a 1-10 scale, ``0.5``), and each debater's
    feedback points naming their stage by ``stage_ids`` in turn (stage names such as ``'Round 1'`` or
    ``'Speech 1'``, a clash id ``'c1'``) instead of the stage id; ``stage_ids`` per position label when
    a dict (the 1.5B model's ``'s1|affirmative'``, a stage score's key, differs by debater)."""
    from adjudicator.judges.llm.variables import judge_units, unit_key

    request = judge_request_over(view)
    labels = view.debater_labels()
    per = stage_ids if isinstance(stage_ids, dict) else dict.fromkeys(labels, stage_ids)
    feedback = {label: {kind: {"text": f"{label}: {kind}", "stage_id": per[label][i % len(per[label])], "clash_id": ""} for i, kind in enumerate(("worked", "missed", "work_on"))} for label in labels}
    answer: dict[str, Any] = {"reasoning": reasoning, "stage_scores": {unit_key(sid, side): 7 for sid, side in judge_units(request)}, "p": p, "best_debater_votes": [labels[0], labels[0], labels[-1]], "feedback": feedback}
    if winner is not None:
        answer["winner"] = winner
    return json.dumps(answer, ensure_ascii=False)


def weak_model_tracker_reply(sides: list[str], clash_updates: list[dict[str, Any]] | None = None) -> str:
    """A tracker answer as the real Qwen2.5-Coder 1.5B wrote every one at 0cefc6c (issue 38,
    debateart_4395 and 4739): well formed, ``sides`` as an object keyed by side, its levels set, and
    ``clash_updates`` empty (``[]``) on a speech that argued, so no clash ever moved; ``clash_updates``
    gives other updates instead."""
    return json.dumps(
        {
            "reasoning": "The speaker defines the terms that matter and builds the main arguments with reasons and support.",
            "sides": {s: {"rationale": "It sets the standard and supports its position.", "task_performance": "perfect", "battlefield_judgement": "correct_important",
                          "advancement": "decisive", "score": None} for s in sides},
            "clash_updates": clash_updates or [],
            "summary": "The speaker defines the terms and builds the main arguments for its position.",
        }
    )  # fmt: skip


#: Four speeches of at least 30 words each (real speech, :func:`adjudicator.verdict.review.is_real_speech`).
LONG_SPEECHES = [
    "Homework takes sleep from teenagers, and sleep matters more for learning than drills. The studies of adolescent sleep show that every hour of "
    "homework after nine in the evening costs memory, mood and attention the next day, so the drills defeat their own purpose.",
    "Homework builds discipline and lets teachers see what students have understood. Without it a teacher learns of a gap only at the exam, "
    "when it is too late to help, and the students who need practice most are the ones who lose it first.",
    "Discipline can be built in class; the sleep studies my opponent ignored still stand. A teacher can see understanding in class exercises "
    "and short quizzes, which cost no sleep, and my opponent gave no evidence that homework builds discipline at all.",
    "My opponent never answered the feedback point: without homework teachers fly blind. Quizzes in class take teaching time away, and the "
    "sleep studies measure late hours, not homework itself, so the harm they show comes from screens rather than from exercises.",
]


def chair_stays_at_half(view: Any, winner: str | None) -> Callable[[dict[str, Any]], str]:
    """A loopback responder where judge-1 answers p = 0.5 (stating ``winner``, or none) and keeps it
    on the repair turn that asks for p alone; every other request gets :func:`schema_responder`."""

    def responder(body: dict[str, Any]) -> str:
        judge_1 = "judge-1" in body["messages"][1]["content"]
        if judge_1 and "stage_scores" in body["response_format"]["schema"]["properties"]:
            return weak_model_ballot(view, 0.5, ["s1"], winner=winner)
        if judge_1 and list(body["response_format"]["schema"]["properties"]) == ["p"]:
            return '{"p": 0.5}'
        return schema_responder(body)

    return responder

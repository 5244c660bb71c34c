"""Issue 39, cutting the agentic arm's completions: a clash update names no ``debater`` where every side
of the match has one debater.

On an online 1v1 the update's ``side`` names its debater, so the key carried nothing and cost about 22
completion tokens a stage (88 of the tracker's 958 on debateart_4395, sized answers,
``benchmarks/completion_fields.py``). There the tracker's schema has no ``debater``, its prompts (en and
zh) say nothing of it, and the reader fills in the side's only debater, as if the model had written it,
so the battlefield's "who advanced them" is as before. Where a side has two or more debaters (CCDB,
BP) the key stays as it was.
"""

from __future__ import annotations

import json

from bp_helpers import bp_data
from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import LONG_SPEECHES, ccdb_2v2_match, loopback_backend, online_match, schema_responder, tracker_json

from adjudicator.api import adjudicate_with_context
from adjudicator.input.match_file import parse_match
from adjudicator.judges.base import StageRequest
from adjudicator.judges.llm.outputs import stage_schema, window_schema
from adjudicator.judges.llm.recovery import read_stage_analysis, read_window_analyses
from adjudicator.judges.llm.variables import asks_update_debater, sole_debaters, stage_variables
from adjudicator.model.cache import NullCache
from adjudicator.model.llm import LLMClient
from adjudicator.workflow.context import AdjudicationContext

ONLINE = online_match(LONG_SPEECHES).view()
CCDB = ccdb_2v2_match().view()
ONE_A_SIDE = {"affirmative": "Affirmative Speaker 1", "negative": "Negative Speaker 1"}
#: A clash update's keys, in the schema's order, with and without the debater.
WITH_DEBATER = ["clash_id", "title", "side", "kind", "note", "debater", "affirmative_position", "negative_position"]
WITHOUT_DEBATER = ["clash_id", "title", "side", "kind", "note", "affirmative_position", "negative_position"]


def request(view, index: int) -> StageRequest:
    return StageRequest(match=view, stage=view.stages[index], index=index, previous=list(view.stages[:index]))


def update_keys(schema: dict) -> list[str]:
    return list(schema["properties"]["clash_updates"]["items"]["properties"])


def backend():
    from adjudicator.judges.llm.backend import LLMBackend

    return LLMBackend(LLMClient("openai/test-model", cache=NullCache()))


def text_of(chat) -> str:
    return "\n".join(m["content"] for m in chat.messages)


def without_debater(answer: str) -> dict:
    obj = json.loads(answer)
    for update in obj["clash_updates"]:
        del update["debater"]
    return obj


def test_a_1v1_tracker_asks_no_debater_in_its_schema_nor_its_prompts_en_and_zh():
    assert sole_debaters(ONLINE) == ONE_A_SIDE and not asks_update_debater(ONLINE)
    r0, r1 = request(ONLINE, 0), request(ONLINE, 1)
    assert update_keys(stage_schema(r0)) == WITHOUT_DEBATER
    chat = backend().stage_prompt(r0)
    assert update_keys(dict(chat.schema or {})) == WITHOUT_DEBATER
    assert '"debater"' not in text_of(chat) and "who did it" not in text_of(chat)
    # a window of two stages: each stage's updates without the key, and the prompt without it
    window = window_schema([r0, r1])
    assert [update_keys(window["properties"]["stages"]["properties"][sid]) for sid in ("s1", "s2")] == [WITHOUT_DEBATER, WITHOUT_DEBATER]
    assert '"debater"' not in text_of(backend().window_prompt([r0, r1]))
    # the Chinese wording, rendered with the same variables, says nothing of it either
    zh = backend().prompts.render("track_stage.zh.j2", stage_variables(r0))
    assert '"debater"' not in zh.system + zh.user and "做出这一步的辩手" not in zh.system


def test_the_key_stays_where_a_side_has_two_debaters():
    online, ccdb = request(ONLINE, 0), request(CCDB, 1)
    assert update_keys(stage_schema(online)) == WITHOUT_DEBATER  # the cut, beside what stays
    assert sole_debaters(CCDB) is None and asks_update_debater(CCDB)
    assert update_keys(stage_schema(ccdb)) == WITH_DEBATER
    assert stage_schema(ccdb)["properties"]["clash_updates"]["items"]["properties"]["debater"] == {"type": ["string", "null"]}
    chat = backend().stage_prompt(ccdb)
    assert '  - "debater"（文字）：做出这一步的辩手的位置标签\n' in chat.messages[0]["content"]
    en = backend().prompts.render("track_stage.en.j2", stage_variables(ccdb))
    assert '  - "debater" (text): the position label of the debater who did it\n' in en.system
    # BP: four speakers a bench, and houses that speak as teams
    bp = parse_match(bp_data()).view()
    assert sole_debaters(bp) is None
    bp_chat = backend().stage_prompt(request(bp, 0))
    assert update_keys(dict(bp_chat.schema or {})) == WITH_DEBATER and '"debater" (text)' in bp_chat.messages[0]["content"]


def test_a_reply_without_debater_is_read_with_the_sides_only_debater():
    r1 = request(ONLINE, 1)  # s2, the negative's speech
    analysis = read_stage_analysis(without_debater(tracker_json(["negative"])), r1)
    assert [(u.side, u.debater) for u in analysis.clash_updates] == [("negative", "Negative Speaker 1")]
    # a reply that still writes it is read as before; a null is the side's debater too
    written = json.loads(tracker_json(["negative"]))
    assert [u.debater for u in read_stage_analysis(written, r1).clash_updates] == ["Negative Speaker 1"]
    written["clash_updates"][0]["debater"] = None
    assert [u.debater for u in read_stage_analysis(written, r1).clash_updates] == ["Negative Speaker 1"]
    # a window's stages are read the same way
    r0 = request(ONLINE, 0)
    window = {"stages": {"s1": without_debater(tracker_json(["affirmative"])), "s2": without_debater(tracker_json(["negative"]))}}
    assert [[u.debater for u in a.clash_updates] for a in read_window_analyses(window, [r0, r1])] == [["Affirmative Speaker 1"], ["Negative Speaker 1"]]
    # where a side has two debaters nothing is made up
    ccdb = request(CCDB, 1)
    sides = list(CCDB.stages[1].evaluated_sides())
    assert [u.debater for u in read_stage_analysis(without_debater(tracker_json(sides)), ccdb).clash_updates] == [None]


def test_the_battlefield_names_the_debater_a_1v1_reply_left_out(fake_openai):
    def responder(body: dict) -> str:
        answer = json.loads(schema_responder(body))
        if "clash_updates" in answer:
            for update in answer["clash_updates"]:
                update.pop("debater", None)
        return json.dumps(answer)

    fake_openai.respond_with(responder)
    verdict = adjudicate_with_context(online_match(LONG_SPEECHES), AdjudicationContext.single(loopback_backend(fake_openai)))
    events = [e for clash in verdict.battlefields for e in clash.events]
    assert len(events) == 4  # one update a speech, four speeches
    assert [(e.stage_id, e.side, e.debater) for e in events] == [
        ("s1", "affirmative", "Affirmative Speaker 1"),
        ("s2", "negative", "Negative Speaker 1"),
        ("s3", "affirmative", "Affirmative Speaker 1"),
        ("s4", "negative", "Negative Speaker 1"),
    ]

"""Anthropic cache_control breakpoints where they pay (issue 39, layouts a cache can serve).

Anthropic caches a prefix only up to a breakpoint the request marks, writing it at 1.25x an input
token and reading it at 0.1x. The tracker's requests go out one stage after another and a provider's
cached prefix starts with the response schema, so a stage's system message and match header are read
again by the next stage with the same schema (the same evaluated sides): those requests mark the
system message's end and the end of the MOTION fence; the last stage of each schema marks none (a
write nobody reads). Other providers get the plain string messages, byte for byte as before.
"""

from __future__ import annotations

from llm_helpers import ccdb_2v2_match, online_match

from adjudicator.judges.base import StageRequest
from adjudicator.judges.llm.backend import LLMBackend
from adjudicator.model.cache_control import MAX_BREAKPOINTS, explicit_prompt_cache, with_breakpoints
from adjudicator.model.llm import LLMClient
from adjudicator.model.prompts import PromptStore

EPHEMERAL = {"type": "ephemeral"}


def stage_request(view, index: int) -> StageRequest:
    return StageRequest(match=view, stage=view.stages[index], index=index, previous=list(view.stages[:index]))


def backend(model: str = "anthropic/claude-sonnet-4-5", json_mode: str = "auto") -> LLMBackend:
    return LLMBackend(LLMClient(model, api_base="http://127.0.0.1:9/v1", api_key="sk-test-0123456789", json_mode=json_mode), PromptStore())


def test_breakpoints_split_a_message_into_blocks_that_join_to_it():
    messages = ({"role": "system", "content": "abcdef"}, {"role": "user", "content": "0123456789"})
    out = with_breakpoints(messages, [(0, 6), (1, 4)])
    assert out[0] == {"role": "system", "content": [{"type": "text", "text": "abcdef", "cache_control": EPHEMERAL}]}
    assert out[1] == {"role": "user", "content": [{"type": "text", "text": "0123", "cache_control": EPHEMERAL}, {"type": "text", "text": "456789"}]}
    # offsets outside a text are left out; at most four breakpoints, the first in message order
    assert with_breakpoints(messages, [(0, 0), (1, 11), (2, 1)]) == [dict(m) for m in messages]
    many = with_breakpoints(messages, [(1, k) for k in range(1, 8)])
    assert sum("cache_control" in b for b in many[1]["content"]) == MAX_BREAKPOINTS
    assert "".join(b["text"] for b in many[1]["content"]) == "0123456789"


def test_only_anthropic_style_providers_get_breakpoints():
    assert explicit_prompt_cache("anthropic/claude-sonnet-4-5") and explicit_prompt_cache("claude-sonnet-4-5")
    assert explicit_prompt_cache("bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0")
    assert not explicit_prompt_cache("openai/gpt-4.1-mini") and not explicit_prompt_cache("deepseek/deepseek-chat")


def test_the_tracker_marks_its_shared_head_only_where_a_later_stage_reads_it():
    view = online_match().view()  # four stages, one side each: affirmative, negative, affirmative, negative
    sides = [tuple(st.evaluated_sides()) for st in view.stages]
    assert sides == [("affirmative",), ("negative",), ("affirmative",), ("negative",)]
    b = backend(json_mode="object")  # the "sides" form: stage k shares its schema with stage k+2
    chats = [b.stage_prompt(stage_request(view, i)) for i in range(len(view.stages))]
    assert [bool(c.cache_points) for c in chats] == [True, True, False, False]
    system, user = chats[0].messages[0]["content"], chats[0].messages[1]["content"]
    (s_index, s_end), (u_index, u_end) = chats[0].cache_points
    assert (s_index, s_end) == (0, len(system)) and u_index == 1
    head = user[:u_end]
    assert head.rstrip("\n").endswith(">>>") and "<<<END MOTION-" in head.splitlines()[-1] and "LEDGER" not in head
    # stage 3 (the next request of stage 1's schema) begins with the same system message and header
    assert chats[2].messages[0]["content"] == system and chats[2].messages[1]["content"].startswith(head)
    sent = b.client._kwargs(chats[0])["messages"]
    assert sent[0]["content"] == [{"type": "text", "text": system, "cache_control": EPHEMERAL}]
    assert [blk.get("cache_control") for blk in sent[1]["content"]] == [EPHEMERAL, None]
    assert "".join(blk["text"] for blk in sent[1]["content"]) == user


def test_under_the_one_tracker_schema_every_stage_but_the_last_marks_its_head():
    """Asked for strict json_schema (Claude under auto), an online 1v1 match's stages share one answer
    schema ("rating"), so each stage's head is read by the next stage: stages 1-3 mark it, stage 4 none."""
    view = online_match().view()
    chats = [backend().stage_prompt(stage_request(view, i)) for i in range(len(view.stages))]
    assert all(c.schema == chats[0].schema and "rating" in c.schema["properties"] for c in chats)
    assert [bool(c.cache_points) for c in chats] == [True, True, True, False]
    assert chats[1].messages[0]["content"] == chats[0].messages[0]["content"]


def test_other_providers_get_the_plain_messages():
    view = ccdb_2v2_match().view()
    chat = backend("openai/gpt-4.1-mini").stage_prompt(stage_request(view, 0))
    sent = backend("openai/gpt-4.1-mini").client._kwargs(chat)["messages"]
    assert sent == [dict(m) for m in chat.messages] and all(isinstance(m["content"], str) for m in sent)


def test_the_judges_mark_their_shared_beginning_only_when_sent_lead_first():
    """Sent lead-first, the chair writes the beginning the three judges share (the schema, one since the
    wings answer "feedback": null; the system message; the user message up to "You are judge-N") and
    the wings read it; sent at once none marks (three writes, no read)."""
    from llm_helpers import judge_request_over

    from adjudicator.config import JUDGE_IDS
    from adjudicator.judges.base import JUDGE_PERSPECTIVES

    chair = judge_request_over(online_match().view())
    panel = [chair.model_copy(update={"judge_id": j, "perspective": JUDGE_PERSPECTIVES[j]}) for j in JUDGE_IDS]
    b = backend()
    assert all(b.judge_prompt(r).cache_points == () for r in panel)
    chats = [b.judge_prompt(r.model_copy(update={"cache_shared": True})) for r in panel]
    for j, chat in zip(JUDGE_IDS, chats):
        system, user = chat.messages[0]["content"], chat.messages[1]["content"]
        (m0, at0), (m1, at1) = chat.cache_points
        assert (m0, at0) == (0, len(system)) and m1 == 1 and user[at1:].startswith(f"You are {j}")
    heads = {(c.messages[0]["content"], c.messages[1]["content"][: c.cache_points[1][1]]) for c in chats}
    assert len(heads) == 1  # the three mark the same prefix
    sent = with_breakpoints(chats[1].messages, chats[1].cache_points)
    assert sent[1]["content"][0]["cache_control"] == EPHEMERAL and "".join(x["text"] for x in sent[1]["content"]) == chats[1].messages[1]["content"]


def test_a_lead_first_panel_seats_judges_whose_beginning_is_shared():
    from adjudicator.workflow.nodes import judge_tasks

    view = online_match().view()
    state = {"match": view, "stages": list(view.stages), "panel": [("judge-1", "task"), ("judge-2", "battlefield")]}
    assert [t["request"].cache_shared for t in judge_tasks(state)] == [False, False]
    assert [t["request"].cache_shared for t in judge_tasks({**state, "panel_lead": "judge-1"})] == [True, True]

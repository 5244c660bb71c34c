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


def backend(model: str = "anthropic/claude-sonnet-4-5") -> LLMBackend:
    return LLMBackend(LLMClient(model, api_base="http://127.0.0.1:9/v1", api_key="sk-test-0123456789"), PromptStore())


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
    b = backend()
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


def test_other_providers_get_the_plain_messages():
    view = ccdb_2v2_match().view()
    chat = backend("openai/gpt-4.1-mini").stage_prompt(stage_request(view, 0))
    sent = backend("openai/gpt-4.1-mini").client._kwargs(chat)["messages"]
    assert sent == [dict(m) for m in chat.messages] and all(isinstance(m["content"], str) for m in sent)

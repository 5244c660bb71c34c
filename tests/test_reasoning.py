"""Reasoning models: the answer is parsed, never the draft, wherever the draft stands and whatever its tag.

Each reply below has the shape a reasoning model family actually sends (the draft holds a decoy answer
that would give another value): DeepSeek-R1 and Qwen3 (a leading ``<think>`` block), the same block
after the answer, other tags (``<thinking>``, ``<reasoning>``, Anthropic's ``<budget:thinking>``),
Magistral's ``[THINK]``, gpt-oss's harmony channels, a chat template that opened the block in the
prompt (only ``</think>`` in the reply) and a reply cut off while thinking. They are read directly
by the parser and over HTTP through litellm (which moves a leading ``<think>`` block into
``reasoning_content`` itself, and passes a provider's ``reasoning_content`` on); the call record keeps
both the provider's draft and the blocks the parser set aside, and counts reasoning tokens apart.
"""

from __future__ import annotations

import json
import time
from functools import partial

import pytest
from fake_openai import FakeOpenAI, Reply, fake_openai  # noqa: F401 (fixture)
from llm_helpers import ballot_json, feedback_for, online_match, parse_p, tracker_json

from adjudicator.judges.base import JudgeRequest, StageRequest
from adjudicator.judges.llm.backend import LLMBackend
from adjudicator.judges.llm.recovery import read_stage_analysis
from adjudicator.model.attempts import run_attempts
from adjudicator.model.cache import ResponseCache
from adjudicator.model.chat import ChatRequest
from adjudicator.model.llm import LLMClient
from adjudicator.model.parsing import parse_output
from adjudicator.model.prompts import PromptStore
from adjudicator.model.reasoning import split_reasoning

ANSWER = '{"basis": "the negative answered the cost clash", "p": 0.31}'
DECOY = '{"basis": "maybe the affirmative", "p": 0.83}'

#: name -> (reply text, the draft(s) the parser must set aside)
REPLIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "deepseek-r1 leading think": (f"<think>\nLet me weigh both sides. A first guess: {DECOY}\n</think>\n\n{ANSWER}", (f"Let me weigh both sides. A first guess: {DECOY}",)),
    "think after the answer": (f"{ANSWER}\n<think>Double-check: {DECOY}</think>", (f"Double-check: {DECOY}",)),
    "thinking tag with attributes": (f'<thinking type="draft">{DECOY}</thinking>{ANSWER}', (DECOY,)),
    "reasoning tag in the middle": (f"Here is my decision.\n<reasoning>{DECOY}</reasoning>\n{ANSWER}", (DECOY,)),
    "anthropic budget thinking": (f"<budget:thinking>{DECOY}</budget:thinking>{ANSWER}", (DECOY,)),
    "magistral think brackets": (f"[THINK]The draft says {DECOY}[/THINK]{ANSWER}", (f"The draft says {DECOY}",)),
    "gpt-oss harmony channels": (
        f"<|channel|>analysis<|message|>Thinking: {DECOY}<|end|><|start|>assistant<|channel|>final<|message|>{ANSWER}<|return|>",
        (f"Thinking: {DECOY}",),
    ),
    "orphan closing tag": (f"The template opened the block in the prompt. {DECOY}</think>\n{ANSWER}", (f"The template opened the block in the prompt. {DECOY}",)),
    "two blocks and an upper-case tag": (f"<THINK>{DECOY}</THINK>{ANSWER}<think>and {DECOY}</think>", (DECOY, f"and {DECOY}")),
}


@pytest.mark.parametrize("name", list(REPLIES))
def test_the_answer_not_the_draft_is_parsed(name):
    text, drafts = REPLIES[name]
    result = parse_p(text)
    assert result.value == 0.31, name  # the decoy would give 0.83
    assert result.reasoning == drafts


def test_the_issue_example_reads_the_answer():
    # parse_output('<think>maybe {"p": 0.2}…</think>\n{"p": 0.8, …}') returned 0.2 before
    assert parse_p('<think>maybe {"p": 0.2}…</think>\n{"p": 0.8, "basis": "x"}').value == 0.8


def test_a_reply_cut_off_while_thinking_has_no_answer_and_regex_does_not_read_the_draft():
    result = parse_p(f"<think>I lean to {DECOY} but let me check the p: 0.9 idea")
    assert result.value is None and result.stage == "failed" and result.error == "no answer after the reasoning"
    assert result.reasoning == (f"I lean to {DECOY} but let me check the p: 0.9 idea",)
    # an answer before the unclosed block is still read
    assert parse_p(f"{ANSWER}<think>second thoughts {DECOY}").value == 0.31


def test_text_without_reasoning_is_unchanged():
    assert split_reasoning(ANSWER) == (ANSWER, ())
    assert split_reasoning('{"note": "we think, therefore"}') == ('{"note": "we think, therefore"}', ())


#: Replies of ~140 KB that made the reasoning split quadratic (issue 26, item 6): every unclosed
#: opening tag sent a lazy ``(.*?)`` scan to the end of the reply (13-25 s of CPU each).
HOSTILE = {
    "unclosed think tags": "<think>" * 20_000,
    "unclosed think brackets": "[THINK]" * 20_000,
    "opening tags without '>'": "<think " * 20_000,
    "tags closed by another name": "<think>a</thinking>" * 7_000,
    "harmony constraints without a message": "<|channel|>analysis<|constrain|>" * 4_000,
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_reply_is_split_in_linear_time(name):
    # a guard against the quadratic scan, not a speed target: the split takes ~10 ms; 2 s of CPU is
    # two orders of magnitude above it and one below the quadratic scan's 13 s (benchmarks keep speed)
    text = HOSTILE[name]
    start = time.process_time()
    answer, blocks = split_reasoning(text)
    assert time.process_time() - start < 2.0, name
    assert len(answer) + sum(len(b) for b in blocks) <= len(text)


def test_what_the_linear_split_keeps_and_drops():
    # each unclosed opening tag pairs with nothing; the first one's rest is the draft of a cut-off reply
    assert split_reasoning(f"{ANSWER}<think>a<think>b") == (ANSWER, ("a<think>b",))
    # an opening tag pairs with the first closing tag of its own name after it, as the regex did
    assert split_reasoning(f"<think>a</thinking>b</think>{ANSWER}") == (f"\n{ANSWER}", ("a</thinking>b",))
    # a harmony constraint is one word: the analysis message after it is the draft
    text = f"<|channel|>analysis<|constrain|>json<|message|>{DECOY}<|end|><|channel|>final<|message|>{ANSWER}<|return|>"
    assert split_reasoning(text) == (ANSWER, (DECOY,))


# ---------------------------------------------------------------------------------------------
# Over HTTP, through litellm


def client_for(server: FakeOpenAI, cache=None) -> LLMClient:
    return LLMClient("openai/test-model", api_base=server.base_url, api_key="sk-test-0123456789", cache=cache)


REQUEST = ChatRequest(messages=({"role": "user", "content": "Who won? Answer with basis and p."},), node="task1", key="match")


@pytest.mark.parametrize("name", ["deepseek-r1 leading think", "think after the answer", "magistral think brackets", "orphan closing tag"])
def test_through_litellm_the_answer_is_read_and_the_draft_is_kept(fake_openai, name):
    text, drafts = REPLIES[name]
    fake_openai.push(Reply(content=text, usage=(40, 30)))
    result = run_attempts(client_for(fake_openai), REQUEST, parse_p)
    assert result.value == 0.31
    (call,) = result.calls
    # litellm moves a leading <think> block into reasoning_content; the parser sets aside the rest
    kept = ((call.reasoning_content,) if call.reasoning_content else ()) + tuple(call.reasoning_blocks)
    assert tuple(k.strip() for k in kept) == drafts
    assert DECOY not in (call.raw_output or "") or name != "deepseek-r1 leading think"
    assert 0 < call.reasoning_tokens < 30  # counted offline (the server reported none), a part of the completion


def test_a_providers_reasoning_content_and_reasoning_tokens_are_recorded_and_replayed(fake_openai, tmp_path):
    fake_openai.push(Reply(content=ANSWER, reasoning_content=f"Weighing. {DECOY}", usage=(50, 120), reasoning_tokens=90))
    cache = ResponseCache(tmp_path / "cache")
    first = run_attempts(client_for(fake_openai, cache), REQUEST, parse_p)
    assert first.value == 0.31
    (call,) = first.calls
    assert call.reasoning_content == f"Weighing. {DECOY}" and call.reasoning_blocks == []
    assert (call.completion_tokens, call.reasoning_tokens) == (120, 90)
    again = run_attempts(client_for(fake_openai, cache), REQUEST, parse_p)
    assert fake_openai.count == 1 and again.calls[0].cache_hit
    assert again.calls[0].reasoning_content == call.reasoning_content and again.calls[0].reasoning_tokens == 90


def test_judge_and_tracker_ignore_a_decoy_in_the_draft(fake_openai):
    view = online_match().view()
    backend = LLMBackend(client_for(fake_openai), PromptStore())
    st_req = StageRequest(match=view, stage=view.stages[0], index=0)
    decoy_tracker = tracker_json(["affirmative"], level="not_completed")
    fake_openai.push(Reply(content=f"{tracker_json(['affirmative'])}\n<thinking>{decoy_tracker}</thinking>"))
    analysis = backend.analyse_stage(st_req)
    assert analysis.value.sides[0].task_performance == "well"
    analyses = [
        parse_output(tracker_json(st.evaluated_sides()), validate=partial(read_stage_analysis, request=StageRequest(match=view, stage=st, index=i))).value
        for i, st in enumerate(view.stages)
    ]
    units = [(st.stage_id, st.sides[0]) for st in view.stages]
    decoy_ballot = ballot_json(units, p=0.9, feedback=feedback_for(view.debater_labels()))
    fake_openai.push(Reply(content=f"<think>{decoy_ballot}</think>{ballot_json(units, p=0.27, feedback=feedback_for(view.debater_labels()))}"))
    ballot = backend.judge(JudgeRequest(judge_id="judge-1", perspective="task", match=view, clashes={}, analyses=analyses))
    assert ballot.value.p == 0.27 and ballot.value.winner == "negative"
    assert json.loads(ballot.calls[0].reasoning_content or ballot.calls[0].reasoning_blocks[0])["p"] == 0.9

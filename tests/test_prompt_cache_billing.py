"""Cached tokens are data (issue 39): the loopback server emulates a provider's prompt cache, and a
call record carries the cached count and bills those tokens at the cached price."""

from __future__ import annotations

from fake_openai import FakeOpenAI

from adjudicator.model.chat import ChatRequest
from adjudicator.model.llm import LLMClient
from adjudicator.model.reply import ReplyTokens, price_usd
from adjudicator.records import Usage


def _ask(client: LLMClient, system: str, user: str, key: str):
    return client.complete(ChatRequest(messages=({"role": "system", "content": system}, {"role": "user", "content": user}), node="task1", key=key))


def test_a_repeated_prefix_is_billed_at_the_cached_price() -> None:
    server = FakeOpenAI(prompt_cache="openai")
    server.respond_with(lambda body: "ok")
    try:
        client = LLMClient("openai/gpt-4.1-mini", api_base=server.base_url, api_key="sk-test-0123456789", json_mode="none")
        system = "Judge the debate. " * 400  # well over OpenAI's 1,024-token minimum
        first = _ask(client, system, "Task one.", "a")
        second = _ask(client, system, "Task two.", "b")
    finally:
        server.close()
    b1, b2 = server.prompt_cache.billed
    assert first.cached_tokens == 0 and b1.cached_tokens == 0
    # the second request shares the system message: the shared prefix rounded down to a 128-token step
    assert b2.cached_tokens >= 1024 and b2.cached_tokens % 128 == 0 and b2.cached_tokens <= b2.prompt_tokens
    assert second.cached_tokens == b2.cached_tokens and second.prompt_tokens == b2.prompt_tokens
    # gpt-4.1-mini (litellm's table): $0.40 per million input, $0.10 cached, $1.60 output
    uncached = b2.prompt_tokens - b2.cached_tokens
    expected = uncached * 0.4e-6 + b2.cached_tokens * 0.1e-6 + b2.completion_tokens * 1.6e-6
    assert abs(second.cost_usd - expected) < 1e-9
    full = b2.prompt_tokens * 0.4e-6 + b2.completion_tokens * 1.6e-6
    assert second.cost_usd < full - 0.7 * b2.cached_tokens * 0.3e-6


def test_deepseek_hit_counts_are_read() -> None:
    server = FakeOpenAI(prompt_cache="deepseek")
    server.respond_with(lambda body: "ok")
    try:
        client = LLMClient("openai/gpt-4.1-mini", api_base=server.base_url, api_key="sk-test-0123456789", json_mode="none")
        system = "Judge the debate. " * 100
        _ask(client, system, "Task one.", "a")
        second = _ask(client, system, "Task two.", "b")
    finally:
        server.close()
    b2 = server.prompt_cache.billed[1]
    assert b2.cached_tokens > 0 and second.cached_tokens == b2.cached_tokens


def test_usage_sums_cached_tokens_and_prices_a_recount_the_same() -> None:
    tokens = ReplyTokens(2000, 100, 1536)
    # 464 * 0.4e-6 + 1536 * 0.1e-6 + 100 * 1.6e-6 = 0.0004992 (by hand)
    assert abs(price_usd("gpt-4.1-mini", tokens) - 0.0004992) < 1e-12
    # deepseek-chat: 464 * 0.28e-6 + 1536 * 0.028e-6 + 100 * 0.42e-6 = 0.000214928
    assert abs(price_usd("deepseek/deepseek-chat", tokens) - 0.000214928) < 5e-9  # rounded to 8 decimals
    from adjudicator.records import CallRecord

    u = Usage.of([CallRecord(node="task1", model="m", prompt_tokens=2000, completion_tokens=100, cached_tokens=1536, cost_usd=0.0004992, parse="strict")])
    assert u.cached_tokens == 1536 and u.cost_usd == 0.000499  # Usage rounds to 6 decimals

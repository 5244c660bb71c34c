"""The model boundary with the real litellm client against the loopback OpenAI-compatible server."""

from __future__ import annotations

import email.utils
import logging
import socket
import time

import pytest
from fake_openai import FakeOpenAI, Reply, error, fake_openai, ok  # noqa: F401 (fixture)

from adjudicator.errors import ConfigError
from adjudicator.model.cache import ResponseCache
from adjudicator.model.chat import NODE_MAX_TOKENS, ChatRequest
from adjudicator.model.litellm_setup import litellm_module
from adjudicator.model.llm import LLMClient
from adjudicator.model.preflight import PLACEHOLDER_KEY, preflight
from adjudicator.model.transport import TransportError, TransportPolicy, retry_after_s

KEY = "sk-secret-abcdef123456"
SCHEMA = {"type": "object", "properties": {"p": {"type": "number"}}, "required": ["p"], "additionalProperties": False}


def request(node: str = "judge", key: str = "judge-1", text: str = "Decide.", template_hash: str = "h1") -> ChatRequest:
    return ChatRequest(
        messages=({"role": "system", "content": "You judge."}, {"role": "user", "content": text}),
        node=node,
        key=key,
        template_hash=template_hash,
        schema=SCHEMA,
        schema_name="winner",
    )


def client(server: FakeOpenAI, sleeps: list[float] | None = None, **kw) -> LLMClient:
    record = sleeps if sleeps is not None else []
    kw.setdefault("policy", TransportPolicy(max_retries=3, base_delay_s=0.01, max_delay_s=0.04))
    return LLMClient(kw.pop("model", "openai/test-model"), api_base=server.base_url, api_key=KEY, sleep=record.append, **kw)


def test_one_request_carries_temperature_0_and_no_schema_for_an_unknown_model(fake_openai):
    fake_openai.push('{"p": 0.7}')
    resp = client(fake_openai).complete(request())
    body = fake_openai.requests[0]
    assert body["model"] == "test-model"
    assert body["temperature"] == 0
    assert body["max_tokens"] == 1536  # the judge node's own completion budget (NODE_MAX_TOKENS)
    assert "response_format" not in body  # litellm does not list test-model as schema-capable: prompted JSON
    assert body["messages"][1] == {"role": "user", "content": "Decide."}
    assert (resp.text, resp.prompt_tokens, resp.completion_tokens) == ('{"p": 0.7}', 11, 7)
    assert resp.cost_usd is None  # no price known for test-model
    assert (resp.cache_hit, resp.transport_retries, resp.finish_reason) == (False, 0, "stop")
    assert fake_openai.headers[0].get("authorization") == f"Bearer {KEY}"  # the key goes to the server only


@pytest.mark.parametrize(
    "mode, expected",
    [
        ("schema", {"type": "json_schema", "json_schema": {"name": "winner", "schema": SCHEMA, "strict": True}}),
        ("object", {"type": "json_object", "schema": SCHEMA}),
        ("none", None),
    ],
)
def test_json_modes(fake_openai, mode, expected):
    fake_openai.push('{"p": 0.7}')
    client(fake_openai, json_mode=mode).complete(request())
    assert fake_openai.requests[0].get("response_format") == expected


def test_auto_mode_sends_a_schema_where_litellm_says_it_is_supported_and_prices_the_call(fake_openai):
    lit = litellm_module()
    assert lit.supports_response_schema(model="openai/gpt-4o-mini")
    fake_openai.push(Reply(content='{"p": 0.7}', usage=(1000, 200)))
    resp = client(fake_openai, model="openai/gpt-4o-mini").complete(request())
    assert fake_openai.requests[0]["response_format"]["type"] == "json_schema"
    inp, out = lit.cost_per_token(model="openai/gpt-4o-mini", prompt_tokens=1000, completion_tokens=200)
    assert resp.cost_usd == pytest.approx(inp + out)
    assert resp.cost_usd > 0


def test_429_honours_retry_after(fake_openai):
    sleeps: list[float] = []
    fake_openai.push(error(429, "slow down", headers={"Retry-After": "0.05"}), '{"p": 0.4}')
    resp = client(fake_openai, sleeps).complete(request())
    assert sleeps == [0.05]  # the server's wait, not the base delay
    assert fake_openai.count == 2
    assert (resp.text, resp.transport_retries) == ('{"p": 0.4}', 1)


def test_500_is_retried_with_exponential_backoff(fake_openai):
    sleeps: list[float] = []
    fake_openai.push(error(500), error(503), error(502), '{"p": 0.4}')
    resp = client(fake_openai, sleeps).complete(request())
    assert sleeps == [0.01, 0.02, 0.04]  # base 0.01 doubling, capped at 0.04
    assert resp.transport_retries == 3 and fake_openai.count == 4


def test_retries_are_bounded_and_owned_by_the_boundary_alone(fake_openai):
    sleeps: list[float] = []
    fake_openai.push(*[error(500)] * 6)
    c = client(fake_openai, sleeps, policy=TransportPolicy(max_retries=2, base_delay_s=0.01))
    with pytest.raises(TransportError) as info:
        c.complete(request())
    # exactly max_retries + 1 requests reached the server: neither litellm nor the OpenAI SDK retried
    assert fake_openai.count == 3
    assert info.value.retryable and info.value.status == 500 and info.value.retries == 2
    assert "gave up after 3 requests" in info.value.message
    assert sleeps == [0.01, 0.02]


def test_a_reply_slower_than_the_timeout_is_retried(fake_openai):
    sleeps: list[float] = []
    fake_openai.push(Reply(content='{"p": 0.9}', delay_s=2.0), '{"p": 0.3}')
    t0 = time.monotonic()
    resp = client(fake_openai, sleeps, timeout_s=0.3).complete(request())
    elapsed = time.monotonic() - t0
    assert resp.text == '{"p": 0.3}' and resp.transport_retries == 1
    assert fake_openai.count == 2 and sleeps == [0.01]
    assert elapsed < 1.5  # the slow reply was abandoned at the timeout, not awaited


def test_refused_connection_is_retried_then_reported():
    with socket.socket() as s:  # a port with nothing listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sleeps: list[float] = []
    c = LLMClient("openai/test-model", api_base=f"http://127.0.0.1:{port}/v1", api_key=KEY, sleep=sleeps.append, policy=TransportPolicy(max_retries=2, base_delay_s=0.01))
    with pytest.raises(TransportError) as info:
        c.complete(request())
    assert info.value.retryable and info.value.retries == 2
    assert sleeps == [0.01, 0.02]
    assert "cannot connect to http://127.0.0.1:" in info.value.message and "gave up after 3 requests" in info.value.message
    with pytest.raises(TransportError) as again:  # the server is known to be down: one try, no waits
        c.complete(request(key="judge-2"))
    assert again.value.retries == 0 and sleeps == [0.01, 0.02]


def test_a_bad_key_is_not_retried_and_never_echoed(fake_openai, caplog):
    fake_openai.push(error(401, f"Incorrect API key provided: {KEY}"))
    with caplog.at_level(logging.DEBUG):
        with pytest.raises(TransportError) as info:
            client(fake_openai).complete(request())
    assert fake_openai.count == 1
    assert not info.value.retryable and info.value.status == 401
    assert KEY not in info.value.message and "***" in info.value.message
    assert KEY not in caplog.text


def test_retry_logs_never_contain_the_key(fake_openai, caplog):
    fake_openai.push(error(500, f"upstream said key={KEY}"), '{"p": 0.4}')
    with caplog.at_level(logging.WARNING, logger="adjudicator.model.llm"):
        client(fake_openai).complete(request())
    assert "retry 1" in caplog.text
    assert KEY not in caplog.text


def test_missing_usage_is_counted_offline(fake_openai):
    fake_openai.push(Reply(content='{"p": 0.7, "basis": "the affirmative answered every question"}', usage=None))
    resp = client(fake_openai).complete(request())
    assert resp.prompt_tokens > 0 and resp.completion_tokens > 0


def test_a_reply_without_usage_is_priced_from_the_offline_counts(fake_openai):
    """A priced model whose server sends no usage block (some proxies do): the tokens counted offline
    are billed at the model's price (litellm's map for gpt-4o-mini: $0.15 per million prompt tokens,
    $0.60 per million completion tokens), not $0, so --budget-usd counts the request; with the block
    the same reply is priced from the block (11 and 7 tokens)."""
    fake_openai.push(Reply(content='{"p": 0.7, "basis": "the affirmative answered every question"}', usage=None))
    resp = client(fake_openai, model="openai/gpt-4o-mini", json_mode="object").complete(request())
    assert resp.prompt_tokens > 0 and resp.completion_tokens > 0
    expected = (resp.prompt_tokens * 0.15 + resp.completion_tokens * 0.60) / 1e6
    assert resp.cost_usd == pytest.approx(expected, rel=1e-6) and resp.cost_usd > 0
    fake_openai.push(Reply(content='{"p": 0.7, "basis": "the affirmative answered every question"}', usage=(11, 7)))
    resp = client(fake_openai, model="openai/gpt-4o-mini", json_mode="object").complete(request(key="judge-2"))
    assert (resp.prompt_tokens, resp.completion_tokens) == (11, 7)
    assert resp.cost_usd == pytest.approx((11 * 0.15 + 7 * 0.60) / 1e6, rel=1e-6)


def test_missing_usage_of_a_llama_named_model_is_counted_without_fetching_a_tokenizer(fake_openai, monkeypatch):
    """litellm's counter picks a Hugging Face tokenizer for llama-3 names and would download it (offline:
    about a minute of retries); the client counts with tiktoken instead (cl100k_base, its default for
    a name it does not know). By hand, cl100k_base: prompt = per message 3 + role 1 + content
    ("You judge." 3, "Decide." 3), plus 3 priming the reply = (3 + 1 + 3) + (3 + 1 + 3) + 3 = 17;
    completion '{"p": 0.7}' = 8 ('{"', 'p', '":', ' ', '0', '.', '7', '}')."""
    import litellm.utils

    fetched: list[str] = []
    monkeypatch.setattr(litellm.utils, "_return_huggingface_tokenizer", lambda model: fetched.append(model))
    fake_openai.push(Reply(content='{"p": 0.7}', usage=None))
    resp = client(fake_openai, model="openai/llama-3.2-1b-instruct").complete(request())
    assert fetched == []
    assert (resp.prompt_tokens, resp.completion_tokens) == (17, 8)


def test_refusal_text_is_kept_as_the_raw_output(fake_openai):
    fake_openai.push(Reply(content=None, refusal="I cannot judge this."))
    resp = client(fake_openai).complete(request())
    assert resp.text == "[refusal] I cannot judge this."


def test_cache_key_covers_the_request_but_not_the_key(fake_openai):
    a = client(fake_openai)
    b = LLMClient("openai/test-model", api_base=fake_openai.base_url, api_key="sk-another-key-999999")
    base = a.cache_key(request(), 1)
    assert base == b.cache_key(request(), 1)
    assert KEY not in base
    variants = {
        a.cache_key(request(), 2),  # attempt
        a.cache_key(request(key="judge-2"), 1),  # judge id
        a.cache_key(request(node="track_stage"), 1),  # node
        a.cache_key(request(template_hash="h2"), 1),  # template
        a.cache_key(request(text="Decide again."), 1),  # messages
        client(fake_openai, temperature=0.7).cache_key(request(), 1),  # parameters
        client(fake_openai, json_mode="object").cache_key(request(), 1),  # response format
        client(fake_openai, model="openai/other").cache_key(request(), 1),  # model
        LLMClient("openai/test-model", api_base="http://127.0.0.1:1/v1").cache_key(request(), 1),  # server
    }
    assert base not in variants and len(variants) == 9


def test_cached_response_is_served_without_a_request(fake_openai, tmp_path):
    cache = ResponseCache(tmp_path / "c")
    fake_openai.push(Reply(content='{"p": 0.7}', usage=(100, 20)))
    c = client(fake_openai, cache=cache)
    first = c.complete(request())
    c.remember(first, parsed=True)
    again = client(fake_openai, cache=ResponseCache(tmp_path / "c")).complete(request())
    assert fake_openai.count == 1
    assert again.cache_hit and (again.text, again.prompt_tokens, again.completion_tokens) == ('{"p": 0.7}', 100, 20)


def test_retry_after_forms():
    assert retry_after_s({"retry-after": "2"}) == 2.0
    assert retry_after_s({"retry-after-ms": "250"}) == 0.25
    when = email.utils.formatdate(1_000_010.0, usegmt=True)
    assert retry_after_s({"retry-after": when}, now=1_000_000.0) == pytest.approx(10.0)
    assert retry_after_s({"retry-after": "soon"}) is None
    assert retry_after_s({}) is None
    assert TransportPolicy(max_retry_after_s=5).delay_s(1, 600.0) == 5.0


def test_preflight_catches_unroutable_models_and_missing_keys(monkeypatch):
    with pytest.raises(ConfigError, match="provider"):
        preflight("not-a-model-anyone-knows")
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="DEEPSEEK_API_KEY"):
        preflight("deepseek/deepseek-chat")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert preflight("openai/local", api_base="http://127.0.0.1:8080/v1") == PLACEHOLDER_KEY
    assert preflight("openai/local", api_base="http://127.0.0.1:8080/v1", api_key="sk-x") == "sk-x"
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-from-env")
    assert preflight("deepseek/deepseek-chat") is None  # litellm reads the variable itself


def test_client_repr_hides_the_key(fake_openai):
    assert KEY not in repr(client(fake_openai))


def test_auto_mode_falls_back_to_the_json_object_form_when_the_server_rejects_the_schema(fake_openai, tmp_path):
    fake_openai.push(error(400, "response_format json_schema is not supported by this server"), '{"p": 0.7}')
    c = client(fake_openai, model="openai/gpt-4o-mini", cache=ResponseCache(tmp_path))
    resp = c.complete(request())
    assert fake_openai.requests[0]["response_format"]["type"] == "json_schema"
    assert fake_openai.requests[1]["response_format"]["type"] == "json_object"  # same attempt, the schema in llama-cpp-python's form
    assert resp.text == '{"p": 0.7}' and resp.transport_retries == 1  # the rejected request was sent: the ledger counts it
    c.remember(resp, parsed=True)
    again = client(fake_openai, model="openai/gpt-4o-mini", cache=ResponseCache(tmp_path)).complete(request())
    assert again.cache_hit and fake_openai.count == 2  # the rejection was remembered: no probe on rerun


def test_schema_mode_recognises_llama_cpp_pythons_500_once_and_sends_json_object_for_the_rest(fake_openai, caplog):
    # issue 38: llama-cpp-python's server answers json_schema with a 500 validation error naming
    # response_format; before, each of 60 requests was retried 4 times and every node failed
    refusal = error(500, "1 validation error for CreateChatCompletionRequest\nresponse_format\n  Input should be a valid dictionary")
    fake_openai.push(refusal, '{"p": 0.7}', '{"p": 0.6}')
    c = client(fake_openai, json_mode="schema")
    with caplog.at_level("WARNING"):
        first = c.complete(request())
        second = c.complete(request(key="other"))
    assert fake_openai.count == 3  # one refused request, no transport retries of it
    assert [b["response_format"]["type"] for b in fake_openai.requests] == ["json_schema", "json_object", "json_object"]
    assert "properties" in fake_openai.requests[1]["response_format"]["schema"]
    assert (first.text, first.transport_retries, second.transport_retries) == ('{"p": 0.7}', 1, 0)
    assert sum("refused response_format json_schema" in r.getMessage() for r in caplog.records) == 1


def test_a_server_refusing_the_json_object_form_too_gets_prompted_json(fake_openai):
    fake_openai.push(error(400, "response_format json_schema is not supported"), error(400, "response_format: unknown field schema"), '{"p": 0.7}')
    resp = client(fake_openai, json_mode="schema").complete(request())
    assert [b.get("response_format", {}).get("type") for b in fake_openai.requests] == ["json_schema", "json_object", None]
    assert resp.text == '{"p": 0.7}'


def test_object_mode_does_not_fall_back(fake_openai):
    fake_openai.push(error(400, "response_format json_object is not supported"))
    with pytest.raises(TransportError, match="request refused"):
        client(fake_openai, json_mode="object").complete(request())
    assert fake_openai.count == 1


def test_completion_budget_is_per_node_unless_configured(fake_openai):
    fake_openai.push('{"p": 0.7}', '{"p": 0.7}')
    client(fake_openai).complete(request(node="track_stage", key="s1"))
    client(fake_openai, max_tokens=300).complete(request(node="track_stage", key="s2"))
    assert NODE_MAX_TOKENS["track_stage"] == 1280
    assert [b["max_tokens"] for b in fake_openai.requests] == [1280, 300]


def test_a_prompt_beyond_the_known_context_window_is_never_sent(fake_openai):
    """gpt-4o's window is known to litellm (128k input tokens): a 200k-word prompt fails at once,
    with no request: the attempts runner records the node as failed with kind prompt_too_long, and no
    call record, since nothing was sent (it is no request and no parse failure)."""
    from adjudicator.model.attempts import run_attempts
    from adjudicator.model.parsing import parse_output

    c = client(fake_openai, model="openai/gpt-4o")
    huge = ChatRequest(messages=({"role": "system", "content": "Judge."}, {"role": "user", "content": "word " * 200_000}), node="judge", key="j1")
    result = run_attempts(c, huge, lambda text: parse_output(text, validate=lambda obj: obj))
    assert fake_openai.count == 0
    assert result.value is None and result.failure.reason.startswith("prompt_too_long: the prompt has about")
    assert result.failure.kind == "prompt_too_long" and not result.failure.kind.unreachable
    assert result.calls == []  # no request was made, so none is recorded (nor counted, nor a parse failure)


def test_a_prompt_that_surely_fits_is_sent_without_loading_the_tokenizer(fake_openai, monkeypatch):
    """A 10,000-byte prompt is far inside gpt-4o's 128k window (a token covers at least one byte), so
    the context-window check does not count it: litellm's token counter is never called."""
    lit = litellm_module()
    counted: list[str] = []
    monkeypatch.setattr(lit, "token_counter", lambda **kw: counted.append(kw["model"]) or 0)
    fake_openai.push('{"p": 0.5}')
    c = client(fake_openai, model="openai/gpt-4o")
    c.complete(request(text="x" * 10_000))
    assert fake_openai.count == 1 and counted == []


def test_a_request_cap_keeps_one_request_in_flight_across_clients_of_one_server(fake_openai):
    # a local server that answers one request at a time: `adjudicate --concurrency 1`
    from concurrent.futures import ThreadPoolExecutor

    fake_openai.push(Reply(content="a", delay_s=0.3), Reply(content="b", delay_s=0.3))
    clients = [LLMClient("openai/test-model", api_base=fake_openai.base_url, api_key="sk-test-0123456789", max_concurrent=1) for _ in range(2)]
    req = ChatRequest(messages=({"role": "user", "content": "hi"},), node="judge", key="judge-1")
    with ThreadPoolExecutor(2) as pool:
        texts = sorted(r.text for r in pool.map(lambda c: c.complete(req), clients))
    assert texts == ["a", "b"]
    first, second = fake_openai.request_times
    assert second - first >= 0.28  # the second request waited for the first answer

"""The diskcache response cache and its keys (no model, no network)."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

from adjudicator.environment import default_cache_dir
from adjudicator.model.cache import CachedResponse, ModelFacts, NullCache, ResponseCache, request_key

DESC = {
    "model": "openai/test-model",
    "api_base": "http://127.0.0.1:9/v1",
    "messages": [{"role": "user", "content": "判断胜负"}],
    "params": {"temperature": 0.0},
    "template_hash": "abc",
    "node": "judge",
    "key": "judge-1",
    "attempt": 1,
}


def test_key_is_a_stable_sha256_independent_of_key_order():
    k = request_key(DESC)
    assert re.fullmatch(r"v1-[0-9a-f]{64}", k)
    assert request_key(dict(reversed(list(DESC.items())))) == k


def test_credentials_never_shape_the_key():
    k = request_key(DESC)
    with_secrets = {**DESC, "api_key": "sk-1", "params": {"temperature": 0.0, "headers": {"Authorization": "Bearer x"}}}
    assert request_key(with_secrets) == k


def test_different_judge_ids_and_attempts_give_different_keys():
    keys = {request_key({**DESC, "key": j}) for j in ("judge-1", "judge-2", "judge-3")}
    keys |= {request_key({**DESC, "attempt": a}) for a in (2, 3)}
    assert len(keys) == 5


def test_roundtrip_persists_across_instances(tmp_path):
    value = CachedResponse(text='{"p": 0.7}', prompt_tokens=120, completion_tokens=30, cost_usd=0.00042, finish_reason="stop")
    c = ResponseCache(tmp_path / "cache")
    c.set("k1", value)
    c.close()
    again = ResponseCache(tmp_path / "cache")
    assert again.get("k1") == value
    assert again.get("missing") is None
    assert len(again) == 1


def test_unparsed_attempts_are_marked(tmp_path):
    c = ResponseCache(tmp_path)
    c.set("k", CachedResponse(text="sorry", parsed=False))
    assert c.get("k").parsed is False


def test_null_cache_stores_nothing():
    n = NullCache()
    n.set("k", CachedResponse(text="x"))
    n.set_facts("f", ModelFacts(supports_schema=True))
    assert n.get("k") is None and n.get_facts("f") is None


def test_model_facts_roundtrip_and_are_not_responses(tmp_path):
    c = ResponseCache(tmp_path)
    c.set_facts("f", ModelFacts(supports_schema=True))
    c.close()
    again = ResponseCache(tmp_path)
    assert again.get_facts("f") == ModelFacts(supports_schema=True)
    assert again.get("f") is None  # a facts record never reads as a model answer
    assert again.get_facts("missing") is None


def test_concurrent_writers(tmp_path):
    c = ResponseCache(tmp_path)

    def write(i: int) -> None:
        c.set(f"k{i}", CachedResponse(text=str(i), prompt_tokens=i))

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(write, range(40)))
    assert [c.get(f"k{i}").prompt_tokens for i in range(40)] == list(range(40))


def test_default_dir_follows_xdg():
    assert str(default_cache_dir({"XDG_CACHE_HOME": "/x/cache"})) == "/x/cache/adjudicator/llm"
    assert str(default_cache_dir({"HOME": "/home/u"})) == "/home/u/.cache/adjudicator/llm"

"""The chaos proxy of issue 10's chaos run (tests/chaos_proxy.py) injects each fault as documented."""

from __future__ import annotations

import json

import httpx
import pytest
from chaos_proxy import ChaosProxy
from fake_openai import fake_openai  # noqa: F401 (fixture)

ANSWER = '{"winner": "affirmative", "p": 0.75}'  # 36 characters


def ask(proxy: ChaosProxy) -> httpx.Response:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    return httpx.post(f"{proxy.base_url}/chat/completions", json=body, headers={"Authorization": "Bearer k"}, timeout=10, trust_env=False)


@pytest.mark.parametrize(
    "kind, status, content, finish, forwarded",
    [
        ("429", 429, None, None, 0),
        ("500", 500, None, None, 0),
        ("truncate", 200, ANSWER[:18], "length", 1),  # half of 36 characters
        ("garbage", 200, "I am not sure what you want me to say here; let me think about the debate more.", "stop", 1),
        ("fence", 200, f"Here is my answer:\n```json\n{ANSWER}\n```", "stop", 1),
        ("corrupt", 200, '{"winner": "a "quoted" affirmative", "p": 0.75}', "stop", 1),  # no clash update: the first text value
    ],
)
def test_each_fault(fake_openai, kind, status, content, finish, forwarded):
    fake_openai.respond_with(lambda body: ANSWER)
    proxy = ChaosProxy(fake_openai.base_url, {kind: 1.0})
    try:
        r = ask(proxy)
        assert r.status_code == status
        if status == 429:
            assert r.headers["retry-after"] == "0"
        if status == 200:
            choice = r.json()["choices"][0]
            assert (choice["message"]["content"], choice["finish_reason"]) == (content, finish)
        assert dict(proxy.counts) == {"received": 1, kind: 1} | ({"forwarded": 1} if forwarded else {})
        assert fake_openai.count == forwarded
        if forwarded:
            assert {k.lower(): v for k, v in fake_openai.headers[0].items()}["authorization"] == "Bearer k"  # the key goes through
    finally:
        proxy.close()


def test_no_fault_forwards_unchanged_and_rates_are_checked(fake_openai):
    fake_openai.respond_with(lambda body: ANSWER)
    proxy = ChaosProxy(fake_openai.base_url, {})
    try:
        assert json.loads(ask(proxy).content)["choices"][0]["message"]["content"] == ANSWER
        assert dict(proxy.counts) == {"received": 1, "forwarded": 1}
    finally:
        proxy.close()
    with pytest.raises(ValueError):
        ChaosProxy(fake_openai.base_url, {"429": 0.6, "500": 0.6})
    with pytest.raises(ValueError):
        ChaosProxy(fake_openai.base_url, {"timeout": 0.1})


def test_the_corrupt_fault_breaks_one_clash_update_or_a_text_value():
    from chaos_proxy import corrupt
    from llm_helpers import ballot_json, tracker_json

    tracker = tracker_json(["affirmative"])
    assert '"note": "said "this" pressed"' in corrupt(tracker, drop_brace=False)  # an unescaped quote in the note
    broken = corrupt(tracker, drop_brace=True)
    assert broken.count("{") == broken.count("}") + 1 and '"negative_position": ""]' in broken  # the update's brace dropped
    assert corrupt(ballot_json([("s1", "affirmative")]), drop_brace=False).startswith('{"reasoning": "a "quoted" the affirmative')

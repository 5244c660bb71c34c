"""A provider's key goes to that provider's own endpoint only (issue 10, item 5).

With ``OPENAI_API_KEY`` in the environment and ``--api-base`` pointing at some other server (here the
loopback server), the server must see ``ADJUDICATOR_API_KEY`` when it is set and the placeholder key
otherwise -- never the provider's key.
"""

from __future__ import annotations

import pytest
from env_isolation import isolate_env
from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import schema_responder

from adjudicator.cli import main
from adjudicator.model.llm import PLACEHOLDER_KEY, preflight, provider_endpoint

MATCH = "adjudicator/data/matches/panelbench/debateart_4389.json"
PROVIDER_SECRET = "sk-provider-secret-0123456789"


def run(fake_openai, tmp_path) -> set[str]:
    fake_openai.respond_with(schema_responder)
    code = main([MATCH, "--model", "openai/gpt-4o-mini", "--api-base", fake_openai.base_url, "--cache-dir", str(tmp_path / "cache")])
    assert code == 0
    return {h.get("authorization", "") for h in fake_openai.headers}


def test_the_provider_key_is_not_sent_to_another_server(fake_openai, tmp_path, monkeypatch):
    isolate_env(monkeypatch, tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", PROVIDER_SECRET)
    assert run(fake_openai, tmp_path) == {f"Bearer {PLACEHOLDER_KEY}"}


def test_adjudicator_api_key_is_what_another_server_gets(fake_openai, tmp_path, monkeypatch):
    isolate_env(monkeypatch, tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", PROVIDER_SECRET)
    monkeypatch.setenv("ADJUDICATOR_API_KEY", "sk-for-this-server")
    assert run(fake_openai, tmp_path) == {"Bearer sk-for-this-server"}


@pytest.mark.parametrize(
    "provider, base, own",
    [
        ("openai", None, True),
        ("openai", "https://api.openai.com/v1", True),
        ("openai", "https://API.OpenAI.com./v1", True),
        ("openai", "http://api.openai.com/v1", False),  # not https
        ("openai", "https://api.openai.com.evil.example/v1", False),
        ("openai", "https://127.0.0.1:8080/v1", False),
        ("deepseek", "https://api.deepseek.com", True),
        ("deepseek", "https://api.openai.com/v1", False),  # another provider's host
        ("azure", "https://myres.openai.azure.com", True),
        ("azure", "https://openai.azure.com.evil.example", False),
        ("ollama", "http://127.0.0.1:11434", False),
    ],
)
def test_provider_endpoint(provider, base, own):
    assert provider_endpoint(provider, base) is own


def test_preflight_gives_another_server_the_placeholder_even_with_the_provider_key_set(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", PROVIDER_SECRET)
    assert preflight("openai/gpt-4o-mini", api_base="http://127.0.0.1:8080/v1") == PLACEHOLDER_KEY
    assert preflight("openai/gpt-4o-mini", api_base="https://api.openai.com/v1") is None  # litellm reads the key
    assert preflight("openai/gpt-4o-mini", api_base="http://127.0.0.1:8080/v1", api_key="sk-x") == "sk-x"

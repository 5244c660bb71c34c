"""A provider's key goes only where it belongs, whatever the environment says (issue 26, item 3).

With ``OPENAI_BASE_URL`` (or ``OPENAI_API_BASE``, ``DEEPSEEK_API_BASE``, ``ANTHROPIC_BASE_URL``, ...: every
variable litellm or a provider's SDK reads a base URL from) pointing at another server and no
``--api-base``, 7 of 7 requests carried the full ``OPENAI_API_KEY`` to that server over plain HTTP. A
base URL from the environment now counts as an API base: the client sends its requests there (the
address is part of their cache key) with ``ADJUDICATOR_API_KEY`` or the placeholder key, and the
provider's key only when the address is the provider's own https endpoint. A route whose requests go
through the shared HTTP session is also checked on the wire: a request that would carry the
provider's key to any other host is not sent.
"""

from __future__ import annotations

import os

import pytest
from env_isolation import isolate_env
from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import schema_responder

from adjudicator.cli import main
from adjudicator.environment import base_url_variables, environment_base_url
from adjudicator.errors import ConfigError
from adjudicator.model.preflight import PLACEHOLDER_KEY, preflight

MATCH = "adjudicator/data/matches/panelbench/debateart_4389.json"
SECRET = "sk-provider-secret-0123456789"


def keys_seen(server) -> set[str]:
    return {h.get("Authorization") or h.get("authorization") or h.get("x-api-key") or h.get("X-Api-Key") or "" for h in server.headers}


@pytest.mark.parametrize(
    "model, key_var, base_var, base_suffix",
    [
        ("openai/gpt-4o-mini", "OPENAI_API_KEY", "OPENAI_BASE_URL", "/v1"),
        ("openai/gpt-4o-mini", "OPENAI_API_KEY", "OPENAI_API_BASE", "/v1"),
        ("deepseek/deepseek-chat", "DEEPSEEK_API_KEY", "DEEPSEEK_API_BASE", "/v1"),
        ("mistral/mistral-small-latest", "MISTRAL_API_KEY", "MISTRAL_API_BASE", "/v1"),
        ("together_ai/meta-llama/Llama-3-8b-chat-hf", "TOGETHER_API_KEY", "TOGETHER_AI_API_BASE", "/v1"),
        ("hosted_vllm/qwen", "HOSTED_VLLM_API_KEY", "HOSTED_VLLM_API_BASE", "/v1"),
    ],
)
def test_a_base_url_from_the_environment_never_gets_the_providers_key(fake_openai, tmp_path, monkeypatch, model, key_var, base_var, base_suffix):
    isolate_env(monkeypatch, tmp_path)
    monkeypatch.setenv(key_var, SECRET)
    monkeypatch.setenv(base_var, f"http://127.0.0.1:{fake_openai.port}{base_suffix}")
    fake_openai.respond_with(schema_responder)
    assert main([MATCH, "--model", model, "--json-mode", "object", "--cache-dir", str(tmp_path / "cache")]) == 0
    assert fake_openai.count == 11  # every request went to the address the environment named ...
    assert keys_seen(fake_openai) == {f"Bearer {PLACEHOLDER_KEY}"}  # ... and none carried the provider's key (before: 11 of 11)


def test_adjudicator_api_key_is_what_a_base_url_from_the_environment_gets(fake_openai, tmp_path, monkeypatch):
    isolate_env(monkeypatch, tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("ADJUDICATOR_API_KEY", "sk-for-this-server")
    fake_openai.respond_with(schema_responder)
    assert main([MATCH, "--model", "openai/gpt-4o-mini", "--json-mode", "object", "--cache-dir", str(tmp_path / "cache")]) == 0
    assert keys_seen(fake_openai) == {"Bearer sk-for-this-server"}


@pytest.mark.parametrize(
    "model, key_var, base_var",
    [
        ("anthropic/claude-3-5-haiku-latest", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
        # litellm also asks an Ollama server for the model's facts (/api/show) with OLLAMA_API_KEY,
        # whatever key the request itself carries: that lookup is refused on the wire
        ("ollama/qwen2.5:0.5b", "OLLAMA_API_KEY", "OLLAMA_API_BASE"),
    ],
)
def test_other_formats_base_urls_from_the_environment_never_get_the_key(fake_openai, tmp_path, monkeypatch, model, key_var, base_var):
    # the loopback server speaks OpenAI's format only, so the run fails; what matters is the keys it saw
    isolate_env(monkeypatch, tmp_path)
    monkeypatch.setenv(key_var, SECRET)
    monkeypatch.setenv(base_var, f"http://127.0.0.1:{fake_openai.port}")
    main([MATCH, "--model", model, "--cache-dir", str(tmp_path / "cache")])
    assert fake_openai.count > 0 and all(SECRET not in str(h) for h in fake_openai.headers)  # before: every request


def test_the_environments_base_url_is_named_in_preflight_and_kept_for_the_providers_own_endpoint(monkeypatch):
    env = {"OPENAI_API_BASE": "http://evil.example/v1", "OPENAI_BASE_URL": "https://api.openai.com/v1"}
    assert environment_base_url("openai", env) == ("OPENAI_BASE_URL", "https://api.openai.com/v1")  # litellm's order
    assert environment_base_url("openai", {}) is None
    assert base_url_variables("azure")[:2] == ("AZURE_API_BASE", "AZURE_OPENAI_ENDPOINT")
    assert "NEBIUS_API_BASE" in base_url_variables("nebius")  # the convention, for a provider not in the table
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    # the provider's own https endpoint gets the provider's key (litellm reads it), any other the placeholder
    assert preflight("openai/gpt-4o-mini", api_base="https://api.openai.com/v1") is None
    assert preflight("openai/gpt-4o-mini", api_base="http://evil.example/v1") == PLACEHOLDER_KEY


def test_a_bare_model_name_whose_provider_has_a_base_url_set_is_refused(monkeypatch):
    # "gpt-4o-mini" names no provider, so the client cannot know which variables route it; litellm
    # routes it to openai, whose base URL the environment sets: refused rather than guessed
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    with pytest.raises(ConfigError, match=r"OPENAI_BASE_URL is set \(http://127.0.0.1:9/v1\)"):
        preflight("gpt-4o-mini")


def test_the_wire_check_refuses_a_providers_key_to_another_host(fake_openai, tmp_path, monkeypatch):
    # a route that reaches another host some way no variable table knows (here: litellm's global
    # api_base) is stopped on the wire: no request carrying the provider's key leaves
    from adjudicator.model.litellm_setup import litellm_module

    isolate_env(monkeypatch, tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    lit = litellm_module()
    monkeypatch.setattr(lit, "api_base", fake_openai.base_url)
    fake_openai.respond_with(schema_responder)
    code = main([MATCH, "--model", "openai/gpt-4o-mini", "--json-mode", "object", "--cache-dir", str(tmp_path / "cache")])
    assert code == 1 and fake_openai.count == 0  # not one request reached the other server


def test_a_stored_bench_result_is_keyed_on_the_base_url_the_environment_sets(monkeypatch):
    from adjudicator.bench.result_cache import sample_key
    from adjudicator.config import ModelConfig

    config = ModelConfig.model_validate({"model": "openai/gpt-4o-mini"})
    monkeypatch.delenv("OPENAI_API_BASE", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9001/v1")
    first = sample_key(config, "agentic", "0" * 64)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9002/v1")
    assert first is not None and sample_key(config, "agentic", "0" * 64) != first  # another server, another answer


def test_litellm_loads_no_dotenv_file_into_the_environment(monkeypatch):
    # litellm's default mode ("DEV") runs python-dotenv's load_dotenv() on import, and again whenever its
    # process defaults are applied; the package sets LITELLM_MODE=PRODUCTION unless the user set it.
    import dotenv

    from adjudicator.model.litellm_setup import litellm_module

    litellm_module()
    import litellm._process_defaults as defaults

    loaded: list[object] = []
    monkeypatch.setattr(dotenv, "load_dotenv", lambda *a, **k: loaded.append(a) or True)
    monkeypatch.setattr(defaults.dotenv, "load_dotenv", dotenv.load_dotenv)
    assert os.environ["LITELLM_MODE"] == "PRODUCTION"
    defaults.apply_process_defaults()
    assert loaded == []
    monkeypatch.setenv("LITELLM_MODE", "DEV")  # what it did before: the .env is read
    defaults.apply_process_defaults()
    assert len(loaded) == 1

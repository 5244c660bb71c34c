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
from adjudicator.model.preflight import PLACEHOLDER_KEY, preflight, provider_endpoint

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


def run_cli(fake_openai, tmp_path, *extra: str) -> int:
    fake_openai.respond_with(schema_responder)
    return main([MATCH, "--model", "openai/gpt-4o-mini", "--api-base", fake_openai.base_url, "--cache-dir", str(tmp_path / "cache"), *extra])


def test_api_key_env_names_the_key_another_server_gets(fake_openai, tmp_path, monkeypatch):
    # every other key is set too: only the named variable's value reaches the server
    isolate_env(monkeypatch, tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", PROVIDER_SECRET)
    monkeypatch.setenv("ADJUDICATOR_API_KEY", "sk-the-default-explicit-key")
    monkeypatch.setenv("MY_SERVER_KEY", "sk-named-for-this-server")
    assert run_cli(fake_openai, tmp_path, "--api-key-env", "MY_SERVER_KEY") == 0
    assert fake_openai.count == 11  # 8 stages + 3 judges, each with the named key
    assert {h.get("authorization", "") for h in fake_openai.headers} == {"Bearer sk-named-for-this-server"}


def test_api_key_env_from_the_environment_setting(fake_openai, tmp_path, monkeypatch):
    isolate_env(monkeypatch, tmp_path)
    monkeypatch.setenv("ADJUDICATOR_API_KEY_ENV", "VLLM_KEY")
    monkeypatch.setenv("VLLM_KEY", "sk-vllm")
    assert run_cli(fake_openai, tmp_path) == 0
    assert {h.get("authorization", "") for h in fake_openai.headers} == {"Bearer sk-vllm"}


def test_api_key_env_naming_an_unset_variable_is_one_line_exit_2_with_no_request(fake_openai, tmp_path, monkeypatch, capsys):
    isolate_env(monkeypatch, tmp_path)
    monkeypatch.setenv("ADJUDICATOR_API_KEY", "sk-would-be-sent-otherwise")
    assert run_cli(fake_openai, tmp_path, "--api-key-env", "NOT_SET_ANYWHERE") == 2
    err = capsys.readouterr().err
    assert err.startswith("adjudicate: error: --api-key-env NOT_SET_ANYWHERE: the environment variable NOT_SET_ANYWHERE is not set")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert fake_openai.count == 0


def test_api_key_env_must_be_a_variable_name(fake_openai, tmp_path, monkeypatch, capsys):
    isolate_env(monkeypatch, tmp_path)
    assert run_cli(fake_openai, tmp_path, "--api-key-env", "sk-pasted-the-key-itself") == 2
    err = capsys.readouterr().err
    assert err.startswith("adjudicate: error: --api-key-env: api_key_env 'sk-pasted-the-key-itself' is invalid (must be the name of an environment variable")
    assert fake_openai.count == 0


def test_api_key_env_is_ignored_by_the_offline_judge(tmp_path, monkeypatch, capsys):
    # nothing is sent, so no key is needed: a config that names one does not stop an offline run
    isolate_env(monkeypatch, tmp_path)
    assert main([MATCH, "--api-key-env", "NOT_SET_ANYWHERE"]) == 0
    assert capsys.readouterr().out.startswith("{")

"""Model configuration: flags > ADJUDICATOR_* environment > config file > defaults; build_context."""

from __future__ import annotations

from pathlib import Path

import pytest

from adjudicator.api import build_context
from adjudicator.config import ModelConfig, resolve_config
from adjudicator.config_file import default_config_path
from adjudicator.errors import ConfigError
from adjudicator.judges.llm.backend import LLMBackend
from adjudicator.model.chat import ChatRequest

ENV = {"HOME": "/nonexistent-home"}  # no default config file, default cache under it


def test_defaults():
    c = ModelConfig.resolve(env=ENV)
    assert (c.model, c.api_base, c.json_mode, c.timeout_s, c.temperature, c.no_cache) == (None, None, "auto", 120.0, 0.0, False)
    assert c.cache_dir == Path("/nonexistent-home/.cache/adjudicator/llm")
    assert c.is_offline and c.tracker is None and set(c.judges().values()) == {None}


def test_flag_beats_env_beats_file(tmp_path):
    f = tmp_path / "adj.toml"
    f.write_text('model = "file/m"\napi_base = "http://file"\ntimeout_s = 30\njson_mode = "object"\ntemperature = 0.2\n', encoding="utf-8")
    env = {**ENV, "ADJUDICATOR_API_BASE": "http://env", "ADJUDICATOR_TIMEOUT_S": "45"}
    c = resolve_config(model="openai/flag", config_file=f, env=env)
    assert c.model == "openai/flag"  # flag
    assert c.api_base == "http://env" and c.timeout_s == 45.0  # env over file
    assert c.json_mode == "object" and c.temperature == 0.2  # file over defaults
    assert c.config_file == f


def test_yaml_file_with_an_adjudicator_table_and_judge_list(tmp_path):
    f = tmp_path / "adj.yaml"
    f.write_text("adjudicator:\n  model: openai/a\n  judge_models: [openai/b, offline]\n  no_cache: true\n", encoding="utf-8")
    c = ModelConfig.resolve(config_file=f, env=ENV)
    assert c.no_cache is True
    assert c.judges() == {"judge-1": "openai/b", "judge-2": None, "judge-3": "openai/b"}
    assert c.tracker == "openai/a" and not c.is_offline


def test_env_judge_models_are_comma_separated_and_flags_override():
    env = {**ENV, "ADJUDICATOR_JUDGE_MODELS": "openai/x, openai/y ,openai/z", "ADJUDICATOR_TRACKER_MODEL": "openai/t"}
    c = ModelConfig.resolve(env=env)
    assert c.judges() == {"judge-1": "openai/x", "judge-2": "openai/y", "judge-3": "openai/z"}
    assert c.tracker == "openai/t"
    c2 = ModelConfig.resolve(judge_models=("openai/only",), env=env)
    assert set(c2.judges().values()) == {"openai/only"}


def test_default_config_location(tmp_path):
    d = tmp_path / "xdg" / "adjudicator"
    d.mkdir(parents=True)
    (d / "config.toml").write_text('model = "openai/from-default"\n', encoding="utf-8")
    env = {**ENV, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert default_config_path(env) == d / "config.toml"
    assert ModelConfig.resolve(env=env).model == "openai/from-default"


@pytest.mark.parametrize(
    "kwargs, env, message",
    [
        ({}, {"ADJUDICATOR_TIMEOUT_S": "soon"}, "ADJUDICATOR_TIMEOUT_S: timeout_s 'soon' is invalid"),
        ({"timeout_s": -1.0}, {}, "--timeout-s: timeout_s -1.0 is invalid"),
        ({"json_mode": "grammar"}, {}, "--json-mode: json_mode 'grammar' is invalid"),
        ({}, {"ADJUDICATOR_NO_CACHE": "maybe"}, "ADJUDICATOR_NO_CACHE: 'maybe' is not a boolean"),
        ({"judge_models": ["a/1", "a/2", "a/3", "a/4"]}, {}, "4 judge models given"),
        ({"config_file": "/no/such/file.toml"}, {}, "--config /no/such/file.toml: no such file"),
    ],
)
def test_bad_settings_are_one_line_config_errors(kwargs, env, message):
    with pytest.raises(ConfigError) as info:
        ModelConfig.resolve(env={**ENV, **env}, **kwargs)
    assert message in info.value.one_line()
    assert info.value.exit_code == 2
    assert "\n" not in info.value.one_line()


def test_unknown_file_key(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('model = "openai/a"\napi_key = "sk-nope"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown setting 'api_key'"):
        ModelConfig.resolve(config_file=f, env=ENV)


def test_build_context_offline():
    from adjudicator.judges.offline import OfflineJudge

    ctx = build_context(ModelConfig.resolve(model="offline", env=ENV))
    assert isinstance(ctx.tracker, OfflineJudge)
    assert ctx.model_names() == {"tracker": "offline", "judge-1": "offline", "judge-2": "offline", "judge-3": "offline"}


def test_build_context_llm_shares_one_backend_per_model(tmp_path):
    cfg = ModelConfig(model="openai/m", api_base="http://127.0.0.1:1/v1", judge_models=("openai/m", "offline"), cache_dir=tmp_path)
    ctx = build_context(cfg, api_key="sk-x")
    assert isinstance(ctx.tracker, LLMBackend)
    assert ctx.judges["judge-1"] is ctx.tracker and ctx.judges["judge-3"] is ctx.tracker
    assert ctx.judges["judge-2"].name == "offline" and not ctx.judges["judge-2"].is_llm
    assert ctx.tracker.client.cache.directory == tmp_path


def test_build_context_rejects_an_unknown_provider_before_any_call(tmp_path):
    """Checked at the run's first request (tests/test_startup.py), or at once with check_models."""
    ctx = build_context(ModelConfig(model="mystery-model", cache_dir=tmp_path))
    with pytest.raises(ConfigError, match="provider"):
        ctx.tracker.client.complete(ChatRequest(messages=({"role": "user", "content": "x"},), node="judge"))
    with pytest.raises(ConfigError, match="provider"):
        build_context(ModelConfig(model="mystery-model", cache_dir=tmp_path), check_models=True)


def test_a_bad_value_in_a_file_names_the_file(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text("timeout_s = -3\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        ModelConfig.resolve(config_file=f, env=ENV)
    assert f"{f}: timeout_s -3 is invalid" in info.value.one_line()


def test_the_other_environment_switches_are_read_in_config_only():
    from adjudicator.environment import api_key, debug_tracebacks, live_endpoint, prompts_dir_override

    env = {"ADJUDICATOR_API_KEY": "sk-test", "ADJUDICATOR_PROMPTS_DIR": "/p", "ADJUDICATOR_DEBUG": "1",
           "ADJUDICATOR_LIVE_URL": "http://127.0.0.1:9", "ADJUDICATOR_LIVE_TOKEN": "tok"}
    assert api_key(env) == "sk-test" and prompts_dir_override(env) == Path("/p") and debug_tracebacks(env)
    assert live_endpoint(env) == ("http://127.0.0.1:9", "tok")
    assert (api_key({}), prompts_dir_override({}), debug_tracebacks({}), live_endpoint({})) == (None, None, False, (None, None))


def test_no_module_but_environment_reads_the_environment():
    """The one owner of the environment: no other module of the package reads os.environ or getenv
    (the package's __init__ only sets litellm's offline cost map before litellm can be imported)."""
    import ast

    root = Path(__file__).resolve().parents[1] / "adjudicator"
    readers = []
    for path in root.rglob("*.py"):
        if path.name == "environment.py" and path.parent == root:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv") and getattr(node.value, "id", "") == "os":
                readers.append(str(path.relative_to(root)))
    assert sorted(set(readers)) == ["__init__.py"]


def test_a_yaml_config_naming_a_setting_twice_is_refused_like_toml(tmp_path):
    # PyYAML keeps the last of two equal keys silently; TOML refuses the file: so do we, for YAML too
    f = tmp_path / "adj.yaml"
    f.write_text("model: openai/a\ntimeout_s: 30\nmodel: openai/b\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        ModelConfig.resolve(config_file=f, env=ENV)
    assert info.value.one_line() == f"{f}: setting 'model' given twice (line 3); keep one; which is meant cannot be guessed"
    toml = tmp_path / "adj.toml"
    toml.write_text('model = "openai/a"\nmodel = "openai/b"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="invalid TOML"):
        ModelConfig.resolve(config_file=toml, env=ENV)
    nested = tmp_path / "nested.yaml"
    nested.write_text("adjudicator:\n  no_cache: true\n  no_cache: false\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"setting 'no_cache' given twice \(line 3\)"):
        ModelConfig.resolve(config_file=nested, env=ENV)


def test_the_cli_refuses_a_yaml_config_with_a_repeated_key_in_one_line(tmp_path, capsys, monkeypatch):
    from adjudicator.cli import main

    monkeypatch.setenv("HOME", str(tmp_path))
    f = tmp_path / "adj.yaml"
    f.write_text("model: offline\nmodel: openai/b\n", encoding="utf-8")
    match = Path(__file__).resolve().parents[1] / "adjudicator/data/matches/panelbench/debateart_0020.json"
    assert main([str(match), "--config", str(f)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "setting 'model' given twice (line 2)" in err and str(f) in err

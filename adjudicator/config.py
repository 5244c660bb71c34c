"""Model configuration: which model tracks clashes, which models judge, and how they are called.

Resolution order for every setting (first one set wins):

1. command-line flags (the keyword arguments of :meth:`ModelConfig.resolve`; None means unset);
2. environment variables ``ADJUDICATOR_*`` (:data:`ENV_VARS`);
3. a config file, TOML or YAML: ``--config FILE``, else ``$ADJUDICATOR_CONFIG``, else the default
   location ``$XDG_CONFIG_HOME/adjudicator/config.toml`` (``~/.config/adjudicator/config.toml``; a
   ``config.yaml`` / ``config.yml`` there is read too) when it exists. Keys are the field names
   below, at top level or under an ``[adjudicator]`` table; ``judge_models`` is a list or a
   comma-separated string;
4. defaults.

A model is a litellm model string (``deepseek/deepseek-chat``, ``ollama/qwen2.5:14b``,
``openai/<name>`` with an API base for llama.cpp or vLLM). No model, or ``"offline"``, means the
offline judge. ``tracker_model`` defaults to ``model``; ``judge_models`` (one to three strings) seat
a mixed panel, assigned to judge-1, judge-2, judge-3 in order and repeated round-robin when fewer
than three are given; without it every judge uses ``model``.

API keys are never part of this configuration: litellm reads the provider's usual variable
(``DEEPSEEK_API_KEY``, ``OPENAI_API_KEY``, ...), or ``ADJUDICATOR_API_KEY`` is passed explicitly.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator

from adjudicator.errors import ConfigError
from adjudicator.frozen import FrozenModel

#: The panel's three seats, in order (a mixed panel assigns ``judge_models`` to them round-robin).
JUDGE_IDS: tuple[str, ...] = ("judge-1", "judge-2", "judge-3")

#: How a model is asked for structured output (see :mod:`adjudicator.model.llm`).
JsonMode = Literal["auto", "schema", "object", "none"]
JSON_MODES: tuple[str, ...] = ("auto", "schema", "object", "none")

OFFLINE_NAMES = frozenset({"offline", "none", ""})

#: Environment variable -> field.
ENV_VARS: dict[str, str] = {
    "ADJUDICATOR_MODEL": "model",
    "ADJUDICATOR_API_BASE": "api_base",
    "ADJUDICATOR_TRACKER_MODEL": "tracker_model",
    "ADJUDICATOR_JUDGE_MODELS": "judge_models",
    "ADJUDICATOR_NO_CACHE": "no_cache",
    "ADJUDICATOR_CACHE_DIR": "cache_dir",
    "ADJUDICATOR_TIMEOUT_S": "timeout_s",
    "ADJUDICATOR_JSON_MODE": "json_mode",
    "ADJUDICATOR_TEMPERATURE": "temperature",
    "ADJUDICATOR_MAX_TOKENS": "max_tokens",
    "ADJUDICATOR_TRANSPORT_RETRIES": "transport_retries",
    "ADJUDICATOR_BACKOFF_BASE_S": "backoff_base_s",
}

_FILE_KEYS = frozenset(ENV_VARS.values())


def default_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/adjudicator/llm``, or ``~/.cache/adjudicator/llm`` when XDG_CACHE_HOME is unset."""
    env = os.environ if env is None else env
    base = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".cache")
    return Path(base) / "adjudicator" / "llm"


def is_offline(model: str | None) -> bool:
    """True for no model or the names ``offline`` / ``none`` (case-insensitive)."""
    return model is None or model.strip().lower() in OFFLINE_NAMES


class ModelConfig(FrozenModel):
    """The resolved model configuration.

    Fields matching the CLI flags: ``model`` (default model; None = offline), ``api_base``,
    ``tracker_model``, ``judge_models`` (mixed panel), ``config_file`` (the file read, if any),
    ``no_cache``, ``cache_dir``, ``timeout_s`` (per request, seconds, > 0), ``json_mode``
    (auto/schema/object/none). Settable from the environment or the config file only:
    ``temperature`` (default 0), ``max_tokens`` (completion budget per call),
    ``transport_retries`` (re-sends after a transport fault, 0-10) and ``backoff_base_s`` (first
    backoff wait, seconds).
    """

    model: str | None = None
    api_base: str | None = None
    tracker_model: str | None = None
    judge_models: tuple[str, ...] = ()
    config_file: Path | None = None
    no_cache: bool = False
    cache_dir: Path = Field(default_factory=default_cache_dir)
    timeout_s: float = Field(default=120.0, gt=0)
    json_mode: JsonMode = "auto"
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, ge=1)
    transport_retries: int = Field(default=4, ge=0, le=10)
    backoff_base_s: float = Field(default=1.0, ge=0.0)

    @field_validator("model", "tracker_model")
    @classmethod
    def _model_named(cls, v: str | None) -> str | None:
        if v is not None and not v.strip():
            raise ValueError("is empty; give a litellm model string such as deepseek/deepseek-chat, or 'offline'")
        return None if v is None else v.strip()

    @field_validator("judge_models")
    @classmethod
    def _judges_named(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if len(v) > 3:
            raise ValueError(f"names {len(v)} models; a panel has 3 judges, give at most 3")
        if any(not m.strip() for m in v):
            raise ValueError("contains an empty model name")
        return v

    @field_validator("api_base")
    @classmethod
    def _api_base_is_url(cls, v: str | None) -> str | None:
        if v is not None and not re.match(r"^https?://[^\s/]+", v.strip()):
            raise ValueError("must be an http:// or https:// URL, e.g. http://127.0.0.1:8080/v1")
        return None if v is None else v.strip()

    # -- roles -----------------------------------------------------------------------------------

    @property
    def tracker(self) -> str | None:
        """The clash tracker's model (None = offline)."""
        m = self.tracker_model if self.tracker_model is not None else self.model
        return None if is_offline(m) else m

    def judges(self) -> dict[str, str | None]:
        """Judge id -> model (None = offline), for judge-1..judge-3."""
        ids = list(JUDGE_IDS)
        if self.judge_models:
            models = [None if is_offline(m) else m for m in self.judge_models]
            return {j: models[i % len(models)] for i, j in enumerate(ids)}
        m = None if is_offline(self.model) else self.model
        return {j: m for j in ids}

    @property
    def is_offline(self) -> bool:
        """True when no role uses a language model."""
        return self.tracker is None and all(m is None for m in self.judges().values())

    # -- resolution ------------------------------------------------------------------------------

    @classmethod
    def resolve(
        cls,
        *,
        model: str | None = None,
        api_base: str | None = None,
        tracker_model: str | None = None,
        judge_models: Sequence[str] | str | None = None,
        config_file: str | os.PathLike[str] | None = None,
        no_cache: bool | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        timeout_s: float | None = None,
        json_mode: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> "ModelConfig":
        """Resolve flags > ``ADJUDICATOR_*`` environment > config file > defaults.

        Arguments are the CLI flags (``--model``, ``--api-base``, ``--tracker-model``, ``--judge-model``
        (repeatable) as ``judge_models``, ``--config`` as ``config_file``, ``--no-cache``,
        ``--cache-dir``, ``--timeout-s``, ``--json-mode``); None, or an empty ``judge_models``
        sequence, means the flag was not given; ``no_cache=False`` from a flag that defaults to off should be passed as None).
        ``env`` replaces ``os.environ`` (tests). Raises :class:`~adjudicator.errors.ConfigError`
        (exit code 2, one line naming the source and setting) for a missing or unreadable config
        file, an unknown key in it, or a value of the wrong type or range.
        """
        env = dict(os.environ if env is None else env)
        values: dict[str, Any] = {}
        sources: dict[str, str] = {}

        path = _config_path(config_file, env)
        if path is not None:
            for k, v in _read_config_file(path).items():
                values[k] = v
                sources[k] = str(path)
            values["config_file"] = path

        for var, key in ENV_VARS.items():
            raw = env.get(var)
            if raw is not None and raw.strip() != "":
                values[key] = raw.strip()
                sources[key] = var

        flags: dict[str, Any] = {
            "model": model,
            "api_base": api_base,
            "tracker_model": tracker_model,
            "judge_models": (judge_models,) if isinstance(judge_models, str) else (tuple(judge_models) if judge_models else None),
            "no_cache": no_cache,
            "cache_dir": cache_dir,
            "timeout_s": timeout_s,
            "json_mode": json_mode,
        }
        for key, v in flags.items():
            if v is not None:
                values[key] = v
                sources[key] = "--" + key.replace("_", "-").replace("judge-models", "judge-model")

        if "judge_models" in values:
            values["judge_models"] = _split_models(values["judge_models"])
            if len(values["judge_models"]) > len(JUDGE_IDS):
                raise ConfigError(
                    f"{sources['judge_models']}: {len(values['judge_models'])} judge models given; the panel has {len(JUDGE_IDS)} judges",
                    "give one to three judge models",
                )
        if "no_cache" in values:
            values["no_cache"] = _as_bool(values["no_cache"], sources["no_cache"])
        if values.get("json_mode") is not None:
            values["json_mode"] = str(values["json_mode"]).strip().lower()
        if "cache_dir" in values:
            values["cache_dir"] = Path(str(values["cache_dir"])).expanduser()
        else:
            values["cache_dir"] = default_cache_dir(env)
        if isinstance(values.get("max_tokens"), str) and values["max_tokens"].strip().lower() in ("none", "null", "0"):
            values["max_tokens"] = None
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            err = exc.errors()[0]
            key = str(err["loc"][0]) if err.get("loc") else "?"
            src = sources.get(key, key)
            msg = err.get("msg", "invalid").removeprefix("Value error, ")
            raise ConfigError(f"{src}: {key} {values.get(key)!r} is invalid ({msg})") from None

    def describe(self) -> str:
        """One line for stderr: the models of each role and the cache (never a key)."""
        judges = ", ".join(f"{j}={m or 'offline'}" for j, m in self.judges().items())
        cache = "off" if self.no_cache else str(self.cache_dir)
        return f"tracker={self.tracker or 'offline'}, {judges}, api_base={self.api_base or '-'}, cache={cache}"


def default_config_path(env: Mapping[str, str] | None = None) -> Path | None:
    """The first existing default config file: ``$XDG_CONFIG_HOME/adjudicator/config.{toml,yaml,yml}``
    (``~/.config`` when XDG_CONFIG_HOME is unset), or None."""
    env = os.environ if env is None else env
    base = Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME") or os.path.expanduser("~")) / ".config")
    for name in ("config.toml", "config.yaml", "config.yml"):
        p = base / "adjudicator" / name
        if p.is_file():
            return p
    return None


def _config_path(flag: str | os.PathLike[str] | None, env: Mapping[str, str]) -> Path | None:
    if flag is not None:
        p = Path(flag).expanduser()
        if not p.is_file():
            raise ConfigError(f"--config {p}: no such file", "give the path of a TOML or YAML config file")
        return p
    if env.get("ADJUDICATOR_CONFIG"):
        p = Path(env["ADJUDICATOR_CONFIG"]).expanduser()
        if not p.is_file():
            raise ConfigError(f"ADJUDICATOR_CONFIG={p}: no such file", "point it at a TOML or YAML config file or unset it")
        return p
    return default_config_path(env)


def _read_config_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read ({exc})") from None
    data: Any
    if path.suffix.lower() in (".yaml", ".yml"):
        import yaml

        try:
            data = yaml.safe_load(text) or {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark is not None else ""
            raise ConfigError(f"{path}: invalid YAML{where}", "fix the syntax") from None
    else:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: invalid TOML ({exc})", "fix the syntax") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a table of settings")
    if isinstance(data.get("adjudicator"), dict):
        data = data["adjudicator"]
    unknown = sorted(set(data) - _FILE_KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown setting {unknown[0]!r}", f"known settings: {', '.join(sorted(_FILE_KEYS))}")
    return data


def _split_models(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        items = value.split(",")
    elif isinstance(value, (list, tuple)):
        items = [p for v in value for p in str(v).split(",")]
    else:
        raise ConfigError(f"judge_models: expected a list or a comma-separated string, got {value!r}")
    return tuple(i.strip() for i in items if i.strip())


def _as_bool(value: Any, source: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{source}: {value!r} is not a boolean", "use true or false")


def resolve_config(**flags: Any) -> ModelConfig:
    """:meth:`ModelConfig.resolve` as a function (the CLI's entry point); same keyword arguments."""
    return ModelConfig.resolve(**flags)

"""The model settings and their resolution: which model tracks clashes, which models judge, and how
they are called.

Resolution order for every model setting (first one set wins), built on pydantic-settings sources:

1. command-line flags (the keyword arguments of :meth:`ModelConfig.resolve`; None means unset);
2. environment variables ``ADJUDICATOR_<SETTING>`` (:data:`ENV_VARS`; an empty value is unset);
3. a config file, TOML or YAML: ``--config FILE``, else ``$ADJUDICATOR_CONFIG``, else the default
   location ``$XDG_CONFIG_HOME/adjudicator/config.toml`` (``~/.config/adjudicator/config.toml``; a
   ``config.yaml`` / ``config.yml`` there is read too) when it exists. Keys are the field names
   below, at top level or under an ``[adjudicator]`` table; ``judge_models`` is a list or a
   comma-separated string;
4. defaults.

A bad value is a :class:`~adjudicator.errors.ConfigError` (exit code 2) whose one line names where
it came from: the flag (``--timeout-s``), the variable (``ADJUDICATOR_TIMEOUT_S``) or the file.

A model is a litellm model string (``deepseek/deepseek-chat``, ``ollama/qwen2.5:14b``,
``openai/<name>`` with an API base for llama.cpp or vLLM). No model, or ``"offline"``, means the
offline judge. ``tracker_model`` defaults to ``model``; ``judge_models`` (one to three strings) seat
a mixed panel, assigned to judge-1, judge-2, judge-3 in order and repeated round-robin when fewer
than three are given; without it every judge uses ``model``.

API keys are never part of this configuration: litellm reads the provider's usual variable
(``DEEPSEEK_API_KEY``, ``OPENAI_API_KEY``, ...) for the provider's own endpoint, or
``ADJUDICATOR_API_KEY`` (:func:`adjudicator.environment.api_key`) is passed explicitly; ``api_key_env`` (``--api-key-env
NAME``) names another variable to take the explicit key from instead. Only the variable's *name* is
a setting; its value is read by :func:`adjudicator.environment.api_key` when a client is built and is never recorded.

The config file is found and read by :mod:`adjudicator.config_file`. The environment is read
through :func:`adjudicator.environment.variables` (the one reader), which also holds every other
switch (the explicit API key, prompts folder, debug tracebacks, live server, Tabbycat token, default
cache folders).
"""

from __future__ import annotations

import contextvars
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict

from adjudicator.config_file import config_path, default_config_path, read_config_file
from adjudicator.environment import default_cache_dir, variables
from adjudicator.errors import ConfigError

#: The panel's three seats, in order (a mixed panel assigns ``judge_models`` to them round-robin).
JUDGE_IDS: tuple[str, ...] = ("judge-1", "judge-2", "judge-3")

#: How a model is asked for structured output (see :mod:`adjudicator.model.llm`).
JsonMode = Literal["auto", "schema", "object", "none"]
JSON_MODES: tuple[str, ...] = ("auto", "schema", "object", "none")
#: Where a judge's winner tendency is read: the number it states, or also its token log-probabilities.
PSource = Literal["stated", "logprob"]

#: How the panel's judges judge: ``"scoring"`` (each writes a ballot: scores, winner, votes or a
#: house ranking) or ``"pairwise"`` (each compares pairs in both orders; Bradley-Terry strengths,
#: :mod:`adjudicator.pairwise`).
PanelMode = Literal["scoring", "pairwise"]
PANEL_MODES: tuple[str, ...] = ("scoring", "pairwise")

#: What an LLM judge reads beyond the tracker's ledger and analyses (:mod:`adjudicator.judges.llm.quotes`):
#: nothing more, the transcript lines behind the decisive clashes, or the whole transcript.
JudgeEvidence = Literal["ledger", "quotes", "transcript"]
#: How a match's requests that begin alike are sent (:mod:`adjudicator.workflow.panel`, :mod:`adjudicator.single_call.run`):
#: one of them first and the others once it was answered, so they can read its prompt-cache entry, or all at once.
SendOrder = Literal["lead-first", "at-once"]
JUDGE_EVIDENCE: tuple[str, ...] = ("ledger", "quotes", "transcript")

OFFLINE_NAMES = frozenset({"offline", "none", ""})

ENV_PREFIX = "ADJUDICATOR_"

#: The model settings a variable or a config file may set (``config_file`` is chosen, not set).
_SETTINGS = (
    "model", "api_base", "tracker_model", "judge_models", "no_cache", "cache_dir", "timeout_s", "json_mode",
    "temperature", "seed", "p_source", "max_tokens", "transport_retries", "backoff_base_s", "rubric", "evidence", "panel", "max_concurrent_requests",
    "api_key_env", "judge_evidence", "track_window_chars", "send_order", "feedback",
)  # fmt: skip

#: Environment variable -> setting.
ENV_VARS: dict[str, str] = {ENV_PREFIX + name.upper(): name for name in _SETTINGS}

_FILE_KEYS = frozenset(_SETTINGS)

#: The flag that sets each setting where it is not ``--<setting-with-dashes>`` (error messages, the settings reference).
FLAGS = {"judge_models": "--judge-model", "config_file": "--config", "max_concurrent_requests": "--concurrency"}


def is_offline(model: str | None) -> bool:
    """True for no model or the names ``offline`` / ``none`` (case-insensitive)."""
    return model is None or model.strip().lower() in OFFLINE_NAMES


# ---------------------------------------------------------------------------------------------
# Sources: what one resolution reads (pydantic-settings merges them in priority order)


@dataclass
class _Resolution:
    """What :meth:`ModelConfig.resolve` hands its sources: the environment to read (a mapping, so
    tests need not touch ``os.environ``), the config file chosen, and each source's values once
    read (to say where a bad value came from)."""

    env: Mapping[str, str]
    path: Path | None
    read: dict[str, dict[str, Any]] = field(default_factory=dict)


_RESOLVING: contextvars.ContextVar[_Resolution | None] = contextvars.ContextVar("adjudicator_config_resolution", default=None)


def _resolution() -> _Resolution:
    """The resolution under way, or one over ``os.environ`` and the default config file (a
    ``ModelConfig(...)`` built directly reads the environment and the file the same way)."""
    current = _RESOLVING.get()
    return current if current is not None else _Resolution(env=variables(), path=default_config_path())


class _EnvSource(PydanticBaseSettingsSource):
    """``ADJUDICATOR_<SETTING>`` variables of the resolution's environment; empty values are unset."""

    def __init__(self, settings_cls: type[BaseSettings], resolution: _Resolution) -> None:
        super().__init__(settings_cls)
        self.resolution = resolution

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # values come from __call__

    def __call__(self) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for var, key in ENV_VARS.items():
            raw = self.resolution.env.get(var)
            if raw is not None and raw.strip() != "":
                values[key] = raw.strip()
        self.resolution.read["env"] = values
        return values


class _FileSource(PydanticBaseSettingsSource):
    """The resolution's config file (TOML, or YAML by suffix); unknown keys are a ConfigError."""

    def __init__(self, settings_cls: type[BaseSettings], resolution: _Resolution) -> None:
        super().__init__(settings_cls)
        self.resolution = resolution

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # values come from __call__

    def __call__(self) -> dict[str, Any]:
        path = self.resolution.path
        values = {} if path is None else {**read_config_file(path, _FILE_KEYS), "config_file": path}
        self.resolution.read["file"] = values
        return values


class ModelConfig(BaseSettings):
    """The resolved model configuration: one field per setting, each with its description (plain
    text; the settings reference in ``docs/`` and LangGraph Studio's form are rendered from it), its
    default and its range.

    Where each setting is used: ``p_source`` in :mod:`adjudicator.model.logprobs`; ``rubric`` names a
    preset of :data:`adjudicator.input.rubric.PRESETS` or a file; ``evidence`` is read by
    :mod:`adjudicator.input.evidence`; ``judge_evidence`` (:data:`JudgeEvidence`) by
    :mod:`adjudicator.judges.llm.quotes`, a scoring panel only; ``track_window_chars`` by
    :mod:`adjudicator.workflow.windows`; ``panel`` (:data:`PanelMode`) chooses :mod:`adjudicator.pairwise`;
    ``api_key_env`` is read by :func:`api_key`; ``max_concurrent_requests`` is ``adjudicate
    --concurrency``. Every field but ``config_file`` (which is chosen, not set) can come from a flag of
    ``adjudicate run`` or from the environment and the config file alone (:data:`ENV_VARS`).

    Build it with :meth:`resolve` (flags, environment, file; errors name their source) or
    :meth:`resolve_values` (any settings by name, e.g. a LangGraph run's context).
    ``ModelConfig(**values)`` reads the environment and the default config file below the given
    values, as pydantic-settings does; ``ModelConfig.model_validate(values)`` takes ``values`` alone.
    """

    # allow_inf_nan: "inf" or "nan" from a flag, a variable or a file is refused (issue 26): an infinite
    # timeout made every request fail as "timestamp out of range", blamed on the model server
    model_config = SettingsConfigDict(frozen=True, extra="forbid", validate_default=False, allow_inf_nan=False)

    # Each description is plain text for people (the settings reference in docs/, LangGraph Studio's
    # form); the default is shown beside it, so a description says what an unset value means.
    model: str | None = Field(
        default=None, description="The litellm model string for every role, e.g. deepseek/deepseek-chat or openai/gpt-4o-mini. Unset or 'offline': the offline judge, a deterministic baseline."
    )
    api_base: str | None = Field(
        default=None,
        description="URL of an OpenAI-compatible server (llama.cpp, vLLM, Ollama, a gateway), used for every model, e.g. http://127.0.0.1:8080/v1. Unset: each provider's own endpoint.",
    )
    tracker_model: str | None = Field(default=None, description="The model of the clash trackers. Unset: the model.")
    judge_models: Annotated[tuple[str, ...], NoDecode] = Field(
        default=(),
        description="One to three models for judge-1, judge-2 and judge-3 in order, repeated in turn if fewer (a mixed panel); a list, or a comma-separated string in the variable. Unset: the model.",
    )
    config_file: Path | None = Field(default=None, description="A TOML or YAML file holding any of these settings. Unset: ~/.config/adjudicator/config.toml (or config.yaml) when it exists.")
    no_cache: bool = Field(default=False, description="Neither read nor write the response cache (nor the bench's stored sample results, which live in it).")
    cache_dir: Path = Field(
        default_factory=lambda: default_cache_dir(_resolution().env),
        description="The folder of the response cache.",
        json_schema_extra={"default_text": "~/.cache/adjudicator/llm ($XDG_CACHE_HOME honoured)"},
    )
    timeout_s: float = Field(default=120.0, gt=0, le=86_400, description="The time limit of one model request, in seconds (at most a day); a tracker window of N stages (track_window_chars) gets N times it.")
    json_mode: JsonMode = Field(
        default="auto",
        description="How a model is asked for JSON: auto (a JSON schema where litellm says the model supports one, prompted JSON if the server rejects it), schema, object (llama.cpp) or none (prompted JSON only).",
    )
    temperature: float = Field(default=0.0, ge=0.0, le=2.0, description="The sampling temperature of every request.")
    seed: int | None = Field(
        default=None, ge=0, description="A sampling seed sent with every request and part of its cache key. Unset: none sent. Not bench --seed, which seeds the baselines and the bootstrap."
    )
    p_source: PSource = Field(
        default="stated",
        description="Where a judge's winner tendency p comes from: stated (the p it writes), or logprob (also read p and the stage scores off its token log-probabilities, from an OpenAI-compatible server).",
    )
    max_tokens: int | None = Field(
        default=None,
        ge=1,
        description="One completion budget for every request, in tokens. Unset: each node's own budget (1,280 for a tracker, 1,536 for a judge, 1,024 for a single-call task); set it higher for reasoning models.",
    )
    transport_retries: int = Field(default=4, ge=0, le=10, description="How often a request is sent again after a transport fault (429, 5xx, a timeout, a refused connection).")
    backoff_base_s: float = Field(
        default=1.0, ge=0.0, le=3_600, description="The first wait before a request is sent again, in seconds (it doubles with each retry; a Retry-After header is honoured; at most an hour)."
    )
    rubric: str | None = Field(default=None, description="The rubric: a preset (ccdb, debateart or inspire) or the path of a rubric file (YAML, JSON or TOML). Unset: ccdb.")
    evidence: str | None = Field(
        default=None,
        description="The source the fact-authenticity dimension checks claims against: a folder of documents (.txt, .md, .json), or transcript (the passages the debaters quoted). Unset: fact authenticity is not assessed.",
    )
    panel: PanelMode = Field(default="scoring", description="How the three judges judge: scoring (each writes a ballot) or pairwise (each compares pairs in both orders; Bradley-Terry strengths).")
    max_concurrent_requests: int | None = Field(
        default=None,
        ge=1,
        description="At most this many model requests in flight to one server at a time; 1 for a local server that answers one request at a time. Unset: no cap.",
    )
    api_key_env: str | None = Field(
        default=None,
        description="The name of the environment variable whose value is the key sent to every model (a name, never the key). Unset: ADJUDICATOR_API_KEY; a provider's own key goes only to its own endpoint.",
    )
    judge_evidence: JudgeEvidence = Field(
        default="ledger",
        description="What the language-model judges read beyond the tracker's ledger and analyses: ledger (nothing more), quotes (the transcript sentences behind the decisive clashes) or transcript (the whole transcript).",
    )
    track_window_chars: int = Field(
        default=0,
        ge=0,
        description="The language-model tracker analyses consecutive stages whose transcripts add up to at most this many characters (and at most 6 stages) in one request. 0: one stage per request.",
    )
    feedback: bool = Field(
        default=True,
        description="Whether the panel's chair (judge-1, a language model's or the offline baseline's) writes the coach's feedback to each debater on its ballot. false: no ballot asks for it (the single-call protocol has no such task; on the four short speeches of debateart_4395 it is about an eighth of the agentic arm's bill under gpt-4.1-mini), and the verdict has none.",
    )
    send_order: SendOrder = Field(
        default="lead-first",
        description="How requests that begin alike are sent: lead-first (one judge, and one single-call task, first; the others once it was answered, so a provider's prompt cache serves their shared beginning at its discount; about one request's time longer per match) or at-once.",
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Flags (init arguments) > ``ADJUDICATOR_*`` environment > config file > defaults."""
        resolution = _resolution()
        return (init_settings, _EnvSource(settings_cls, resolution), _FileSource(settings_cls, resolution))

    @field_validator("model", "tracker_model")
    @classmethod
    def _model_named(cls, v: str | None) -> str | None:
        if v is not None and not v.strip():
            raise ValueError("is empty; give a litellm model string such as deepseek/deepseek-chat, or 'offline'")
        return None if v is None else v.strip()

    @field_validator("judge_models", mode="before")
    @classmethod
    def _split_judges(cls, v: Any) -> Any:
        """A list, a tuple or a comma-separated string (each item may hold commas too)."""
        if isinstance(v, str):
            items = v.split(",")
        elif isinstance(v, (list, tuple)):
            items = [p for item in v for p in str(item).split(",")]
        else:
            return v
        return tuple(i.strip() for i in items if i.strip())

    @field_validator("judge_models")
    @classmethod
    def _judges_named(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if len(v) > len(JUDGE_IDS):
            raise ValueError(f"{len(v)} judge models given; the panel has {len(JUDGE_IDS)} judges")
        if any(not m.strip() for m in v):
            raise ValueError("contains an empty model name")
        return v

    @field_validator("api_base")
    @classmethod
    def _api_base_is_url(cls, v: str | None) -> str | None:
        if v is not None and not re.match(r"^https?://[^\s/]+", v.strip()):
            raise ValueError("must be an http:// or https:// URL, e.g. http://127.0.0.1:8080/v1")
        return None if v is None else v.strip()

    @field_validator("api_key_env")
    @classmethod
    def _key_variable_named(cls, v: str | None) -> str | None:
        if v is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v.strip()):
            raise ValueError("must be the name of an environment variable (letters, digits, _), e.g. MY_SERVER_KEY; not the key itself")
        return None if v is None else v.strip()

    @field_validator("json_mode", mode="before")
    @classmethod
    def _json_mode_lower(cls, v: Any) -> Any:
        return v.strip().lower() if isinstance(v, str) else v

    @field_validator("cache_dir", mode="before")
    @classmethod
    def _expand_home(cls, v: Any) -> Any:
        return Path(str(v)).expanduser() if isinstance(v, (str, os.PathLike)) else v

    @field_validator("max_tokens", mode="before")
    @classmethod
    def _no_budget(cls, v: Any) -> Any:
        """``none``, ``null`` or ``0`` (from a variable or a file) mean no configured budget."""
        return None if isinstance(v, str) and v.strip().lower() in ("none", "null", "0") else v

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
        rubric: str | None = None,
        evidence: str | None = None,
        panel: str | None = None,
        max_concurrent_requests: int | None = None,
        p_source: str | None = None,
        api_key_env: str | None = None,
        judge_evidence: str | None = None,
        track_window_chars: int | None = None,
        send_order: str | None = None,
        feedback: bool | None = None,
        env: Mapping[str, str] | None = None,
    ) -> ModelConfig:
        """Resolve flags > ``ADJUDICATOR_*`` environment > config file > defaults.

        Arguments are the CLI flags (``--model``, ``--api-base``, ``--tracker-model``, ``--judge-model``
        (repeatable) as ``judge_models``, ``--config`` as ``config_file``, ``--no-cache``,
        ``--cache-dir``, ``--timeout-s``, ``--json-mode``, ``--rubric``, ``--evidence``, ``--panel``, ``--concurrency`` as
        ``max_concurrent_requests``, ``--p-source``, ``--api-key-env``, ``--judge-evidence``, ``--track-window-chars``, ``--send-order``, ``--feedback/--no-feedback``); None, or an empty ``judge_models``
        sequence, means the flag was not given (``no_cache=False`` from a flag that defaults to off
        should be passed as None). ``env`` replaces ``os.environ`` (tests). Raises
        :class:`~adjudicator.errors.ConfigError` (exit code 2, one line naming the source and
        setting) for a missing or unreadable config file, an unknown key in it, or a value of the
        wrong type or range.
        """
        env = dict(variables(env))
        flags: dict[str, Any] = {
            "model": model,
            "api_base": api_base,
            "tracker_model": tracker_model,
            "judge_models": (judge_models,) if isinstance(judge_models, str) else (tuple(judge_models) if judge_models else None),
            "no_cache": no_cache,
            "cache_dir": cache_dir,
            "timeout_s": timeout_s,
            "json_mode": json_mode,
            "rubric": rubric,
            "evidence": evidence,
            "panel": panel,
            "max_concurrent_requests": max_concurrent_requests,
            "p_source": p_source,
            "api_key_env": api_key_env,
            "judge_evidence": judge_evidence,
            "track_window_chars": track_window_chars,
            "send_order": send_order,
            "feedback": feedback,
        }
        given = {k: v for k, v in flags.items() if v is not None}
        return cls._resolve(given, config_path(config_file, env), env, lambda key: FLAGS.get(key, "--" + key.replace("_", "-")))

    @classmethod
    def resolve_values(cls, values: Mapping[str, Any], *, source: str, env: Mapping[str, str] | None = None) -> ModelConfig:
        """Resolve settings given by name (``{"timeout_s": 30, "rubric": "debateart"}``, e.g. a LangGraph
        run's context) above the ``ADJUDICATOR_*`` environment, the config file and the defaults, as
        :meth:`resolve` resolves flags; a None value is unset. ``config_file`` is not one of them (the
        environment's or the default file is read). Raises :class:`~adjudicator.errors.ConfigError`
        naming ``<source>.<setting>`` for an unknown setting or a bad value."""
        env = dict(variables(env))
        unknown = sorted(set(values) - _FILE_KEYS)
        if unknown:
            raise ConfigError(f"{source}: unknown setting {', '.join(map(repr, unknown))}", f"known settings: {', '.join(sorted(_FILE_KEYS))}")
        given = {k: v for k, v in values.items() if v is not None}
        return cls._resolve(given, config_path(None, env), env, lambda key: f"{source}.{key}")

    @classmethod
    def _resolve(cls, given: dict[str, Any], path: Path | None, env: Mapping[str, str], label: Callable[[str], str]) -> ModelConfig:
        """Validate ``given`` above the environment ``env``, the config file ``path`` and the defaults;
        ``label(setting)`` names a given value's source in an error."""
        resolution = _Resolution(env=env, path=path)
        token = _RESOLVING.set(resolution)
        try:
            return cls(**given)
        except ValidationError as exc:
            raise _config_error(exc, given, resolution, label) from None
        finally:
            _RESOLVING.reset(token)

    def describe(self) -> str:
        """One line for stderr: the models of each role and the cache (never a key)."""
        judges = ", ".join(f"{j}={m or 'offline'}" for j, m in self.judges().items())
        cache = "off" if self.no_cache else str(self.cache_dir)
        panel = "" if self.panel == "scoring" else f", panel={self.panel}"
        return f"tracker={self.tracker or 'offline'}, {judges}{panel}, api_base={self.api_base or '-'}, cache={cache}"


def _config_error(exc: ValidationError, given: dict[str, Any], resolution: _Resolution, label: Callable[[str], str]) -> ConfigError:
    """The one-line ConfigError for the first error of ``exc``, naming the flag (``label`` of a given
    setting), variable or file that supplied the bad value (the highest-priority source that set it)."""
    err = exc.errors()[0]
    key = str(err["loc"][0]) if err.get("loc") else "?"
    env_values, file_values = resolution.read.get("env", {}), resolution.read.get("file", {})
    if key in given:
        src, value = label(key), given[key]
    elif key in env_values:
        src, value = ENV_PREFIX + key.upper(), env_values[key]
    elif key in file_values:
        src, value = str(resolution.path), file_values[key]
    else:
        src, value = key, err.get("input")
    if err.get("type") == "bool_parsing":
        return ConfigError(f"{src}: {value!r} is not a boolean", "use true or false")
    msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    if key == "judge_models" and "judge models given" in msg:
        return ConfigError(f"{src}: {msg}", "give one to three judge models")
    return ConfigError(f"{src}: {key} {value!r} is invalid ({msg})")


def resolve_config(**flags: Any) -> ModelConfig:
    """:meth:`ModelConfig.resolve` as a function (the CLI's entry point); same keyword arguments."""
    return ModelConfig.resolve(**flags)

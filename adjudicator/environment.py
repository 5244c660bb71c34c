"""The one reader of the environment: :func:`variables`, and the package's switches besides the model settings.

Every module that needs the environment gets it from :func:`variables` (the settings' own
``ADJUDICATOR_<SETTING>`` variables are read by :mod:`adjudicator.config` from that mapping). Each
function here takes ``env`` (default: the process's environment) so tests need not touch ``os.environ``:

- :func:`api_key`: the key passed explicitly to every model (``$ADJUDICATOR_API_KEY``, or the variable
  ``--api-key-env`` names);
- :func:`environment_base_url`: the base URL a provider's variables (``OPENAI_BASE_URL``,
  ``DEEPSEEK_API_BASE``, ...) would make litellm or the provider's SDK send requests to, so the client
  treats it as an API base and the provider's key never follows it elsewhere;
- :func:`prompts_dir_override`: ``$ADJUDICATOR_PROMPTS_DIR``, prompt templates replacing the bundled ones;
- :func:`debug_tracebacks`: ``$ADJUDICATOR_DEBUG``, tracebacks instead of one-line errors;
- :func:`live_endpoint`: ``$ADJUDICATOR_LIVE_URL`` / ``$ADJUDICATOR_LIVE_TOKEN``, the live server the
  client commands talk to; :func:`live_token`: a live token from a file or that variable;
  :func:`live_ca_file`: ``$ADJUDICATOR_LIVE_CA_FILE``, the certificate a client trusts for ``https``;
- :func:`tabbycat_token`: the Tabbycat API token, from a file or ``$ADJUDICATOR_TABBYCAT_TOKEN``;
- :data:`LIVE_STATE_ENV` / :data:`LIVE_STORE_ENV`: the ``live`` commands' ``--state-dir`` and
  ``--store`` defaults (read by click);
- :data:`ASR_MODEL_ENV`: the speech-to-text model folder of ``transcribe`` and ``live push --audio``
  (the ``--asr-model`` default, read by click);
- :func:`default_cache_dir` and its siblings: the caches under ``$XDG_CACHE_HOME/adjudicator``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from adjudicator.errors import ConfigError

CONFIG_ENV = "ADJUDICATOR_CONFIG"
API_KEY_ENV = "ADJUDICATOR_API_KEY"
PROMPTS_DIR_ENV = "ADJUDICATOR_PROMPTS_DIR"
DEBUG_ENV = "ADJUDICATOR_DEBUG"
LIVE_URL_ENV = "ADJUDICATOR_LIVE_URL"
LIVE_TOKEN_ENV = "ADJUDICATOR_LIVE_TOKEN"
LIVE_TOKEN_FILE_ENV = "ADJUDICATOR_LIVE_TOKEN_FILE"
LIVE_CA_FILE_ENV = "ADJUDICATOR_LIVE_CA_FILE"
TABBYCAT_TOKEN_ENV = "ADJUDICATOR_TABBYCAT_TOKEN"
TABBYCAT_TOKEN_FILE_ENV = "ADJUDICATOR_TABBYCAT_TOKEN_FILE"
LIVE_STATE_ENV = "ADJUDICATOR_LIVE_STATE"
LIVE_STORE_ENV = "ADJUDICATOR_LIVE_STORE"
ASR_MODEL_ENV = "ADJUDICATOR_ASR_MODEL"


def variables(env: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """``env`` when given (tests), else the process's environment (``os.environ``, read here and nowhere else)."""
    return os.environ if env is None else env


def default_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/adjudicator/llm``, or ``~/.cache/adjudicator/llm`` when XDG_CACHE_HOME is unset."""
    env = variables(env)
    base = env.get("XDG_CACHE_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".cache")
    return Path(base) / "adjudicator" / "llm"


def default_plot_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/adjudicator/plots`` (``~/.cache/...`` when XDG_CACHE_HOME is unset): the
    bench report's pictures by a hash of what they draw (:class:`adjudicator.bench.plots.PlotCache`)."""
    return default_cache_dir(env).parent / "plots"


def default_template_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/adjudicator/templates`` (``~/.cache/...`` when XDG_CACHE_HOME is unset): the
    bench report pages' compiled Jinja2 code (:mod:`adjudicator.bench.templates`)."""
    return default_cache_dir(env).parent / "templates"


def api_key(env: Mapping[str, str] | None = None, name: str | None = None) -> str | None:
    """The key passed explicitly to every model: ``$name`` when a variable is named (the
    ``api_key_env`` setting, ``--api-key-env``), else ``$ADJUDICATOR_API_KEY``; None when that is
    unset (then the provider's own variable is read for the provider's own endpoint only, and any
    other API base gets a placeholder: :func:`adjudicator.model.preflight.preflight`).

    Raises :class:`~adjudicator.errors.ConfigError` (exit code 2, before any request) when ``name``
    is given and that variable is unset or empty: a key named explicitly is never silently replaced.
    """
    env = variables(env)
    if name is None:
        return env.get(API_KEY_ENV) or None
    value = env.get(name)
    if not value:
        raise ConfigError(
            f"--api-key-env {name}: the environment variable {name} is not set",
            f"export {name} with the server's key, or drop --api-key-env (then {API_KEY_ENV} or a placeholder key is sent)",
        )
    return value


#: The variables litellm (1.x, ``main.py`` and ``get_llm_provider_logic.py``) or the provider's own SDK
#: reads a provider's base URL from when no ``api_base`` is passed, in the order they are read. Every
#: provider also has the two of litellm's naming convention (:func:`base_url_variables`).
BASE_URL_VARIABLES: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_BASE_URL", "OPENAI_API_BASE"),
    "text-completion-openai": ("OPENAI_BASE_URL", "OPENAI_API_BASE"),
    "custom_openai": ("OPENAI_BASE_URL", "OPENAI_API_BASE"),
    "openai_like": ("OPENAI_LIKE_API_BASE",),
    "azure": ("AZURE_API_BASE", "AZURE_OPENAI_ENDPOINT"),
    "azure_text": ("AZURE_API_BASE", "AZURE_OPENAI_ENDPOINT"),
    "azure_ai": ("AZURE_AI_API_BASE",),
    "anthropic": ("ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL"),
    "mistral": ("MISTRAL_API_BASE", "MISTRAL_AZURE_API_BASE"),
    "codestral": ("CODESTRAL_API_BASE",),
    "together_ai": ("TOGETHER_AI_API_BASE", "TOGETHERAI_API_BASE"),
    "fireworks_ai": ("FIREWORKS_AI_API_BASE", "FIREWORKS_API_BASE"),
    "vertex_ai": ("VERTEXAI_API_BASE", "VERTEX_API_BASE"),
    "huggingface": ("HF_API_BASE", "HUGGINGFACE_API_BASE"),
    "ollama": ("OLLAMA_API_BASE",),
    "ollama_chat": ("OLLAMA_API_BASE",),
    "nvidia_nim": ("NVIDIA_NIM_API_BASE",),
    "github_copilot": ("GITHUB_COPILOT_API_BASE",),
    "featherless_ai": ("FEATHERLESS_AI_API_BASE", "FEATHERLESS_API_BASE"),
    "litellm_proxy": ("LITELLM_PROXY_API_BASE",),
}


def base_url_variables(provider: str) -> tuple[str, ...]:
    """The variables that can set ``provider``'s base URL (a litellm provider name such as
    ``"openai"``): its entries in :data:`BASE_URL_VARIABLES`, then ``<PROVIDER>_API_BASE`` and
    ``<PROVIDER>_BASE_URL`` (litellm's convention, e.g. ``DEEPSEEK_API_BASE``, ``GROQ_API_BASE``)."""
    prefix = "".join(c if c.isalnum() else "_" for c in provider).upper()
    return tuple(dict.fromkeys((*BASE_URL_VARIABLES.get(provider, ()), f"{prefix}_API_BASE", f"{prefix}_BASE_URL")))


def environment_base_url(provider: str, env: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """``(variable, url)`` of the first of :func:`base_url_variables` set (non-blank) for ``provider``:
    where litellm would send its requests without an ``api_base``; None when none is set."""
    env = variables(env)
    for name in base_url_variables(provider):
        value = (env.get(name) or "").strip()
        if value:
            return name, value
    return None


def prompts_dir_override(env: Mapping[str, str] | None = None) -> Path | None:
    """``$ADJUDICATOR_PROMPTS_DIR`` (a folder of prompt templates replacing the bundled ones), or None."""
    value = variables(env).get(PROMPTS_DIR_ENV)
    return Path(value) if value else None


#: LangSmith's OpenTelemetry switches: with any of them set, the import guard of
#: :mod:`adjudicator.lean_imports` refuses nothing (LangSmith then uses the SDK it would skip).
OTEL_VARIABLES = ("LANGSMITH_OTEL_ENABLED", "LANGSMITH_OTEL_ONLY", "LANGSMITH_TRACING_MODE", "OTEL_ENABLED")


def opentelemetry_requested(env: Mapping[str, str] | None = None) -> bool:
    """Whether any of :data:`OTEL_VARIABLES` is set to a non-empty value."""
    values = variables(env)
    return any(values.get(v) for v in OTEL_VARIABLES)


def debug_tracebacks(env: Mapping[str, str] | None = None) -> bool:
    """True when ``$ADJUDICATOR_DEBUG`` is set (non-empty): the CLI re-raises internal errors with
    their traceback instead of printing one line."""
    return bool(variables(env).get(DEBUG_ENV))


def live_endpoint(env: Mapping[str, str] | None = None) -> tuple[str | None, str | None]:
    """(``$ADJUDICATOR_LIVE_URL``, ``$ADJUDICATOR_LIVE_TOKEN``): the live server the client commands
    talk to and its access token, each None when unset."""
    env = variables(env)
    return env.get(LIVE_URL_ENV) or None, env.get(LIVE_TOKEN_ENV) or None


def secret(option: str, token_file: str | os.PathLike[str] | None, file_env: str, value_env: str, what: str, env: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """(a secret, where it came from): the first line of ``token_file`` (given as ``option``), else of
    the file ``$<file_env>`` names, else ``$<value_env>``; (None, a sentence saying where it was looked
    for) when none is set. A secret never comes from a command line argument: it would show in the
    process list (``ps``) to every user of the machine. Raises :class:`ConfigError` for a file that
    cannot be read or is empty (``what`` says what to put in it)."""
    env = variables(env)
    path = token_file or env.get(file_env) or None
    if path:
        where = f"{option} {path}" if token_file else f"${file_env} ({path})"
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{where}: cannot be read ({getattr(exc, 'strerror', None) or type(exc).__name__})", "give a text file holding the token on its first line") from None
        token = (text.strip().splitlines() or [""])[0].strip()
        if not token:
            raise ConfigError(f"{where}: the file is empty", f"put {what} on its first line")
        return token, where
    if env.get(value_env):
        return env[value_env].strip(), f"${value_env}"
    return None, f"no {option}, ${file_env} or ${value_env}"


def tabbycat_token(token_file: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """(the Tabbycat API token, where it came from): ``--tabbycat-token-file``, else
    ``$ADJUDICATOR_TABBYCAT_TOKEN_FILE``, else ``$ADJUDICATOR_TABBYCAT_TOKEN`` (:func:`secret`)."""
    return secret("--tabbycat-token-file", token_file, TABBYCAT_TOKEN_FILE_ENV, TABBYCAT_TOKEN_ENV, "the Tabbycat API token (its user page, 'API Token')", env)


def live_token(token_file: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """(a live server token, where it came from): ``--token-file``, else ``$ADJUDICATOR_LIVE_TOKEN_FILE``,
    else ``$ADJUDICATOR_LIVE_TOKEN`` (:func:`secret`): the organiser's for ``live serve``, anyone's
    (organiser, chair, panellist, board) for the client commands."""
    return secret("--token-file", token_file, LIVE_TOKEN_FILE_ENV, LIVE_TOKEN_ENV, "the token (`live serve` prints the organiser's, `live room create` and `live person add` the others)", env)


def live_ca_file(env: Mapping[str, str] | None = None) -> str | None:
    """``$ADJUDICATOR_LIVE_CA_FILE``: the certificate (PEM) a client trusts for an ``https`` live server
    whose certificate no system authority signed (``live serve --tls-cert`` with a certificate of your
    own), or None."""
    return variables(env).get(LIVE_CA_FILE_ENV) or None

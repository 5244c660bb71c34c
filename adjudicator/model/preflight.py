"""The pre-flight check: a bad model string or a missing API key stops a run before any request is spent.

- :func:`preflight` checks that litellm can route one model and that a key is available, and returns
  the key to send: ``ADJUDICATOR_API_KEY`` when set; :data:`PLACEHOLDER_KEY` for a server that is not
  the provider's own endpoint (:func:`provider_endpoint`, :data:`PROVIDER_HOSTS`: a provider's key is
  never sent to anyone else); else None (litellm reads the provider's usual variable).
- :class:`PreflightGate` runs it once for every client of a run, just before the run's first request,
  so a run answered wholly from the cache neither imports litellm nor needs a key.

A base URL the environment sets for the provider (``OPENAI_BASE_URL``, ``DEEPSEEK_API_BASE``, ...:
:func:`adjudicator.environment.environment_base_url`) counts as an API base: the client is built with
it (:func:`environment_api_base`), so the same rule decides which key it gets. A model string whose
provider the client could not tell (a bare ``gpt-4o``) while such a variable is set is refused. And on
the wire (:func:`key_may_go_to`) a request that would carry a key to a host other than the one it is
for is not sent, whatever routed it there.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Protocol

from adjudicator.environment import environment_base_url
from adjudicator.errors import ConfigError, InputError
from adjudicator.model.litellm_setup import litellm_module

log = logging.getLogger("adjudicator.model.preflight")


class KeyedClient(Protocol):
    """What the gate needs of a client (:class:`adjudicator.model.llm.LLMClient`)."""

    def resolve_key(self) -> None:
        """Run :func:`preflight` for this client's model and keep the key it returns."""


#: Sent as the key to a local OpenAI-compatible server (``api_base`` given) when no key is set;
#: llama.cpp, vLLM and Ollama ignore it, and the OpenAI SDK refuses to send a request without one.
PLACEHOLDER_KEY = "sk-no-key-required"


#: The hosts each provider serves its API from (https only). A provider's own key (``OPENAI_API_KEY``,
#: ``DEEPSEEK_API_KEY``, ...) goes to these hosts and nowhere else: with any other ``--api-base`` the
#: client sends ``ADJUDICATOR_API_KEY`` or :data:`PLACEHOLDER_KEY` (:func:`provider_endpoint`). A host
#: starting with "." is a suffix (an Azure resource is ``<name>.openai.azure.com``).
PROVIDER_HOSTS: dict[str, tuple[str, ...]] = {
    "openai": ("api.openai.com",),
    "anthropic": ("api.anthropic.com",),
    "deepseek": ("api.deepseek.com",),
    "mistral": ("api.mistral.ai",),
    "groq": ("api.groq.com",),
    "together_ai": ("api.together.ai", "api.together.xyz"),
    "openrouter": ("openrouter.ai",),
    "gemini": ("generativelanguage.googleapis.com",),
    "xai": ("api.x.ai",),
    "fireworks_ai": ("api.fireworks.ai",),
    "cohere": ("api.cohere.ai", "api.cohere.com"),
    "perplexity": ("api.perplexity.ai",),
    "moonshot": ("api.moonshot.cn", "api.moonshot.ai"),
    "dashscope": ("dashscope.aliyuncs.com", "dashscope-intl.aliyuncs.com"),
    "azure": (".openai.azure.com",),
}


def provider_endpoint(provider: str, api_base: str | None) -> bool:
    """Whether ``api_base`` is ``provider``'s own API (an https URL on one of its
    :data:`PROVIDER_HOSTS`); True without an ``api_base`` (litellm then uses the provider's default).
    A provider not in the table has no own endpoint: any ``api_base`` is someone else's."""
    if not api_base:
        return True
    from urllib.parse import urlsplit

    parts = urlsplit(api_base)
    host = (parts.hostname or "").lower().rstrip(".")
    if parts.scheme != "https" or not host:
        return False
    return any(host.endswith(h) if h.startswith(".") else host == h for h in PROVIDER_HOSTS.get(provider, ()))


def model_provider(model: str) -> str | None:
    """The provider a ``provider/name`` model string names (``"deepseek"`` for
    ``deepseek/deepseek-chat``), lower-cased; None for a bare name (litellm guesses its provider)."""
    provider, sep, _ = model.partition("/")
    return provider.strip().lower() or None if sep else None


def environment_api_base(model: str) -> tuple[str, str] | None:
    """``(variable, url)``: the base URL the environment sets for ``model``'s provider
    (:func:`adjudicator.environment.environment_base_url`), which the client must treat as its API
    base; None when the model string names no provider or no such variable is set. Imports no litellm."""
    provider = model_provider(model)
    return environment_base_url(provider) if provider else None


def effective_api_base(api_base: str | None, model: str) -> str | None:
    """The API base ``model``'s requests go to: ``api_base`` (the setting) when given, else the one the
    environment sets for its provider (:func:`environment_api_base`), else None (the provider's
    default). What the client is built with and what the bench's stored results are keyed on."""
    found = None if api_base else environment_api_base(model)
    return api_base or (found[1] if found else None)


def key_may_go_to(provider: str | None, api_base: str | None, url: str) -> bool | None:
    """Whether a request carrying a key may go to ``url``: to the API base's own scheme and host when
    there is one, else to ``provider``'s own https endpoint (:data:`PROVIDER_HOSTS`). None when that
    cannot be told (no API base and a provider not in the table)."""
    from urllib.parse import urlsplit

    target = urlsplit(url)
    host = (target.hostname or "").lower().rstrip(".")
    if api_base:
        base = urlsplit(api_base)
        return (target.scheme, host, target.port) == (base.scheme, (base.hostname or "").lower().rstrip("."), base.port)
    if not provider or provider not in PROVIDER_HOSTS:
        return None
    return provider_endpoint(provider, f"{target.scheme}://{host}")


def preflight(model: str, api_base: str | None = None, api_key: str | None = None) -> str | None:
    """Check that litellm can route ``model`` and that a key is available; return the key to pass
    explicitly: ``api_key`` when given (``ADJUDICATOR_API_KEY``); :data:`PLACEHOLDER_KEY` when
    ``api_base`` is not the provider's own endpoint (:func:`provider_endpoint`: the provider's key is
    never sent to another server, and the OpenAI SDK refuses to send a request without a key); else
    None, to let litellm read the provider's environment variable for the provider's own endpoint.

    Raises :class:`~adjudicator.errors.ConfigError` (exit code 2, no request made) when the model
    string names no provider litellm knows, when a variable sets the provider's base URL but
    ``api_base`` is None (the client could not tell the provider: :func:`environment_api_base`), or
    when the provider's key variable is unset for the provider's own endpoint.
    """
    lit = litellm_module()
    try:
        _, provider, _, _ = lit.get_llm_provider(model=model)
    except Exception:
        raise ConfigError(
            f"model {model!r}: litellm cannot tell which provider serves it",
            "write it as provider/name, e.g. deepseek/deepseek-chat, ollama/qwen2.5:14b, or openai/<name> with --api-base",
        ) from None
    found = environment_base_url(str(provider)) if not api_base else None
    if found is not None:  # the client was built without it: its model string names another provider, or none
        name, value = found
        written = model if "/" in model else f"{provider}/{model}"
        raise ConfigError(
            f"model {model!r}: {name} is set ({value}), so litellm would send its requests there, but the model string does not name {provider}",
            f"write the model as {written} (then that address counts as an API base: the provider's key goes only to its own endpoint) or give --api-base",
        )
    if api_key:
        return api_key
    if api_base and not provider_endpoint(str(provider), api_base):
        log.info("%s at %s: not %s's own endpoint, so its key is not sent (set ADJUDICATOR_API_KEY for this server)", model, api_base, provider)
        return PLACEHOLDER_KEY
    try:
        env = lit.validate_environment(model=model)
    except Exception:
        return None
    missing = [k for k in env.get("missing_keys", []) if not k.endswith("_API_BASE") and not k.endswith("_BASE_URL")]
    if env.get("keys_in_environment") or not missing:
        return None
    raise ConfigError(
        f"model {model!r}: no API key found (set {' or '.join(missing)})",
        "keys are read from the provider's usual environment variable, or ADJUDICATOR_API_KEY",
    )


class PreflightGate:
    """The pre-flight check of every model of one run, done once, just before the run's first request.

    The clients of a run share one gate (:func:`adjudicator.api.build_context`). The first of them
    that has to send a request checks them all with :func:`preflight` (routing and keys) and gives
    each its key, so a bad model string or a missing key stops the run (ConfigError, exit code 2)
    before any of its models is sent anything, while a run answered wholly from the cache neither
    imports litellm nor needs a key. :meth:`ensure` may also be called up front (``live serve``
    checks at start). Thread-safe; a failed check is raised again to every later caller.
    """

    def __init__(self) -> None:
        self._clients: list[KeyedClient] = []
        self._lock = threading.Lock()
        self._checked = False
        self._error: tuple[str, str | None] | None = None
        self._pending: list[Callable[[], None]] = []

    def add(self, client: KeyedClient) -> None:
        """Check ``client`` with the others (before :meth:`ensure` first runs)."""
        with self._lock:
            self._clients.append(client)

    def also_check(self, check: Callable[[], None]) -> None:
        """Run ``check`` once, just before the next request any client of this gate sends (after the
        model checks): a check of the run's input that needs litellm, e.g. that the judges' prompt fits
        their context window, without importing litellm for a run answered from the cache. ``check``
        raises :class:`~adjudicator.errors.InputError` to stop the run."""
        with self._lock:
            self._pending.append(check)

    def ensure(self) -> None:
        """Check every client once (importing litellm), then run the checks :meth:`also_check` added
        since the last call. Raises ConfigError when a model is unroutable or its key is missing, or
        when a check failed, now and on every later call."""
        with self._lock:
            if not self._checked:
                try:
                    for client in self._clients:
                        client.resolve_key()
                except ConfigError as exc:
                    self._error = (exc.message, exc.hint)
                self._checked = True
            pending, self._pending = self._pending, []
            for check in pending if self._error is None else ():
                try:
                    check()
                except InputError as exc:
                    self._error = (exc.message, exc.hint)
                    break
        if self._error is not None:
            raise ConfigError(*self._error)

"""The one importer of litellm: :func:`litellm_module` imports and configures it once, lazily.

litellm is imported only when a request must really be sent (a run answered from the response cache
never imports it) and after ``LITELLM_LOCAL_MODEL_COST_MAP=True`` is set (``adjudicator/__init__.py``),
so the import reads no network. Its own cache, retries, telemetry, debug printing and tokenizer
downloads are switched off; its shared HTTP session carries a request hook (:data:`WIRE`) that tells
the request observer the moment a request goes on the wire, and that hook and one on litellm's own
lookup client refuse a request carrying a key to a host the key is not for. The client that sends requests is
:class:`adjudicator.model.llm.LLMClient`; the check of a run's models before its first request is
:mod:`adjudicator.model.preflight`.
"""

from __future__ import annotations

import logging
import threading
from functools import lru_cache
from typing import Any

_LITELLM: Any = None
_LITELLM_LOCK = threading.Lock()

#: This thread's pending "the request is going on the wire" callback and key check (see
#: :func:`_on_wire`; :meth:`adjudicator.model.llm.LLMClient._call` sets them).
WIRE = threading.local()


#: Headers that carry an API key (OpenAI-style bearer, Azure, Anthropic).
KEY_HEADERS = ("authorization", "api-key", "x-api-key")


class KeyRefused(Exception):
    """Raised by the request hook: the request would carry a key to a host it is not for; nothing was sent."""


def _key_of(request: Any) -> str | None:
    """The key a request carries (:data:`KEY_HEADERS`; a bearer token without its scheme), or None."""
    for name in KEY_HEADERS:
        value = request.headers.get(name)
        if value:
            return value.split(" ", 1)[1].strip() if value.lower().startswith("bearer ") else value.strip()
    return None


def _refuse_key(request: Any, outside_a_call: bool) -> None:
    """Raise :class:`KeyRefused` (``WIRE.refused`` = the host) when ``request`` carries a key to a host
    the sending client's check (``WIRE.guard(url, key)``) says that key is not for; with
    ``outside_a_call``, also when no client is sending (no check set: a lookup litellm makes on its own,
    such as Ollama's ``/api/show``, with a key it read from the environment)."""
    key = _key_of(request)
    if key is None:
        return
    guard = getattr(WIRE, "guard", None)
    if (guard is None and outside_a_call) or (guard is not None and guard(str(request.url), key) is False):
        WIRE.refused = request.url.host
        raise KeyRefused(request.url.host)


def _on_lookup(request: Any) -> None:
    """httpx ``request`` event hook of litellm's module-level HTTP client (its own lookups, e.g. a
    model's facts from an Ollama server): a key goes only with a client's request it is for."""
    _refuse_key(request, outside_a_call=True)


def _on_wire(request: Any) -> None:
    """httpx ``request`` event hook of litellm's shared HTTP session: called in the sending thread
    just before the request's bytes are written. First the sending client's key check
    (:func:`_refuse_key`): a request that would carry a key to a host it is not for is not sent.
    Then the request log is told, as late as possible before the server can see the request (a kill
    between the two is a window of microseconds)."""
    _refuse_key(request, outside_a_call=False)
    mark = getattr(WIRE, "mark", None)
    if mark is not None:
        WIRE.mark = None
        mark()


def litellm_module() -> Any:
    """Import and configure litellm once (thread-safe): no debug printing to stdout, no telemetry,
    no litellm cache, no tokenizer downloads, and a shared HTTP session whose request hook tells the
    request observer when a request goes out (OpenAI-compatible routes use it). ``LITELLM_LOCAL_MODEL_COST_MAP`` is already set by the package's
    ``__init__`` (which runs before this module can be imported), so the import reads no network.
    Used by the client (:mod:`adjudicator.model.llm`) and its helpers (``preflight``, ``transport``, ``reply``)."""
    global _LITELLM
    if _LITELLM is None:
        with _LITELLM_LOCK:
            if _LITELLM is None:
                import litellm

                litellm.suppress_debug_info = True
                litellm.telemetry = False
                litellm.cache = None
                litellm.num_retries = 0
                # litellm's token counter would otherwise fetch a tokenizer from Hugging Face for
                # some model names (llama-2/3, cohere): a download at run time, and offline a stall of
                # about a minute of retries; it counts with tiktoken instead.
                litellm.disable_hf_tokenizer_download = True

                import httpx

                litellm.client_session = httpx.Client(follow_redirects=True, event_hooks={"request": [_on_wire]})
                lookups = litellm.module_level_client.client
                lookups.event_hooks = {**lookups.event_hooks, "request": [*lookups.event_hooks.get("request", []), _on_lookup]}
                logging.getLogger("LiteLLM").setLevel(logging.ERROR)
                _LITELLM = litellm
    return _LITELLM


@lru_cache(maxsize=1)
def litellm_version() -> str:
    """The installed litellm's version, read from its package metadata without importing it
    (``"unknown"`` if the metadata cannot be read). Part of the key of cached model facts."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("litellm")
    except PackageNotFoundError:
        return "unknown"

"""The one importer of litellm: :func:`litellm_module` imports and configures it once, lazily.

litellm is imported only when a request must really be sent (a run answered from the response cache
never imports it) and after ``LITELLM_LOCAL_MODEL_COST_MAP=True`` is set (``adjudicator/__init__.py``),
so the import reads no network. Its own cache, retries, telemetry, debug printing and tokenizer
downloads are switched off; its shared HTTP session carries a request hook (:data:`WIRE`) that tells
the request observer the moment a request goes on the wire. The client that sends requests is
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

#: This thread's pending "the request is going on the wire" callback (see :func:`_on_wire`; :meth:`adjudicator.model.llm.LLMClient._call` sets it).
WIRE = threading.local()


def _on_wire(_request: Any) -> None:
    """httpx ``request`` event hook of litellm's shared HTTP session: called in the sending thread
    just before the request's bytes are written, so the request log records a request as late as
    possible before the server can see it (a kill between the two is a window of microseconds)."""
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

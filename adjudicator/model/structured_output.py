"""Structured output: which ``response_format`` a client's requests carry, and what the server accepted.

One :class:`StructuredOutput` per :class:`~adjudicator.model.llm.LLMClient` turns its ``json_mode``
into the ``response_format`` of each request:

- ``"auto"`` sends a strict JSON schema (``{"type": "json_schema", ...}``) where
  ``litellm.supports_response_schema`` says the model takes one, and prompted JSON (no format)
  otherwise. litellm's answer is kept in the response cache as
  :class:`~adjudicator.model.cache.ModelFacts`, so a cached rerun imports no litellm. A server that
  refuses the schema with a 4xx naming it (:meth:`StructuredOutput.is_rejection`) turns the client
  to prompted JSON within the same attempt; the refusal is remembered in the cache under
  :func:`schema_rejection_key`, so later runs do not probe again;
- ``"schema"`` always sends the JSON schema;
- ``"object"`` sends llama.cpp's ``{"type": "json_object", "schema": ...}`` (its server refuses
  ``json_schema``);
- ``"none"`` never sends a response format.

The schema itself is built by :mod:`adjudicator.model.schema`; the request is sent by
:mod:`adjudicator.model.llm`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

from adjudicator.config import JsonMode
from adjudicator.model.cache import CachedResponse, ModelFacts, ResponseStore, request_key
from adjudicator.model.litellm_setup import litellm_module, litellm_version

log = logging.getLogger("adjudicator.model.structured_output")

#: HTTP statuses with which a server refuses a request it cannot take as sent (bad request,
#: unsupported media type, unprocessable entity): the ones a schema refusal comes with.
REJECTION_STATUSES = (400, 415, 422)


class SchemaRejected(Exception):
    """The server refused a ``json_schema`` response format (``auto`` mode then falls back to
    prompted JSON). ``reason``: the server's error, key masked; ``retries``: the transport retries
    spent on the request before it was refused."""

    def __init__(self, reason: str, retries: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retries = retries


def schema_rejection_key(model: str, api_base: str | None) -> str:
    """The cache key of the marker saying the server at ``api_base`` rejected a JSON schema for
    ``model`` (auto mode then sends prompted JSON); absent until a rejection happens."""
    return request_key({"marker": "json_schema rejected", "model": model, "api_base": api_base})


class StructuredOutput:
    """The ``response_format`` policy of one client: ``model`` and ``api_base`` as the client's,
    ``json_mode`` one of :data:`~adjudicator.config.JSON_MODES` (checked by the client), ``cache``
    the client's response store (model facts and the rejection marker live there). Thread-safe."""

    def __init__(self, model: str, api_base: str | None, json_mode: JsonMode, cache: ResponseStore) -> None:
        self.model = model
        self.api_base = api_base
        self.json_mode: JsonMode = json_mode
        self.cache = cache
        self._lock = threading.Lock()
        self._schema_support: bool | None = None

    def supports_schema(self) -> bool:
        """Whether ``auto`` mode sends a JSON schema: litellm says the model accepts one and the
        server has not refused one (the refusal is remembered in the cache)."""
        if self._schema_support is None:
            ok = self._facts().supports_schema
            if ok and self.cache.get(schema_rejection_key(self.model, self.api_base)) is not None:
                ok = False
            self._schema_support = ok
        return self._schema_support

    def _facts(self) -> ModelFacts:
        """litellm's facts about this model: from the cache, else looked up (importing litellm) and stored."""
        key = request_key({"marker": "model facts", "model": self.model, "api_base": self.api_base, "litellm": litellm_version()})
        facts = self.cache.get_facts(key)
        if facts is None:
            try:
                supported = bool(litellm_module().supports_response_schema(model=self.model))
            except Exception:  # litellm raises for a model name it does not know: no schema then
                supported = False
            facts = ModelFacts(supports_schema=supported)
            self.cache.set_facts(key, facts)
        return facts

    def response_format(self, schema: Mapping[str, Any] | None, name: str = "output") -> dict[str, Any] | None:
        """The ``response_format`` to send for ``schema`` (a JSON Schema object, None for a free-text
        request) under ``json_mode``, or None to send none."""
        if schema is None or self.json_mode == "none":
            return None
        mode: JsonMode = self.json_mode
        if mode == "auto":
            mode = "schema" if self.supports_schema() else "none"
        if mode == "schema":
            return {"type": "json_schema", "json_schema": {"name": name, "schema": dict(schema), "strict": True}}
        if mode == "object":
            return {"type": "json_object", "schema": dict(schema)}
        return None

    def is_rejection(self, exc: Exception, status: int | None, sent: Mapping[str, Any]) -> bool:
        """Whether the error ``exc`` (HTTP ``status``) refusing the request ``sent`` (its litellm
        keyword arguments) is the server refusing the JSON schema that ``auto`` mode chose: a 400,
        415 or 422 whose message names the response format or the schema."""
        return (
            status in REJECTION_STATUSES
            and self.json_mode == "auto"
            and (sent.get("response_format") or {}).get("type") == "json_schema"
            and any(w in str(exc).lower() for w in ("response_format", "json_schema", "schema"))
        )

    def drop_schema(self, reason: str) -> None:
        """Remember that the server refused ``json_schema`` (``reason``: its error): this client and
        later runs on the same cache send prompted JSON."""
        with self._lock:
            self._schema_support = False
        self.cache.set(schema_rejection_key(self.model, self.api_base), CachedResponse(text=reason, parsed=False))
        log.warning("%s rejected a JSON schema in response_format (%s); using prompted JSON", self.model, reason)

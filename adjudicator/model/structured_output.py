"""Structured output: which ``response_format`` a client's requests carry, and what the server accepted.

One :class:`StructuredOutput` per :class:`~adjudicator.model.llm.LLMClient` turns its ``json_mode``
into the ``response_format`` of each request:

- ``"auto"`` sends a strict JSON schema (``{"type": "json_schema", ...}``) where
  ``litellm.supports_response_schema`` says the model takes one, and prompted JSON (no format)
  otherwise. litellm's answer is kept in the response cache as
  :class:`~adjudicator.model.cache.ModelFacts`, so a cached rerun imports no litellm;
- ``"schema"`` sends the JSON schema. Under it and ``auto``, a server that refuses the schema (a 4xx
  naming it, or llama-cpp-python's 500 naming ``response_format``; :meth:`StructuredOutput.is_rejection`)
  is recognised once and the client sends ``{"type": "json_object", "schema": ...}`` instead, within
  the same attempt and for the rest of the run (and prompted JSON if that form is refused too); the
  refusal is said on stderr and remembered in the cache under :func:`schema_rejection_key`, so later
  runs do not probe again (issue 38);
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
from adjudicator.model.schema import wire_schema

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
        #: The mode this client fell back to after a refusal (issue 38): ``object`` once the server
        #: refused ``json_schema``, ``none`` once it refused the ``json_object`` form too; None before.
        self.fallback: JsonMode | None = None
        #: The fallback not yet written into a call record (:meth:`take_note`): what was refused and what is sent now.
        self._unsaid: str | None = None

    def supports_schema(self) -> bool:
        """Whether ``auto`` mode asks for a JSON schema: litellm says the model accepts one (a server
        that refused one gets the ``json_object`` form instead, :meth:`response_format`)."""
        if self._schema_support is None:
            self._schema_support = self._facts().supports_schema
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

    def asked_mode(self) -> JsonMode:
        """The form this client asks for a request with a response schema: ``json_mode`` with ``auto``
        resolved (``schema`` where litellm says the model takes one, else ``none``), before any refusal
        by the server (:meth:`mode` applies those), so it is the same in every run on the same settings."""
        if self.json_mode == "auto":
            return "schema" if self.supports_schema() else "none"
        return self.json_mode

    def mode(self) -> JsonMode:
        """The form a request with a response schema goes out in now: ``schema`` (strict
        ``json_schema``), ``object`` (``json_object`` with the schema) or ``none`` (prompted JSON):
        :meth:`asked_mode` with a refusal's fallback applied."""
        mode = self.asked_mode()
        if mode == "schema" and self._schema_refused():
            mode = self.fallback or "object"
        return mode

    def response_format(self, schema: Mapping[str, Any] | None, name: str = "output") -> dict[str, Any] | None:
        """The ``response_format`` to send for ``schema`` (a JSON Schema object, None for a free-text
        request) under ``json_mode``, or None to send none."""
        if schema is None:
            return None
        mode = self.mode()
        if mode == "schema":
            return {"type": "json_schema", "json_schema": {"name": name, "schema": wire_schema(schema), "strict": True}}
        if mode == "object":
            return {"type": "json_object", "schema": wire_schema(schema)}
        return None

    def _schema_refused(self) -> bool:
        """Whether this server refused ``json_schema`` (in this run, or in an earlier one on the same cache)."""
        if self.fallback is None and self.cache.get(schema_rejection_key(self.model, self.api_base)) is not None:
            with self._lock:
                if self.fallback is None:
                    self._unsaid = "json_schema -> json_object: the server refused json_schema in an earlier run on this cache"
                self.fallback = self.fallback or "object"
        return self.fallback is not None

    def take_note(self) -> str | None:
        """The json-mode fallback not yet recorded (``"json_schema -> json_object: <the server's error>"``,
        ``"json_object -> none: ..."``), once: the first call record after the fallback carries it
        (:attr:`~adjudicator.records.CallRecord.json_mode_fallback`), so the run's records say it, not only stderr."""
        with self._lock:
            note, self._unsaid = self._unsaid, None
        return note

    def is_rejection(self, exc: Exception, status: int | None, sent: Mapping[str, Any]) -> bool:
        """Whether the error ``exc`` (HTTP ``status``) refusing the request ``sent`` (its litellm
        keyword arguments) is the server refusing its response format, under ``auto`` or ``schema``
        mode: a 400, 415 or 422 whose message names the response format or the schema, or a 500 whose
        message names ``response_format`` (llama-cpp-python's server answers a ``json_schema`` it
        cannot take with a 500 validation error; issue 38); the format refused is ``json_schema``, or
        the ``json_object`` form this client fell back to."""
        kind = (sent.get("response_format") or {}).get("type")
        message = str(exc).lower()
        named = status in REJECTION_STATUSES and any(w in message for w in ("response_format", "json_schema", "schema"))
        return (
            self.json_mode in ("auto", "schema")
            and (kind == "json_schema" or (kind == "json_object" and self.fallback == "object"))
            and (named or (status == 500 and "response_format" in message))
        )

    def drop_schema(self, reason: str) -> None:
        """Remember that the server refused the response format last sent (``reason``: its error):
        after ``json_schema``, this client and later runs on the same cache send llama-cpp-python's
        ``{"type": "json_object", "schema": ...}``; after that form too, prompted JSON (no format)
        for the rest of the run. Said once on stderr (a warning) and in the cache's marker."""
        with self._lock:
            first = self.fallback is None
            self.fallback = "object" if first else "none"
        if first:
            self.cache.set(schema_rejection_key(self.model, self.api_base), CachedResponse(text=reason, parsed=False))
        sent, now = ("json_schema", '{"type": "json_object", "schema": ...}') if first else ("json_object", "prompted JSON (no response_format)")
        with self._lock:
            self._unsaid = f"{sent} -> {'json_object' if first else 'none'}: {reason}"
        log.warning("%s: the server refused response_format %s (%s); sending %s for the rest of the run", self.model, sent, reason, now)

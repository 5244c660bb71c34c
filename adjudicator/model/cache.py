"""The model-response cache: one diskcache layer keyed by a hash of everything that shaped a request.

This is the only module that imports :mod:`diskcache`. The key (:func:`request_key`) is the SHA-256
of a canonical JSON rendering of the request description -- model, API base, messages, decoding
parameters, response format, prompt template hash, node, unit key (e.g. judge id), attempt number --
with every credential-like field removed first (:data:`CREDENTIAL_FIELDS`), so an API key can never
shape or appear in a key. Values are :class:`CachedResponse` records holding the raw output text
and the original call's token counts and cost, so a cached rerun reproduces the verdict's provenance
sums byte for byte.

Only attempts of a node that finished with a valid value are written (see
:mod:`adjudicator.model.attempts`); a transport failure or a node whose every attempt was unparseable
leaves nothing behind, so a rerun asks the model again. The cache is safe to share between threads
and processes (diskcache uses SQLite with its own locking).

Besides responses the cache keeps a few small records about a model (:class:`ModelFacts`, what
litellm's model table says about it), so that a rerun answered from the cache can build its
requests' keys without importing litellm.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import Field

from adjudicator.frozen import FrozenModel
from adjudicator.model.logprobs import TokenLogprob

_Record = TypeVar("_Record", bound=FrozenModel)

#: Field names dropped (at any depth) before a request description is hashed.
CREDENTIAL_FIELDS: frozenset[str] = frozenset(
    {"api_key", "apikey", "authorization", "headers", "extra_headers", "token", "access_token", "password", "secret"}
)

#: Bumped when the meaning of a cached value changes, so old entries stop matching.
CACHE_SCHEMA_VERSION = 1


class CachedResponse(FrozenModel):
    """One cached model answer: the raw text, the original usage and cost, and whether it parsed.

    ``parsed`` is False for an attempt whose output could not be read but that was followed by a
    successful attempt of the same node (kept so a rerun replays the same attempt sequence); it is
    never served as a success, because the caller re-parses it and fails again. ``logprobs`` the
    token log-probabilities when they were asked for (None otherwise), so a cached rerun derives the
    same log-prob p.
    """

    text: str
    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    cost_usd: float | None = None
    finish_reason: str | None = None
    parsed: bool = True
    reasoning_content: str | None = None
    reasoning_tokens: int = Field(default=0, ge=0)
    logprobs: list[TokenLogprob] | None = None


class ModelFacts(FrozenModel):
    """What litellm's model table says about one model, as far as it shapes a request.

    ``supports_schema``: ``litellm.supports_response_schema`` (whether ``json_mode="auto"`` sends a
    JSON schema). Stored under a key that names the model, the API base and litellm's version, so a
    litellm upgrade looks the model up again.
    """

    supports_schema: bool


def _strip_credentials(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _strip_credentials(v) for k, v in value.items() if str(k).lower() not in CREDENTIAL_FIELDS}
    if isinstance(value, (list, tuple)):
        return [_strip_credentials(v) for v in value]
    return value


def request_key(description: Mapping[str, Any]) -> str:
    """The cache key of a request description: ``"v<version>-"`` + 64 hex digits of SHA-256.

    ``description`` is a JSON-serialisable mapping of everything that shaped the request (see the
    module docstring). Credential fields are removed at every depth before hashing; keys are sorted
    and the JSON is compact UTF-8, so the same request always gives the same key. Raises TypeError
    for a value JSON cannot encode.
    """
    canonical = json.dumps(_strip_credentials(description), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    return f"v{CACHE_SCHEMA_VERSION}-{digest}"


class ResponseStore(Protocol):
    """What the model client needs from a cache (the disk cache or :class:`NullCache`)."""

    def get(self, key: str) -> CachedResponse | None: ...

    def set(self, key: str, value: CachedResponse) -> None: ...

    def get_facts(self, key: str) -> ModelFacts | None: ...

    def set_facts(self, key: str, value: ModelFacts) -> None: ...


class NullCache:
    """A cache that stores nothing (``--no-cache``)."""

    directory: Path | None = None

    def get(self, key: str) -> CachedResponse | None:
        """Always a miss."""
        return None

    def set(self, key: str, value: CachedResponse) -> None:
        """Discard."""

    def get_facts(self, key: str) -> ModelFacts | None:
        """Always a miss."""
        return None

    def set_facts(self, key: str, value: ModelFacts) -> None:
        """Discard."""

    def close(self) -> None:
        """Nothing to close."""


class ResponseCache:
    """The on-disk response cache at ``directory`` (created if missing).

    Thread- and process-safe. ``get`` returns None on a miss or on an entry that no longer
    validates; ``set`` overwrites. Raises OSError if the directory cannot be created.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        import diskcache

        self.directory = Path(directory).expanduser()
        self.directory.mkdir(parents=True, exist_ok=True)
        self._cache = diskcache.Cache(str(self.directory), size_limit=2**32)

    def get(self, key: str) -> CachedResponse | None:
        """The cached response for ``key``, or None."""
        return self._read(key, CachedResponse)

    def set(self, key: str, value: CachedResponse) -> None:
        """Store ``value`` under ``key`` (as JSON text, so entries stay readable across versions)."""
        self._cache.set(key, value.model_dump_json())

    def get_facts(self, key: str) -> ModelFacts | None:
        """The model facts stored under ``key``, or None."""
        return self._read(key, ModelFacts)

    def set_facts(self, key: str, value: ModelFacts) -> None:
        """Store model facts under ``key`` (JSON text)."""
        self._cache.set(key, value.model_dump_json())

    def _read(self, key: str, kind: type[_Record]) -> _Record | None:
        raw = self._cache.get(key)
        if raw is None:
            return None
        try:
            return kind.model_validate_json(raw)
        except ValueError:
            return None

    def __len__(self) -> int:
        return len(self._cache)

    def close(self) -> None:
        """Close the underlying database handles."""
        self._cache.close()

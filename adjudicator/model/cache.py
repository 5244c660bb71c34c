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
requests' keys without importing litellm, and the benchmark's per-sample results
(:meth:`ResponseCache.get_result`, keys starting with :data:`RESULT_PREFIX`; what they hold and when
they are trusted is :mod:`adjudicator.bench.result_cache`'s business). They live in the same folder,
so ``--no-cache`` (:class:`NullCache`) bypasses them and deleting the folder clears them too.
:class:`JournaledCache` writes down every response and fact entry one sample looked up or stored,
which is how a stored result names the response entries it depends on.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

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

#: Prefix of the benchmark's per-sample result entries (never a response key: those start with "v").
RESULT_PREFIX = "result-"

#: What a journaled entry was: a model response or a model's facts.
EntryKind = Literal["response", "facts"]


class CachedResponse(FrozenModel):
    """One cached model answer: the raw text, the original usage and cost, and whether it parsed.

    ``parsed`` is False for an attempt whose output could not be read but that was followed by a
    successful attempt of the same node (kept so a rerun replays the same attempt sequence); it is
    never served as a success, because the caller re-parses it and fails again. ``logprobs`` the
    token log-probabilities when they were asked for (None otherwise), so a cached rerun derives the
    same log-prob p. ``cached_tokens`` / ``cache_write_tokens`` / ``tokens_counted_locally``: the
    provider's prompt-cache counts and whether the counts were made offline
    (:class:`~adjudicator.model.reply.ReplyTokens`); entries written before they were kept read as 0.
    ``json_mode_fallback``: the response-format fallback the original reply's record carried, so a
    cached rerun's records say it too.
    """

    text: str
    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    cached_tokens: int = Field(default=0, ge=0)
    cache_write_tokens: int = Field(default=0, ge=0)
    tokens_counted_locally: bool = False
    cost_usd: float | None = None
    finish_reason: str | None = None
    parsed: bool = True
    reasoning_content: str | None = None
    reasoning_tokens: int = Field(default=0, ge=0)
    logprobs: list[TokenLogprob] | None = None
    json_mode_fallback: str | None = Field(default=None, exclude_if=lambda v: v is None)


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


def entry_digest(value: FrozenModel) -> str:
    """SHA-256 (64 hex digits) of a cache entry's canonical JSON text (``model_dump_json``): what a
    stored result records of each response entry it used, and compares on reuse."""
    return hashlib.sha256(value.model_dump_json().encode("utf-8")).hexdigest()


class JournaledCache:
    """A :class:`ResponseStore` that forwards to ``store`` and writes down every entry looked up or
    stored through it: ``(kind, key) -> digest`` of the entry as it stands afterwards, or None for a
    lookup that missed and was never stored (such as the marker saying a server rejected JSON
    schemas, whose absence is meaningful too).

    One per benchmark sample (every client of the sample shares it; thread-safe, since a panel's
    judges run concurrently). :meth:`entries` is the list a stored sample result depends on;
    :meth:`complete` says whether a rerun would find every entry it looks up (then it sends no
    request). The result methods pass straight through, unjournaled.
    """

    def __init__(self, store: Any) -> None:
        self.store = store
        self.directory = getattr(store, "directory", None)
        self._seen: dict[tuple[EntryKind, str], str | None] = {}
        self._lock = threading.Lock()

    def _note(self, kind: EntryKind, key: str, value: FrozenModel | None, *, stored: bool) -> None:
        with self._lock:
            if value is not None:
                self._seen[(kind, key)] = entry_digest(value)
            elif not stored:
                self._seen.setdefault((kind, key), None)

    def get(self, key: str) -> CachedResponse | None:
        """The store's answer for ``key``, journaled."""
        value = self.store.get(key)
        self._note("response", key, value, stored=False)
        return value

    def set(self, key: str, value: CachedResponse) -> None:
        """Store ``value`` and journal it."""
        self.store.set(key, value)
        self._note("response", key, value, stored=True)

    def get_facts(self, key: str) -> ModelFacts | None:
        """The store's facts for ``key``, journaled."""
        value = self.store.get_facts(key)
        self._note("facts", key, value, stored=False)
        return value

    def set_facts(self, key: str, value: ModelFacts) -> None:
        """Store ``value`` and journal it."""
        self.store.set_facts(key, value)
        self._note("facts", key, value, stored=True)

    def get_result(self, key: str) -> str | None:
        """The store's result entry (not journaled)."""
        return self.store.get_result(key)

    def set_result(self, key: str, text: str) -> None:
        """Store a result entry (not journaled)."""
        self.store.set_result(key, text)

    def close(self) -> None:
        """Close the store underneath."""
        self.store.close()

    def complete(self, may_be_absent: frozenset[str] = frozenset()) -> bool:
        """True when every entry looked up through this journal is now in the store (a miss that
        was answered by a request and then stored counts as present), apart from the keys in
        ``may_be_absent`` (markers whose absence a rerun reads the same way): a rerun of the same
        sample finds every answer it looks up and sends nothing."""
        with self._lock:
            return all(d is not None or key in may_be_absent for (_, key), d in self._seen.items())

    def entries(self) -> list[tuple[EntryKind, str, str | None]]:
        """``(kind, key, digest)`` of every entry looked up or stored, sorted; digest None for one
        that is absent."""
        with self._lock:
            return sorted(((k, key, d) for (k, key), d in self._seen.items()), key=lambda e: (e[0], e[1]))


def entries_unchanged(store: Any, entries: list[tuple[EntryKind, str, str | None]]) -> bool:
    """True when every ``(kind, key, digest)`` of ``entries`` is in ``store`` as it was: present with
    that digest, or still absent for digest None (an entry evicted, cleared, rewritten or newly
    stored since gives False)."""
    for kind, key, digest in entries:
        value = store.get(key) if kind == "response" else store.get_facts(key)
        now = None if value is None else entry_digest(value)
        if now != digest:
            return False
    return True


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

    def get_result(self, key: str) -> str | None:
        """Always a miss."""
        return None

    def set_result(self, key: str, text: str) -> None:
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

    def get_result(self, key: str) -> str | None:
        """The result entry stored under ``key`` (JSON text), or None. ``key`` starts with
        :data:`RESULT_PREFIX`; the text is whatever :meth:`set_result` stored."""
        raw = self._cache.get(key)
        return raw if isinstance(raw, str) else None

    def set_result(self, key: str, text: str) -> None:
        """Store a result entry (JSON text) under ``key``. Raises ValueError for a key without
        :data:`RESULT_PREFIX`, so a result can never shadow a response."""
        if not key.startswith(RESULT_PREFIX):
            raise ValueError(f"a result key starts with {RESULT_PREFIX!r}, got {key[:20]!r}")
        self._cache.set(key, text)

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

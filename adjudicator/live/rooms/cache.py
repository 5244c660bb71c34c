"""A bounded, thread-safe in-memory cache for the live store (tracking states and boards per match).

Least recently used entries are evicted past ``maxsize`` (cachetools' LRU cache behind one lock), so
a server with many matches keeps only the recently used ones in memory; the store reads an evicted
match back from its checkpoint.
"""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

from cachetools import LRUCache

V = TypeVar("V")


class BoundedCache(Generic[V]):
    """match id -> value, at most ``maxsize`` (>= 1) entries, least recently used evicted first.
    Every operation takes one lock, so threads serving different matches may share it."""

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self._data: LRUCache[str, V] = LRUCache(maxsize=maxsize)
        self._lock = threading.Lock()

    def get(self, key: str) -> V | None:
        """The value, marked as recently used, or None."""
        with self._lock:
            return self._data.get(key)

    def __setitem__(self, key: str, value: V) -> None:
        with self._lock:
            self._data[key] = value

    def pop(self, key: str, default: V | None = None) -> V | None:
        """Remove and return the value (``default`` when absent)."""
        with self._lock:
            return self._data.pop(key, default)

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._data

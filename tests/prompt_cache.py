"""Providers' prompt caches, emulated for the loopback server (:mod:`fake_openai`).

A provider bills the beginning of a request that repeats, token for token, the beginning of one it
already answered at a discount, and says how many tokens that was in the reply's usage block. The
loopback server uses :class:`PromptCache` to do the same, so tests and ``benchmarks/billed_cost.py``
see cached tokens the way a user's bill does. Two published rules:

- ``openai`` (platform.openai.com/docs/guides/prompt-caching): automatic; a prompt of at least
  1,024 tokens is cached, and a later prompt reads the longest prefix it shares with an earlier one in
  steps of 128 tokens from 1,024 (1,024, 1,152, 1,280, ...); reported as
  ``usage.prompt_tokens_details.cached_tokens``.
- ``deepseek`` (api-docs.deepseek.com/guides/kv_cache): a request hits only a whole *cache prefix
  unit*; units are persisted at the end of each request's input, at the end of its output (the input
  plus the answer, what a repair turn sends back), at the common prefix the service detects between two
  requests, and at fixed intervals of a long input (64 tokens here: the storage unit of the earlier
  version of those docs); reported as ``usage.prompt_cache_hit_tokens`` / ``prompt_cache_miss_tokens``.

Both: an entry is usable only once the request that made it was answered (requests sent at the same
time do not read each other's), and never expires within a server's life. Tokens are counted with
litellm's tokenizer for ``gpt-4.1-mini`` (o200k): first the request's ``response_format`` and
``tools`` (their JSON text), then one message after another (``role`` then content), so a shared
first message gives a shared token prefix; the counts are the server's ``prompt_tokens`` and
``completion_tokens``. The schema comes first because OpenAI's guide says so ("the structured output
schema serves as a prefix to the system message"): two requests whose schemas differ share no
prefix. DeepSeek does not publish where a schema sits; the same place is assumed (the conservative
choice: it can only lose hits).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

CacheRule = Literal["openai", "deepseek"]
OPENAI_MIN_TOKENS = 1024
OPENAI_STEP_TOKENS = 128
DEEPSEEK_INTERVAL_TOKENS = 64
TOKENIZER_MODEL = "gpt-4.1-mini"


def _encode(text: str) -> list[int]:
    from adjudicator.model.litellm_setup import litellm_module

    return list(litellm_module().encode(model=TOKENIZER_MODEL, text=text)) if text else []


def content_text(content: Any) -> str:
    """A message's content as text: a string as it is, a list of content blocks (``{"type": "text",
    "text": ...}``, as a ``cache_control`` breakpoint needs) as their texts one after another."""
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) if isinstance(b, Mapping) else str(b) for b in content)
    return str(content or "")


def message_tokens(message: Mapping[str, Any]) -> list[int]:
    """The tokens of one chat message: its role's and its content's (litellm's o200k tokenizer)."""
    return _encode(f"<|{message.get('role') or 'user'}|>\n{content_text(message.get('content'))}\n<|end|>\n")


def request_tokens(messages: Sequence[Mapping[str, Any]], schema: Any = None, tools: Any = None) -> np.ndarray:
    """The tokens of a request (uint32 array): its ``tools`` and ``response_format`` (``schema``) as
    JSON text when given, then its messages in order."""
    out: list[int] = []
    for head in (tools, schema):
        if head:
            out.extend(_encode(json.dumps(head, ensure_ascii=False, sort_keys=True) + "\n"))
    for m in messages:
        out.extend(message_tokens(m))
    return np.asarray(out, dtype=np.uint32)


def _prefix_hash(tokens: np.ndarray, n: int) -> bytes:
    return hashlib.blake2b(tokens[:n].tobytes(), digest_size=16).digest()


@dataclass(frozen=True)
class CacheUsage:
    """What one request was billed: ``prompt_tokens`` in all, ``cached_tokens`` of them read from the
    cache, ``completion_tokens`` of the answer (integers >= 0)."""

    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int

    def usage_block(self, rule: CacheRule) -> dict[str, Any]:
        """The reply's ``usage`` as the provider of ``rule`` writes it."""
        block: dict[str, Any] = {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                                 "total_tokens": self.prompt_tokens + self.completion_tokens}  # fmt: skip
        if rule == "openai":
            block["prompt_tokens_details"] = {"cached_tokens": self.cached_tokens}
        else:
            block["prompt_cache_hit_tokens"] = self.cached_tokens
            block["prompt_cache_miss_tokens"] = self.prompt_tokens - self.cached_tokens
        return block


class PromptCache:
    """One provider's prompt cache under ``rule`` (thread-safe). :meth:`lookup` when a request
    arrives, :meth:`answered` once its reply is written; :attr:`billed` keeps every request's
    :class:`CacheUsage` in arrival order."""

    def __init__(self, rule: CacheRule) -> None:
        if rule not in ("openai", "deepseek"):
            raise ValueError(f"prompt cache rule must be openai or deepseek, got {rule!r}")
        self.rule: CacheRule = rule
        self._units: set[tuple[int, bytes]] = set()  # (length, hash of the first `length` tokens)
        self._seen: list[np.ndarray] = []  # requests answered so far (DeepSeek's common-prefix detection)
        self._lock = threading.Lock()
        self.billed: list[CacheUsage] = []

    def _boundaries(self, n: int) -> range:
        if self.rule == "openai":
            return range(OPENAI_MIN_TOKENS, n + 1, OPENAI_STEP_TOKENS)
        return range(DEEPSEEK_INTERVAL_TOKENS, n + 1, DEEPSEEK_INTERVAL_TOKENS)

    def lookup(self, tokens: np.ndarray) -> int:
        """Tokens of ``tokens`` the cache serves: the longest unit that is a prefix of them (OpenAI:
        the shared prefix rounded down to a 128-token step, none under 1,024)."""
        with self._lock:
            units = set(self._units)
        lengths = sorted({length for length, _ in units if length <= len(tokens)}, reverse=True)
        for length in lengths:
            if (length, _prefix_hash(tokens, length)) in units:
                return length
        return 0

    def answered(self, tokens: np.ndarray, answer_tokens: Sequence[int] = ()) -> None:
        """Persist what an answered request leaves: every step or interval boundary of its input; for
        DeepSeek also its whole input, its input plus answer, and the prefix it shares with each
        request answered before it."""
        new = {(n, _prefix_hash(tokens, n)) for n in self._boundaries(len(tokens))}
        if self.rule == "deepseek":
            if len(tokens):
                new.add((len(tokens), _prefix_hash(tokens, len(tokens))))
            if len(answer_tokens):
                whole = np.concatenate([tokens, np.asarray(answer_tokens, dtype=np.uint32)])
                new.add((len(whole), _prefix_hash(whole, len(whole))))
            with self._lock:
                seen = list(self._seen)
            for other in seen:
                n = min(len(other), len(tokens))
                differ = np.flatnonzero(other[:n] != tokens[:n])
                common = int(differ[0]) if len(differ) else n
                if common > 0:
                    new.add((common, _prefix_hash(tokens, common)))
        with self._lock:
            self._units |= new
            if self.rule == "deepseek":
                self._seen.append(tokens)

    def bill(self, body: Mapping[str, Any], answer: str) -> tuple[CacheUsage, np.ndarray, list[int]]:
        """The :class:`CacheUsage` of the request ``body`` (an OpenAI chat-completions body) answered
        with ``answer`` (recorded in :attr:`billed`), the request's tokens and the answer's (for
        :meth:`answered`)."""
        tokens = request_tokens(body.get("messages", []), body.get("response_format"), body.get("tools"))
        answer_tokens = message_tokens({"role": "assistant", "content": answer})
        usage = CacheUsage(len(tokens), self.lookup(tokens), len(_encode(answer)))
        with self._lock:
            self.billed.append(usage)
        return usage, tokens, answer_tokens

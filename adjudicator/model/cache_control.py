"""Prompt-cache breakpoints for providers whose cache is explicit (Anthropic's ``cache_control``).

OpenAI and DeepSeek cache a repeated prefix on their own; Anthropic caches only up to a breakpoint the
request marks (``{"type": "text", "text": ..., "cache_control": {"type": "ephemeral"}}``, at most
:data:`MAX_BREAKPOINTS` per request; litellm passes the blocks on). Writing an entry is billed at 1.25
times an input token and reading it at 0.1 times, so a breakpoint pays only where a later request
repeats the prefix and is sent after this one was answered; one that nobody reads costs a quarter more
on that prefix. A prefix shorter than the model's minimum (1,024 tokens on Sonnet and Opus, 2,048 on
Haiku) is neither written nor billed as a write, so a breakpoint there costs nothing.

A request says where its reusable prefixes end (:attr:`~adjudicator.model.chat.ChatRequest.cache_points`,
set by the node that knows what later requests share: the judges' backend); :func:`with_breakpoints`
writes them as content blocks for an explicit-cache provider (:func:`explicit_prompt_cache`). Every
other provider gets the messages as plain strings, byte for byte as before, and the local response
cache's key is made from the plain messages either way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

#: Anthropic's limit of cache breakpoints per request.
MAX_BREAKPOINTS = 4
#: litellm provider names whose prompt cache needs breakpoints; Claude models on Bedrock and Vertex AI too.
EXPLICIT_CACHE_PROVIDERS = frozenset({"anthropic"})
_CLAUDE_HOSTS = frozenset({"bedrock", "vertex_ai", "vertex_ai_beta"})

CachePoint = tuple[int, int]


@lru_cache(maxsize=64)
def explicit_prompt_cache(model: str) -> bool:
    """True when ``model`` (a litellm model string) is served by a provider whose prompt cache needs
    breakpoints: Anthropic, or a Claude model on Bedrock or Vertex AI. False for any other provider
    and for a model string litellm cannot place."""
    from adjudicator.model.litellm_setup import litellm_module

    try:
        _, provider, _, _ = litellm_module().get_llm_provider(model=model)
    except Exception:
        return False
    return provider in EXPLICIT_CACHE_PROVIDERS or (provider in _CLAUDE_HOSTS and "claude" in model.lower())


def with_breakpoints(messages: Sequence[Mapping[str, Any]], points: Sequence[CachePoint]) -> list[dict[str, Any]]:
    """``messages`` with a cache breakpoint at each of ``points`` ((message index, character offset
    into its content), the end of a prefix): a message with points becomes a list of text blocks, split
    at its points, each block that ends at a point carrying ``cache_control``; the blocks' texts join
    to the message's content unchanged. Points outside a message's text (offset 0 or beyond its end)
    and points after the first :data:`MAX_BREAKPOINTS` (in message order) are left out; a message
    without points, or whose content is not a string, is passed as it is."""
    by_message: dict[int, list[int]] = {}
    kept = 0
    for index, offset in sorted(set(points)):
        if 0 <= index < len(messages) and isinstance(messages[index].get("content"), str) and 0 < offset <= len(messages[index]["content"]) and kept < MAX_BREAKPOINTS:
            by_message.setdefault(index, []).append(offset)
            kept += 1
    out: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        if index not in by_message:
            out.append(dict(message))
            continue
        text: str = message["content"]
        blocks: list[dict[str, Any]] = []
        start = 0
        for offset in by_message[index]:
            blocks.append({"type": "text", "text": text[start:offset], "cache_control": {"type": "ephemeral"}})
            start = offset
        if start < len(text):
            blocks.append({"type": "text", "text": text[start:]})
        out.append({**message, "content": blocks})
    return out


def line_end_after(text: str, marker: str) -> int | None:
    """The offset just past the end of the line (its newline included) holding the first ``marker`` in
    ``text``; None when ``marker`` does not occur."""
    at = text.find(marker)
    if at < 0:
        return None
    end = text.find("\n", at)
    return len(text) if end < 0 else end + 1

"""What a litellm reply says: its text, finish reason and reasoning, the tokens it used (as the
server reported them, else counted offline with litellm's counter) and what it cost.

:class:`~adjudicator.model.llm.LLMClient` reads every reply it gets with these functions. They are
called only after litellm answered, so litellm is already imported (:mod:`~adjudicator.model.litellm_setup`).
Token counts are tokens of ``model``'s tokenizer as litellm knows it; cost is US dollars (litellm's
price map), None where no price is known.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adjudicator.model.litellm_setup import litellm_module
from adjudicator.model.logprobs import TokenLogprob, token_logprobs_of


def text_of(resp: Any) -> tuple[str, str | None, str | None]:
    """(assistant text, finish reason, reasoning content) of a litellm response: the text is a
    refusal's when content is empty; the reasoning content is the draft litellm or the provider put
    apart from the answer (``message.reasoning_content``), None when there is none."""
    try:
        choice = resp.choices[0]
    except (AttributeError, IndexError):
        return "", None, None
    msg = getattr(choice, "message", None)
    content = getattr(msg, "content", None)
    if not content:
        refusal = getattr(msg, "refusal", None)
        content = f"[refusal] {refusal}" if refusal else ""
    reasoning = getattr(msg, "reasoning_content", None)
    return str(content), getattr(choice, "finish_reason", None), (str(reasoning) if reasoning else None)


def count_tokens(model: str, text: str) -> int:
    """Tokens of ``text`` by litellm's offline counter (0 for no text or when it cannot count)."""
    if not text:
        return 0
    try:
        return int(litellm_module().token_counter(model=model, text=text))
    except Exception:
        return 0


@dataclass(frozen=True)
class ReplyTokens:
    """The tokens one reply used, as the provider billed them.

    ``prompt_tokens`` is every input token (cached ones included, as OpenAI, DeepSeek and litellm's
    normalised usage count them); ``cached_tokens`` the part of them the provider served from its prompt
    cache (OpenAI's ``prompt_tokens_details.cached_tokens``, DeepSeek's ``prompt_cache_hit_tokens``,
    Anthropic's ``cache_read_input_tokens``); ``cache_write_tokens`` the part written to the cache at a
    premium (Anthropic's ``cache_creation_input_tokens``; 0 elsewhere). ``counted_locally`` is True when
    the reply carried no usage and the counts are litellm's offline tokenizer's (then nothing is cached).
    All integers >= 0, ``cached_tokens + cache_write_tokens <= prompt_tokens``."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    counted_locally: bool = False


def _int_field(obj: Any, *names: str) -> int:
    """The first of ``names`` on ``obj`` (attribute or mapping key) that holds a positive integer, else 0."""
    for name in names:
        value = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return int(value)
    return 0


def usage_of(model: str, resp: Any, messages: Sequence[Mapping[str, str]], text: str, reasoning_content: str | None = None) -> ReplyTokens:
    """The :class:`ReplyTokens` of a reply: the server's usage block (cached and cache-write counts
    included, whichever spelling litellm passed on), else (no block, or prompt and completion both
    zero) counted offline from ``messages`` and the reply's text and reasoning content and marked
    ``counted_locally``."""
    usage = getattr(resp, "usage", None)
    p = int(getattr(usage, "prompt_tokens", 0) or 0)
    c = int(getattr(usage, "completion_tokens", 0) or 0)
    if p == 0 and c == 0:  # the server sent no usage block: count offline, nothing known to be cached
        lit = litellm_module()
        try:
            p = int(lit.token_counter(model=model, messages=list(messages)))
        except Exception:
            p = 0
        c = count_tokens(model, text) + count_tokens(model, reasoning_content or "")
        return ReplyTokens(p, c, counted_locally=True)
    details = getattr(usage, "prompt_tokens_details", None)
    cached = _int_field(details, "cached_tokens") if details is not None else 0
    cached = cached or _int_field(usage, "cache_read_input_tokens", "prompt_cache_hit_tokens")
    written = _int_field(usage, "cache_creation_input_tokens")
    cached = min(cached, p)
    return ReplyTokens(p, c, cached, min(written, p - cached))


def reasoning_tokens_of(model: str, resp: Any, text: str, reasoning_content: str | None) -> int:
    """Completion tokens spent on reasoning: the provider's ``completion_tokens_details.reasoning_tokens``
    when it reports them, else litellm's offline count of the reasoning content plus the reasoning
    blocks in ``text`` (:func:`~adjudicator.model.reasoning.split_reasoning`); 0 without reasoning."""
    from adjudicator.model.reasoning import split_reasoning

    details = getattr(getattr(resp, "usage", None), "completion_tokens_details", None)
    reported = getattr(details, "reasoning_tokens", None) if details is not None else None
    if isinstance(reported, int) and reported > 0:
        return reported
    _, blocks = split_reasoning(text)
    return count_tokens(model, reasoning_content or "") + sum(count_tokens(model, b) for b in blocks)


def price_usd(model: str, tokens: ReplyTokens) -> float | None:
    """What ``tokens`` cost on ``model`` in US dollars (8 decimals) by litellm's price table: uncached
    input at the input price, ``cached_tokens`` at the cache-read price, ``cache_write_tokens`` at the
    cache-write price, output at the output price (``litellm.cost_per_token``, which also applies a
    table's long-context tiers). None when litellm knows no price for ``model``. The one pricing rule of a run, so a
    recount from the same counts (``benchmarks/billed_cost.py``) gives the same dollars."""
    try:
        prompt_usd, completion_usd = litellm_module().cost_per_token(
            model=model, prompt_tokens=tokens.prompt_tokens, completion_tokens=tokens.completion_tokens,
            cache_read_input_tokens=tokens.cached_tokens, cache_creation_input_tokens=tokens.cache_write_tokens,
        )
    except Exception:
        return None
    return round(float(prompt_usd) + float(completion_usd), 8)


def cost_of(resp: Any, model: str, tokens: ReplyTokens) -> float | None:
    """The reply's cost in US dollars (8 decimals), None when no price is known: :func:`price_usd` of
    ``model`` (the client's model string), else, for a model litellm's table names only by the reply's
    own ``model`` field, litellm's pricing of the reply. A reply without usage (``counted_locally``) is
    priced from the offline counts without any cache discount; litellm's own pricing of it would read
    the missing block as 0 tokens and bill $0, which ``--budget-usd`` could not count."""
    cost = price_usd(model, tokens)
    if cost is not None or tokens.counted_locally:
        return cost
    try:
        fallback = litellm_module().completion_cost(completion_response=resp)
    except Exception:
        return None
    return None if fallback is None else round(float(fallback), 8)


def logprobs_of(resp: Any) -> tuple[TokenLogprob, ...] | None:
    """The reply's token log-probabilities (:func:`~adjudicator.model.logprobs.token_logprobs_of`), None without them."""
    try:
        tokens = token_logprobs_of(resp.choices[0])
    except (AttributeError, IndexError):
        return None
    return tuple(tokens) if tokens else None

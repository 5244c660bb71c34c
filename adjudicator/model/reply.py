"""What a litellm reply says: its text, finish reason and reasoning, the tokens it used (as the
server reported them, else counted offline with litellm's counter) and what it cost.

:class:`~adjudicator.model.llm.LLMClient` reads every reply it gets with these functions. They are
called only after litellm answered, so litellm is already imported (:mod:`~adjudicator.model.litellm_setup`).
Token counts are tokens of ``model``'s tokenizer as litellm knows it; cost is US dollars (litellm's
price map), None where no price is known.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


def usage_of(model: str, resp: Any, messages: Sequence[Mapping[str, str]], text: str, reasoning_content: str | None = None) -> tuple[int, int]:
    """(prompt tokens, completion tokens) of a reply: the server's usage block, else (no block, or
    both zero) counted offline from ``messages`` and the reply's text and reasoning content."""
    usage = getattr(resp, "usage", None)
    p = int(getattr(usage, "prompt_tokens", 0) or 0)
    c = int(getattr(usage, "completion_tokens", 0) or 0)
    if p == 0 and c == 0:  # the server sent no usage block: count offline
        lit = litellm_module()
        try:
            p = int(lit.token_counter(model=model, messages=list(messages)))
        except Exception:
            p = 0
        c = count_tokens(model, text) + count_tokens(model, reasoning_content or "")
    return p, c


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


def cost_of(resp: Any, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """The reply's cost in US dollars by litellm's price map (8 decimals), None when no price is known.
    A reply without a usage block (no block, or both counts zero: some local and proxy servers) is
    priced from ``prompt_tokens`` and ``completion_tokens``, the counts :func:`usage_of` made offline,
    by ``model``'s price per token; litellm's own pricing of the reply would read the missing block as
    0 tokens and bill $0, which ``--budget-usd`` could not count."""
    lit = litellm_module()
    usage = getattr(resp, "usage", None)
    reported = int(getattr(usage, "prompt_tokens", 0) or 0) + int(getattr(usage, "completion_tokens", 0) or 0)
    try:
        if reported == 0 and prompt_tokens + completion_tokens > 0:
            prompt_usd, completion_usd = lit.cost_per_token(model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
            cost = float(prompt_usd) + float(completion_usd)
        else:
            cost = lit.completion_cost(completion_response=resp)
    except Exception:
        return None
    if cost is None:
        return None
    return round(float(cost), 8)


def logprobs_of(resp: Any) -> tuple[TokenLogprob, ...] | None:
    """The reply's token log-probabilities (:func:`~adjudicator.model.logprobs.token_logprobs_of`), None without them."""
    try:
        tokens = token_logprobs_of(resp.choices[0])
    except (AttributeError, IndexError):
        return None
    return tuple(tokens) if tokens else None

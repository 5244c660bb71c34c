"""What crosses the model boundary: one node's chat request and the outcome of one attempt.

Built by the judges and the single-call arm, sent by :class:`~adjudicator.model.llm.LLMClient`,
read by :func:`~adjudicator.model.attempts.run_attempts`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from adjudicator.model.logprobs import TokenLogprob


@dataclass(frozen=True)
class ChatRequest:
    """One node's request, as the attempts runner builds it.

    ``messages`` are ``{"role": "system"|"user", "content": str}`` dicts; ``schema`` the JSON Schema
    of the expected output (used for structured output, never required); ``node`` and ``key`` name
    the node and unit (stage id, judge id, task instance) and ``template_hash`` the prompt template:
    all three enter the cache key, so two judges with identical prompts still get separate entries.
    ``max_tokens`` (completion budget, tokens) overrides the configured and per-node budgets; None
    keeps them (see :meth:`~adjudicator.model.llm.LLMClient.budget_tokens`). ``frequency_penalty``
    (OpenAI's repetition penalty, 0-2; None sends none) is set only on the resend after a reply cut
    off at its budget (:func:`~adjudicator.model.attempts.after_truncation`). ``cache_points``
    ((message index, character offset) pairs) mark where a prefix that later requests repeat ends: a
    provider with an explicit prompt cache (Anthropic) gets a cache breakpoint there
    (:mod:`adjudicator.model.cache_control`); other providers and the cache key ignore them.
    ``timeout_scale`` (an integer >= 1) multiplies the client's time limit for this request: a
    tracker window of N stages asks for N stages' answers (its ``max_tokens`` is N stage budgets), so
    it is given N times the time of one (on Qwen2.5-Coder 0.5B on 2 cores, a six-stage window ran past
    the 120 s limit of one stage on every attempt; issue 39). The cache key ignores it.
    """

    messages: tuple[Mapping[str, str], ...]
    node: str
    key: str = ""
    template_hash: str = ""
    schema: Mapping[str, Any] | None = None
    schema_name: str = "output"
    max_tokens: int | None = None
    frequency_penalty: float | None = None
    cache_points: tuple[tuple[int, int], ...] = ()
    timeout_scale: int = 1


#: Completion budget (max_tokens) per node when the configuration does not set one: sized to each
#: node's output (a tracker's stage analysis, a judge's ballot with reasoning, a single-call task's
#: short basis plus one number or vote map). A configured ``max_tokens`` overrides all of them
#: (reasoning models need a larger budget).
NODE_MAX_TOKENS: dict[str, int] = {
    "track_stage": 1280,
    "judge": 1536,
    "task1": 1024,
    "task2": 1024,
    "task3": 1024,
    # single-call on BP (adjudicator.single_call.ranking): bare line answers, four or eight short lines
    "bp_house_order": 256,
    "bp_speaker_scores": 256,
    "bp_speaker_ranks": 256,
    # a pairwise panel's comparison (adjudicator.judges.llm.compare): one or two sentences and A, B or tie
    "compare": 256,
}

#: How much a judge's completion budget grows per debater whose coach's feedback it writes
#: (:mod:`adjudicator.verdict.feedback`): three points of one or two sentences (~60-70 tokens each in
#: English, more in Chinese) with their keys and ids. Not added when ``max_tokens`` is configured.
FEEDBACK_TOKENS_PER_DEBATER = 240

#: The nodes whose replies are read for token log-probabilities under ``--p-source logprob`` (a judge's
#: ballot: :mod:`adjudicator.model.logprobs`). Other requests of a client that asks for them (the
#: tracker's, a repair turn's of another node) do not ask: nothing would read them.
LOGPROB_NODES: frozenset[str] = frozenset({"judge"})


@dataclass(frozen=True)
class ChatResponse:
    """The outcome of one attempt: ``text`` is the raw model output ('' when the model sent none).

    Tokens are integers >= 0 (from the provider's usage block, or litellm's offline counter when the
    server sends none); ``cost_usd`` is litellm's price where known, else None; ``latency_s`` the
    wall-clock seconds of this attempt including transport retries; ``transport_retries`` how many
    times the request was re-sent; ``cache_hit`` True when served from the cache (then tokens and
    cost are the original call's, and no request was made). ``reasoning_content`` is the draft a
    provider returned apart from the answer (litellm's ``message.reasoning_content``; None when
    there was none) and ``reasoning_tokens`` the completion tokens spent on reasoning (the
    provider's ``completion_tokens_details.reasoning_tokens``, else counted offline over the
    reasoning content and the reasoning blocks of ``text``; a part of ``completion_tokens``).
    ``logprobs`` the reply's token log-probabilities when the client asked for them
    (``--p-source logprob``; :mod:`adjudicator.model.logprobs`), else None. ``cached_tokens`` is the
    part of ``prompt_tokens`` the provider served from its prompt cache, ``cache_write_tokens`` the part
    it wrote to it (Anthropic), ``tokens_counted_locally`` True when the reply had no usage block
    (:class:`~adjudicator.model.reply.ReplyTokens`); ``cost_usd`` prices each part at its own rate.
    ``json_mode_fallback``: the response-format fallback made before this reply
    (:meth:`~adjudicator.model.structured_output.StructuredOutput.take_note`), on the first reply after it only.
    """

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    tokens_counted_locally: bool = False
    cost_usd: float | None = None
    latency_s: float = 0.0
    cache_hit: bool = False
    transport_retries: int = 0
    finish_reason: str | None = None
    cache_key: str = ""
    reasoning_content: str | None = None
    reasoning_tokens: int = 0
    logprobs: tuple[TokenLogprob, ...] | None = None
    json_mode_fallback: str | None = None


class RequestObserver(Protocol):
    """Told about every HTTP request the client sends, before it is sent and once it is settled, so
    that a request is on record even when the process dies while it is in flight (the benchmark's
    request log, :mod:`adjudicator.bench.requests`). Implementations must be thread-safe and must not
    raise for a well-formed call."""

    def accepting(self) -> bool:
        """False once no further request may be sent (the benchmark session was stopped)."""
        ...

    def sent(self, *, model: str, node: str, key: str, attempt: int) -> str:
        """Record a request about to be sent (``attempt`` 1-3); returns its id for :meth:`settled`."""
        ...

    def settled(self, request_id: str, *, prompt_tokens: int = 0, completion_tokens: int = 0, cost_usd: float | None = None, error: str | None = None,
                cached_tokens: int = 0, cache_write_tokens: int = 0) -> None:  # fmt: skip
        """Record the outcome of request ``request_id``: the reply's tokens (``cached_tokens`` and
        ``cache_write_tokens`` the parts of ``prompt_tokens`` read from and written to the provider's
        prompt cache) and cost (US dollars, None when unpriced), or ``error`` (one line) when no reply came."""
        ...

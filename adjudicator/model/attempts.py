"""The protocol's attempts: send the same request up to three times until a valid value is read.

Seed 001 section 02 / paper section 3: temperature 0, identical settings on every attempt; if no
valid prediction can be extracted, the same prompt is sent again, at most three attempts in total;
every raw output of every attempt is retained. :func:`run_attempts` does exactly that for one node
or task instance, shared by the agentic arm (clash tracker, judges) and the single-call arm.

It returns a :class:`~adjudicator.judges.base.NodeResult`: the value, one
:class:`~adjudicator.records.CallRecord` per attempt (raw output, parse stage, tokens, cost, latency,
cache hit, transport retries), and a :class:`~adjudicator.records.NodeFailure` holding every raw
output when no attempt produced a valid value. Transport faults are retried inside
:meth:`LLMClient.complete` (the one retry owner); when those retries run out, or the server refuses
the request, the node fails at once -- the protocol's attempts are for unreadable outputs, not for
network trouble, so retries never stack.

Caching: once a value is read, every attempt of this node that came from the model is written to
the cache (unreadable ones marked ``parsed=False``), so a rerun replays the same attempts with zero
requests and identical token sums. A node whose attempts all failed writes nothing, so a rerun
tries the model again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from adjudicator.judges.base import NodeResult
from adjudicator.model.chat import ChatRequest, ChatResponse
from adjudicator.model.llm import LLMClient
from adjudicator.model.parsing import ParseResult
from adjudicator.model.transport import TransportError
from adjudicator.records import CallRecord, FailureKind, NodeFailure

T = TypeVar("T")

MAX_ATTEMPTS = 3


def run_attempts(
    client: LLMClient,
    request: ChatRequest,
    read: Callable[[str], ParseResult[T]],
    *,
    max_attempts: int = MAX_ATTEMPTS,
) -> NodeResult[T]:
    """Run ``request`` through ``client`` for up to ``max_attempts`` (1-3) attempts.

    ``read`` turns a raw output into a :class:`~adjudicator.model.parsing.ParseResult` (usually a
    ``functools.partial`` of :func:`~adjudicator.model.parsing.parse_output`). Never raises for model
    faults: a transport failure or three unreadable outputs give a result with ``value=None`` and a
    ``failure`` whose ``raw_outputs`` lists every output received (in attempt order) and whose
    ``reason`` starts with ``"transport:"``, ``"refused:"`` or ``"unparseable:"``.
    """
    if not 1 <= max_attempts <= MAX_ATTEMPTS:
        raise ValueError(f"max_attempts must be 1-{MAX_ATTEMPTS}, got {max_attempts}")
    calls: list[CallRecord] = []
    responses: list[ChatResponse] = []
    raws: list[str] = []
    last_error = ""

    def record(attempt: int, **fields) -> CallRecord:
        return CallRecord(node=request.node, key=request.key, model=client.model, template_hash=request.template_hash, attempt=attempt, **fields)

    for attempt in range(1, max_attempts + 1):
        try:
            resp = client.complete(request, attempt)
        except TransportError as exc:
            calls.append(record(attempt, transport_retries=exc.retries, parse="failed", error=exc.message))
            kind = FailureKind.TRANSPORT if exc.retryable else FailureKind.REFUSED
            return NodeResult(
                value=None,
                calls=calls,
                failure=NodeFailure(node=request.node, key=request.key, kind=kind, reason=f"{kind.value}: {exc.message}", raw_outputs=raws),
            )
        result = read(resp.text)
        error = result.error
        if not result.ok and resp.finish_reason == "length":
            error = f"output truncated at the token limit; {error}"
        responses.append(resp)
        raws.append(resp.text)
        calls.append(
            record(
                attempt,
                transport_retries=resp.transport_retries,
                latency_s=resp.latency_s,
                prompt_tokens=resp.prompt_tokens,
                completion_tokens=resp.completion_tokens,
                cost_usd=resp.cost_usd,
                cache_hit=resp.cache_hit,
                parse=result.stage,
                raw_output=resp.text,
                error=error,
            )
        )
        if result.ok:
            for i, r in enumerate(responses):
                client.remember(r, parsed=(i == len(responses) - 1))
            return NodeResult(value=result.value, calls=calls)
        last_error = error or "no valid value"
    return NodeResult(
        value=None,
        calls=calls,
        failure=NodeFailure(
            node=request.node,
            key=request.key,
            kind=FailureKind.UNPARSEABLE,
            reason=f"unparseable: no valid output in {max_attempts} attempts (last: {last_error})",
            raw_outputs=raws,
        ),
    )

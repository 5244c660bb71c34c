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

Choosing the next attempt is a step of its own (:func:`next_attempt`): after an answer that decoded
but failed validation, and when the node has a :class:`~adjudicator.model.repair.Repairer`, the next
attempt is a *repair turn* that shows the model its answer and the validator's message and asks only
for the failed fields (:mod:`adjudicator.model.repair`); otherwise, and after a reply with nothing
decodable, the same request is sent again (the protocol's resend). A repair is one of the three
attempts and its record says so (``turn="repair"``). The single-call arm passes no repairer, so it
follows the paper's protocol to the letter.

Truncation (:func:`after_truncation`): a reply the model ended at the completion budget
(``finish_reason`` ``length``) is never accepted, even when part of it can be read -- field-level
recovery would keep a stage with its clash updates cut off, or a ballot without its votes. The
attempt is recorded as ``truncated`` and the next of the same three attempts is sent with twice the
completion budget (:func:`budget_after_truncation`), up to :data:`TRUNCATION_CAP_TOKENS`, and with a
repetition penalty (:data:`TRUNCATION_PENALTY`, OpenAI's ``frequency_penalty``). The penalty is what
changes the resend: at temperature 0 the same request gives the same text, and a reply cut off at its
budget is most often a loop, so a larger budget alone only buys a longer loop (issue 25: 27 minutes
and 8,959 tokens for one stage on a 0.5B model). A provider without the parameter (Anthropic) gets
the resend without it (litellm drops it), so there only the budget changes. If the last attempt is
still truncated, the node fails with kind ``truncated``.

A repair turn whose reply leaves the answer as it was (it repeats the refused values, or leaves the
fields out) fails the node at once with kind ``repeated_repair`` (``copied_example`` when what it
repeats is the prompt's example text)
(:meth:`~adjudicator.model.repair.RepairTurn.changed_nothing`): at temperature 0 another turn would be
the same request and get the same patch (issue 25: 6 of the 13 requests of one match on a 0.5B
model were such repeats). A second repair turn that is sent quotes the values already refused, and
every turn states the validator's own range where it is narrower than the schema's, so it differs
from the first.

What the review reads off the records (:mod:`adjudicator.verdict.review`): every repair turn's record
names the fields it asked for and the share of the answer's fields the node's repair turns have asked
for so far (``repair_fields``, ``repair_share``); the accepted answer's record names its closed choices
equal to the prompt example's (``example_choices``, :func:`~adjudicator.model.examples.copied_choices`).

Caching: once a value is read, every attempt of this node that came from the model is written to
the cache (unreadable ones marked ``parsed=False``), so a rerun replays the same attempts with zero
requests and identical token sums. A node whose attempts all failed writes nothing, so a rerun
tries the model again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from adjudicator.judges.base import NodeResult
from adjudicator.model.chat import ChatRequest, ChatResponse
from adjudicator.model.examples import copied_choices, copied_fields, example_choices, example_texts
from adjudicator.model.llm import LLMClient
from adjudicator.model.parsing import ParseResult
from adjudicator.model.repair import Repairer, RepairTurn
from adjudicator.model.schema import FieldPath, field_share
from adjudicator.model.transport import PromptTooLong, TransportError
from adjudicator.records import CallRecord, CallTurn, FailureKind, NodeFailure, prompt_refs

T = TypeVar("T")

MAX_ATTEMPTS = 3

#: The largest completion budget (tokens) a retry after a truncated reply asks for: the one place
#: the cap is stated. Each truncated attempt doubles the budget up to this cap (1,536 -> 3,072 ->
#: 6,144 for a judge); a configured or per-request budget above it is kept, never lowered.
TRUNCATION_CAP_TOKENS = 8192
#: The repetition penalty (``frequency_penalty``, OpenAI's 0-2 scale) of a resend after a truncated
#: reply. Mild on purpose: a JSON answer repeats its punctuation and key names by design, so a strong
#: penalty would break the syntax it protects; 0.3 lowers a repeated token's logit by 0.3 per earlier use.
TRUNCATION_PENALTY = 0.3


def budget_after_truncation(budget_tokens: int | None) -> int:
    """The completion budget (tokens) of the attempt after one cut off at ``budget_tokens`` (None:
    the request carried no budget, so the server's default cut it): twice the budget, at most
    :data:`TRUNCATION_CAP_TOKENS`, and never less than the budget itself."""
    if budget_tokens is None:
        return TRUNCATION_CAP_TOKENS
    return max(budget_tokens, min(2 * budget_tokens, TRUNCATION_CAP_TOKENS))


def after_truncation(request: ChatRequest, budget_tokens: int | None) -> ChatRequest:
    """The request sent after ``request`` came back cut off at ``budget_tokens``: the same messages
    with :func:`budget_after_truncation`'s budget and the repetition penalty
    :data:`TRUNCATION_PENALTY` (module docstring: a resend must not be the same request)."""
    return replace(request, max_tokens=budget_after_truncation(budget_tokens), frequency_penalty=TRUNCATION_PENALTY)


def next_attempt(request: ChatRequest, response: ChatResponse, result: ParseResult[Any], pending: RepairTurn | None, repairer: Repairer | None) -> tuple[ChatRequest, RepairTurn | None]:
    """The request of the attempt after a failed one, and the repair turn it is (None for a resend).

    With a ``repairer`` and a failed answer that decoded (``result.decoded``), a repair turn on that
    answer: the reply's text when the failed attempt was an answer turn, the merged answer when it was
    itself a repair (``pending``, whose refused values the new turn quotes too, so it is never the
    same request). Otherwise the original ``request`` again."""
    if repairer is not None and result.decoded is not None:
        shown = response.text if pending is None else json.dumps(result.decoded, ensure_ascii=False)
        turn = repairer.turn(request, shown, result, pending)
        if turn is not None:
            return turn.request, turn
    return request, None


def run_attempts(
    client: LLMClient,
    request: ChatRequest,
    read: Callable[[str], ParseResult[T]],
    *,
    max_attempts: int = MAX_ATTEMPTS,
    repairer: Repairer | None = None,
    refuse_examples: bool = True,
) -> NodeResult[T]:
    """Run ``request`` through ``client`` for up to ``max_attempts`` (1-3) attempts.

    ``read`` turns a raw output into a :class:`~adjudicator.model.parsing.ParseResult` (usually a partial
    of :func:`~adjudicator.model.parsing.parse_output`); ``repairer`` enables repair turns
    (:func:`next_attempt`). Never raises for model faults: a transport failure or three unreadable
    outputs give ``value=None`` and a ``failure`` holding every output received, in attempt order,
    whose ``reason`` starts with its kind (``"transport:"``, ``"refused:"``, ``"unparseable:"``,
    ``"truncated:"``, ``"copied_example:"``, ``"repeated_repair:"`` (a repair turn that changed nothing,
    module docstring), or ``"prompt_too_long:"``: the client refused to send a
    prompt that cannot fit the context window, so that attempt has no call record). A truncated reply is
    sent again with a larger budget, never repaired (module docstring); every call record keeps the
    reply's reasoning (``reasoning_content``, the blocks the parser set aside) and reasoning tokens.

    ``refuse_examples`` (default; off for the single-call arm, the protocol's letter): an answer whose
    free text copies the example answer in ``request``'s system message (:mod:`adjudicator.model.examples`)
    fails those fields, is repaired like any invalid answer, and a last such answer fails the node.
    """
    if not 1 <= max_attempts <= MAX_ATTEMPTS:
        raise ValueError(f"max_attempts must be 1-{MAX_ATTEMPTS}, got {max_attempts}")
    calls: list[CallRecord] = []
    responses: list[ChatResponse] = []
    raws: list[str] = []
    last_error = ""
    truncated = copied = False
    current, pending = request, None
    examples = example_texts(request.messages) if refuse_examples else frozenset()
    shown = example_choices(request.messages)
    repaired: list[FieldPath] = []  # every field the node's repair turns asked for so far
    base = request  # the answer turn a repair is built on (its budget raised after a truncation)
    for attempt in range(1, max_attempts + 1):
        budget = client.budget_tokens(current)
        turn: CallTurn = "repair" if pending else "answer"
        try:
            resp = client.complete(current, attempt)
        except (PromptTooLong, TransportError) as exc:
            return _not_answered(client, request, current, attempt, exc, budget=budget, turn=turn, calls=calls, raws=raws)
        result, error, truncated, copied = _read_reply(resp, read, pending, request, examples, budget)
        responses.append(resp)
        raws.append(resp.text)
        repair = _repair_fields(request, pending, repaired)  # before the record: it gathers the fields asked for
        repeated = pending is not None and not truncated and pending.changed_nothing(result)
        take = not truncated and _takes_fallback(result, request, examples, repaired=pending is not None, repeated=repeated, last=attempt == max_attempts)
        calls.append(_reply_record(client, request, attempt, resp, result, error=error, truncated=truncated, budget=budget, turn=turn, shown=shown, repair=repair, sent=current, fallback=take))
        if take or (not truncated and result.ok):
            for i, r in enumerate(responses):
                client.remember(r, parsed=(i == len(responses) - 1))
            if take:
                return NodeResult(value=result.fallback, calls=calls, response=resp, failure=_dropped(request, result, raws) if result.dropped else None)
            return NodeResult(value=result.value, calls=calls, response=resp)
        last_error = error or "no valid value"
        if repeated and pending is not None:
            return NodeResult(value=None, calls=calls, failure=_repeated(request, pending, attempt, copied, last_error, raws))
        current, pending, base = _next_turn(current, base, resp, result, pending, repairer, truncated, budget)
    return NodeResult(value=None, calls=calls, failure=_exhausted(request, truncated, copied, max_attempts, last_error, raws))


def _takes_fallback(result: ParseResult[Any], request: ChatRequest, examples: frozenset[str], *, repaired: bool, repeated: bool, last: bool) -> bool:
    """True when a failed reading's :attr:`~adjudicator.model.parsing.ParseResult.fallback` is taken
    (issue 38), and no free text of the answer is the prompt's example (a copy is never taken): a value
    without side fields (``dropped``) once a repair turn asked for them again (``repaired``); a value
    whose decision does not decide (p = 0.5) once a repair turn gave the same answer back
    (``repeated``: the judge still says 0.5); either when no attempt is left (``last``)."""
    if result.ok or result.fallback is None or not (last or repeated or (repaired and result.dropped)):
        return False
    return not copied_fields(result.decoded, request.schema, examples)


def _dropped(request: ChatRequest, result: ParseResult[Any], raws: list[str]) -> NodeFailure:
    """The ``dropped_field`` failure beside a value taken without ``result.dropped``: each field and why."""
    fields = "; ".join(f"{d.field} ({d.reason})" for d in result.dropped)
    return _failure(request, FailureKind.DROPPED_FIELD, f"answer taken without {len(result.dropped)} field(s) still invalid after their repair: {fields}", raws)


def _not_answered(client: LLMClient, request: ChatRequest, current: ChatRequest, attempt: int, exc: PromptTooLong | TransportError, *,
                  budget: int | None, turn: CallTurn, calls: list[CallRecord], raws: list[str]) -> NodeResult[Any]:
    """The node's result when ``current`` got no reply: a prompt refused before sending (no request, so
    no call record and no parse failure), or a transport failure (recorded as a call; ``transport:``
    when it was retryable and the retries ran out, ``refused:`` when the server refused it)."""
    if isinstance(exc, PromptTooLong):
        return NodeResult(value=None, calls=calls, failure=_failure(request, FailureKind.PROMPT_TOO_LONG, exc.message, raws))
    calls.append(_record(client, request, attempt, transport_retries=exc.retries, parse="failed", error=exc.message, max_tokens=budget, turn=turn, messages=prompt_refs(current.messages)))
    kind = FailureKind.TRANSPORT if exc.retryable else FailureKind.REFUSED
    return NodeResult(value=None, calls=calls, failure=_failure(request, kind, exc.message, raws))


def _exhausted(request: ChatRequest, truncated: bool, copied: bool, attempts: int, last_error: str, raws: list[str]) -> NodeFailure:
    """The failure of a node whose ``attempts`` all ended without a valid answer: truncated, copied or unparseable, as the last one."""
    kind = FailureKind.TRUNCATED if truncated else FailureKind.COPIED_EXAMPLE if copied else FailureKind.UNPARSEABLE
    what = "no complete output" if truncated else "no valid output"
    return _failure(request, kind, f"{what} in {attempts} attempts (last: {last_error})", raws)


def _repeated(request: ChatRequest, turn: RepairTurn, attempt: int, copied: bool, last_error: str, raws: list[str]) -> NodeFailure:
    """The failure of a node whose repair ``turn`` (attempt ``attempt``) gave back the answer it was
    asked to correct, naming the refused values (module docstring): kind ``repeated_repair``, or
    ``copied_example`` when the answer repeated is a copy of the prompt's example (``copied``: the
    cause a reader needs is the copy)."""
    values = "; ".join(f"{'.'.join(path)} = {', '.join(v)}" for path, v in turn.refused.items())
    detail = f"attempt {attempt}, a repair turn, left the answer as it was{f' ({values})' if values else ''}, so another turn would repeat it (last: {last_error})"
    return _failure(request, FailureKind.COPIED_EXAMPLE if copied else FailureKind.REPEATED_REPAIR, detail, raws)


def _next_turn(
    current: ChatRequest, base: ChatRequest, resp: ChatResponse, result: ParseResult[Any], pending: RepairTurn | None,
    repairer: Repairer | None, truncated: bool, budget: int | None,
) -> tuple[ChatRequest, RepairTurn | None, ChatRequest]:  # fmt: skip
    """``(request, repair turn, base)`` of the next attempt: after a truncated reply the same turn
    again, changed (budget, penalty; a cut-off answer is not repaired, and an answer turn's change
    becomes the base later repairs build on), else :func:`next_attempt`."""
    if truncated:
        current = after_truncation(current, budget)
        return current, pending, current if pending is None else base
    current, pending = next_attempt(base, resp, result, pending, repairer)
    return current, pending, base


def _failure(request: ChatRequest, kind: FailureKind, detail: str, raws: list[str]) -> NodeFailure:
    """The node's failure of kind ``kind``: its reason is ``"<kind>: <detail>"``, its raw outputs every output received."""
    return NodeFailure(node=request.node, key=request.key, kind=kind, reason=f"{kind.value}: {detail}", raw_outputs=raws)


def _record(client: LLMClient, request: ChatRequest, attempt: int, **fields: Any) -> CallRecord:
    """The call record of ``attempt`` of ``request`` (node, key, model, template hash) with ``fields``."""
    return CallRecord(node=request.node, key=request.key, model=client.model, template_hash=request.template_hash, attempt=attempt, **fields)


def _read_reply(
    resp: ChatResponse, read: Callable[[str], ParseResult[T]], pending: RepairTurn | None, request: ChatRequest, examples: frozenset[str], budget: int | None
) -> tuple[ParseResult[T], str | None, bool, bool]:
    """``(result, error, truncated, copied)`` of one reply: read (through the repair turn ``pending``
    when there is one); an answer whose free text copies the prompt's example (``examples``) made a
    failure naming those fields; a reply cut off at the completion budget never a success."""
    result = read(resp.text) if pending is None else pending.read(resp.text, read)
    copies = copied_fields(result.decoded, request.schema, examples) if result.ok else []
    if copies:  # every field validated, but some free text is the prompt's example: not an answer
        names = ", ".join(".".join(path) for path in copies)
        result = ParseResult(None, "failed", f"{names}: the example answer's placeholder text, not your own", result.reasoning, result.decoded, tuple(copies))
    error = result.error
    truncated = resp.finish_reason == "length"
    if truncated:  # never a success, whatever could be read from it
        error = f"output cut off at the completion budget ({budget or 'server default'} tokens)" + (f"; {error}" if error else "")
    return result, error, truncated, bool(copies)


def _reply_record(
    client: LLMClient, request: ChatRequest, attempt: int, resp: ChatResponse, result: ParseResult[Any], *,
    error: str | None, truncated: bool, budget: int | None, turn: CallTurn, shown: Mapping[FieldPath, Any], repair: dict[str, Any], sent: ChatRequest,
    fallback: bool = False,
) -> CallRecord:  # fmt: skip
    """The call record of an attempt of ``request`` that got a reply: the messages ``sent`` (a repair
    turn's own), usage, cost, how it parsed, its reasoning, the closed choices equal to a value the
    prompt shows (``shown``), its repair fields, the fields its normalisation rewrote, and, when its
    ``fallback`` value was taken, the stage it was read at and the fields it was taken without."""
    ok = result.ok or fallback
    return _record(
        client,
        request,
        attempt,
        messages=prompt_refs(sent.messages),
        transport_retries=resp.transport_retries,
        latency_s=resp.latency_s,
        prompt_tokens=resp.prompt_tokens,
        completion_tokens=resp.completion_tokens,
        cached_tokens=resp.cached_tokens,
        cache_write_tokens=resp.cache_write_tokens,
        tokens_counted_locally=resp.tokens_counted_locally,
        cost_usd=resp.cost_usd,
        cache_hit=resp.cache_hit,
        json_mode_fallback=resp.json_mode_fallback,
        parse="failed" if truncated else result.fallback_stage if fallback else result.stage,
        raw_output=resp.text,
        error=error,
        truncated=truncated,
        max_tokens=budget,
        turn=turn,
        reasoning_content=resp.reasoning_content,
        reasoning_blocks=list(result.reasoning),
        reasoning_tokens=resp.reasoning_tokens,
        example_choices=copied_choices(result.decoded, request.schema, shown) if ok and not truncated else [],
        normalised=list(result.normalised),
        dropped=list(result.dropped) if fallback else [],
        **repair,
    )


def _repair_fields(request: ChatRequest, pending: RepairTurn | None, repaired: list[FieldPath]) -> dict[str, Any]:
    """The repair fields of an attempt's record (:class:`~adjudicator.records.CallRecord`): for a repair
    turn ``pending``, the dotted paths it asked for and the share of ``request``'s answer fields asked
    for by the node's repair turns so far (``repaired`` gathers them; a turn that asked for the whole
    answer counts as every field); nothing for an answer turn."""
    if pending is None:
        return {}
    if not pending.fields:
        repaired.append(())
    repaired.extend(f for f in pending.fields if f not in repaired)
    share = 1.0 if () in repaired else field_share(request.schema, repaired)
    return {"repair_fields": [".".join(f) for f in pending.fields], "repair_share": round(share, 3)}

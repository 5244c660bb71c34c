"""Records of model calls and node failures, carried through graph state into the verdict.

Every model call (LLM or offline) leaves a :class:`CallRecord`; a node that could not produce a
valid output after its attempts leaves a :class:`NodeFailure` holding every raw output. A failure is
never turned into a score (the design card, Models).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field, model_validator

from adjudicator.frozen import FrozenModel, plain_descriptions

ParseStage = Literal["strict", "normalised", "regex", "failed", "native"]
#: What a call asked: the node's request (``answer``; a resend too) or a repair turn asking only for the
#: fields an earlier answer got wrong (``repair``, :mod:`adjudicator.model.repair`).
CallTurn = Literal["answer", "repair"]


class PromptRef(FrozenModel):
    """One message of a model request as a call record keeps it: ``role`` (``system``, ``user``,
    ``assistant``: a repair turn shows the model its answer) and ``sha256``, the SHA-256 (64 hex digits)
    of the message's UTF-8 content. ``text`` is the content itself, carried in memory only and never
    written with the record: a benchmark run stores each distinct text once, as
    ``prompts/<sha256>.txt`` in its folder (:mod:`adjudicator.bench.prompt_store`), so a system prompt
    sent a thousand times takes its room once."""

    role: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    text: str | None = Field(default=None, exclude=True, repr=False)


def text_sha256(text: str) -> str:
    """SHA-256 (64 hex digits) of ``text`` encoded as UTF-8: the name a prompt text is stored under."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def prompt_refs(messages: Iterable[Mapping[str, str]]) -> list[PromptRef]:
    """The :class:`PromptRef` of each chat message (``{"role", "content"}`` dicts), text included."""
    out = []
    for m in messages:
        text = str(m.get("content") or "")
        out.append(PromptRef(role=str(m.get("role") or "user"), sha256=text_sha256(text), text=text))
    return out


#: The named rules of :mod:`adjudicator.model.normalise`, each applied to an answer before validation
#: where what the model meant is unambiguous (issue 38).
NormalisationRule = Literal["stage_by_name", "stage_id_case", "stage_id_with_title", "stage_id_with_side", "stage_by_name_and_side", "p_on_1_10", "p_on_0_100", "votes_by_name", "title_from_ledger_line"]


class Normalised(FrozenModel):
    """One field of an answer a normalisation rule rewrote before validation: the ``rule``
    (:data:`NormalisationRule`), the field's dotted path in the answer (``p``,
    ``feedback.Affirmative Speaker 1.worked.stage_id``, ``stage_scores``), and the value as the model
    wrote it (``before``) and as it was read (``after``), each as compact JSON text."""

    rule: NormalisationRule
    field: str
    before: str
    after: str


class Dropped(FrozenModel):
    """One field of an accepted answer that was left out because it was still invalid after its repair
    turn (a coach's feedback point, issue 38): its dotted ``field`` path and the validator's ``reason``."""

    field: str
    reason: str


class CallRecord(FrozenModel):
    """One model request and its outcome.

    ``node`` names the node ("track_stage", "judge", "task1", ...); ``key`` the unit it served
    (e.g. a stage id or judge id). ``attempt`` is 1-3 (the protocol's attempts for unparseable output;
    transport retries inside one attempt are counted in ``transport_retries``). ``parse`` says how the
    output was read: ``strict`` JSON, ``normalised`` (format repairs), ``regex`` (field-level
    extraction), ``failed``, or ``native`` for the offline judge, which produces structures directly;
    ``turn`` whether the call was the node's request (``answer``) or a repair turn (``repair``).
    ``truncated`` is True when the model stopped at the completion budget (``finish_reason`` =
    ``length``): such an output is never accepted, whatever could be read from it (``parse`` is then
    ``failed``); ``max_tokens`` is the completion budget the attempt was sent with (None: none sent).
    A repair turn records the fields it asked for (``repair_fields``, dotted key paths; empty when it
    asked for the whole answer) and ``repair_share``, the share (0-1) of the answer's fields that this
    and the node's earlier repair turns asked for (:func:`~adjudicator.model.schema.field_share`; 1.0
    for a whole answer). ``example_choices``: the closed fields of an accepted answer equal to a value
    the prompt's example showed (:func:`~adjudicator.model.examples.copied_choices`). The review reads
    both (:mod:`adjudicator.verdict.review`). The three are left out of the JSON when unset.
    ``normalised``: the fields of the answer a normalisation rule rewrote before validation
    (:class:`Normalised`, :mod:`adjudicator.model.normalise`); ``dropped``: the fields an accepted answer
    was taken without, still invalid after their repair (:class:`Dropped`). Both left out when empty.
    ``json_mode_fallback`` (issue 38): on the first call after the server refused its response format,
    what was refused and what the client sends for the rest of the run
    (``"json_schema -> json_object: <the server's error>"``; ``"json_object -> none: ..."``); left out otherwise.
    ``messages``: the messages the call sent, in order (:class:`PromptRef`: role and content hash; the
    texts are stored apart, once per run); empty for the offline judge, which sends none, and in
    records written before they were kept.
    Token counts are integers >= 0; ``latency_s`` seconds; ``cost_usd`` US dollars where litellm knows
    the price, else None. API keys never appear here. ``cached_tokens`` is the part of ``prompt_tokens``
    the provider served from its prompt cache and ``cache_write_tokens`` the part it wrote to it
    (Anthropic), as its usage block reported them; ``cost_usd`` bills each at its own price
    (:func:`~adjudicator.model.reply.price_usd`). ``tokens_counted_locally``: the reply had no usage,
    so the counts are litellm's offline tokenizer's and the cost has no cache discount. The three are
    left out of the JSON when 0 / False. (``cache_hit`` is this project's response cache: no request.)

    Reasoning models: ``reasoning_content`` is the draft the provider returned apart from the answer,
    ``reasoning_blocks`` the drafts the parser set aside from ``raw_output`` (``<think>`` and the other
    tags, :func:`~adjudicator.model.reasoning.split_reasoning`); neither is ever read for an answer.
    ``reasoning_tokens`` counts the completion tokens spent on reasoning (a part of
    ``completion_tokens``).
    """

    node: str
    key: str = ""
    model: str
    template_hash: str = ""
    attempt: int = Field(default=1, ge=1)
    transport_retries: int = Field(default=0, ge=0)
    latency_s: float = Field(default=0.0, ge=0)
    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    cached_tokens: int = Field(default=0, ge=0, exclude_if=lambda v: not v)
    cache_write_tokens: int = Field(default=0, ge=0, exclude_if=lambda v: not v)
    tokens_counted_locally: bool = Field(default=False, exclude_if=lambda v: not v)
    cost_usd: float | None = None
    cache_hit: bool = False
    parse: ParseStage = "native"
    raw_output: str | None = None
    error: str | None = None
    truncated: bool = False
    max_tokens: int | None = Field(default=None, ge=1)
    reasoning_content: str | None = None
    reasoning_blocks: list[str] = Field(default_factory=list)
    reasoning_tokens: int = Field(default=0, ge=0)
    turn: CallTurn = "answer"
    repair_fields: list[str] = Field(default_factory=list, exclude_if=lambda v: not v)
    repair_share: float | None = Field(default=None, ge=0.0, le=1.0, exclude_if=lambda v: v is None)
    example_choices: list[str] = Field(default_factory=list, exclude_if=lambda v: not v)
    messages: list[PromptRef] = Field(default_factory=list, exclude_if=lambda v: not v)
    normalised: list[Normalised] = Field(default_factory=list, exclude_if=lambda v: not v)
    dropped: list[Dropped] = Field(default_factory=list, exclude_if=lambda v: not v)
    json_mode_fallback: str | None = Field(default=None, exclude_if=lambda v: v is None)

    def prompt_texts(self) -> dict[str, str]:
        """The message texts this record carries in memory, by SHA-256 (empty once read back from JSON)."""
        return {m.sha256: m.text for m in self.messages if m.text is not None}


class FailureKind(StrEnum):
    """Why a node produced no value (the typed cause; ``NodeFailure.reason`` is the readable text).

    - ``transport``: no answer after the model boundary's transport retries (refused, dropped or timed
      out connections, 429 and 5xx that did not clear);
    - ``refused``: the server answered with an error that is not retried (HTTP 400/401/404);
    - ``prompt_too_long``: the prompt cannot fit the model's known context window, so the client sent
      nothing (no request, no call record; :class:`~adjudicator.model.transport.PromptTooLong`);
    - ``unparseable``: answers came, but none was valid after the protocol's attempts;
    - ``truncated``: answers came, but the last attempt was still cut off at the completion budget
      after the budget had been raised (:data:`~adjudicator.model.attempts.TRUNCATION_CAP_TOKENS`);
    - ``copied_example``: answers came, but the last one still gave the prompt's example text as its
      own reasoning, rationale, title or note (:mod:`adjudicator.model.examples`);
    - ``repeated_repair``: answers came, but a repair turn gave back the answer it was asked to correct
      unchanged, so the node stopped rather than send the same request again
      (:func:`~adjudicator.model.attempts.run_attempts`);
    - ``dropped_field``: the node's answer was accepted, but without fields that were still invalid
      after their repair turn (a judge's feedback points): the value stands, the failure lists what
      was dropped (:attr:`CallRecord.dropped`);
    - ``no_evidence``: nothing to work from (a judge whose every stage analysis failed), so no request
      was sent;
    - ``error``: the backend itself raised (an offline judge fault).
    """

    TRANSPORT = "transport"
    REFUSED = "refused"
    UNPARSEABLE = "unparseable"
    TRUNCATED = "truncated"
    COPIED_EXAMPLE = "copied_example"
    REPEATED_REPAIR = "repeated_repair"
    DROPPED_FIELD = "dropped_field"
    PROMPT_TOO_LONG = "prompt_too_long"
    NO_EVIDENCE = "no_evidence"
    ERROR = "error"

    @property
    def unreachable(self) -> bool:
        """True for a model call that never got an answer (``transport`` or ``refused``)."""
        return self in (FailureKind.TRANSPORT, FailureKind.REFUSED)

    @property
    def answered(self) -> bool:
        """True for a model that answered, but never usably (``unparseable``, ``truncated``, ``copied_example``,
        ``repeated_repair``)."""
        return self in (FailureKind.UNPARSEABLE, FailureKind.TRUNCATED, FailureKind.COPIED_EXAMPLE, FailureKind.REPEATED_REPAIR)

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> dict[str, Any]:
        """Its JSON Schema's description as plain text, as a FrozenModel's (:func:`adjudicator.frozen.plain_text`)."""
        schema = handler.resolve_ref_schema(handler(core_schema))
        plain_descriptions(schema, cls)
        return schema


#: Reason prefixes of result files written before failures carried a kind (read back by ``--resume``).
_LEGACY_PREFIXES = {"transport:": FailureKind.TRANSPORT, "refused:": FailureKind.REFUSED, "unparseable:": FailureKind.UNPARSEABLE}


class NodeFailure(FrozenModel):
    """A node that produced no valid output after all attempts: its typed ``kind``, a readable
    ``reason`` (which starts with the kind's word), and every raw output received. Kind
    ``dropped_field`` is the one failure beside a value: the node's answer stands without the fields
    it names (:attr:`partial`)."""

    node: str
    key: str = ""
    kind: FailureKind
    reason: str
    raw_outputs: list[str] = Field(default_factory=list)

    @property
    def partial(self) -> bool:
        """True when the node still produced its value (kind ``dropped_field``): not a failed node."""
        return self.kind == FailureKind.DROPPED_FIELD

    @model_validator(mode="before")
    @classmethod
    def _legacy_kind(cls, data: Any) -> Any:
        """A record without ``kind`` (a result file from before kinds existed) takes it from the
        reason's prefix, else ``error``."""
        if isinstance(data, dict) and "kind" not in data:
            reason = str(data.get("reason", ""))
            kind = next((k for p, k in _LEGACY_PREFIXES.items() if reason.startswith(p)), FailureKind.ERROR)
            data = {**data, "kind": kind}
        return data


def in_call_order(calls: Iterable[CallRecord]) -> list[CallRecord]:
    """``calls`` in the deterministic order verdicts and ledgers record them: (node, key, attempt)."""
    return sorted(calls, key=lambda c: (c.node, c.key, c.attempt))


def in_failure_order(failures: Iterable[NodeFailure]) -> list[NodeFailure]:
    """``failures`` in the deterministic order verdicts and ledgers record them: (node, key)."""
    return sorted(failures, key=lambda f: (f.node, f.key))


class Usage(FrozenModel):
    """Summed usage over a set of call records (verdict provenance, benchmark ledgers)."""

    calls: int = 0
    requests: int = Field(default=0, description="HTTP requests actually sent: non-cached calls plus their transport retries")
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = Field(default=0, description="prompt tokens the provider served from its prompt cache (a part of prompt_tokens)",
                               exclude_if=lambda v: not v)  # fmt: skip
    cache_write_tokens: int = Field(default=0, description="prompt tokens the provider wrote to its prompt cache (a part of prompt_tokens)",
                                    exclude_if=lambda v: not v)  # fmt: skip
    counted_locally: int = Field(default=0, description="requests whose reply had no usage: counted by the local tokenizer, priced without a cache discount",
                                 exclude_if=lambda v: not v)  # fmt: skip
    reasoning_tokens: int = Field(default=0, description="completion tokens spent on reasoning (a part of completion_tokens)")
    cost_usd: float = 0.0
    cost_known: bool = True
    latency_s: float = 0.0
    strict_json: int = 0
    recovered: int = 0
    parse_failures: int = 0

    @classmethod
    def of(cls, records: list[CallRecord]) -> "Usage":
        """Sum ``records``. ``cost_known`` is False when any non-cached request lacked a price."""
        cost = 0.0
        known = True
        for r in records:
            if r.cost_usd is None:
                if not r.cache_hit and r.parse != "native":
                    known = False
            elif not r.cache_hit:
                cost += r.cost_usd
        return cls(
            calls=len(records),
            requests=sum(1 + r.transport_retries for r in records if not r.cache_hit and r.parse != "native"),
            cache_hits=sum(1 for r in records if r.cache_hit),
            prompt_tokens=sum(r.prompt_tokens for r in records),
            completion_tokens=sum(r.completion_tokens for r in records),
            cached_tokens=sum(r.cached_tokens for r in records),
            cache_write_tokens=sum(r.cache_write_tokens for r in records),
            counted_locally=sum(1 for r in records if r.tokens_counted_locally and not r.cache_hit),
            reasoning_tokens=sum(r.reasoning_tokens for r in records),
            cost_usd=round(cost, 6),
            cost_known=known,
            latency_s=round(sum(r.latency_s for r in records), 3),
            strict_json=sum(1 for r in records if r.parse == "strict"),
            recovered=sum(1 for r in records if r.parse in ("normalised", "regex")),
            parse_failures=sum(1 for r in records if r.parse == "failed"),
        )

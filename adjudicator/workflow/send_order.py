"""Which of a match's requests goes first when they are sent lead-first (``send_order``, issue 39).

A provider's prompt cache bills the beginning a request shares with one it has already *answered* at
its cache-read price (DeepSeek a tenth of an uncached token, OpenAI's gpt-4.1 family a quarter);
requests sent together read none of each other's entries. Under ``send_order = "lead-first"`` (the
default) one request of the group that begins alike, the lead, is sent first and the others once it was
answered; under ``"at-once"`` all go together. Used for the three judges of a scoring panel
(:mod:`adjudicator.workflow.panel`) and for the tasks of the single-call protocol
(:mod:`adjudicator.single_call.run`).

Which request leads (:func:`lead_index`):

- only requests to the same model with the same response schema can share a cached beginning: a
  provider's cached prefix starts with the schema (OpenAI's prompt-caching guide: "the structured
  output schema serves as a prefix to the system message"), so Task 1's schema shares nothing with
  Task 2's (the three judges of a match share one: the wings' feedback is null). The lead
  comes from the largest such group (ties: the group seated or listed first); no lead when no two
  requests share a model and schema, since then nothing is gained by waiting.
- within that group the longest request leads (ties: the first): single-call's Task 2 request for the
  last stage holds the transcript every earlier stage's request begins with, so each of them reads
  its whole transcript from the lead's entry; the three judges' requests are identical up to the judge's
  id, and the chair's, with the feedback instruction after it, is the longest, so the chair leads.

What it costs: the others start once the lead is answered, so a match takes one request's time more
(``benchmarks/billed_cost.py`` measures it at a stated reply latency).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from adjudicator.model.chat import ChatRequest


def _length(request: ChatRequest) -> int:
    return sum(len(str(m.get("content") or "")) for m in request.messages)


def lead_index(requests: Sequence[ChatRequest], models: Sequence[str] | None = None) -> int | None:
    """The index in ``requests`` of the request to send first (see the module docstring), or None when
    no two requests share a model (``models``, one per request; None: all one model) and a response
    schema."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, request in enumerate(requests):
        model = models[i] if models is not None else ""
        groups.setdefault((model, json.dumps(request.schema, sort_keys=True, ensure_ascii=False)), []).append(i)
    largest = max(groups.values(), key=len, default=[])
    if len(largest) < 2:
        return None
    return max(largest, key=lambda i: (_length(requests[i]), -i))


def judge_lead(requests: dict[str, Any], models: dict[str, str]) -> str:
    """The judge id whose request leads (:func:`lead_index`) among ``requests`` (judge id -> its
    :class:`ChatRequest`, in seating order, the judges whose backend renders one), ``""`` for none."""
    ids = list(requests)
    i = lead_index([requests[j] for j in ids], [models.get(j, "") for j in ids])
    return "" if i is None else ids[i]

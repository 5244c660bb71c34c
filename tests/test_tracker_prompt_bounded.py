"""The agentic arm's token growth is linear in the number of stages because each clash tracker's
prompt is bounded: it reads its own stage, a bounded excerpt of the previous stage and a bounded
ledger, never the whole preceding transcript (the design card, Data flow; issue 4). Measured in characters
so the test needs no tokenizer; benchmarks/tokens.py measures tokens."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from synthetic_ccdb import synthetic_ccdb_view  # noqa: E402
from tokens import tracker_requests  # noqa: E402

from adjudicator.judges.llm.backend import LLMBackend  # noqa: E402
from adjudicator.model.cache import NullCache  # noqa: E402
from adjudicator.model.llm import LLMClient  # noqa: E402


def prompt_chars(backend: LLMBackend, request) -> int:
    return sum(len(m["content"]) for m in backend.stage_prompt(request).messages)


def test_the_same_stage_costs_the_same_however_much_debate_precedes_it():
    backend = LLMBackend(LLMClient("openai/test-model", cache=NullCache()))
    short, _, _ = tracker_requests(synthetic_ccdb_view(1), "llm-sized")
    long, _, _ = tracker_requests(synthetic_ccdb_view(3), "llm-sized")
    # the 4v4 closing slot (14th stage) after 13 stages and after 41 stages
    first = prompt_chars(backend, short[13])
    later = prompt_chars(backend, long[41])
    transcript_before = sum(len(u.text) for s in long[41].previous for u in s.utterances)
    assert transcript_before > 60_000  # ~41 stages of Chinese text precede it
    # the prompt may differ by clash titles and ids, never by the transcript before it
    assert abs(later - first) < 0.15 * first, (first, later)


def test_total_tracker_prompt_grows_linearly():
    backend = LLMBackend(LLMClient("openai/test-model", cache=NullCache()))
    totals = []
    for repeats in (1, 2, 4):
        requests, _, _ = tracker_requests(synthetic_ccdb_view(repeats), "llm-sized")
        totals.append(sum(prompt_chars(backend, r) for r in requests))
    # linear: doubling the stages about doubles the total (a quadratic series would about quadruple)
    assert 1.8 < totals[1] / totals[0] < 2.2, totals
    assert 3.6 < totals[2] / totals[0] < 4.4, totals

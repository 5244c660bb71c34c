"""What the viewer shows of one sample beyond its verdict: the transcript by stage, every call in the
order it was made, and the verdict beside the gold (the per-sample section of report.html,
:mod:`adjudicator.bench.report_samples`, puts these under each sample's review, ballots and map).

- **Transcript**: one collapsible block per stage (name, id, type, acting sides, roles), its
  utterances with their speakers; a machine-made stage says so.
- **Calls**: every :class:`~adjudicator.records.CallRecord` of the result in the order the workflow
  made them (:func:`call_order`: the tracker's stages in speaking order, then pairwise comparisons,
  then the judges; a single-call arm's tasks 1, 2, 3; attempts in order within a unit), each with its
  node and unit, attempt and turn (answer or repair, and the fields a repair asked for), model, how
  its output parsed, tokens (prompt, completion, reasoning), latency, cost (``unknown`` where no price
  is known, never $0), whether it came from the cache, the messages it sent and its raw output.
  Message texts come from the run's ``prompts/`` folder (:mod:`adjudicator.bench.prompt_store`); the
  page holds each distinct text once (:class:`PageTexts`) and the script shows it when its message
  is opened.
- **Verdict beside gold**: winner, winner tendency, the panel's split against the gold judges' votes,
  best debaters, and the stage-score error.

Rendering uses ``static/sample_viewer.html`` (a Jinja2 partial, autoescaped: debate text and model
output are escaped).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from importlib import resources
from typing import Any

import jinja2
from markupsafe import Markup

from adjudicator.bench.prompt_store import PromptReader
from adjudicator.bench.results import SampleResult
from adjudicator.input.match import Match
from adjudicator.records import CallRecord

#: Longest raw output or message shown in the page, in characters; the run folder keeps the whole text.
SHOWN_CHARS = 20_000

#: The order of the workflow's nodes: the tracker reads the stages first, a pairwise panel compares,
#: the judges write their ballots last; the single-call protocol's tasks in their numbering.
NODE_ORDER = ("track_stage", "compare", "judge", "task1", "task2", "task3", "bp_house_order", "bp_speaker_scores", "bp_speaker_ranks")


def static_text(name: str) -> str:
    """A file of ``adjudicator/bench/static/`` (the viewer's partial template, script and styles)."""
    return resources.files("adjudicator.bench").joinpath("static", name).read_text(encoding="utf-8")


@functools.lru_cache(maxsize=1)
def _template() -> jinja2.Template:
    from adjudicator.bench.templates import report_environment

    return report_environment({"sample_viewer.html": static_text("sample_viewer.html")}).get_template("sample_viewer.html")


def call_order(calls: Sequence[CallRecord], stage_ids: Sequence[str]) -> list[CallRecord]:
    """``calls`` in the order the workflow made them: by node (:data:`NODE_ORDER`, unknown nodes
    last), then by the unit's first stage in speaking order (a key ``"s03+s04"`` or ``"s03|affirmative"``
    by ``s03``; other keys, such as judge ids, by name), then by attempt. Stable for equal keys."""
    index = {sid: i for i, sid in enumerate(stage_ids)}

    def key(c: CallRecord) -> tuple[int, int, str, int]:
        node = NODE_ORDER.index(c.node) if c.node in NODE_ORDER else len(NODE_ORDER)
        first = c.key.split("+")[0].split("|")[0]
        return node, index.get(first, len(index)), c.key, c.attempt

    return sorted(calls, key=key)


def money(cost_usd: float | None, *, native: bool = False, cached: bool = False) -> str:
    """A cost as the viewer writes it: ``$0.0012``; ``unknown`` when no price is known (never $0);
    ``none (offline judge)`` for a call that sent nothing; ``$0 (cached; first paid $0.0012)`` for a
    cache hit, which costs nothing now."""
    if native:
        return "none (offline judge)"
    if cached:
        return "$0 (cached" + (f"; first paid ${cost_usd:.4f})" if cost_usd else ")")
    return "unknown" if cost_usd is None else f"${cost_usd:.4f}"


class PageTexts:
    """The distinct message texts one page shows, by SHA-256, gathered while its samples are built
    (the page's data island holds each once), read through one :class:`PromptReader` per run."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}

    def add(self, sha: str, text: str | None) -> int | None:
        """Keep ``text`` (cut at :data:`SHOWN_CHARS`) under ``sha``; returns its length, None when absent."""
        if text is None:
            return None
        if sha not in self.texts:
            self.texts[sha] = text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + f"\n… ({len(text) - SHOWN_CHARS:,} more characters in prompts/{sha}.txt)"
        return len(text)


def _cut(text: str | None) -> str:
    if not text:
        return ""
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + f"\n… ({len(text) - SHOWN_CHARS:,} more characters in the result file)"


def _call_view(n: int, c: CallRecord, stage_names: dict[str, str], reader: PromptReader | None, page: PageTexts) -> dict[str, Any]:
    native = c.parse == "native"
    messages = []
    for m in c.messages:
        size = page.add(m.sha256, reader.text(m) if reader is not None else m.text)
        messages.append({"role": m.role, "sha": m.sha256, "chars": size})
    unit = " + ".join(stage_names.get(k.split("|")[0], k) + (f" | {k.split('|')[1]}" if "|" in k else "") for k in c.key.split("+")) if c.key else ""
    tokens = f"{c.prompt_tokens:,} prompt" + (f" ({c.cached_tokens:,} from the provider's cache)" if c.cached_tokens else "")
    tokens += (f" ({c.cache_write_tokens:,} written to it)" if c.cache_write_tokens else "") + f" + {c.completion_tokens:,} completion"
    tokens += (f" ({c.reasoning_tokens:,} reasoning)" if c.reasoning_tokens else "") + (" (counted locally: the reply had no usage)" if c.tokens_counted_locally else "")
    return {
        "n": n, "node": c.node, "key": c.key, "unit": unit, "attempt": c.attempt, "turn": c.turn, "model": c.model, "parse": c.parse,
        "cached": c.cache_hit, "truncated": c.truncated, "error": c.error or "", "native": native,
        "repair": ", ".join(c.repair_fields) or ("the whole answer" if c.turn == "repair" else ""),
        "repair_share": c.repair_share, "tokens": tokens, "latency": f"{c.latency_s:.2f} s",
        "cost": money(c.cost_usd, native=native, cached=c.cache_hit), "max_tokens": c.max_tokens, "retries": c.transport_retries,
        "messages": messages, "raw": _cut(c.raw_output), "has_raw": c.raw_output is not None,
        "reasoning": _cut(c.reasoning_content or "\n\n".join(c.reasoning_blocks)),
    }


def _transcript(match: Match) -> list[dict[str, Any]]:
    stages = []
    for st in match.stages:
        roles = ", ".join(f"{side} {role}" for side, role in (st.roles or {}).items())
        words = sum(len(u.text.split()) for u in st.utterances)
        made = f"machine transcript ({st.transcript.engine} {st.transcript.model})" if st.transcript else ""
        stages.append({
            "id": st.stage_id, "name": st.name, "type": st.type, "sides": " & ".join(st.sides), "roles": roles, "words": words, "made": made,
            "utterances": [{"who": u.who, "side": u.side or "", "text": u.text} for u in st.utterances],
        })
    return stages


def _gold_split(match: Match) -> str:
    """The gold judges' winner votes as ``"affirmative 2 : negative 1"``, "" without judge votes."""
    votes = [j.winner for j in (match.labels.judges if match.labels else []) if j.winner]
    if not votes:
        return ""
    return f"affirmative {votes.count('affirmative')} : negative {votes.count('negative')}"


def _beside_gold(row: dict[str, Any], match: Match, verdict: dict[str, Any]) -> list[tuple[str, str, str]]:
    """``(what, verdict, gold)`` rows of the verdict beside the gold."""
    labels = match.labels
    gold_votes: dict[str, int] = {}
    for j in (labels.judges if labels else []):
        for k, v in j.best_debater_votes.items():
            gold_votes[k] = gold_votes.get(k, 0) + v
    top = max(gold_votes.values()) if gold_votes else 0
    gold_best = ", ".join(sorted(k for k, v in gold_votes.items() if v == top and v > 0))
    out = [
        ("Winner", row.get("predicted_winner") or "—", row.get("gold_winner") or "—"),
        ("Winner tendency p", "—" if row.get("p") is None else f"{row['p']:.3f}", f"outcome {labels.outcome}" if labels and labels.outcome else "—"),
        ("Panel split", ((verdict.get("dissent") or {}).get("winner_split") or "—"), _gold_split(match) or "—"),
        ("Best debaters", ", ".join(verdict.get("best_debaters") or []) or "—", gold_best or "—"),
        ("Stage scores", f"{row['stage_units']} units scored by the gold" if row.get("stage_units") else "—",
         "—" if row.get("stage_mse") is None else f"MSE {row['stage_mse']:.3f} against the judges' mean"),
    ]
    return out


def sample_view(row: dict[str, Any], match: Match, res: SampleResult | None, reader: PromptReader | None, page: PageTexts) -> Markup:
    """The transcript, calls and verdict-beside-gold blocks of one sample (module docstring) as HTML;
    the message texts they name are added to ``page``."""
    stage_names = {st.stage_id: f"{st.name} ({st.stage_id})" for st in match.stages}
    calls = call_order(res.calls, [st.stage_id for st in match.stages]) if res is not None else []
    views = [_call_view(i, c, stage_names, reader, page) for i, c in enumerate(calls, 1)]
    usage = res.usage if res is not None else None
    total = ""
    if usage is not None and calls:
        cost = "unknown (no price for some requests)" if not usage.cost_known else f"${usage.cost_usd:.4f}"
        total = f"{usage.calls} calls, {usage.requests} requests, {usage.cache_hits} cached; {usage.prompt_tokens:,} prompt ({usage.cached_tokens:,} cached by the provider) + {usage.completion_tokens:,} completion tokens; {usage.latency_s:.1f} s of model time; cost {cost}"
    verdict = (res.verdict if res is not None else None) or {}
    return Markup(_template().render(
        rid=row.get("_id", ""), transcript=_transcript(match), calls=views, total=total, beside=_beside_gold(row, match, verdict) if verdict else [],
    ))

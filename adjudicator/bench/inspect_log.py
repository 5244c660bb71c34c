"""``adjudicate export inspect RUN``: a bench run as an Inspect AI eval log, which ``inspect view`` opens.

inspect-ai is an optional extra (``pip install 'adjudicator[inspect]'``), imported only here and only
when the export runs; the log is built from inspect-ai's own pydantic classes and written by its own
writer (``inspect_ai.log.write_eval_log``), so the file is whatever its reader expects (the
reference: inspect_ai/log/_log.py). One log per arm: ``RUN/inspect/<arm>.eval`` (or ``.json``).

What maps cleanly:

- a match is an ``EvalSample`` (``id`` the match id, ``epoch`` 1); ``input`` the transcript as one
  user message, stage by stage; ``target`` the gold winner (empty where the gold has no decisive
  winner); ``choices`` the two sides;
- every model call is a ``ModelEvent`` in the sample's events, in the order the workflow made them
  (its messages as sent: system, user and, on a repair turn, the assistant's earlier answer; its raw
  output as the completion; tokens, latency, cost, cache hits, errors, retries); the node and unit
  (tracker stage, pairwise comparison, judge) are the event's ``role``, e.g. ``judge:judge-2``;
- usage: ``model_usage`` per model for each sample and for the whole log (``stats``), with
  ``total_cost`` null where no price is known (Inspect also treats null as unknown);
- scores: ``winner`` (C / I against the gold, answer the predicted winner; no score without a
  decisive gold winner), ``brier`` ((p - gold)^2) and ``p``, with the log's accuracy and mean
  metrics computed here the way report.json does (over the samples that have the score);
- metadata: the run's manifest (run id, models, prompt hashes, configuration) on the log; the
  sample's status, format and motion on the sample.

What does not map cleanly, and where it goes:

- **three judges per sample**: Inspect has one ``output`` per sample. The output is the panel's
  aggregated verdict (winner and p) as the plain code computed it from the three ballots; the
  ballots themselves (each judge's winner, p, stage scores, votes, reasoning) are in the sample's
  ``metadata["ballots"]``, and each judge's call is its own ModelEvent. The panel's split is
  ``metadata["dissent"]``;
- **the battlefield**: a clash map updated stage by stage has no Inspect type; it is in
  ``metadata["battlefields"]`` (the final map) and the tracker's calls are ModelEvents;
- **messages**: Inspect's ``messages`` is one conversation; our sample is many independent calls, so
  ``messages`` holds only the input and the panel's verdict as the assistant's answer, and each call's
  own conversation is in its event;
- stage scores, best-debater votes, feedback and the review are in metadata, not scores (Inspect's
  viewer shows one value per score; the bench report has their metrics);
- the offline judge sends no messages: its records become no events, and the log says
  ``model: offline`` (a deterministic baseline, not a judge).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from adjudicator.bench.prompt_store import PromptReader
from adjudicator.bench.results import SampleResult
from adjudicator.errors import InputError
from adjudicator.input.match import Match
from adjudicator.records import CallRecord

INSPECT_DIR = "inspect"


def require_inspect() -> None:
    """Raise InputError (one line, exit 2) when inspect-ai is not installed."""
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        raise InputError("export inspect: inspect-ai is not installed", "pip install 'adjudicator[inspect]' (an optional extra)") from None


def _transcript_text(match: Match) -> str:
    parts = [f"Motion: {match.motion}"]
    for st in match.stages:
        parts.append(f"\n## {st.name} ({st.stage_id}, {' & '.join(st.sides)})")
        parts += [f"{u.speaker}: {u.text}" for u in st.utterances]
    return "\n".join(parts)


def _messages(c: CallRecord, reader: PromptReader) -> list[Any]:
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    kinds = {"system": ChatMessageSystem, "assistant": ChatMessageAssistant}
    out = []
    for m in c.messages:
        text = reader.text(m)
        out.append(kinds.get(m.role, ChatMessageUser)(content=text if text is not None else f"(text not stored: prompts/{m.sha256}.txt)"))
    return out


def _usage(calls: Sequence[CallRecord]) -> dict[str, Any]:
    """``model_usage`` by model over ``calls`` (cache hits count no tokens: nothing was sent)."""
    from inspect_ai.model import ModelUsage

    out: dict[str, Any] = {}
    for c in calls:
        if c.parse == "native":
            continue
        u = out.setdefault(c.model, {"input_tokens": 0, "output_tokens": 0, "reasoning_tokens": 0, "cache_read": 0, "cache_write": 0, "cost": 0.0, "known": True})
        if c.cache_hit:
            continue
        u["input_tokens"] += c.prompt_tokens
        u["output_tokens"] += c.completion_tokens
        u["reasoning_tokens"] += c.reasoning_tokens
        u["cache_read"] += c.cached_tokens
        u["cache_write"] += c.cache_write_tokens
        if c.cost_usd is None:
            u["known"] = False
        else:
            u["cost"] += c.cost_usd
    return {
        m: ModelUsage(input_tokens=u["input_tokens"], output_tokens=u["output_tokens"], total_tokens=u["input_tokens"] + u["output_tokens"],
                      reasoning_tokens=u["reasoning_tokens"] or None, input_tokens_cache_read=u["cache_read"] or None,
                      input_tokens_cache_write=u["cache_write"] or None, total_cost=u["cost"] if u["known"] else None)
        for m, u in out.items()
    }  # fmt: skip


def _event(c: CallRecord, reader: PromptReader, when: datetime) -> Any:
    from inspect_ai.event import ModelEvent
    from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage

    output = ModelOutput.from_content(c.model, c.raw_output or "", stop_reason="max_tokens" if c.truncated else "stop", error=c.error)
    output.usage = ModelUsage(input_tokens=c.prompt_tokens, output_tokens=c.completion_tokens, total_tokens=c.prompt_tokens + c.completion_tokens,
                              reasoning_tokens=c.reasoning_tokens or None, input_tokens_cache_read=c.cached_tokens or None,
                              input_tokens_cache_write=c.cache_write_tokens or None, total_cost=c.cost_usd)  # fmt: skip
    output.time = c.latency_s
    output.metadata = {"parse": c.parse, "attempt": c.attempt, "turn": c.turn, "repair_fields": c.repair_fields, "template_hash": c.template_hash}
    return ModelEvent(
        model=c.model, role=f"{c.node}:{c.key}" if c.key else c.node, input=_messages(c, reader), tools=[], tool_choice="none",
        config=GenerateConfig(max_tokens=c.max_tokens), output=output, error=c.error, retries=c.transport_retries or None,
        cache="read" if c.cache_hit else None, timestamp=when, working_time=c.latency_s,
    )


def _scores(res: SampleResult, gold: str | None) -> dict[str, Any]:
    from inspect_ai.scorer import CORRECT, INCORRECT, Score

    v = res.verdict or {}
    p, winner = v.get("p"), v.get("winner")
    scores: dict[str, Any] = {}
    if p is not None:
        scores["p"] = Score(value=float(p), answer=winner, explanation="winner tendency: above 0.5 favours the affirmative")
    if gold in ("affirmative", "negative") and p is not None:
        y = 1.0 if gold == "affirmative" else 0.0
        scores["winner"] = Score(value=CORRECT if winner == gold else INCORRECT, answer=winner, explanation=f"gold winner {gold}")
        scores["brier"] = Score(value=(float(p) - y) ** 2, answer=f"{p}", explanation="(p - gold)^2, gold 1 for the affirmative, 0 for the negative")
    return scores


def _sample(match: Match, res: SampleResult, gold: str | None, reader: PromptReader, when: datetime, order: Any) -> Any:
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput

    v = res.verdict or {}
    calls = order(res.calls, [st.stage_id for st in match.stages])
    model = next((c.model for c in reversed(calls) if c.node == "judge"), "offline")
    answer = json.dumps({"winner": v.get("winner"), "p": v.get("p")}) if v else ""
    prompt = ChatMessageUser(content=_transcript_text(match))
    return EvalSample(
        id=match.match_id, epoch=1, input=[prompt], choices=["affirmative", "negative"], target=gold or "",
        messages=[prompt, ChatMessageAssistant(content=answer)] if v else [prompt],
        output=ModelOutput.from_content(model, answer, error=res.error),
        scores=_scores(res, gold) or None,
        metadata={"status": res.status, "format": match.format, "motion": match.motion, "error": res.error,
                  **{k: v.get(k) for k in ("ballots", "dissent", "battlefields", "stage_scores", "best_debater_votes", "best_debaters", "review", "feedback")}},
        events=[_event(c, reader, when) for c in calls if c.parse != "native"],
        model_usage=_usage(calls), total_time=res.usage.latency_s, error=None,
    )  # fmt: skip


def _metric_scores(samples: Sequence[Any]) -> list[Any]:
    from inspect_ai.log import EvalMetric, EvalScore

    out = []
    for name, metric, fn in (("winner", "accuracy", lambda s: 1.0 if s.value == "C" else 0.0), ("brier", "mean", lambda s: float(s.value)), ("p", "mean", lambda s: float(s.value))):
        vals = [fn(s.scores[name]) for s in samples if s.scores and name in s.scores]
        if vals:
            out.append(EvalScore(name=name, scorer=name, scored_samples=len(vals), unscored_samples=len(samples) - len(vals),
                                 metrics={metric: EvalMetric(name=metric, value=sum(vals) / len(vals))}))
    return out


def export_inspect(run_dir: Path, *, fmt: str = "eval", out_dir: Path | None = None) -> list[Path]:
    """Write one Inspect eval log per arm of ``run_dir`` (module docstring) into ``out_dir`` (default
    ``run_dir/inspect``) in ``fmt`` (``eval``: Inspect's zip format; ``json``); returns their paths.
    Raises InputError when inspect-ai is missing or the run has no finished sample."""
    require_inspect()
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalResults, EvalSpec, EvalStats, write_eval_log

    from adjudicator.bench.manifest import read_manifest
    from adjudicator.bench.report import load_results, run_samples
    from adjudicator.bench.viewer_sample import call_order

    manifest = read_manifest(run_dir)
    samples = run_samples(run_dir)
    results = load_results(run_dir, list(manifest.arms), samples)
    reader = PromptReader(run_dir)
    created = manifest.created_at
    when = datetime.fromisoformat(created.replace("Z", "+00:00")) if created else datetime.now(UTC)
    paths = []
    for arm in manifest.arms:
        done = [(s.match, results[arm][s.sample_id]) for s in samples if s.sample_id in results[arm]]
        if not done:
            continue
        es = [_sample(m, r, _gold_of(m), reader, when, call_order) for m, r in done]
        all_calls = [c for _, r in done for c in r.calls]
        models = manifest.models.get(arm, {})
        spec = EvalSpec(
            run_id=manifest.run_id, eval_id=f"{manifest.run_id}-{arm}", created=created or when.isoformat(), task=f"adjudicator/{arm}",
            task_version=1, dataset=EvalDataset(name=str(manifest.dataset.get("name") or manifest.dataset.get("source") or ""), location=str(manifest.dataset.get("source") or ""),
                                                samples=len(samples), sample_ids=[s.sample_id for s in samples]),
            model=models.get("judge-1") or next(iter(models.values()), "offline"), model_roles=None, config=EvalConfig(),
            packages=dict(manifest.packages), metadata={"arm": arm, "models": models, "prompt_hashes": manifest.prompt_hashes.get(arm, {}), "config": manifest.config, "name": manifest.name},
        )  # fmt: skip
        log = EvalLog(
            status="success" if len(done) == len(samples) else "started",  # a run not finished is a log still being written
            eval=spec, samples=es, stats=EvalStats(started_at=when.isoformat(), completed_at=when.isoformat(), model_usage=_usage(all_calls)),
            results=EvalResults(total_samples=len(samples), completed_samples=len(done), scores=_metric_scores(es)),
        )
        path = (out_dir or run_dir / INSPECT_DIR) / f"{arm}.{fmt}"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_eval_log(log, str(path), format=fmt)  # type: ignore[arg-type]  # inspect-ai's own writer: its format is its to define
        paths.append(path)
    if not paths:
        raise InputError(f"export inspect: run {run_dir.name} has no finished sample", "run or resume the bench first")
    return paths


def _gold_of(match: Match) -> str | None:
    """The decisive gold winner of ``match`` ("affirmative" / "negative"), None otherwise."""
    labels = match.labels
    outcome = labels.outcome if labels else None
    return outcome if outcome in ("affirmative", "negative") else None

"""Run one arm on one sample, isolated, and turn the outcome into a :class:`SampleResult`.

Isolation (protocol 001 s.02: "contexts, files and execution records must be strictly isolated
across samples"): every sample gets its own freshly built runtime context and backends
(``build_context(config)`` for the agentic arm, a fresh call of the single-call protocol for the
other), its own graph thread and state, and its own result file. Only the response cache, whose
keys hash everything that shaped a request, is shared between samples.

A sample of a model arm first asks the result cache (:mod:`adjudicator.bench.result_cache`): when
its every answer is in the response cache and nothing that determines its result changed, the stored
outcome becomes the result, as a rerun from the response cache would write it, without building a
context or running the graph; otherwise it runs, through a journaled view of the response cache, and
an ``ok`` outcome is stored for the next run.

Model faults never abort the run: a sample whose arm produced no verdict is recorded as ``failed``
with every call record and raw output it collected. A configuration error (bad model options, a
missing key) concerns every sample alike, so it is re-raised to stop the run.
"""

from __future__ import annotations

import time
import traceback as tb
from dataclasses import dataclass, field
from typing import Any

from adjudicator.bench.layout import iso, utc_now
from adjudicator.bench.results import SampleResult, SampleStatus
from adjudicator.errors import AdjudicatorError, ConfigError
from adjudicator.input.match import Match
from adjudicator.judges.base import Backend
from adjudicator.records import CallRecord, NodeFailure, Usage, in_call_order, in_failure_order
from adjudicator.verdict.ballots import Verdict
from adjudicator.verdict.battlefield import StageAnalysis


def _one_line(text: str) -> str:
    return " ".join(str(text).split())[:2000]


@dataclass
class ArmOutcome:
    """What one arm left for one sample: the verdict (None when it produced none), every call
    record, the failures, the error line (None when it produced a verdict) and, for the agentic
    arm, the tracker's stage analyses."""

    verdict: Verdict | None
    calls: list[CallRecord]
    failures: list[NodeFailure]
    error: str | None = None
    analyses: list[StageAnalysis] = field(default_factory=list)


def run_arm(match: Match, arm: str, config: Any, tracker: Backend | None = None, observer: Any | None = None, cache: Any | None = None) -> ArmOutcome:
    """Adjudicate ``match`` with ``arm`` and return its :class:`ArmOutcome`.

    The agentic arm is run through :func:`adjudicator.api.run_agentic` on a context built for
    this sample alone (``tracker``, when given, takes the tracker's seat: a re-judge run's
    :class:`~adjudicator.judges.reused.ReusedTracker`), so that a panel failure still returns the
    graph's call records, failures and analyses (:func:`adjudicator.api.adjudicate` would raise
    and lose them). Other arms go through :func:`adjudicator.api.adjudicate`; if their
    AdjudicationFailed carries ``calls`` or ``failures`` attributes, those are kept. Raises
    ConfigError; other AdjudicatorErrors become the ``error`` string. ``observer`` (a
    :class:`~adjudicator.model.chat.RequestObserver`) is given to every model client of the sample,
    ``cache`` (a response store; None: :func:`adjudicator.api.open_cache`) too.
    """
    if arm == "agentic":
        from adjudicator.api import build_context, run_agentic

        verdict, state = run_agentic(match, build_context(config, tracker=tracker, observer=observer, cache=cache))
        analyses = list(state.get("analyses") or [])
        if verdict is not None:
            return ArmOutcome(verdict, list(verdict.calls), list(verdict.failures), None, analyses)
        calls = in_call_order(state.get("calls") or [])
        failures = in_failure_order(state.get("failures") or [])
        return ArmOutcome(None, calls, failures, state.get("panel_error") or "the panel produced no verdict", analyses)
    from adjudicator.api import adjudicate

    try:
        verdict = adjudicate(match, config, arm=arm, observer=observer, cache=cache)
    except ConfigError:
        raise
    except AdjudicatorError as exc:
        return ArmOutcome(None, list(getattr(exc, "calls", None) or []), list(getattr(exc, "failures", None) or []), exc.one_line())
    return ArmOutcome(verdict, list(verdict.calls), list(verdict.failures))


def _status(verdict: Verdict | None, failures: list[NodeFailure], error: str | None, error_type: str | None) -> tuple[SampleStatus, str | None, str | None]:
    """``(status, error, error_type)`` of a sample (see :mod:`adjudicator.bench.results`): ``failed``
    without a verdict or with one that holds no value, ``partial`` when a node or task failed (the
    error lists them), else ``ok``; a ``dropped_field`` failure (an answer taken without fields still
    invalid after their repair, :attr:`~adjudicator.records.NodeFailure.partial`) is no failed node."""
    if verdict is None:
        return "failed", error, error_type
    if verdict.p is None and not verdict.stage_scores and not verdict.best_debater_votes and not verdict.ranking and not verdict.speaker_scores:
        return "failed", "the verdict holds no value: every node or task failed", "NoValue"
    if not (any(not f.partial for f in verdict.failures) or any(not t.ok for t in verdict.tasks)):
        return "ok", error, error_type
    bad = [f"{f.node} {f.key}".strip() for f in failures if not f.partial] or [f"{t.task} {t.key}".strip() for t in verdict.tasks if not t.ok]
    return "partial", _one_line(f"{len(bad)} failed: " + ", ".join(bad[:10]) + (" ..." if len(bad) > 10 else "")), "PartialFailure"


def execute_sample(
    match: Match, arm: str, config: Any, *, sample_sha256: str, session: int, superseded: list[str] | None = None,
    tracker: Backend | None = None, not_run: str | None = None, observer: Any | None = None, result_cache: bool = True,
    cache: Any | None = None,
) -> SampleResult:
    """Run ``arm`` on ``match`` and return its :class:`SampleResult`. Never raises for a model fault
    or an unexpected exception inside the arm (both become a failed sample); re-raises ConfigError
    and KeyboardInterrupt. ``tracker`` and ``observer`` as in :func:`run_arm`; ``not_run`` a reason
    the sample cannot be run at all (a re-judge run whose parent has no result for it): the result
    is then ``failed`` with that error (type ``NoParentResult``) and nothing is sent.
    ``result_cache`` False neither reads nor writes the result cache (``bench --no-result-cache``);
    a re-judge sample (``tracker`` given) never uses it. ``cache`` is the run's open response cache
    (:func:`adjudicator.api.open_cache` of ``config``, shared by the samples of a session; None:
    this sample opens its own)."""
    started = utc_now()
    t0 = time.monotonic()
    store = key = opened = None
    if result_cache and tracker is None and not_run is None:
        from adjudicator.bench.result_cache import lookup, sample_key

        key = sample_key(config, arm, sample_sha256)
        if key is not None:
            from adjudicator.model.cache import JournaledCache

            if cache is None:
                from adjudicator.api import open_cache

                cache = opened = open_cache(config)  # ConfigError for an unusable --cache-dir, as a run would raise
            stored = lookup(cache, key)
            if stored is not None:
                if opened is not None:
                    opened.close()
                return _result(match, arm, sample_sha256, session, superseded, started, t0, verdict=stored.verdict, calls=stored.calls,
                               failures=stored.failures, analyses=stored.analyses, status="ok")
            store = JournaledCache(cache)

    verdict, calls, failures, analyses, error, error_type, trace = _run_guarded(match, arm, config, tracker, observer, store, not_run)
    status, error, error_type = _status(verdict, failures, error, error_type)
    result = _result(
        match, arm, sample_sha256, session, superseded, started, t0, verdict=None if verdict is None else verdict.model_dump(mode="json"),
        calls=calls, failures=failures, analyses=analyses, status=status,
        error=None if status == "ok" else _one_line(error or "no verdict"),
        error_type=None if status == "ok" else (error_type or "AdjudicationFailed"), trace=trace,
    )
    if store is not None and key is not None:
        from adjudicator.bench.result_cache import remember

        remember(store, key, result, config)
    if opened is not None:
        opened.close()
    return result



def _run_guarded(
    match: Match, arm: str, config: Any, tracker: Backend | None, observer: Any | None, store: Any, not_run: str | None
) -> tuple[Any, list[CallRecord], list[NodeFailure], list[StageAnalysis], str | None, str | None, str | None]:
    """``(verdict, calls, failures, analyses, error, error type, traceback)`` of running ``arm`` on
    ``match`` (:func:`run_arm`), or of not running it (``not_run``: type ``NoParentResult``). A model
    fault or an unexpected exception in the arm becomes the error (a bug in an arm must not take the
    other samples down; its traceback is kept); ConfigError and KeyboardInterrupt are re-raised."""
    verdict = None
    calls: list[CallRecord] = []
    failures: list[NodeFailure] = []
    analyses: list[StageAnalysis] = []
    error = error_type = trace = None
    try:
        if not_run is not None:
            error, error_type = not_run, "NoParentResult"
        else:
            outcome = run_arm(match, arm, config, tracker, observer, store)
            verdict, calls, failures, error, analyses = outcome.verdict, outcome.calls, outcome.failures, outcome.error, outcome.analyses
            if error is not None:
                error_type = "AdjudicationFailed"
    except (ConfigError, KeyboardInterrupt):
        raise
    except AdjudicatorError as exc:
        error, error_type = exc.one_line(), type(exc).__name__
    except Exception as exc:  # a bug in an arm must not take the other samples down
        error, error_type = _one_line(f"{type(exc).__name__}: {exc}"), type(exc).__name__
        trace = tb.format_exc()
    return verdict, calls, failures, analyses, error, error_type, trace


def _result(
    match: Match, arm: str, sample_sha256: str, session: int, superseded: list[str] | None, started: Any, t0: float, *,
    verdict: dict[str, Any] | None, calls: list[CallRecord], failures: list[NodeFailure], analyses: list[StageAnalysis], status: SampleStatus,
    error: str | None = None, error_type: str | None = None, trace: str | None = None,
) -> SampleResult:
    """The :class:`SampleResult` of one finished sample (``usage`` summed from ``calls``; timing from
    ``started`` and the monotonic clock ``t0``)."""
    return SampleResult(
        sample_id=match.match_id,
        arm=arm,
        sample_sha256=sample_sha256,
        status=status,
        error=error,
        error_type=error_type,
        traceback=trace,
        verdict=verdict,
        calls=calls,
        failures=failures,
        analyses=analyses,
        usage=Usage.of(calls),
        session=session,
        superseded=list(superseded or []),
        started_at=iso(started),
        finished_at=iso(utc_now()),
        elapsed_s=round(time.monotonic() - t0, 3),
    )

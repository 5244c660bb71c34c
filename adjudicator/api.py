"""The front door: adjudicate one match with either arm, and build the run context it needs.

- :func:`adjudicate` -- ``adjudicate(match, settings, arm=...)`` returns a
  :class:`~adjudicator.verdict.ballots.Verdict` for the agentic panel (``"agentic"``) or the CCDB single-call
  protocol (``"single-call"``); both verdicts have the same shape, so the benchmark scores them alike.
- :func:`build_context` -- the :class:`~adjudicator.workflow.context.AdjudicationContext` (which
  backend tracks clashes, which judges sit) for a :class:`~adjudicator.config.ModelConfig`;
  :func:`make_client` and :func:`open_cache` build the model client and response cache it shares.
- :func:`run_agentic` / :func:`adjudicate_with_context` -- the agentic graph on an already built
  context (the benchmark and the tests use them to keep every call record of a failed panel).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from adjudicator.config import ModelConfig, is_offline
from adjudicator.environment import api_key as config_api_key
from adjudicator.errors import AdjudicationFailed, ConfigError, InputError
from adjudicator.input.match import Match, MatchView
from adjudicator.input.rubric import Rubric
from adjudicator.judges.base import Backend
from adjudicator.verdict.ballots import Verdict
from adjudicator.workflow.context import AdjudicationContext

log = logging.getLogger("adjudicator.api")

if TYPE_CHECKING:
    from adjudicator.workflow.nodes import PanelState
    from adjudicator.workflow.progress import ProgressSink

ARMS = ("agentic", "single-call")


def adjudicate(
    match: Match,
    settings: ModelConfig | None = None,
    *,
    arm: str = "agentic",
    progress: ProgressSink | None = None,
    observer: Any | None = None,
    cache: Any | None = None,
) -> Verdict:
    """Adjudicate ``match`` with ``arm`` (one of :data:`ARMS`) under ``settings`` (default: the
    offline judge for every role); ``progress`` receives an event per finished stage and ballot
    (single-call: per protocol instance); ``observer`` (a :class:`~adjudicator.model.chat.RequestObserver`)
    is told about every model request before it is sent (the benchmark's request log); ``cache`` the
    response store every client uses (default :func:`open_cache`; the benchmark passes a journaled one). Raises
    :class:`~adjudicator.errors.InputError` for an unknown arm, :class:`~adjudicator.errors.ConfigError`
    for an unusable model setting (before any call), and :class:`~adjudicator.errors.AdjudicationFailed`
    when the arm could not produce a verdict (it carries the partial verdict)."""
    settings = settings if settings is not None else ModelConfig()
    if arm == "agentic":
        return adjudicate_with_context(match, build_context(settings, observer=observer, cache=cache), progress=progress)
    if arm == "single-call":
        return adjudicate_single_call(match, settings, progress=progress, observer=observer, cache=cache)
    raise InputError(f"--arm: unknown arm {arm!r}", f"use one of {', '.join(ARMS)}")


def adjudicate_single_call(
    match: Match | MatchView, settings: ModelConfig, *, progress: ProgressSink | None = None, observer: Any | None = None, cache: Any | None = None,
) -> Verdict:
    """Adjudicate ``match`` with the CCDB single-call protocol: ``settings.model`` answers every task
    (with its API base, timeout, decoding parameters, JSON mode, transport policy and cache);
    ``observer`` and ``cache`` as in :func:`adjudicate`.

    Raises :class:`~adjudicator.errors.InputError` (exit code 2, before any call) when the model is
    the offline judge (none, ``offline``): the protocol is defined for a language model only; and
    :class:`~adjudicator.errors.ConfigError` (also exit code 2) from the client's pre-flight check.
    Model faults never raise; they are recorded per task in the verdict (``tasks``, ``failures``).
    A dimensional ``settings.rubric`` adds the per-dimension task (:mod:`adjudicator.single_call.dimensions`).
    """
    from adjudicator.single_call.run import run_single_call

    model = settings.model
    if model is None or is_offline(model):
        raise InputError("--arm single-call needs an LLM; give --model", "e.g. --model deepseek/deepseek-chat, or --model openai/<name> --api-base URL")
    view = match.view() if isinstance(match, Match) else match
    rubric, evidence = judging_rubric(settings)
    if rubric is not None:
        from adjudicator.input.rubric import check_rubric_format

        check_rubric_format(rubric, view.format)
    client = make_client(settings, model, observer=observer, cache=cache)
    return run_single_call(view, client, progress=progress, rubric=rubric, evidence=evidence, lead_first=settings.send_order == "lead-first")


def initial_state(view: MatchView) -> dict:
    """The graph input for a whole match: the label-free header and every stage, cursor at 0."""
    return {"match": view, "stages": list(view.stages), "next_stage": 0}


def run_config(view: MatchView, thread_id: str | None = None) -> dict:
    """LangGraph config: a fresh thread per sample and a recursion limit that fits every stage."""
    return {"recursion_limit": len(view.stages) + 16, "configurable": {"thread_id": thread_id or f"{view.match_id}-{uuid.uuid4().hex}"}}


def run_agentic(match: Match | MatchView, context: AdjudicationContext, progress: ProgressSink | None = None) -> tuple[Verdict | None, PanelState]:
    """Run the adjudication graph on ``match`` (labels are stripped first).

    Returns (verdict or None, final state). The verdict is None when the panel failed; the state then
    holds ``panel_error``, the failures and every call record (finished work is not lost).
    ``progress`` receives a :class:`~adjudicator.workflow.progress.ProgressEvent` as each stage
    analysis and each ballot finishes (read off the graph's update stream).
    """
    from adjudicator.workflow.adjudication import compiled

    view = match.view() if isinstance(match, Match) else match
    graph, inputs, config = compiled(), initial_state(view), run_config(view)
    if progress is None:
        return _outcome(graph.invoke(inputs, config=config, context=context))
    from adjudicator.workflow.progress import GraphProgress

    steps = GraphProgress(view, {j: context.perspectives.get(j, "") for j in context.judges}, progress)
    final: dict[str, Any] = {}
    for mode, chunk in graph.stream(inputs, config=config, context=context, stream_mode=["updates", "values"]):
        if mode == "values":
            final = chunk
        else:
            for node, update in chunk.items():
                steps.update(node, update)
    return _outcome(final)


def _outcome(state: Any) -> tuple[Verdict | None, PanelState]:
    final = cast("PanelState", state)  # the final state, as a plain dict
    return final.get("verdict"), final


def adjudicate_with_context(match: Match | MatchView, context: AdjudicationContext, progress: ProgressSink | None = None) -> Verdict:
    """Adjudicate ``match`` with the agentic panel seated in ``context`` and return the verdict
    (``progress`` as in :func:`run_agentic`).

    Raises :class:`~adjudicator.errors.AdjudicationFailed` (exit code 1) when fewer than two judges
    produced a valid ballot; the exception carries the partial verdict (failures with raw outputs,
    valid ballots, clash map, provenance). With ``--judge-evidence transcript``, raises
    :class:`~adjudicator.errors.InputError` (exit code 2) just before the first request when a judge's
    prompt with the whole transcript cannot fit its model's context window
    (:func:`adjudicator.judges.llm.window.check_transcript_fits`)."""
    from adjudicator.input.rubric import check_rubric_format
    from adjudicator.workflow.nodes import partial_verdict

    if context.rubric is not None:
        check_rubric_format(context.rubric, match.format)
    if context.judge_evidence == "transcript":
        from adjudicator.judges.llm.window import check_transcript_fits

        check_transcript_fits(match.view() if isinstance(match, Match) else match, context)
    verdict, state = run_agentic(match, context, progress)
    if verdict is None:
        partial = partial_verdict(state, context)
        transport = [f for f in partial.failures if f.kind.unreachable]
        if transport:
            first = transport[0]
            raise AdjudicationFailed(
                f"no verdict: {len(transport)} model call(s) failed in transport, first {first.node} {first.key}: {first.reason}",
                "check the model server or --api-base and retry (calls that succeeded are cached)",
                verdict=partial,
            )
        raise AdjudicationFailed(state.get("panel_error") or "the panel produced no verdict", verdict=partial)
    return verdict


def open_cache(config: ModelConfig) -> Any:
    """The response cache ``config`` asks for: a :class:`~adjudicator.model.cache.NullCache` with
    ``no_cache``, else a :class:`~adjudicator.model.cache.ResponseCache` at ``cache_dir``. Raises
    ConfigError when the folder cannot be created."""
    from adjudicator.model.cache import NullCache, ResponseCache

    if config.no_cache:
        return NullCache()
    try:
        return ResponseCache(config.cache_dir)
    except OSError as exc:
        raise ConfigError(f"--cache-dir {config.cache_dir}: cannot be used ({exc.strerror or exc})", "give a writable folder or --no-cache") from None


def make_client(
    config: ModelConfig,
    model: str,
    *,
    cache: Any | None = None,
    api_key: str | None = None,
    sleep: Callable[[float], None] | None = None,
    gate: Any | None = None,
    observer: Any | None = None,
) -> Any:
    """An :class:`~adjudicator.model.llm.LLMClient` for ``model`` with ``config``'s API base, timeout,
    decoding parameters, JSON mode and transport policy. ``cache`` defaults to :func:`open_cache`;
    ``api_key`` to the variable ``config.api_key_env`` names, else ``$ADJUDICATOR_API_KEY``, else the
    provider's own variable for its own endpoint only (:func:`adjudicator.environment.api_key`; ConfigError
    when a named variable is unset); ``gate`` is the run's
    :class:`~adjudicator.model.preflight.PreflightGate` (default: one for this client alone); ``observer``
    (a :class:`~adjudicator.model.chat.RequestObserver`, or None) is told about every request.

    Without ``config.api_base``, a base URL the environment sets for the model's provider
    (``OPENAI_BASE_URL``, ``DEEPSEEK_API_BASE``, ...: :func:`adjudicator.model.preflight.environment_api_base`)
    is the client's API base, so it is part of the cache key and the provider's key goes there only
    when it is the provider's own endpoint.

    Building the client imports no litellm. Just before its first request (never for a run answered
    from the cache) the gate checks every model of the run and raises ConfigError, with no request
    sent, for an unroutable model or a missing key (:func:`adjudicator.model.preflight.preflight`).
    """
    from adjudicator.model.llm import LLMClient
    from adjudicator.model.preflight import PreflightGate, effective_api_base, environment_api_base
    from adjudicator.model.transport import TransportPolicy

    key = api_key if api_key is not None else config_api_key(name=config.api_key_env)
    from_environment = None if config.api_base else environment_api_base(model)
    if from_environment is not None:
        log.info("%s: %s sets its base URL (%s): it counts as --api-base", model, *from_environment)
    return LLMClient(
        model,
        gate=gate if gate is not None else PreflightGate(),
        api_base=effective_api_base(config.api_base, model),
        api_key=key,
        timeout_s=config.timeout_s,
        temperature=config.temperature,
        seed=config.seed,
        logprobs=config.p_source == "logprob",
        max_tokens=config.max_tokens,
        json_mode=config.json_mode,
        cache=cache if cache is not None else open_cache(config),
        policy=TransportPolicy(max_retries=config.transport_retries, base_delay_s=config.backoff_base_s),
        observer=observer,
        max_concurrent=config.max_concurrent_requests,
        **({"sleep": sleep} if sleep is not None else {}),
    )


def build_context(
    config: ModelConfig,
    *,
    api_key: str | None = None,
    prompts: Any | None = None,
    sleep: Callable[[float], None] | None = None,
    check_models: bool = False,
    tracker: Backend | None = None,
    observer: Any | None = None,
    cache: Any | None = None,
) -> AdjudicationContext:
    """The :class:`~adjudicator.workflow.context.AdjudicationContext` for ``config``.

    All roles offline -> ``AdjudicationContext.single(OfflineJudge())``. The context's panel mode is
    ``config.panel``. Otherwise one
    :class:`~adjudicator.judges.llm.backend.LLMBackend` per distinct model (all sharing one response cache,
    unless ``no_cache``) and one :class:`~adjudicator.judges.offline.OfflineJudge` for any offline role.
    ``api_key`` (default: the variable ``config.api_key_env`` names, else ``$ADJUDICATOR_API_KEY``) is
    passed to every model; without it litellm reads the provider's own variable, for the provider's
    own endpoint only. ``observer`` (a :class:`~adjudicator.model.chat.RequestObserver`)
    is given to every client; ``cache`` is the response store they share (default
    :func:`open_cache`; ignored with ``no_cache``). ``prompts`` (a PromptStore) and ``sleep`` are for tests.

    The models share one :class:`~adjudicator.model.preflight.PreflightGate`: just before the run's first
    request (never when every answer comes from the cache, which keeps litellm unimported) every
    model is checked and :class:`~adjudicator.errors.ConfigError` is raised, before any request,
    when a model string names no known provider or its key is missing (see
    :func:`adjudicator.model.preflight.preflight`). ``check_models=True`` checks them now instead (a
    long-running server should fail at start, not at its first request).

    ``tracker``, when given, takes the tracker's seat instead of a backend for ``config.tracker``
    (no client is built for that model, so it needs no key): ``bench --rejudge`` seats a
    :class:`~adjudicator.judges.reused.ReusedTracker` there, and only the judges come from ``config``.
    """
    rubric, evidence = judging_rubric(config)
    if config.panel == "pairwise" and config.judge_evidence != "ledger":
        raise ConfigError(f"--judge-evidence {config.judge_evidence}: a pairwise panel's judges read the ledger only", "use --judge-evidence ledger, or --panel scoring")
    seats = _Seats()
    if tracker is None and config.is_offline:
        return replace(AdjudicationContext.single(seats.offline(), config.panel), rubric=rubric, evidence=evidence)
    if tracker is not None and all(m is None for m in config.judges().values()):
        return _context(config, tracker, {j: seats.offline() for j in config.judges()}, rubric, evidence)
    gate = seats.connect(config, api_key=api_key, prompts=prompts, sleep=sleep, observer=observer, cache=cache)
    seated = tracker if tracker is not None else seats.backend(config.tracker)
    judges = {j: seats.backend(m) for j, m in config.judges().items()}
    if check_models:
        gate.ensure()
    return _context(config, seated, judges, rubric, evidence)


def _context(config: ModelConfig, tracker: Backend, judges: dict[str, Backend], rubric: Rubric | None, evidence: Any) -> AdjudicationContext:
    """The run context seating ``tracker`` and ``judges``, with ``config``'s panel mode, judge evidence, stage windows, send order and feedback."""
    return AdjudicationContext(tracker=tracker, judges=judges, rubric=rubric, evidence=evidence, panel_mode=config.panel, judge_evidence=config.judge_evidence,
                                track_window_chars=config.track_window_chars, send_order=config.send_order, feedback=config.feedback)  # fmt: skip


class _Seats:
    """The backends of one run's seats: one :class:`~adjudicator.judges.offline.OfflineJudge` for every
    offline seat, and (after :meth:`connect`) one :class:`~adjudicator.judges.llm.backend.LLMBackend`
    per distinct model, built on first use, every client sharing one response cache and one gate."""

    def __init__(self) -> None:
        self._offline: Backend | None = None
        self._backends: dict[str, Backend] = {}
        self._make: Callable[[str], Backend] | None = None

    def offline(self) -> Backend:
        """The run's one offline judge (built on first use)."""
        if self._offline is None:
            from adjudicator.judges.offline import OfflineJudge

            self._offline = OfflineJudge()
        return self._offline

    def connect(self, config: ModelConfig, *, api_key: str | None, prompts: Any | None, sleep: Callable[[float], None] | None, observer: Any | None, cache: Any | None) -> Any:
        """Get ready to seat models: one response cache (``cache``, else :func:`open_cache`; a fresh one
        with ``no_cache``), one prompt store and one :class:`~adjudicator.model.preflight.PreflightGate`,
        which is returned."""
        from adjudicator.judges.llm.backend import LLMBackend
        from adjudicator.model.preflight import PreflightGate
        from adjudicator.model.prompts import PromptStore

        gate = PreflightGate()
        shared = open_cache(config) if cache is None or config.no_cache else cache
        store = prompts or PromptStore()
        self._make = lambda model: LLMBackend(make_client(config, model, cache=shared, api_key=api_key, sleep=sleep, gate=gate, observer=observer), store)
        return gate

    def backend(self, model: str | None) -> Backend:
        """The backend seating ``model`` (None: the offline judge); one per distinct model."""
        if model is None:
            return self.offline()
        if model not in self._backends:
            assert self._make is not None, "connect() first"
            self._backends[model] = self._make(model)
        return self._backends[model]


def judging_rubric(config: ModelConfig) -> tuple[Rubric | None, Any]:
    """The rubric ``config.rubric`` names (None for ccdb, the default) and the evidence source
    ``config.evidence`` names (opened only under a rubric with a fact-authenticity dimension).
    Raises InputError (exit code 2, nothing sent) for an unknown rubric, a bad rubric file, or a
    missing or empty evidence folder."""
    from adjudicator.input.evidence import open_source
    from adjudicator.input.rubric import load_rubric

    rubric = load_rubric(config.rubric)
    if not rubric.dimensional:
        return None, None
    wants_evidence = any(d.check == "fact_authenticity" for d in rubric.dimensions)
    return rubric, open_source(config.evidence) if wants_evidence else None

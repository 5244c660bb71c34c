"""The benchmark runner: plan a run (new or resumed), run every pending (sample, arm) with bounded
concurrency, keep the ledger, stop cleanly on budget or errors, then write the reports.

Flow of :func:`run_bench`:

1. New run: create ``runs/<UTC>_<name>/``, load and validate the dataset (converting upstream
   PanelBench into ``dataset/``), and write ``manifest.json`` before any model call. Resumed run
   (``--resume`` or ``--retry-errors``): take the latest run of that name, check that the dataset hash,
   the arms and the model configuration are unchanged, and keep the manifest's limit, seed and
   bootstrap count unless given again (:func:`resumed_settings`: a different seed or a smaller limit
   is refused, a larger limit is recorded in the manifest and sessions.jsonl). The model
   configuration is the manifest's for every setting not given as a command-line option
   (:func:`~adjudicator.bench.manifest.adopt_manifest_config`), so ``--resume`` alone continues on the
   run's model and server; a model option given with a different value is refused.
2. Plan: a (sample, arm) with an ``ok`` result file is done and is never run or billed again; one
   with a ``failed`` result is rerun only under ``--retry-errors`` (the old file moves to
   ``superseded/``); one without a file (never started, or in flight when the run was killed) runs.
3. Run: at most ``--concurrency`` samples at a time (threads), each isolated (see execute.py), each
   result written atomically as soon as it finishes. Before each sample starts, the budget and the
   error limit are checked; once hit, no new sample starts and those in flight finish.
4. Reports: report.json, report.md, report.html over every finished sample of the selection.

Unreachable-server rule: when :data:`UNREACHABLE_STREAK` (3) samples in a row, in the order they
finish in this session, failed without the model ever answering (every model call of the sample
ended in a ``transport:`` or ``refused:`` failure: connection refused, time-out after the transport
retries, or a non-retried error such as HTTP 401/404; see
:func:`~adjudicator.bench.results.is_unreachable`), no new sample starts: every further sample
would fail alike and pay the full transport backoff again. While the latest finished sample failed
that way, a new sample starts only when none is in flight, so with ``--concurrency`` N >= 3 the
stop comes after the first N samples, and with fewer after 3. Samples in flight finish; the run stops
with state ``stopped`` / reason ``unreachable`` and stays resumable (``--retry-errors`` reruns the
failed samples and runs the ones never started).

End states (``status.json``, the reports): ``complete`` when every planned sample ran and every arm
that ran samples in this session produced at least one verdict (ok or partial); ``finished with
errors`` (reason ``no-sample-succeeded``) when every planned sample ran but some arm produced no
verdict for any sample of this session; ``stopped`` (reason ``budget``, ``max-errors`` or
``unreachable``) when the run stopped early; ``interrupted`` on Ctrl-C.

Every end state but ``complete`` exits with code 1 after the status and reports are written: the
budget stop raises :class:`~adjudicator.errors.BudgetExceeded`, the others
:class:`AdjudicationFailed`, each with a one-line message naming the first underlying failure.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adjudicator.api import ARMS
from adjudicator.bench.dataset import Dataset, Sample, load_dataset
from adjudicator.bench.layout import DATASET, SESSIONS, STATUS, check_run_name, iso, latest_run_dir, new_run_dir, utc_now
from adjudicator.bench.ledger import Ledger
from adjudicator.bench.manifest import (
    Manifest,
    adopt_manifest_config,
    config_dict,
    first_difference,
    git_info,
    identity,
    package_versions,
    prompt_file_hashes,
    read_manifest,
    runtime_description,
    write_manifest,
)
from adjudicator.bench.results import SampleResult, first_cause, is_unreachable, read_result, result_path, superseded_dir, write_result
from adjudicator.errors import AdjudicationFailed, BudgetExceeded, InputError
from adjudicator.files import append_json_line, atomic_write_json, move_file, read_json, remove_stale_temp_files

DEFAULT_ARMS = ("agentic",)

#: Samples in a row that failed without the model answering before the run stops (module docstring).
UNREACHABLE_STREAK = 3


@dataclass
class BenchOptions:
    """Everything ``adjudicate bench`` was asked to do.

    ``config`` is the resolved model configuration (:class:`adjudicator.config.ModelConfig`);
    ``arms`` None means the default (the agentic arm, or the resumed run's arms); ``limit`` the first
    N samples in file-name order; ``budget_usd`` the cap on the run's known spend in US dollars;
    ``max_errors`` stop after this many failed or partial samples in this invocation; ``seed`` seeds the random
    baselines and the bootstrap; ``n_bootstrap`` resamples per confidence interval;
    ``label_convention`` how upstream PanelBench labels are read (see :mod:`adjudicator.convert`).

    ``limit``, ``seed`` and ``n_bootstrap`` None mean "not given": a new run then uses all samples,
    seed 0 and 2000 resamples, and a resumed run keeps its manifest's values (see :func:`resumed_settings`).

    ``explicit_model_fields``: the configuration fields given as command-line options (e.g.
    ``{"model", "api_base"}``); a resumed run takes every other answer-shaping field from its
    manifest (:func:`~adjudicator.bench.manifest.adopt_manifest_config`). None means every field of
    ``config`` is explicit (nothing is adopted; a differing configuration is refused).
    """

    dataset: Path
    name: str
    config: Any
    runs_dir: Path = Path("runs")
    arms: list[str] | None = None
    concurrency: int = 1
    limit: int | None = None
    budget_usd: float | None = None
    max_errors: int | None = None
    resume: bool = False
    retry_errors: bool = False
    seed: int | None = None
    n_bootstrap: int | None = None
    progress: bool = True
    reports: bool = True
    label_convention: str | None = None
    command: list[str] = field(default_factory=list)
    explicit_model_fields: frozenset[str] | None = None


@dataclass
class BenchOutcome:
    """What a bench invocation did: the run folder, its final state (``complete``, ``finished with
    errors``, ``stopped``; see the module docstring), the reason (None, ``budget``, ``max-errors``,
    ``unreachable``, ``no-sample-succeeded``), counts of this invocation, the ledger, the report
    paths and the one-line message of a state other than ``complete``."""

    run_dir: Path
    state: str
    reason: str | None
    session: int
    ran: int
    skipped: int
    failed_now: int
    pending: int
    ledger: Ledger
    reports: dict[str, Path] = field(default_factory=dict)
    message: str = ""


@dataclass(frozen=True)
class Task:
    """One pending unit of work: a sample under an arm."""

    sample: Sample
    arm: str


def _echo(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# describing the arms


def _context_description(config: Any) -> tuple[dict[str, str], dict[str, str], bool]:
    """(role -> model, template -> hash, is_llm) of the agentic arm under ``config``. Building the
    context makes no model call."""
    from adjudicator.api import build_context

    ctx = build_context(config)
    backends = [ctx.tracker, *ctx.judges.values()]
    hashes: dict[str, str] = {}
    for b in backends:
        hashes.update(b.prompt_hashes())
    return ctx.model_names(), dict(sorted(hashes.items())), any(b.is_llm for b in backends)


def _single_call_description(config: Any) -> tuple[dict[str, str], dict[str, str]]:
    """(role -> model, template -> hash) of the single-call arm: every task uses ``config.model``;
    the hashes cover the Chinese and English templates."""
    from adjudicator.model.prompts import PromptStore
    from adjudicator.single_call import template_hashes

    model = str(getattr(config, "model", "") or "")
    store = PromptStore()
    hashes = {**template_hashes(store, "zh"), **template_hashes(store, "en")}
    return {"single-call": model}, dict(sorted(hashes.items()))


def describe_arms(arms: list[str], config: Any) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]], dict[str, bool]]:
    """Models, prompt hashes and LLM flag per arm. Raises InputError for an unknown arm and for the
    single-call arm on the offline judge (the protocol needs a language model)."""
    models: dict[str, dict[str, str]] = {}
    hashes: dict[str, dict[str, str]] = {}
    is_llm: dict[str, bool] = {}
    agentic_models, agentic_hashes, llm = _context_description(config)
    for arm in arms:
        if arm not in ARMS:
            raise InputError(f"--arm: unknown arm {arm!r}", f"use one of {', '.join(ARMS)}")
        if arm == "agentic":
            models[arm], hashes[arm], is_llm[arm] = agentic_models, agentic_hashes, llm
        else:
            from adjudicator.config import is_offline

            if is_offline(getattr(config, "model", None)):
                raise InputError(
                    "--arm single-call: the CCDB single-call protocol needs a language model, but the model is the offline judge",
                    "give --model (e.g. --model deepseek/deepseek-chat, or --model openai/NAME --api-base URL)",
                )
            models[arm], hashes[arm] = _single_call_description(config)
            is_llm[arm] = True
    return models, hashes, is_llm


# ---------------------------------------------------------------------------------------------
# planning


def _session_number(run_dir: Path) -> int:
    path = run_dir / SESSIONS
    if not path.exists():
        return 1
    with path.open(encoding="utf-8") as fh:
        return 1 + sum(1 for line in fh if '"event": "start"' in line or '"event":"start"' in line)


DEFAULT_SEED = 0
DEFAULT_BOOTSTRAP = 2000


@dataclass(frozen=True)
class RunSettings:
    """The settings a session actually uses: ``limit`` (None = all samples), ``seed`` (baselines and
    bootstrap), ``n_bootstrap`` (resamples per interval) and ``changed``, field -> ``{"from", "to"}``
    for every value a resumed session changed (recorded in sessions.jsonl)."""

    limit: int | None
    seed: int
    n_bootstrap: int
    changed: dict[str, dict[str, Any]] = field(default_factory=dict)


def manifest_seed(manifest: Manifest) -> int:
    """The run's seed (baselines and bootstrap share it), 0 when the manifest has none."""
    return int(manifest.seeds.get("baselines", DEFAULT_SEED))


def check_seed(manifest: Manifest, seed: int | None, run_dir: Path) -> int:
    """The seed a resumed run (or a report rebuild) uses: the manifest's, when ``seed`` is None or
    equal to it. Raises InputError for a different seed: the reports would no longer match the
    manifest, and the run's baseline draws would change between sessions."""
    kept = manifest_seed(manifest)
    if seed is not None and seed != kept:
        raise InputError(
            f"--seed: run {run_dir.name} was started with seed {kept}; a resumed run keeps its seed (got --seed {seed})",
            f"drop --seed (or give --seed {kept}), or start a new run with another --name",
        )
    return kept


def resumed_settings(manifest: Manifest, opts: BenchOptions, n_samples: int, run_dir: Path) -> RunSettings:
    """The rule for a resumed run (``--resume`` / ``--retry-errors``): it keeps its manifest's limit,
    seed and bootstrap count unless the user passes them explicitly.

    - ``--seed``: a different value is refused (InputError, exit 2; see :func:`check_seed`).
    - ``--limit``: one that selects fewer samples than the run already has is refused; one that
      selects more grows the run (recorded in the manifest's ``amendments`` and ``changed``); one
      that selects the same samples changes nothing.
    - ``--bootstrap``: a different count is used for this session's reports and recorded in
      ``changed`` (it only changes the intervals' resolution, not a prediction or a draw).
    ``n_samples`` is the dataset's size."""
    seed = check_seed(manifest, opts.seed, run_dir)
    changed: dict[str, dict[str, Any]] = {}
    limit = manifest.limit
    if opts.limit is not None:
        before = n_samples if manifest.limit is None else min(manifest.limit, n_samples)
        after = min(opts.limit, n_samples)
        if after < before:
            was = f"--limit {manifest.limit}" if manifest.limit is not None else "no --limit (all samples)"
            raise InputError(
                f"--limit: run {run_dir.name} was started with {was}; a resumed run cannot shrink to --limit {opts.limit}",
                f"drop --limit to keep {before} samples, give a larger one to grow the run, or start a new run with another --name",
            )
        if after > before:
            limit = opts.limit
            changed["limit"] = {"from": manifest.limit, "to": opts.limit}
    kept_b = int(manifest.options.get("n_bootstrap", DEFAULT_BOOTSTRAP))
    n_bootstrap = kept_b if opts.n_bootstrap is None else opts.n_bootstrap
    if n_bootstrap != kept_b:
        changed["n_bootstrap"] = {"from": kept_b, "to": n_bootstrap}
    return RunSettings(limit, seed, n_bootstrap, changed)


def _open_run(opts: BenchOptions) -> tuple[Path, Manifest, Dataset, list[str], int, RunSettings, Any]:
    """Create or reopen the run folder; returns (run_dir, manifest, dataset, arms, session, settings,
    config), ``config`` the model configuration the session runs with (a resumed run's adopts its
    manifest's settings, see :class:`BenchOptions`)."""
    check_run_name(opts.name)
    if opts.concurrency < 1:
        raise InputError(f"--concurrency: must be at least 1, got {opts.concurrency}")
    if opts.limit is not None and opts.limit < 1:
        raise InputError(f"--limit: must be at least 1, got {opts.limit}")
    if opts.budget_usd is not None and opts.budget_usd < 0:
        raise InputError(f"--budget-usd: must be 0 or more, got {opts.budget_usd}")
    if opts.max_errors is not None and opts.max_errors < 1:
        raise InputError(f"--max-errors: must be at least 1, got {opts.max_errors}")
    cfg = config_dict(opts.config)
    if opts.resume or opts.retry_errors:
        run_dir = latest_run_dir(opts.runs_dir, opts.name)
        if run_dir is None:
            raise InputError(f"--resume: no run named {opts.name!r} under {opts.runs_dir}", "start it first without --resume (or check --runs-dir)")
        manifest = read_manifest(run_dir)
        arms = list(opts.arms) if opts.arms else list(manifest.arms)
        if arms != list(manifest.arms):
            raise InputError(f"--arm: run {run_dir.name} was started with arms {', '.join(manifest.arms)}", "resume with the same --arm options, or start a new run with another --name")
        config, adopted = adopt_manifest_config(opts.config, manifest.config, opts.explicit_model_fields)
        cfg = config_dict(config)
        diff = first_difference(identity(cfg), identity(manifest.config))
        if diff is not None:
            raise InputError(
                f"--resume: the model configuration differs from run {run_dir.name} in {diff!r} ({manifest.config.get(diff)!r} then, {cfg.get(diff)!r} now)",
                "resume with the same model options (or none: the run's own are used), or start a new run with another --name",
            )
        dataset = load_dataset(opts.dataset, convert_into=run_dir / DATASET, reuse=True, label_convention=opts.label_convention)
        if dataset.sha256 != manifest.dataset.get("sha256"):
            raise InputError(f"{opts.dataset}: the dataset changed since run {run_dir.name} started (hash differs)", "resume with the same dataset, or start a new run")
        describe_arms(arms, config)  # same validation as a new run
        if adopted:
            taken = ", ".join(f"{k} {v['to']!r}" for k, v in adopted.items())
            _echo(f"note: using the run's model settings from manifest.json: {taken} (give the option explicitly to check it instead)")
        session = _session_number(run_dir)
        settings = resumed_settings(manifest, opts, len(dataset.samples), run_dir)
        remove_stale_temp_files(run_dir)
        if "limit" in settings.changed:  # the run grows: the manifest says so before any new call
            entry = {"session": session, "at": iso(utc_now()), "field": "limit", **settings.changed["limit"]}
            manifest = manifest.model_copy(update={"limit": settings.limit, "amendments": [*manifest.amendments, entry]})
            write_manifest(run_dir, manifest)
        return run_dir, manifest, dataset, arms, session, settings, config

    settings = RunSettings(
        opts.limit,
        DEFAULT_SEED if opts.seed is None else opts.seed,
        DEFAULT_BOOTSTRAP if opts.n_bootstrap is None else opts.n_bootstrap,
    )
    arms = list(opts.arms) if opts.arms else list(DEFAULT_ARMS)
    if len(set(arms)) != len(arms):
        raise InputError("--arm: an arm is listed twice", "give each arm once")
    models, hashes, is_llm = describe_arms(arms, opts.config)
    # validate the dataset before creating anything (upstream PanelBench is converted in a scratch folder)
    src = Path(opts.dataset)
    from adjudicator.bench.dataset import is_upstream_panelbench

    upstream = src.is_dir() and is_upstream_panelbench(src)
    if not upstream:
        dataset = load_dataset(src, label_convention=opts.label_convention)
    run_dir = new_run_dir(opts.runs_dir, opts.name)
    try:
        if upstream:
            dataset = load_dataset(src, convert_into=run_dir / DATASET, label_convention=opts.label_convention)
        python, plat = runtime_description()
        manifest = Manifest(
            run_id=run_dir.name,
            name=opts.name,
            created_at=iso(utc_now()),
            command=list(opts.command),
            arms=arms,
            config=cfg,
            models=models,
            is_llm=is_llm,
            prompt_hashes=hashes,
            prompt_files=prompt_file_hashes(),
            dataset=dataset.describe(),
            limit=opts.limit,
            options={
                "concurrency": opts.concurrency,
                "budget_usd": opts.budget_usd,
                "max_errors": opts.max_errors,
                "n_bootstrap": settings.n_bootstrap,
                "runs_dir": str(opts.runs_dir),
            },
            seeds={"baselines": settings.seed, "bootstrap": settings.seed},
            packages=package_versions(),
            python=python,
            platform=plat,
            git=git_info(),
        )
        write_manifest(run_dir, manifest)
    except BaseException:
        # nothing was run: do not leave a half-made run folder behind
        import shutil

        shutil.rmtree(run_dir, ignore_errors=True)
        raise
    return run_dir, manifest, dataset, arms, 1, settings, opts.config


def plan(run_dir: Path, samples: list[Sample], arms: list[str], retry_errors: bool) -> tuple[list[Task], int, dict[tuple[str, str], SampleResult]]:
    """The (sample, arm) tasks still to run, the number skipped as done, and the existing results.

    Raises InputError when a stored result belongs to different match content (the file changed)."""
    todo: list[Task] = []
    skipped = 0
    existing: dict[tuple[str, str], SampleResult] = {}
    for s in samples:
        for arm in arms:
            res = read_result(result_path(run_dir, arm, s.stem))
            if res is not None:
                if res.sample_sha256 != s.sha256:
                    raise InputError(f"{s.path}: changed since its result in {run_dir.name} was written", "restore the file or start a new run")
                existing[(s.sample_id, arm)] = res
                if res.status == "ok" or not retry_errors:  # --retry-errors reruns partial and failed
                    skipped += 1
                    continue
            todo.append(Task(s, arm))
    return todo, skipped, existing


# ---------------------------------------------------------------------------------------------
# running


def _run_task(run_dir: Path, task: Task, config: Any, session: int) -> SampleResult:
    """Run one task and write its result file (moving a replaced failed result to superseded/)."""
    from adjudicator.bench.execute import execute_sample

    path = result_path(run_dir, task.arm, task.sample.stem)
    moved: list[str] = []
    old = path if path.exists() else None
    target = None
    if old is not None:
        sdir = superseded_dir(run_dir, task.arm)
        k = 1 + len(list(sdir.glob(f"{task.sample.stem}.*.json"))) if sdir.is_dir() else 1
        target = sdir / f"{task.sample.stem}.{k}.json"
        prior = read_result(old)
        moved = [*(prior.superseded if prior else []), str(target.relative_to(run_dir))]
    result = execute_sample(task.sample.match, task.arm, config, sample_sha256=task.sample.sha256, session=session, superseded=moved)
    if old is not None and target is not None:
        move_file(old, target)
    write_result(path, result)
    return result


def _progress(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc="bench", unit="sample", file=sys.stderr, disable=not enabled or total == 0, dynamic_ncols=True, mininterval=0.2)


def write_status(run_dir: Path, **fields: Any) -> None:
    """Write ``status.json`` atomically with ``updated_at``."""
    atomic_write_json(run_dir / STATUS, {**fields, "updated_at": iso(utc_now())})


def read_status(run_dir: Path) -> dict[str, Any] | None:
    """The run's status, or None when it has none yet."""
    path = run_dir / STATUS
    return read_json(path) if path.exists() else None


def summary_lines(ledger: Ledger, ran: int, skipped: int, failed_now: int) -> list[str]:
    """The end-of-session lines for stderr: one per arm (samples ok / partial / failed, requests,
    cache hits, tokens, spend as :func:`~adjudicator.bench.ledger.cost_text`), then this session's counts."""
    from adjudicator.bench.ledger import cost_text

    lines = []
    for arm, a in ledger.as_dict()["arms"].items():
        lines.append(
            f"{arm}: {a['samples_ok']} ok, {a['samples_partial']} partial, {a['samples_failed']} failed; {a['requests']} model requests, "
            f"{a['cache_hits']} cache hits, {a['prompt_tokens']}+{a['completion_tokens']} tokens, cost {cost_text(a)}"
        )
    lines.append(f"this session: {ran} sample(s) run, {skipped} already finished, {failed_now} failed or partial")
    return lines


def _cause_text(cause: str | None) -> str:
    return f"; first cause: {' '.join(cause.split())[:300]}" if cause else ""


def run_bench(opts: BenchOptions, *, on_result: Callable[[SampleResult], None] | None = None) -> BenchOutcome:
    """Run (or resume) a benchmark; see the module docstring. Returns the outcome when the run is
    ``complete``; otherwise (a stop for the budget, ``--max-errors`` or an unreachable server, or an
    arm without a single verdict in this session) raises BudgetExceeded / AdjudicationFailed (exit 1)
    after writing the status, the summary on stderr and the reports; InputError (exit 2) for bad
    options or data before any model call."""
    run_dir, manifest, dataset, arms, session, settings, config = _open_run(opts)
    samples = dataset.limited(settings.limit)
    todo, skipped, existing = plan(run_dir, samples, arms, opts.retry_errors)

    ledger = Ledger()
    for res in existing.values():
        ledger.add(res, superseded=opts.retry_errors and res.status != "ok")
    for arm in arms:
        for f in sorted(superseded_dir(run_dir, arm).glob("*.json")) if superseded_dir(run_dir, arm).is_dir() else []:
            old = read_result(f)
            if old is not None:
                ledger.add(old, superseded=True)

    append_json_line(
        run_dir / SESSIONS,
        {"event": "start", "session": session, "at": iso(utc_now()), "command": list(opts.command), "pid": os.getpid(), "to_run": len(todo), "skipped": skipped,
         "limit": settings.limit, "seed": settings.seed, "n_bootstrap": settings.n_bootstrap, "budget_usd": opts.budget_usd, "max_errors": opts.max_errors,
         "retry_errors": opts.retry_errors, "concurrency": opts.concurrency, **({"changed": settings.changed} if settings.changed else {})},
    )
    write_status(run_dir, state="running", reason=None, session=session, pid=os.getpid(), to_run=len(todo), done=0)
    verb = "resuming" if session > 1 else "starting"
    _echo(f"{verb} run {run_dir} (session {session}): {len(samples)} samples x {len(arms)} arm(s); {len(todo)} to run, {skipped} already finished")
    for name, ch in settings.changed.items():
        _echo(f"note: {name} changed from {ch['from']} to {ch['to']} for this run (recorded in sessions.jsonl{' and manifest.json' if name == 'limit' else ''})")
    warned = opts.budget_usd is not None and ledger.unpriced_requests > 0
    if warned:
        _echo("warning: some requests have no known price; --budget-usd counts priced requests only")

    reason: str | None = None
    message = ""
    failed_now = ran = 0
    streak = 0  # samples in a row (finishing order) that failed without the model answering
    streak_cause: str | None = None
    per_arm: dict[str, list[int]] = {}  # arm -> [samples run this session, of which with a verdict]
    first_failure: dict[str, str | None] = {}  # arm -> first cause of this session's failed samples
    lock = threading.Lock()
    bar = _progress(len(todo), opts.progress)
    in_flight: set[Future] = set()
    interrupted = False
    ex = ThreadPoolExecutor(max_workers=opts.concurrency, thread_name_prefix="bench")

    queue = list(todo)

    def fill() -> None:
        """Start tasks until the concurrency is used up; the budget is checked before each start.
        While the latest finished sample failed unreachable (``streak`` > 0), a new sample starts only
        when none is in flight, so a dead server is probed one sample at a time."""
        nonlocal reason
        while len(in_flight) < opts.concurrency and queue and reason is None:
            if streak and in_flight:
                return
            if ledger.over_budget(opts.budget_usd):
                reason = "budget"
                return
            in_flight.add(ex.submit(_run_task, run_dir, queue.pop(0), config, session))

    try:
        fill()
        while in_flight:
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            for fut in done:
                in_flight.discard(fut)
                result = fut.result()  # ConfigError (every sample would fail alike) propagates
                with lock:
                    ran += 1
                    ledger.add(result)
                    counts = per_arm.setdefault(result.arm, [0, 0])
                    counts[0] += 1
                    if result.status != "failed":
                        counts[1] += 1
                    if result.status != "ok":
                        failed_now += 1
                        cause = first_cause(list(result.failures))
                        first_failure.setdefault(result.arm, cause or result.error)
                        shown = result.error or ""
                        extra = f" (cause: {' '.join(cause.split())[:300]})" if cause and cause not in shown else ""
                        bar.write(f"failed: {result.arm} {result.sample_id}: {shown[:500]}{extra}", file=sys.stderr)
                        if opts.max_errors is not None and failed_now >= opts.max_errors and reason is None:
                            reason = "max-errors"
                    if is_unreachable(result):
                        streak += 1
                        streak_cause = streak_cause or first_cause(list(result.failures))
                        if streak >= UNREACHABLE_STREAK and reason is None:
                            reason = "unreachable"
                    else:
                        streak, streak_cause = 0, None
                if opts.budget_usd is not None and not warned and ledger.unpriced_requests:
                    warned = True
                    bar.write("warning: some requests have no known price; --budget-usd counts priced requests only", file=sys.stderr)
                if on_result is not None:
                    on_result(result)
                bar.set_postfix_str(f"${ledger.total_cost_usd:.4f} errors={failed_now}", refresh=False)
                bar.update(1)
            fill()
    except KeyboardInterrupt:
        interrupted = True
        reason = "interrupted"
        ex.shutdown(wait=False, cancel_futures=True)
        raise
    except BaseException:
        ex.shutdown(wait=False, cancel_futures=True)
        write_status(run_dir, state="failed", reason="error", session=session, pid=os.getpid())
        raise
    finally:
        bar.close()
        if not interrupted:
            ex.shutdown(wait=True)
        if interrupted:
            pending = len(todo) - ran
            write_status(run_dir, state="interrupted", reason="interrupted", session=session, pid=os.getpid(), pending=pending, ledger=ledger.as_dict())
            append_json_line(run_dir / SESSIONS, {"event": "end", "session": session, "at": iso(utc_now()), "state": "interrupted", "ran": ran, "failed": failed_now})

    pending = len(todo) - ran
    dead_arms = [a for a in arms if a in per_arm and per_arm[a][0] > 0 and per_arm[a][1] == 0]
    if reason is None and pending == 0:
        state = "complete"
        if dead_arms:
            state, reason = "finished with errors", "no-sample-succeeded"
    else:
        state = "stopped"
    not_run = f"{pending} sample(s) not run; " if pending else ""
    if reason == "budget":
        message = (
            f"stopped: budget of ${opts.budget_usd:.4f} reached (spent ${ledger.total_cost_usd:.4f}); {not_run}"
            f"finished samples are kept in {run_dir}"
        )
    elif reason == "max-errors":
        message = f"stopped: {failed_now} failed sample(s) reached --max-errors {opts.max_errors}{_cause_text(next(iter(first_failure.values()), None))}; {not_run}see {run_dir}"
    elif reason == "unreachable":
        message = (
            f"stopped: {UNREACHABLE_STREAK} samples in a row failed without the model answering (server unreachable or refusing)"
            f"{_cause_text(streak_cause)}; {not_run}the run is kept in {run_dir}"
        )
    elif reason == "no-sample-succeeded":
        parts = [f"{a} ({per_arm[a][0]} failed{_cause_text(first_failure.get(a))})" for a in dead_arms]
        message = f"no sample succeeded in this session for arm {'; '.join(parts)}; the run is kept in {run_dir}"
    write_status(run_dir, state=state, reason=reason, message=message or None, session=session, pid=os.getpid(), pending=pending, ledger=ledger.as_dict())
    append_json_line(run_dir / SESSIONS, {"event": "end", "session": session, "at": iso(utc_now()), "state": state, "reason": reason, "ran": ran, "failed": failed_now, "pending": pending})

    outcome = BenchOutcome(run_dir, state, reason, session, ran, skipped, failed_now, pending, ledger, message=message)
    for line in summary_lines(ledger, ran, skipped, failed_now):
        _echo(line)
    if opts.reports:
        from adjudicator.bench.report import write_reports

        outcome.reports = write_reports(
            run_dir, samples=samples, n_bootstrap=settings.n_bootstrap, seed=settings.seed, status={"state": state, "reason": reason, "pending": pending, "message": message or None}
        )
        _echo("reports: " + ", ".join(str(p) for p in outcome.reports.values()))
    again = f"adjudicate bench {opts.dataset} --name {opts.name}"
    if reason == "budget":
        raise BudgetExceeded(message, f"resume with a higher budget: {again} --resume --budget-usd AMOUNT")
    if reason == "max-errors":
        raise AdjudicationFailed(message, f"fix the cause, then rerun the failed ones: {again} --retry-errors")
    if reason == "unreachable":
        raise AdjudicationFailed(message, f"check the model server, --api-base and the API key, then continue: {again} --retry-errors")
    if reason == "no-sample-succeeded":
        raise AdjudicationFailed(message, f"fix the cause, then rerun the failed ones: {again} --retry-errors")
    return outcome

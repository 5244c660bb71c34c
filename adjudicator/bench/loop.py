"""Plan a session's work and run it: every pending (sample, arm) with bounded concurrency, the ledger
kept as samples finish, no new sample started once a stop is due.

- Plan (:func:`plan`): a (sample, arm) with an ``ok`` result file is done and is never run or billed
  again; one with a ``failed`` (or ``partial``) result is rerun only under ``--retry-errors`` (the old
  file moves to ``superseded/``); one without a file (never started, or in flight when the run was
  killed) runs.
- Ledger (:func:`opening_ledger`): rebuilt from the result files on disk, superseded ones included,
  plus the logged requests of samples that left no result (killed in flight), then updated as
  samples finish (see :mod:`adjudicator.bench.ledger` and :mod:`adjudicator.bench.requests`).
- Run (:class:`SampleLoop`): at most ``--concurrency`` samples at a time (threads), each isolated
  (see execute.py), each result written atomically as soon as it finishes, each model request
  logged before it is sent. Before each sample starts, the budget (counting the spend of the
  samples in flight) and the early stops of :mod:`adjudicator.bench.stops` are checked; once one is
  due, no new sample starts and those in flight finish. On Ctrl-C, SIGTERM or an unexpected error
  the loop abandons the samples in flight: their threads may not send another request nor write a
  result file (they cannot be stopped mid-request, but once the loop has given up nothing of theirs
  reaches the run folder but the request log's lines for replies still arriving), their spend so far
  joins the ledger, and the error propagates to the runner, which records the session's end.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adjudicator.bench.dataset import Sample
from adjudicator.bench.ledger import Ledger
from adjudicator.bench.prompt_store import store_prompts, texts_of
from adjudicator.bench.requests import RequestLog, unfinished_spend
from adjudicator.bench.results import SampleResult, read_result, result_path, superseded_dir, write_result
from adjudicator.bench.session import BenchOptions
from adjudicator.bench.stops import SessionTally
from adjudicator.errors import InputError
from adjudicator.files import move_file

if TYPE_CHECKING:
    from adjudicator.bench.rejudge import Parent

BUDGET_WARNING = "warning: some requests have no known price; --budget-usd counts priced requests only"


@dataclass(frozen=True)
class Task:
    """One pending unit of work: a sample under an arm."""

    sample: Sample
    arm: str


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


def opening_ledger(run_dir: Path, arms: list[str], existing: dict[tuple[str, str], SampleResult], retry_errors: bool) -> Ledger:
    """The ledger before this session runs anything: every existing result (one about to be rerun
    under ``--retry-errors`` counts as superseded), every superseded result file, and the logged
    requests of every sample that wrote no result in the session that sent them."""
    ledger = Ledger()
    finished: set[tuple[str, str, int]] = set()
    for res in existing.values():
        ledger.add(res, superseded=retry_errors and res.status != "ok")
        finished.add((res.arm, res.sample_id, res.session))
    for arm in arms:
        sdir = superseded_dir(run_dir, arm)
        for f in sorted(sdir.glob("*.json")) if sdir.is_dir() else []:
            old = read_result(f)
            if old is not None:
                ledger.add(old, superseded=True)
                finished.add((old.arm, old.sample_id, old.session))
    ledger.add_unfinished(unfinished_spend(run_dir, finished))
    return ledger


def run_task(
    run_dir: Path, task: Task, config: Any, session: int, parent: Parent | None = None, observer: Any | None = None,
    gate: Callable[[Callable[[], None]], bool] | None = None, result_cache: bool = True, cache: Any | None = None,
) -> SampleResult:
    """Run one task and write its result file (moving a replaced failed result to superseded/).
    In a re-judge run (``parent``), the tracker's seat goes to the parent's tracker outputs for the
    sample (:func:`~adjudicator.bench.rejudge.reused_tracker`); a sample the parent has no result
    for fails without a request. ``observer`` is told about every model request (the run's request
    log); ``gate`` runs the write and returns False, writing nothing, once the session has abandoned
    its samples (None: always write); ``result_cache`` False keeps the sample off the result cache
    (:mod:`adjudicator.bench.result_cache`); ``cache`` the session's open response cache (None: the
    sample opens its own)."""
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
    tracker, not_run = None, None
    if parent is not None:
        from adjudicator.bench.rejudge import parent_result, reused_tracker

        prior_run = parent_result(parent, task.sample.stem)
        if prior_run is None:
            not_run = f"no agentic result in parent run {parent.run_dir.name} for this sample; finish the parent (--resume) first, then --retry-errors here"
        else:
            tracker = reused_tracker(parent, prior_run)
    result = execute_sample(
        task.sample.match, task.arm, config, sample_sha256=task.sample.sha256, session=session, superseded=moved, tracker=tracker, not_run=not_run,
        observer=observer, result_cache=result_cache, cache=cache,
    )

    def write() -> None:
        store_prompts(run_dir, texts_of(result.calls))  # before the result that names them
        if old is not None and target is not None:
            move_file(old, target)
        write_result(path, result)

    if gate is None:
        write()
    else:
        gate(write)
    return result


class SampleLoop:
    """Run ``tasks`` of session ``session`` under ``opts`` (concurrency, budget, error limit, progress
    bar), folding each result into ``ledger`` and a :class:`~adjudicator.bench.stops.SessionTally`.

    ``warned``: the unpriced-requests warning was already shown; ``on_result`` is called with each
    result as it finishes (in the calling thread); ``parent`` the run a re-judge run reuses the
    tracker outputs of (see :func:`run_task`)."""

    def __init__(
        self, run_dir: Path, tasks: list[Task], config: Any, session: int, opts: BenchOptions, ledger: Ledger,
        *, warned: bool = False, on_result: Callable[[SampleResult], None] | None = None, parent: Parent | None = None,
    ) -> None:
        self.run_dir, self.config, self.session, self.opts, self.ledger = run_dir, config, session, opts, ledger
        self.total = len(tasks)
        self.queue = list(tasks)
        self.warned = warned
        self.on_result = on_result
        self.parent = parent
        self.tally = SessionTally()
        self.in_flight: set[Future[SampleResult]] = set()
        self.requests = RequestLog(run_dir, session)
        self._gate = threading.Lock()
        self._abandoned = False
        self.written = 0  # result files this session wrote (a sample may be written before it is folded in)
        self.cache: Any | None = None  # the response cache the samples share for their result-cache lookups (opened by run)
        self.bar: Any | None = None  # the progress bar while run() runs (adjudicator.bench.progress_bar.SampleBar)
        self._said_sent = False
        self._done = 0  # samples folded in this session

    def _fill(self, ex: ThreadPoolExecutor) -> None:
        """Start tasks until the concurrency is used up; the budget is checked before each start.
        While the latest finished sample failed unreachable (``streak`` > 0), a new sample starts only
        when none is in flight, so a dead server is probed one sample at a time."""
        while len(self.in_flight) < self.opts.concurrency and self.queue and self.tally.reason is None:
            if self.tally.streak and self.in_flight:
                return
            if self.ledger.over_budget(self.opts.budget_usd, self.requests.in_flight_cost_usd()):
                self.tally.reason = "budget"
                return
            task = self.queue.pop(0)
            observer = self.requests.for_sample(task.arm, task.sample.sample_id)
            self.in_flight.add(ex.submit(run_task, self.run_dir, task, self.config, self.session, self.parent, observer, self._write_unless_abandoned,
                                         self.opts.result_cache, self.cache))

    def _finished(self, result: SampleResult, bar: Any) -> None:
        """Fold one finished sample in: ledger, tally (and its ``failed:`` line), the unpriced
        warning once, the callback, the progress bar."""
        self.ledger.add(result)
        self.requests.settle_sample(result.arm, result.sample_id)
        line = self.tally.record(result, self.opts.max_errors)
        if line is not None:
            bar.write(line)
        if self.opts.budget_usd is not None and not self.warned and self.ledger.unpriced_requests:
            self.warned = True
            bar.write(BUDGET_WARNING)
        if self.on_result is not None:
            self.on_result(result)
        bar.advance()
        self._done += 1
        self._requests_moved(self.requests)

    def _requests_moved(self, log: RequestLog) -> None:
        """The bar's status after a request was sent or settled (or a sample finished): what is under
        way before the first reply (a line each, so a log without the bar says it too), then the
        spend, ``unknown`` where no price is known (:func:`~adjudicator.bench.progress_bar.spend_text`)."""
        from adjudicator.bench.progress_bar import spend_text

        bar = self.bar
        if bar is None:
            return
        if log.sent_count and not self._said_sent:
            self._said_sent = True
            bar.write("bench: the model client is loaded; the first request is out, waiting for its reply")
            bar.status("waiting for the first model reply")
        if log.settled_count == 0 and self._done == 0:
            return
        if log.sent_count == 0:
            bar.status(f"no model requests; errors {self.tally.failed_now}")
            return
        flying = log.in_flight().values()
        spend = spend_text(self.ledger.total_cost_usd + log.in_flight_cost_usd(), self.ledger.unpriced_requests + sum(sp.unpriced_requests for sp in flying),
                           self.ledger.priced_requests + sum(sp.priced_requests for sp in flying))
        bar.status(f"{spend}; {log.sent_count} requests; errors {self.tally.failed_now}")

    def _write_unless_abandoned(self, write: Callable[[], None]) -> bool:
        """Run ``write`` (a sample's result file) unless the loop has abandoned its samples."""
        with self._gate:
            if self._abandoned:
                return False
            write()
            self.written += 1
            return True

    def _abandon(self) -> None:
        """Give up the samples in flight: no result file of theirs is written from now on (a write
        under way finishes first), no new request of theirs is sent, and what they spent so far joins
        the ledger as unfinished."""
        with self._gate:
            self._abandoned = True
        self.requests.close()
        self.ledger.add_unfinished(self.requests.in_flight())

    @property
    def pending(self) -> int:
        """Planned samples of this session that wrote no result file."""
        return self.total - self.written

    def run(self) -> SessionTally:
        """Run every task (or until a stop is due) and return the tally. A ConfigError from a sample
        (every sample would fail alike), KeyboardInterrupt (Ctrl-C, SIGTERM) and unexpected errors
        propagate after the samples in flight are abandoned (module docstring)."""
        from adjudicator.bench.progress_bar import SampleBar

        models = self.opts.progress and self.total > 0 and self._uses_models()
        bar = self.bar = SampleBar(self.total, self.opts.progress, status="starting the model client" if models else "judging")
        if models:
            bar.write("bench: starting the model client (litellm loads before the first request: 10-30 s on a busy machine)")
        self.requests.listener = self._requests_moved
        ex = ThreadPoolExecutor(max_workers=self.opts.concurrency, thread_name_prefix="bench")
        try:
            self.cache = self._shared_cache()
            self._fill(ex)
            while self.in_flight:
                done, _ = wait(self.in_flight, return_when=FIRST_COMPLETED)
                for fut in done:
                    self.in_flight.discard(fut)
                    self._finished(fut.result(), bar)  # ConfigError (every sample would fail alike) propagates
                self._fill(ex)
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                self.tally.reason = "interrupted"
            self._abandon()
            ex.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            bar.close()
        ex.shutdown(wait=True)
        if self.cache is not None:
            self.cache.close()
        return self.tally

    def _uses_models(self) -> bool:
        """Whether a planned sample's arm is judged by a model (not the offline judge alone)."""
        from adjudicator.bench.arms import describe_arms

        return any(describe_arms(sorted({t.arm for t in self.queue}), self.config)[2].values())

    def _shared_cache(self) -> Any | None:
        """The response cache opened once for the session's result-cache lookups, when a planned
        sample may use the result cache (:func:`~adjudicator.bench.result_cache.eligible`); None
        otherwise. Raises ConfigError for an unusable ``--cache-dir``, as the first sample would."""
        from adjudicator.bench.result_cache import eligible

        if not self.opts.result_cache or self.parent is not None or not any(eligible(self.config, t.arm) for t in self.queue):
            return None
        from adjudicator.api import open_cache

        return open_cache(self.config)

"""Plan a session's work and run it: every pending (sample, arm) with bounded concurrency, the ledger
kept as samples finish, no new sample started once a stop is due.

- Plan (:func:`plan`): a (sample, arm) with an ``ok`` result file is done and is never run or billed
  again; one with a ``failed`` (or ``partial``) result is rerun only under ``--retry-errors`` (the old
  file moves to ``superseded/``); one without a file (never started, or in flight when the run was
  killed) runs.
- Ledger (:func:`opening_ledger`): rebuilt from the result files on disk, superseded ones included,
  then updated as samples finish (see :mod:`adjudicator.bench.ledger`).
- Run (:class:`SampleLoop`): at most ``--concurrency`` samples at a time (threads), each isolated
  (see execute.py), each result written atomically as soon as it finishes. Before each sample
  starts, the budget and the early stops of :mod:`adjudicator.bench.stops` are checked; once one is
  due, no new sample starts and those in flight finish. Ctrl-C records the session as
  ``interrupted``; an unexpected error as ``failed`` / ``error``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adjudicator.bench.dataset import Sample
from adjudicator.bench.ledger import Ledger
from adjudicator.bench.results import SampleResult, read_result, result_path, superseded_dir, write_result
from adjudicator.bench.session import BenchOptions
from adjudicator.bench.status import log_session_event, write_status
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
    under ``--retry-errors`` counts as superseded) and every superseded result file."""
    ledger = Ledger()
    for res in existing.values():
        ledger.add(res, superseded=retry_errors and res.status != "ok")
    for arm in arms:
        sdir = superseded_dir(run_dir, arm)
        for f in sorted(sdir.glob("*.json")) if sdir.is_dir() else []:
            old = read_result(f)
            if old is not None:
                ledger.add(old, superseded=True)
    return ledger


def run_task(run_dir: Path, task: Task, config: Any, session: int, parent: Parent | None = None) -> SampleResult:
    """Run one task and write its result file (moving a replaced failed result to superseded/).
    In a re-judge run (``parent``), the tracker's seat goes to the parent's tracker outputs for the
    sample (:func:`~adjudicator.bench.rejudge.reused_tracker`); a sample the parent has no result
    for fails without a request."""
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
        task.sample.match, task.arm, config, sample_sha256=task.sample.sha256, session=session, superseded=moved, tracker=tracker, not_run=not_run
    )
    if old is not None and target is not None:
        move_file(old, target)
    write_result(path, result)
    return result


def _progress(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc="bench", unit="sample", file=sys.stderr, disable=not enabled or total == 0, dynamic_ncols=True, mininterval=0.2)


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

    def _fill(self, ex: ThreadPoolExecutor) -> None:
        """Start tasks until the concurrency is used up; the budget is checked before each start.
        While the latest finished sample failed unreachable (``streak`` > 0), a new sample starts only
        when none is in flight, so a dead server is probed one sample at a time."""
        while len(self.in_flight) < self.opts.concurrency and self.queue and self.tally.reason is None:
            if self.tally.streak and self.in_flight:
                return
            if self.ledger.over_budget(self.opts.budget_usd):
                self.tally.reason = "budget"
                return
            self.in_flight.add(ex.submit(run_task, self.run_dir, self.queue.pop(0), self.config, self.session, self.parent))

    def _finished(self, result: SampleResult, bar: Any) -> None:
        """Fold one finished sample in: ledger, tally (and its ``failed:`` line), the unpriced
        warning once, the callback, the progress bar."""
        self.ledger.add(result)
        line = self.tally.record(result, self.opts.max_errors)
        if line is not None:
            bar.write(line, file=sys.stderr)
        if self.opts.budget_usd is not None and not self.warned and self.ledger.unpriced_requests:
            self.warned = True
            bar.write(BUDGET_WARNING, file=sys.stderr)
        if self.on_result is not None:
            self.on_result(result)
        bar.set_postfix_str(f"${self.ledger.total_cost_usd:.4f} errors={self.tally.failed_now}", refresh=False)
        bar.update(1)

    def _interrupted(self) -> None:
        """Record a Ctrl-C: status ``interrupted`` and the session's end event."""
        t = self.tally
        write_status(self.run_dir, state="interrupted", reason="interrupted", session=self.session, pid=os.getpid(), pending=self.total - t.ran, ledger=self.ledger.as_dict())
        log_session_event(self.run_dir, "end", self.session, state="interrupted", ran=t.ran, failed=t.failed_now)

    def run(self) -> SessionTally:
        """Run every task (or until a stop is due) and return the tally. A ConfigError from a sample
        (every sample would fail alike) and KeyboardInterrupt propagate, after the status is written."""
        bar = _progress(self.total, self.opts.progress)
        ex = ThreadPoolExecutor(max_workers=self.opts.concurrency, thread_name_prefix="bench")
        interrupted = False
        try:
            self._fill(ex)
            while self.in_flight:
                done, _ = wait(self.in_flight, return_when=FIRST_COMPLETED)
                for fut in done:
                    self.in_flight.discard(fut)
                    self._finished(fut.result(), bar)  # ConfigError (every sample would fail alike) propagates
                self._fill(ex)
        except KeyboardInterrupt:
            interrupted = True
            self.tally.reason = "interrupted"
            ex.shutdown(wait=False, cancel_futures=True)
            raise
        except BaseException:
            ex.shutdown(wait=False, cancel_futures=True)
            write_status(self.run_dir, state="failed", reason="error", session=self.session, pid=os.getpid())
            raise
        finally:
            bar.close()
            if interrupted:
                self._interrupted()
            else:
                ex.shutdown(wait=True)
        return self.tally

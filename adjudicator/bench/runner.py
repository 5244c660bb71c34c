"""The benchmark runner: open a session (new run or resumed), run every pending (sample, arm) with
bounded concurrency, keep the ledger, stop cleanly on budget or errors, then write the reports.

Flow of :func:`run_bench`, one module per step:

1. :mod:`adjudicator.bench.session`: create the run folder and its manifest, or reopen the latest
   run of the name with its manifest's model settings, limit, seed and bootstrap count.
2. :mod:`adjudicator.bench.loop`: plan (finished samples are never run or billed again), rebuild
   the ledger from the result files, run the pending samples concurrently, each isolated
   (:mod:`adjudicator.bench.execute`) and written as soon as it finishes
   (:mod:`adjudicator.bench.results`).
3. :mod:`adjudicator.bench.stops`: the early stops (budget, ``--max-errors``, an unreachable
   server), the end state and its message, the exit error.
4. :mod:`adjudicator.bench.status`: ``status.json`` and ``sessions.jsonl`` along the way, the
   summary on stderr.
5. with ``--probe``, once every sample is done: the bias probes (:mod:`adjudicator.probes`) on the
   run's matches, written to ``probes.json``.
6. :mod:`adjudicator.bench.report`: report.json, report.md, report.html over every finished sample
   of the selection.

The session holds the run folder's lock from step 1 to the end. ``status.json`` says what is true
after any exit: ``running`` while samples run, ``reporting`` (with the coming end state as
``outcome`` and ``"reports": "missing"``) while the reports are written, then the end state with
``"reports": "written"``; ``interrupted`` (reason ``interrupted`` for Ctrl-C, ``terminated`` for
SIGTERM/SIGHUP) or ``failed`` (reason ``error``) when the session stops early, with what is missing.
A ``kill -9`` cannot be recorded by the process that dies; the next session on the run records it
(``interrupted``, reason ``killed``; :func:`~adjudicator.bench.status.record_dead_session`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adjudicator.bench.ledger import Ledger
from adjudicator.bench.loop import BUDGET_WARNING, SampleLoop, Task, opening_ledger, plan
from adjudicator.bench.results import SampleResult
from adjudicator.bench.session import BenchOptions, Session, open_session
from adjudicator.bench.status import echo, log_session_event, summary_lines, write_status
from adjudicator.bench.stops import EndState, end_state, stop_error
from adjudicator.errors import Terminated
from adjudicator.input.match import Match


@dataclass
class BenchOutcome:
    """What a bench invocation did: the run folder, its final state (``complete``, ``finished with
    errors``, ``stopped``; see :mod:`adjudicator.bench.stops`), the reason (None, ``budget``,
    ``max-errors``, ``unreachable``, ``no-sample-succeeded``), counts of this invocation, the ledger,
    the report paths and the one-line message of a state other than ``complete``."""

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


def _log_start(s: Session, opts: BenchOptions, todo: list[Task], skipped: int, n_samples: int) -> None:
    """The session's start event and ``running`` status, and what it is about to do on stderr."""
    st = s.settings
    log_session_event(
        s.run_dir, "start", s.number,
        command=list(opts.command), pid=os.getpid(), to_run=len(todo), skipped=skipped, limit=st.limit, seed=st.seed, n_bootstrap=st.n_bootstrap,
        budget_usd=opts.budget_usd, max_errors=opts.max_errors, retry_errors=opts.retry_errors, concurrency=opts.concurrency,
        **({"changed": st.changed} if st.changed else {}),
    )
    write_status(s.run_dir, state="running", reason=None, session=s.number, pid=os.getpid(), to_run=len(todo), done=0)
    verb = "resuming" if s.number > 1 else "starting"
    echo(f"{verb} run {s.run_dir} (session {s.number}): {n_samples} samples x {len(s.arms)} arm(s); {len(todo)} to run, {skipped} already finished")
    for name, ch in st.changed.items():
        echo(f"note: {name} changed from {ch['from']} to {ch['to']} for this run (recorded in sessions.jsonl{' and manifest.json' if name == 'limit' else ''})")


def _log_end(s: Session, end: EndState, ran: int, failed_now: int, ledger: Ledger, reports: str) -> None:
    """The session's end state in ``status.json`` (``reports``: ``written`` or ``not requested``) and its end event."""
    write_status(s.run_dir, state=end.state, reason=end.reason, message=end.message or None, session=s.number, pid=os.getpid(), pending=end.pending,
                 reports=reports, ledger=ledger.as_dict())
    log_session_event(s.run_dir, "end", s.number, state=end.state, reason=end.reason, ran=ran, failed=failed_now, pending=end.pending, reports=reports)


def _log_abort(s: Session, exc: BaseException, loop: SampleLoop, ledger: Ledger, end: EndState | None) -> None:
    """A session stopped by Ctrl-C, SIGTERM/SIGHUP or an error, in the samples or while reporting:
    ``interrupted`` (reason ``interrupted`` / ``terminated``) or ``failed`` (reason ``error``) in
    ``status.json`` with the samples not run and ``"reports": "missing"``, and its end event."""
    if isinstance(exc, KeyboardInterrupt):
        state, reason = "interrupted", "terminated" if isinstance(exc, Terminated) else "interrupted"
        message = f"stopped by {exc.signal_name}" if isinstance(exc, Terminated) else "stopped by Ctrl-C"
    else:
        state, reason = "failed", "error"
        message = " ".join(f"{type(exc).__name__}: {exc}".split())[:500]
    extra = {"outcome": end.state, "outcome_reason": end.reason} if end is not None else {}
    write_status(s.run_dir, state=state, reason=reason, message=message, session=s.number, pid=os.getpid(), pending=loop.pending, reports="missing",
                 ledger=ledger.as_dict(), **extra)
    log_session_event(s.run_dir, "end", s.number, state=state, reason=reason, ran=loop.tally.ran, failed=loop.tally.failed_now, pending=loop.pending, reports="missing")


def run_bench_probes(run_dir: Path, matches: list[Match], config: Any, opts: BenchOptions) -> Path:
    """Run ``opts.probes`` on the run's matches with its model settings (the agentic panel; the base
    verdicts come from the response cache the run just filled) and write the bias card to
    ``probes.json``, which the reports embed. Returns its path."""
    from adjudicator.bench.layout import PROBES_JSON
    from adjudicator.files import atomic_write_json
    from adjudicator.probes.run import run_probes

    echo(f"probes: {', '.join(opts.probes)} on {len(matches)} matches")
    card = run_probes(matches, config, opts.probes, repeats=opts.probe_repeats, temperature=opts.probe_temperature)  # type: ignore[arg-type]
    path = run_dir / PROBES_JSON
    atomic_write_json(path, card.model_dump(mode="json"))
    return path


def run_bench(opts: BenchOptions, *, on_result: Callable[[SampleResult], None] | None = None) -> BenchOutcome:
    """Run (or resume) a benchmark; see the module docstring. Returns the outcome when the run is
    ``complete``; otherwise (a stop for the budget, ``--max-errors`` or an unreachable server, or an
    arm without a single verdict in this session) raises BudgetExceeded / AdjudicationFailed (exit 1)
    after writing the status, the summary on stderr and the reports; InputError (exit 2) for bad
    options or data before any model call."""
    s = open_session(opts)
    try:
        return _run_session(s, opts, on_result)
    finally:
        s.lock.release()


def _run_session(s: Session, opts: BenchOptions, on_result: Callable[[SampleResult], None] | None) -> BenchOutcome:
    """:func:`run_bench` once the session is open (and its run folder locked)."""
    samples = s.samples()  # scored; a --fold run also runs its calibration part (run_samples)
    to_run = s.run_samples()
    todo, skipped, existing = plan(s.run_dir, to_run, s.arms, opts.retry_errors)
    ledger = opening_ledger(s.run_dir, s.arms, existing, opts.retry_errors)
    _log_start(s, opts, todo, skipped, len(to_run))
    if len(to_run) > len(samples):
        echo(f"fold {(s.manifest.fold or {}).get('fold')}: {len(to_run) - len(samples)} training match(es) also run, to fit the calibration of p on the other folds only; "
             "they are never scored (--calibrate-on none skips them)")
    warned = opts.budget_usd is not None and ledger.unpriced_requests > 0
    if warned:
        echo(BUDGET_WARNING)

    loop = SampleLoop(s.run_dir, todo, s.config, s.number, opts, ledger, warned=warned, on_result=on_result, parent=s.parent)
    end: EndState | None = None
    try:
        tally = loop.run()
        end = end_state(tally, s.arms, len(todo) - tally.ran, s.run_dir, budget_usd=opts.budget_usd, spent_usd=ledger.total_cost_usd, max_errors=opts.max_errors)
        outcome = BenchOutcome(s.run_dir, end.state, end.reason, s.number, tally.ran, skipped, tally.failed_now, end.pending, ledger, message=end.message)
        for line in summary_lines(ledger, tally.ran, skipped, tally.failed_now):
            echo(line)
        if opts.probes and end.state == "complete":
            run_bench_probes(s.run_dir, [x.match for x in samples], s.config, opts)
        if opts.reports:
            from adjudicator.bench.report import write_reports

            write_status(s.run_dir, state="reporting", reason=None, outcome=end.state, outcome_reason=end.reason, session=s.number, pid=os.getpid(),
                         pending=end.pending, reports="missing", ledger=ledger.as_dict())
            status = {"state": end.state, "reason": end.reason, "pending": end.pending, "message": end.message or None}
            echo(f"writing reports: statistics with {s.settings.n_bootstrap} bootstrap resamples, plots, the sample viewer ...")  # the longest silent phase otherwise
            outcome.reports = write_reports(s.run_dir, samples=samples, n_bootstrap=s.settings.n_bootstrap, seed=s.settings.seed, status=status)
            echo("reports: " + ", ".join(str(p) for p in outcome.reports.values()))
        _log_end(s, end, tally.ran, tally.failed_now, ledger, "written" if opts.reports else "not requested")
    except BaseException as exc:
        _log_abort(s, exc, loop, ledger, end)
        raise
    source = str(opts.dataset) if opts.dataset is not None else f"--rejudge {opts.rejudge}"
    error = stop_error(end, f"adjudicate bench {source} --name {opts.name}")
    if error is not None:
        raise error
    return outcome

"""When a benchmark session stops, in which end state, with which message, and which error it exits with.

Early stops (checked before each new sample starts; samples in flight finish and are kept):

- ``budget``: the run's known spend reached ``--budget-usd`` (see :mod:`adjudicator.bench.ledger`).
- ``max-errors``: this session's failed or partial samples reached ``--max-errors``.
- ``unreachable``: when :data:`UNREACHABLE_STREAK` (3) samples in a row, in the order they finish
  in this session, failed without the model ever answering (every model call of the sample ended
  in a ``transport:`` or ``refused:`` failure: connection refused, time-out after the transport
  retries, or a non-retried error such as HTTP 401/404; see
  :func:`~adjudicator.bench.results.is_unreachable`), no new sample starts: every further sample
  would fail alike and pay the full transport backoff again. While the latest finished sample failed
  that way, a new sample starts only when none is in flight, so with ``--concurrency`` N >= 3 the
  stop comes after the first N samples, and with fewer after 3. The run stays resumable
  (``--retry-errors`` reruns the failed samples and runs the ones never started).

End states (``status.json``, the reports): ``complete`` when every planned sample ran and every arm
that ran samples in this session produced at least one verdict (ok or partial); ``finished with
errors`` (reason ``no-sample-succeeded``) when every planned sample ran but some arm produced no
verdict for any sample of this session; ``stopped`` (reason ``budget``, ``max-errors`` or
``unreachable``) when the run stopped early; ``interrupted`` on Ctrl-C.

Every end state but ``complete`` exits with code 1 after the status and reports are written: the
budget stop raises :class:`~adjudicator.errors.BudgetExceeded`, the others
:class:`~adjudicator.errors.AdjudicationFailed`, each with a one-line message naming the first
underlying failure (:func:`stop_error`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from adjudicator.bench.results import SampleResult, first_cause, is_unreachable
from adjudicator.errors import AdjudicationFailed, AdjudicatorError, BudgetExceeded

#: Samples in a row that failed without the model answering before the run stops (module docstring).
UNREACHABLE_STREAK = 3


@dataclass
class SessionTally:
    """What this session's samples did, in the order they finished: ``ran``, ``failed_now`` (failed
    or partial), ``reason`` the early stop once one is due (None while none is), ``streak`` samples
    in a row that failed unreachable and ``streak_cause`` the first cause of that streak,
    ``per_arm`` arm -> [samples run, of which with a verdict], ``first_failure`` arm -> first cause
    of its failed samples."""

    ran: int = 0
    failed_now: int = 0
    reason: str | None = None
    streak: int = 0
    streak_cause: str | None = None
    per_arm: dict[str, list[int]] = field(default_factory=dict)
    first_failure: dict[str, str | None] = field(default_factory=dict)

    def record(self, result: SampleResult, max_errors: int | None) -> str | None:
        """Count one finished sample and set ``reason`` when a stop is due (``max-errors``,
        ``unreachable``); returns the ``failed: ...`` line to show for a sample that is not ok."""
        self.ran += 1
        counts = self.per_arm.setdefault(result.arm, [0, 0])
        counts[0] += 1
        if result.status != "failed":
            counts[1] += 1
        line = None
        if result.status != "ok":
            self.failed_now += 1
            cause = first_cause(list(result.failures))
            self.first_failure.setdefault(result.arm, cause or result.error)
            shown = result.error or ""
            extra = f" (cause: {' '.join(cause.split())[:300]})" if cause and cause not in shown else ""
            line = f"failed: {result.arm} {result.sample_id}: {shown[:500]}{extra}"
            if max_errors is not None and self.failed_now >= max_errors and self.reason is None:
                self.reason = "max-errors"
        if is_unreachable(result):
            self.streak += 1
            self.streak_cause = self.streak_cause or first_cause(list(result.failures))
            if self.streak >= UNREACHABLE_STREAK and self.reason is None:
                self.reason = "unreachable"
        else:
            self.streak, self.streak_cause = 0, None
        return line


@dataclass(frozen=True)
class EndState:
    """How a session ended: ``state`` and ``reason`` (module docstring), ``pending`` planned samples
    not run, ``message`` the one-line explanation ("" when complete)."""

    state: str
    reason: str | None
    pending: int
    message: str = ""


def _cause_text(cause: str | None) -> str:
    return f"; first cause: {' '.join(cause.split())[:300]}" if cause else ""


def end_state(tally: SessionTally, arms: list[str], pending: int, run_dir: Path, *, budget_usd: float | None, spent_usd: float, max_errors: int | None) -> EndState:
    """The end state of a session that ran ``tally`` and left ``pending`` planned samples unrun;
    ``spent_usd`` is the run's known spend (for the budget message)."""
    reason = tally.reason
    dead_arms = [a for a in arms if a in tally.per_arm and tally.per_arm[a][0] > 0 and tally.per_arm[a][1] == 0]
    if reason is None and pending == 0:
        state = "complete"
        if dead_arms:
            state, reason = "finished with errors", "no-sample-succeeded"
    else:
        state = "stopped"
    not_run = f"{pending} sample(s) not run; " if pending else ""
    message = ""
    if reason == "budget":
        message = f"stopped: budget of ${budget_usd:.4f} reached (spent ${spent_usd:.4f}); {not_run}finished samples are kept in {run_dir}"
    elif reason == "max-errors":
        first = next(iter(tally.first_failure.values()), None)
        message = f"stopped: {tally.failed_now} failed sample(s) reached --max-errors {max_errors}{_cause_text(first)}; {not_run}see {run_dir}"
    elif reason == "unreachable":
        message = (
            f"stopped: {UNREACHABLE_STREAK} samples in a row failed without the model answering (server unreachable or refusing)"
            f"{_cause_text(tally.streak_cause)}; {not_run}the run is kept in {run_dir}"
        )
    elif reason == "no-sample-succeeded":
        parts = [f"{a} ({tally.per_arm[a][0]} failed{_cause_text(tally.first_failure.get(a))})" for a in dead_arms]
        message = f"no sample succeeded in this session for arm {'; '.join(parts)}; the run is kept in {run_dir}"
    return EndState(state, reason, pending, message)


def stop_error(end: EndState, again: str) -> AdjudicatorError | None:
    """The error a session that ended in ``end`` exits with (None when it is complete); ``again`` is
    the command that continues the run (``adjudicate bench DATASET --name NAME``)."""
    if end.reason == "budget":
        return BudgetExceeded(end.message, f"resume with a higher budget: {again} --resume --budget-usd AMOUNT")
    if end.reason in ("max-errors", "no-sample-succeeded"):
        return AdjudicationFailed(end.message, f"fix the cause, then rerun the failed ones: {again} --retry-errors")
    if end.reason == "unreachable":
        return AdjudicationFailed(end.message, f"check the model server, --api-base and the API key, then continue: {again} --retry-errors")
    return None

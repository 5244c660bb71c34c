"""The run's request log, ``requests.jsonl``: every model request on record before it is sent.

A sample's result file is written when the sample finishes. A sample in flight when the run is
killed leaves none, so without this log its requests -- which the provider received and bills --
would be missing from the ledger and from ``--budget-usd``. The log closes that gap:

- :class:`RequestLog` (one per session) gives each (arm, sample) a :class:`SampleRequests`, the
  :class:`~adjudicator.model.chat.RequestObserver` of that sample's model clients. The client calls it
  before every HTTP request (a ``sent`` line, fsynced before the request leaves) and when the request
  settles (a ``settled`` line with the reply's tokens and cost, or the error).
- Within a session, the spend of the samples still in flight counts in the budget check
  (:meth:`RequestLog.in_flight_cost_usd`).
- Across sessions, :func:`unfinished_spend` sums the requests of every (arm, sample, session) that
  left no result file -- the samples in flight at a kill -- and the ledger adds them
  (:meth:`~adjudicator.bench.ledger.Ledger.add_unfinished`). A finished sample's requests are counted
  from its result file as before, so every request is counted once, whether or not its sample finished.

Lines: ``{"e": "sent", "id", "session", "arm", "sample", "model", "node", "key", "attempt", "at"}`` and
``{"e": "settled", "id", "prompt_tokens", "completion_tokens", "cached_tokens", "cache_write_tokens", "cost_usd", "error"}``
(the two cache counts: parts of ``prompt_tokens`` the provider read from / wrote to its prompt cache;
absent, read as 0, in logs written before they were kept); ``id`` is
``"<session>.<n>"``, unique within the run. A line torn by ``kill -9`` is terminated when the next
session opens the log and skipped when it is read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from adjudicator.bench.layout import REQUESTS, iso, utc_now
from adjudicator.files import append_json_line, end_torn_line, read_json_lines


class SessionClosed(RuntimeError):
    """Raised to a model client that tries to send a request after its session gave up its samples
    (Ctrl-C, SIGTERM, an error): the request is not sent."""


@dataclass
class Spend:
    """Requests and their usage: ``requests`` sent, ``priced_requests`` of them settled with a known
    price, ``unpriced_requests`` the others (no reply, an error, or no price), tokens (integers >= 0;
    ``cached_tokens`` and ``cache_write_tokens`` the parts of ``prompt_tokens`` read from / written to
    the provider's prompt cache) and ``cost_usd`` (US dollars, known prices only)."""

    requests: int = 0
    priced_requests: int = 0
    unpriced_requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cached_tokens: int = 0
    cache_write_tokens: int = 0

    def add_sent(self) -> None:
        """One request sent, not yet settled (unpriced until it is)."""
        self.requests += 1
        self.unpriced_requests += 1

    def add_settled(self, prompt_tokens: int, completion_tokens: int, cost_usd: float | None, cached_tokens: int = 0, cache_write_tokens: int = 0) -> None:
        """The outcome of a request already counted by :meth:`add_sent`."""
        self.prompt_tokens += int(prompt_tokens or 0)
        self.completion_tokens += int(completion_tokens or 0)
        self.cached_tokens += int(cached_tokens or 0)
        self.cache_write_tokens += int(cache_write_tokens or 0)
        if cost_usd is not None:
            self.cost_usd = round(self.cost_usd + float(cost_usd), 8)
            self.priced_requests += 1
            self.unpriced_requests -= 1


class SampleRequests:
    """The request observer of one (arm, sample) in one session (see the module docstring)."""

    def __init__(self, log: RequestLog, arm: str, sample_id: str) -> None:
        self._log, self.arm, self.sample_id = log, arm, sample_id

    def accepting(self) -> bool:
        """False once the session gave up its samples (:meth:`RequestLog.close`)."""
        return not self._log.closed

    def sent(self, *, model: str, node: str, key: str, attempt: int) -> str:
        """Write the ``sent`` line (fsynced) and return the request's id."""
        return self._log._sent(self, model=model, node=node, key=key, attempt=attempt)

    def settled(self, request_id: str, *, prompt_tokens: int = 0, completion_tokens: int = 0, cost_usd: float | None = None, error: str | None = None,
                cached_tokens: int = 0, cache_write_tokens: int = 0) -> None:  # fmt: skip
        """Write the ``settled`` line of ``request_id``."""
        self._log._settled(self, request_id, (prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens), cost_usd, error)


class RequestLog:
    """``run_dir/requests.jsonl`` for session ``session`` (thread-safe; see the module docstring).
    Opening it terminates a line torn by a killed writer."""

    def __init__(self, run_dir: Path, session: int) -> None:
        self.path = run_dir / REQUESTS
        self.session = session
        self._lock = threading.Lock()
        self._n = 0
        self._in_flight: dict[tuple[str, str], Spend] = {}
        self._owner: dict[str, tuple[str, str]] = {}
        self._closed = False
        self.sent_count = 0  # requests of this session sent and settled so far (the progress bar reads them)
        self.settled_count = 0
        self.listener: Callable[[RequestLog], None] | None = None  # called (outside the lock) after each sent and settled line
        end_torn_line(self.path)

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closed

    def close(self) -> None:
        """The session gave up its samples: a request not yet sent is refused from now on
        (:class:`SessionClosed`); replies still arriving are logged as they settle."""
        with self._lock:
            self._closed = True

    def for_sample(self, arm: str, sample_id: str) -> SampleRequests:
        """The observer of ``sample_id`` under ``arm``; its spend counts as in flight until :meth:`settle_sample`."""
        with self._lock:
            self._in_flight.setdefault((arm, sample_id), Spend())
        return SampleRequests(self, arm, sample_id)

    def settle_sample(self, arm: str, sample_id: str) -> Spend:
        """The sample finished (its result file now counts its requests): stop counting it as in flight."""
        with self._lock:
            return self._in_flight.pop((arm, sample_id), Spend())

    def in_flight(self) -> dict[str, Spend]:
        """arm -> the spend of its samples not settled yet (copies)."""
        out: dict[str, Spend] = {}
        with self._lock:
            for (arm, _), sp in self._in_flight.items():
                _merge(out.setdefault(arm, Spend()), sp)
        return out

    def in_flight_cost_usd(self) -> float:
        """Known spend (US dollars) of the samples still in flight."""
        return round(sum(sp.cost_usd for sp in self.in_flight().values()), 8)

    def _sent(self, who: SampleRequests, *, model: str, node: str, key: str, attempt: int) -> str:
        with self._lock:
            if self._closed:
                raise SessionClosed("the benchmark session was stopped; no further request is sent")
            self._n += 1
            rid = f"{self.session}.{self._n}"
            self._owner[rid] = (who.arm, who.sample_id)
            append_json_line(self.path, {"e": "sent", "id": rid, "session": self.session, "arm": who.arm, "sample": who.sample_id,
                                         "model": model, "node": node, "key": key, "attempt": attempt, "at": iso(utc_now())})
            self._in_flight.setdefault((who.arm, who.sample_id), Spend()).add_sent()
            self.sent_count += 1
        if self.listener is not None:
            self.listener(self)
        return rid

    def _settled(self, who: SampleRequests, rid: str, tokens: tuple[int, int, int, int], cost_usd: float | None, error: str | None) -> None:
        prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens = tokens
        with self._lock:
            append_json_line(self.path, {"e": "settled", "id": rid, "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                                         "cached_tokens": cached_tokens, "cache_write_tokens": cache_write_tokens, "cost_usd": cost_usd, "error": error})
            sp = self._in_flight.get(self._owner.pop(rid, (who.arm, who.sample_id)))
            if sp is not None:
                sp.add_settled(prompt_tokens, completion_tokens, cost_usd, cached_tokens, cache_write_tokens)
            self.settled_count += 1
        if self.listener is not None:
            self.listener(self)


def _merge(into: Spend, other: Spend) -> None:
    into.requests += other.requests
    into.priced_requests += other.priced_requests
    into.unpriced_requests += other.unpriced_requests
    into.prompt_tokens += other.prompt_tokens
    into.completion_tokens += other.completion_tokens
    into.cached_tokens += other.cached_tokens
    into.cache_write_tokens += other.cache_write_tokens
    into.cost_usd = round(into.cost_usd + other.cost_usd, 8)


def logged_spend(run_dir: Path) -> dict[tuple[str, str, int], Spend]:
    """(arm, sample id, session) -> the spend the request log records for it (every request sent,
    settled or not). {} for a run without a log (started before the log existed)."""
    out: dict[tuple[str, str, int], Spend] = {}
    owner: dict[str, tuple[str, str, int]] = {}
    for line in read_json_lines(run_dir / REQUESTS):
        if not isinstance(line, dict):
            continue
        if line.get("e") == "sent":
            group = (str(line.get("arm")), str(line.get("sample")), int(line.get("session") or 0))
            owner[str(line.get("id"))] = group
            out.setdefault(group, Spend()).add_sent()
        elif line.get("e") == "settled" and str(line.get("id")) in owner:
            group = owner.pop(str(line.get("id")))
            out[group].add_settled(line.get("prompt_tokens") or 0, line.get("completion_tokens") or 0, line.get("cost_usd"),
                                   line.get("cached_tokens") or 0, line.get("cache_write_tokens") or 0)
    return out


def unfinished_spend(run_dir: Path, finished: Iterable[tuple[str, str, int]], sample_ids: set[str] | None = None) -> dict[str, Spend]:
    """arm -> the spend of requests whose (arm, sample id, session) left no result file: ``finished``
    lists the (arm, sample id, session) of every result file, current and superseded; ``sample_ids``
    restricts the sum to a selection of samples (None: all)."""
    done = set(finished)
    out: dict[str, Spend] = {}
    for (arm, sample, session), sp in logged_spend(run_dir).items():
        if (arm, sample, session) in done or (sample_ids is not None and sample not in sample_ids):
            continue
        _merge(out.setdefault(arm, Spend()), sp)
    return out

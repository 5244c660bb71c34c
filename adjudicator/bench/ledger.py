"""The per-arm cost and token ledger of a run, and the budget check.

The ledger is rebuilt from the result files on disk (the source of truth, so a resumed run counts
what earlier sessions spent exactly once) plus the requests of samples that never wrote one (in
flight when a run was killed; read from the request log, :mod:`adjudicator.bench.requests`, and
counted in ``unfinished_requests``), and updated as samples finish. Costs are litellm's prices
in US dollars for requests that were not cache hits; calls whose price litellm does not know are
counted in ``unpriced_requests`` and make ``cost_known`` False (``priced_requests`` counts the others;
:func:`cost_text` turns the pair into "$X", "$X (+ unknown for N requests)" or "unknown").

Budget rule (``--budget-usd``): the budget caps the whole run's known spend, earlier sessions
included, and the requests of samples still in flight or killed in flight. Before a sample is
started the ledger's total plus the in-flight spend is compared with the budget; once the total
has reached it no new sample starts, samples already running finish and are kept, and the run stops
with status ``stopped`` / reason ``budget``. The overshoot is therefore bounded by the cost of the
samples in flight (at most ``--concurrency``). Failed attempts replaced by ``--retry-errors`` stay
in the spend (``superseded_samples`` counts them); their samples are counted once, by the new result.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from adjudicator.bench.requests import Spend
from adjudicator.bench.results import SampleResult
from adjudicator.records import Usage


@dataclass
class ArmLedger:
    """Running sums for one arm: samples done (ok / partial / failed), and the usage of their calls
    (``cached_tokens`` / ``cache_write_tokens``: the parts of ``prompt_tokens`` the provider read from /
    wrote to its prompt cache, billed at their own prices in ``cost_usd``; ``counted_locally``: requests
    whose reply had no usage, counted by the local tokenizer and priced without a discount)."""

    samples_ok: int = 0
    samples_partial: int = 0
    samples_failed: int = 0
    calls: int = 0
    requests: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0
    counted_locally: int = 0
    cost_usd: float = 0.0
    priced_requests: int = 0
    unpriced_requests: int = 0
    latency_s: float = 0.0
    elapsed_s: float = 0.0
    superseded_samples: int = 0
    unfinished_requests: int = 0

    def add_unfinished(self, spend: Spend) -> None:
        """Fold in the requests of samples that wrote no result (killed in flight): their requests,
        tokens and known cost count; no sample is counted."""
        self.unfinished_requests += spend.requests
        self.requests += spend.requests
        self.prompt_tokens += spend.prompt_tokens
        self.completion_tokens += spend.completion_tokens
        self.cached_tokens += spend.cached_tokens
        self.cache_write_tokens += spend.cache_write_tokens
        self.cost_usd = round(self.cost_usd + spend.cost_usd, 8)
        self.priced_requests += spend.priced_requests
        self.unpriced_requests += spend.unpriced_requests

    def add(self, result: SampleResult, *, superseded: bool = False) -> None:
        """Fold one sample's result in. A ``superseded`` result (a failed attempt replaced by
        ``--retry-errors``) adds its spend and tokens but is not counted as a sample."""
        if superseded:
            self.superseded_samples += 1
        elif result.status == "ok":
            self.samples_ok += 1
        elif result.status == "partial":
            self.samples_partial += 1
        else:
            self.samples_failed += 1
        u: Usage = Usage.of(result.calls)
        self.calls += u.calls
        self.requests += u.requests
        self.cache_hits += u.cache_hits
        self.prompt_tokens += u.prompt_tokens
        self.completion_tokens += u.completion_tokens
        self.cached_tokens += u.cached_tokens
        self.cache_write_tokens += u.cache_write_tokens
        self.counted_locally += u.counted_locally
        self.cost_usd = round(self.cost_usd + u.cost_usd, 8)
        billable = [c for c in result.calls if not c.cache_hit and c.parse != "native"]
        self.priced_requests += sum(1 for c in billable if c.cost_usd is not None)
        self.unpriced_requests += sum(1 for c in billable if c.cost_usd is None)
        self.latency_s = round(self.latency_s + u.latency_s, 3)
        self.elapsed_s = round(self.elapsed_s + result.elapsed_s, 3)

    def as_dict(self) -> dict:
        """JSON-ready sums plus ``cost_known`` and per-sample means."""
        n = self.samples_ok + self.samples_partial + self.samples_failed
        return {
            "samples": n,
            "samples_ok": self.samples_ok,
            "samples_partial": self.samples_partial,
            "samples_failed": self.samples_failed,
            "calls": self.calls,
            "requests": self.requests,
            "cache_hits": self.cache_hits,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "counted_locally": self.counted_locally,
            "cost_usd": round(self.cost_usd, 6),
            "cost_known": self.unpriced_requests == 0,
            "priced_requests": self.priced_requests,
            "unpriced_requests": self.unpriced_requests,
            "latency_s": self.latency_s,
            "elapsed_s": self.elapsed_s,
            "superseded_samples": self.superseded_samples,
            "unfinished_requests": self.unfinished_requests,
            "tokens_per_sample": round((self.prompt_tokens + self.completion_tokens) / n, 1) if n else None,
            "cost_usd_per_sample": round(self.cost_usd / n, 6) if n else None,
        }


@dataclass
class Ledger:
    """Thread-safe ledger over all arms of a run (see module docstring)."""

    arms: dict[str, ArmLedger] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, result: SampleResult, *, superseded: bool = False) -> None:
        """Fold one result into its arm's sums (see :meth:`ArmLedger.add`)."""
        with self._lock:
            self.arms.setdefault(result.arm, ArmLedger()).add(result, superseded=superseded)

    def add_unfinished(self, spend_by_arm: dict[str, Spend]) -> None:
        """Fold in the requests of samples that wrote no result (see :meth:`ArmLedger.add_unfinished`)."""
        with self._lock:
            for arm, spend in spend_by_arm.items():
                self.arms.setdefault(arm, ArmLedger()).add_unfinished(spend)

    @property
    def total_cost_usd(self) -> float:
        """Known spend over all arms, US dollars."""
        with self._lock:
            return round(sum(a.cost_usd for a in self.arms.values()), 8)

    @property
    def priced_requests(self) -> int:
        """Requests whose price litellm knew."""
        with self._lock:
            return sum(a.priced_requests for a in self.arms.values())

    @property
    def unpriced_requests(self) -> int:
        """Requests whose price litellm did not know."""
        with self._lock:
            return sum(a.unpriced_requests for a in self.arms.values())

    def over_budget(self, budget_usd: float | None, in_flight_usd: float = 0.0) -> bool:
        """True when a budget is set and the known spend, plus ``in_flight_usd`` spent so far by
        samples still running, has reached it."""
        return budget_usd is not None and self.total_cost_usd + in_flight_usd >= budget_usd

    def as_dict(self) -> dict:
        """``{"arms": {arm: sums}, "total": sums over arms}``."""
        with self._lock:
            arms = {k: v.as_dict() for k, v in sorted(self.arms.items())}
        keys = ("samples", "samples_ok", "samples_partial", "samples_failed", "calls", "requests", "cache_hits", "prompt_tokens", "completion_tokens",
                "cached_tokens", "cache_write_tokens", "counted_locally", "priced_requests", "unpriced_requests", "unfinished_requests")
        total = {k: sum(a[k] for a in arms.values()) for k in keys}
        total["cost_usd"] = round(sum(a["cost_usd"] for a in arms.values()), 6)
        total["cost_known"] = all(a["cost_known"] for a in arms.values())
        return {"arms": arms, "total": total}


def cost_text(sums: dict) -> str:
    """The spend of one arm's (or the total's) ledger sums for people: ``"$0.0123"`` when every
    model request had a known price (or none was sent), ``"unknown (no prices for these models)"``
    when none had, and ``"$0.0123 (+ unknown for 7 requests)"`` when only some had. Sums written
    before ``priced_requests`` existed count as priced when ``cost_usd`` is above 0."""
    unpriced = int(sums.get("unpriced_requests") or 0)
    cost = float(sums.get("cost_usd") or 0.0)
    priced = sums.get("priced_requests")
    if priced is None:
        priced = 1 if cost > 0 else 0
    if unpriced == 0:
        return f"${cost:.4f}"
    if priced == 0:
        return "unknown (no prices for these models)"
    return f"${cost:.4f} (+ unknown for {unpriced} request{'s' if unpriced != 1 else ''})"

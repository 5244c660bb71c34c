"""What a running adjudication reports as it goes: one :class:`ProgressEvent` per finished stage
analysis and per judge's ballot (agentic arm), or per protocol instance (single-call arm).

The events are read off the graph's update stream (:func:`events_of_update`); nothing here prints.
The command line turns them into stderr lines and, on a terminal, a live bar
(:mod:`adjudicator.cli.progress`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from adjudicator.input.match import MatchView
from adjudicator.records import CallRecord

StepKind = Literal["stage", "judge", "task"]


@dataclass(frozen=True)
class ProgressEvent:
    """One finished step of an adjudication.

    ``kind``: ``stage`` (a clash tracker analysed a stage), ``judge`` (a judge's ballot, or its
    failure) or ``task`` (one single-call instance). ``done``/``total``: steps finished so far and
    in all (stages + judges, or instances). ``key``: stage id, judge id or instance key; ``name``:
    the stage's name or the judge's perspective. ``ok``: whether it produced a value; ``detail``:
    what it produced in a few words, or the failure's reason. ``requests``/``cache_hits``: the
    model requests it sent and the answers read from the cache; ``latency_s``: seconds its calls
    took.
    """

    kind: StepKind
    done: int
    total: int
    key: str
    name: str
    ok: bool
    detail: str
    requests: int = 0
    cache_hits: int = 0
    latency_s: float = 0.0


#: A receiver of progress events (called from the thread that runs the step).
ProgressSink = Callable[[ProgressEvent], None]


def _usage(calls: list[CallRecord]) -> dict[str, Any]:
    return {
        "requests": sum(1 + c.transport_retries for c in calls if not c.cache_hit and c.parse != "native"),
        "cache_hits": sum(c.cache_hit for c in calls),
        "latency_s": round(sum(c.latency_s for c in calls), 3),
    }


class GraphProgress:
    """Turns the agentic graph's update stream into :class:`ProgressEvent` s for one match
    (``view``) with ``n_judges`` judges (perspectives in ``perspectives``)."""

    def __init__(self, view: MatchView, perspectives: dict[str, str], sink: ProgressSink) -> None:
        self.names = {s.stage_id: s.name for s in view.stages}
        self.order = [s.stage_id for s in view.stages]
        self.perspectives = perspectives
        self.total = len(view.stages) + len(perspectives)
        self.done = 0
        self.sink = sink

    def update(self, node: str, update: dict[str, Any] | None) -> None:
        """Report the step ``node`` finished with ``update`` (other nodes are silent)."""
        if node not in ("track_stage", "judge", "lead_judge") or not update:
            return
        calls = list(update.get("calls") or [])
        failures = list(update.get("failures") or [])
        if node == "track_stage":
            self._stages(update, calls, failures)
            return
        self.done += 1
        if "pair_choices" in update:  # a pairwise panel's judge: its comparisons
            choices = update.get("pair_choices") or []
            jid = choices[0].judge_id if choices else (failures[0].key.split("|")[0] if failures else "")
            detail = f"{len(choices)} comparisons" + (f", {len(failures)} failed" if failures else "")
            event = ProgressEvent("judge", self.done, self.total, jid, self.perspectives.get(jid, ""), bool(choices), detail, **_usage(calls))
        else:
            ballots = update.get("ballots") or []
            if ballots:
                b = ballots[0]
                ranked = " > ".join(sorted(b.ranking, key=lambda u: b.ranking[u]))
                jid, detail = b.judge_id, f"ranking {ranked}" if b.ranking else f"votes {b.winner}, winner tendency p = {b.p:.2f}"
            else:
                jid = failures[0].key if failures else (calls[0].key if calls else "")
                detail = failures[0].reason if failures else "no ballot"
            event = ProgressEvent("judge", self.done, self.total, jid, self.perspectives.get(jid, ""), bool(ballots), detail, **_usage(calls))
        self.sink(event)

    def _stages(self, update: dict[str, Any], calls: list[CallRecord], failures: list[Any]) -> None:
        """One event per stage a tracking step covered (a window covers several, in stage order: the
        stages up to the new cursor that it analysed or failed on); the step's requests, cache hits
        and latency go with its first stage's event, so their sums stay those of the run."""
        end = int(update.get("next_stage", 1))
        analyses = {a.stage_id: a for a in update.get("analyses") or []}
        failed = {f.key: f for f in failures if getattr(f, "node", "track_stage") == "track_stage"}
        covered = [sid for sid in self.order[:end] if sid in analyses or sid in failed]
        if len(covered) <= 1:  # one stage: the stage before the new cursor
            i = end - 1
            covered = [self.order[i] if 0 <= i < len(self.order) else str(i)]
        for n, sid in enumerate(covered):
            self.done += 1
            a = analyses.get(sid)
            if a is not None:
                scores = ", ".join(f"{s.side} {s.suggested_score}" for s in a.sides)
                moves = len(a.clash_updates)
                # the tracker's suggestion, said as such: the judges' scores (the verdict's) come later
                detail = f"tracker's suggested score {scores} (1-10, advice to the judges); {moves} clash move{'' if moves == 1 else 's'}"
                if sid in failed and failed[sid].partial:  # kept without fields still invalid after a repair
                    detail += f" ({failed[sid].kind.value})"
            else:
                f = failed.get(sid) or (failures[0] if failures else None)
                detail = f.reason if f is not None else "no analysis"
            self.sink(ProgressEvent("stage", self.done, self.total, sid, self.names.get(sid, ""), a is not None, detail, **_usage(calls if n == 0 else [])))


def task_event(done: int, total: int, key: str, ok: bool, detail: str, calls: list[CallRecord]) -> ProgressEvent:
    """The event of one finished single-call instance ``key`` (e.g. ``task1`` or ``task2 s03|affirmative``)."""
    return ProgressEvent("task", done, total, key, "", ok, detail, **_usage(calls))

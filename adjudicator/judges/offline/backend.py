"""The offline judge's :class:`~adjudicator.judges.base.Backend`: :class:`OfflineBackend` runs
:func:`~adjudicator.judges.offline.tracker.analyse` for the ``analyse_stage`` node and
:func:`~adjudicator.judges.offline.ballot.judge_ballot` for the ``judge`` node, timing each call into one
:class:`~adjudicator.records.CallRecord`; an unexpected error becomes a
:class:`~adjudicator.records.NodeFailure` of kind ``error`` instead of crashing the graph.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Protocol

from adjudicator.input.match import MatchView
from adjudicator.judges.base import CompareRequest, JudgeRequest, NodeResult, StageRequest
from adjudicator.judges.offline.ballot import MODEL_NAME, judge_ballot
from adjudicator.judges.offline.compare import compare_pair
from adjudicator.judges.offline.ranking import ranking_ballot
from adjudicator.judges.offline.reading import DebateReading
from adjudicator.judges.offline.tracker import analyse
from adjudicator.pairwise.comparisons import PairChoice
from adjudicator.records import CallRecord, FailureKind, NodeFailure
from adjudicator.verdict.ballots import Ballot
from adjudicator.verdict.battlefield import StageAnalysis


class ReadingShelf(Protocol):
    """Where an :class:`OfflineBackend` keeps each match's
    :class:`~adjudicator.judges.offline.reading.DebateReading` between its stages: :class:`MemoryShelf`
    by default, a live room's own store in live mode (:class:`adjudicator.live.store.readings.RoomReadings`).
    Every method may be called from several threads at once, for different matches."""

    def reading(self, request: StageRequest) -> DebateReading:
        """The reading to advance for ``request`` (a kept one, or a new one)."""
        ...

    def advanced(self, request: StageRequest, reading: DebateReading) -> None:
        """``reading`` now holds ``request``'s stages (called with its lock held, after the analysis)."""
        ...

    def drop(self, match: MatchView) -> None:
        """Forget the match's reading (its panel sits: tracking is over)."""
        ...


class MemoryShelf:
    """The readings of the last :data:`MAX_READINGS` matches tracked, in this process's memory (keyed by
    match id, language and motion; the oldest beyond them is dropped and read afresh at its next
    stage, as correct, only slower)."""

    def __init__(self, size: int | None = None) -> None:
        self.size = size
        self._readings: OrderedDict[tuple[str, str, str], DebateReading] = OrderedDict()
        self._lock = threading.Lock()

    def reading(self, request: StageRequest) -> DebateReading:
        key = _reading_key(request.match)
        with self._lock:
            reading = self._readings.get(key)
            if reading is None:
                reading = self._readings[key] = DebateReading(request.match)
                while len(self._readings) > (self.size or MAX_READINGS):
                    self._readings.popitem(last=False)
            else:
                self._readings.move_to_end(key)
            return reading

    def advanced(self, request: StageRequest, reading: DebateReading) -> None:
        return None

    def drop(self, match: MatchView) -> None:
        with self._lock:
            self._readings.pop(_reading_key(match), None)

    def __len__(self) -> int:
        with self._lock:
            return len(self._readings)


class OfflineBackend:
    """The offline judge: a deterministic baseline built from structural priors and text features.
    It is NOT an LLM and does not read the debate the way a judge does; it counts content terms,
    questions, answers, rebuttal / concession / evidence markers and speech lengths, applies the
    paper's structural stage priors, and maps the result onto the CCDB rubric (Table 5).

    Same request, same result: every method is a function of its request alone. To keep a stage's
    cost in proportion to the stage, the tracker keeps a
    :class:`~adjudicator.judges.offline.reading.DebateReading` (running counts) per match on its
    ``readings`` shelf (:class:`MemoryShelf` unless given: the last :data:`MAX_READINGS` matches),
    which it advances by one stage when a request continues the stages it read and reads afresh
    otherwise; a match's reading is dropped when its panel sits (tracking is over). One instance can
    serve the tracker and all three judges of several matches from several threads at once (live
    mode; :meth:`with_readings` gives a tracker over a live room's shelf)."""

    name: str = MODEL_NAME
    is_llm: bool = False

    def __init__(self, readings: ReadingShelf | None = None) -> None:
        self.readings: ReadingShelf = readings if readings is not None else MemoryShelf()

    def with_readings(self, readings: ReadingShelf) -> OfflineBackend:
        """The same judge keeping its readings on ``readings``."""
        return OfflineBackend(readings)

    # ---- tracker

    def analyse_stage(self, request: StageRequest) -> NodeResult[StageAnalysis]:
        """Analyse one stage (see :mod:`adjudicator.judges.offline`). Returns the analysis and one CallRecord
        (node "track_stage", key = stage id, parse "native"); an unexpected error becomes a NodeFailure."""
        t0 = time.perf_counter()
        try:
            reading = self.readings.reading(request)
            with reading.lock:
                value = analyse(request.match, request.stage, request.index, request.previous, request.clashes, reading, request.rubric, request.evidence)
                self.readings.advanced(request, reading)
        except Exception as exc:  # a bug, recorded rather than crashing the graph
            return _failed("track_stage", request.stage.stage_id, exc, t0)
        rec = CallRecord(node="track_stage", key=request.stage.stage_id, model=MODEL_NAME, parse="native", latency_s=round(time.perf_counter() - t0, 6))
        return NodeResult(value=value, calls=[rec])

    # ---- judge

    def judge(self, request: JudgeRequest) -> NodeResult[Ballot]:
        """One ballot from the analyses and the clash map, weighted by ``request.perspective``: a
        winner ballot, or a ranking ballot where the format ranks its units (BP). CallRecord node
        "judge", key = judge id."""
        t0 = time.perf_counter()
        self.readings.drop(request.match)  # the panel sits: this match is tracked to the end
        try:
            ballot = ranking_ballot(request) if request.match.spec().verdict == "ranking" else judge_ballot(request)
        except Exception as exc:
            return _failed("judge", request.judge_id, exc, t0)
        rec = CallRecord(node="judge", key=request.judge_id, model=MODEL_NAME, parse="native", latency_s=round(time.perf_counter() - t0, 6))
        return NodeResult(value=ballot, calls=[rec])

    # ---- pairwise comparison

    def compare(self, request: CompareRequest) -> NodeResult[PairChoice]:
        """One ordered comparison (:func:`~adjudicator.judges.offline.compare.compare_pair`).
        CallRecord node "compare", key = :attr:`CompareRequest.key`."""
        t0 = time.perf_counter()
        self.readings.drop(request.match)  # the panel sits: this match is tracked to the end
        try:
            answer, reasoning = compare_pair(request)
            choice = PairChoice(judge_id=request.judge_id, level=request.level, a=request.a, b=request.b, answer=answer, reasoning=reasoning)  # type: ignore[arg-type]
        except Exception as exc:
            return _failed("compare", request.key, exc, t0)
        rec = CallRecord(node="compare", key=request.key, model=MODEL_NAME, parse="native", latency_s=round(time.perf_counter() - t0, 6))
        return NodeResult(value=choice, calls=[rec])

    def prompt_hashes(self, format_name: str | None = None, panel: str = "scoring") -> dict[str, str]:
        """The offline judge uses no prompts."""
        return {}


def _reading_key(match: MatchView) -> tuple[str, str, str]:
    return (match.match_id, match.language, match.motion)


def _failed(node: str, key: str, exc: Exception, t0: float) -> NodeResult:
    reason = f"offline judge error: {type(exc).__name__}: {exc}"
    rec = CallRecord(node=node, key=key, model=MODEL_NAME, parse="failed", error=reason, latency_s=round(time.perf_counter() - t0, 6))
    return NodeResult(value=None, calls=[rec], failure=NodeFailure(node=node, key=key, kind=FailureKind.ERROR, reason=reason))


#: Matches whose running readings an :class:`OfflineBackend` keeps at once (live mode tracks several
#: matches on one backend; a match beyond them is read afresh at its next stage, as correct, only
#: slower). A reading holds a few MB for a full-length Chinese match, at most ~40 MB.
MAX_READINGS = 8

#: The name the rest of the package uses for the offline judge.
OfflineJudge = OfflineBackend

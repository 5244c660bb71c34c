"""A clash tracker that sends nothing: it hands back the tracker outputs a frozen run recorded.

``adjudicate bench --rejudge RUN`` seats :class:`ReusedTracker` in place of the tracker, so only the
judges meet a model. For each stage it returns, in order of preference:

1. the :class:`~adjudicator.verdict.battlefield.StageAnalysis` the parent's result file stored (``analyses``;
   result files written since re-judging exists carry them): exactly what the parent's judges read;
2. for an older result file of an LLM tracker, the analysis read again from the raw output of the
   parent's last readable attempt, with the same three-stage parser and validator the tracker used
   (:mod:`adjudicator.judges.llm.recovery`); a parser changed since then could read it differently,
   which is why (1) comes first;
3. for an older result file of the offline tracker (which records no raw text), the offline tracker
   run again: it is deterministic and makes no request, so its answer is the parent's.

The parent's call records for the stage come back with ``cache_hit=True`` and no latency: the
verdict's provenance counts their tokens and cost as it does for a cached rerun (so it equals a full
run's with the same settings), while the run's ledger counts no request and no spend for them. A
stage the parent's tracker failed on fails again with the parent's :class:`~adjudicator.records.NodeFailure`.
The clash map is rebuilt by the graph's own reducers from these analyses, as in the parent run.
A parent whose LLM tracker read stage windows (``--track-window-chars``) made one request per window:
its call records come back with the window's first stage, the stored analyses with every stage, so
the replay still walks one stage per step and counts each request once.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from adjudicator.judges.base import JudgeRequest, NodeResult, StageRequest
from adjudicator.records import CallRecord, FailureKind, NodeFailure
from adjudicator.verdict.ballots import Ballot
from adjudicator.verdict.battlefield import StageAnalysis

TRACK_NODE = "track_stage"


class ReusedTracker:
    """The tracker outputs of one sample of a frozen run (module docstring).

    ``name`` is the parent's tracker model (it stays the tracker in the verdict's provenance),
    ``is_llm`` whether that was a language model; ``calls``, ``failures`` and ``analyses`` come from
    the parent's result file for this sample (its every call record, failure and stored analysis;
    only the tracker's are used); ``hashes`` the parent's prompt hashes (template -> hash, as its
    manifest records them; only the tracker backend's are reported).
    Stateless after construction, so the graph may call it from any thread.
    """

    def __init__(
        self,
        name: str,
        *,
        is_llm: bool,
        calls: Sequence[CallRecord],
        failures: Sequence[NodeFailure] = (),
        analyses: Sequence[StageAnalysis] = (),
        hashes: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.is_llm = is_llm
        self._calls: dict[str, list[CallRecord]] = {}
        for c in calls:
            if c.node == TRACK_NODE:  # a window's request ("s03+s04") is its first stage's
                self._calls.setdefault(c.key.split("+")[0], []).append(c)
        for group in self._calls.values():
            group.sort(key=lambda c: c.attempt)
        self._failures = {f.key: f for f in failures if f.node == TRACK_NODE}
        self._analyses = {a.stage_id: a for a in analyses}
        self._hashes = dict(hashes or {})

    def __repr__(self) -> str:
        return f"ReusedTracker({self.name!r}, stages={len(self._calls)})"

    def prompt_hashes(self, format_name: str | None = None, panel: str = "scoring") -> dict[str, str]:
        """The parent's hashes of the templates an LLM tracker's backend reports (for
        ``format_name`` and ``panel``, as :meth:`~adjudicator.judges.llm.backend.LLMBackend.prompt_hashes`
        does); none for the offline tracker."""
        if not self.is_llm:
            return {}
        from adjudicator.judges.llm.backend import rendered_templates

        return {n: self._hashes[n] for n in rendered_templates(format_name, panel) if n in self._hashes}

    def analyse_stage(self, request: StageRequest) -> NodeResult[StageAnalysis]:
        """The parent's output for ``request.stage`` (module docstring); never sends a request.
        A stage the parent holds nothing for (its sample stopped before it) fails with kind
        ``error`` and a reason saying so."""
        sid = request.stage.stage_id
        calls = [c.model_copy(update={"cache_hit": True, "latency_s": 0.0}) for c in self._calls.get(sid, [])]
        failure = self._failures.get(sid)
        if failure is not None and not failure.partial:  # a dropped_field failure stands beside its analysis
            return NodeResult(value=None, calls=calls, failure=failure)
        stored = self._analyses.get(sid)
        if stored is not None:
            return NodeResult(value=stored, calls=calls, failure=failure)
        if not calls:
            reason = f"error: the parent run holds no tracker output for stage {sid}"
            return NodeResult(value=None, failure=NodeFailure(node=TRACK_NODE, key=sid, kind=FailureKind.ERROR, reason=reason))
        if not self.is_llm:
            from adjudicator.judges.offline import OfflineJudge

            rerun = OfflineJudge().analyse_stage(request)
            return NodeResult(value=rerun.value, calls=calls, failure=rerun.failure)
        return self._reread(request, calls)

    def _reread(self, request: StageRequest, calls: list[CallRecord]) -> NodeResult[StageAnalysis]:
        """Read the last readable attempt's raw output again (older result files of an LLM tracker)."""
        from adjudicator.judges.llm.recovery import read_stage_analysis, recover_stage_analysis
        from adjudicator.model.parsing import parse_output

        sid = request.stage.stage_id
        last = next((c for c in reversed(calls) if c.raw_output is not None and c.parse != "failed"), None)
        if last is not None and last.raw_output is not None:
            result = parse_output(last.raw_output, partial(read_stage_analysis, request=request), recover_stage_analysis)
            if result.ok:
                return NodeResult(value=result.value, calls=calls)
            if result.fallback is not None and result.dropped:  # a real speech without clash updates (issue 38)
                fields = "; ".join(f"{d.field} ({d.reason})" for d in result.dropped)
                reason = f"dropped_field: answer taken without {len(result.dropped)} field(s) still invalid after their repair: {fields}"
                return NodeResult(value=result.fallback, calls=calls, failure=NodeFailure(node=TRACK_NODE, key=sid, kind=FailureKind.DROPPED_FIELD, reason=reason))
        reason = f"unparseable: the parent's tracker output for stage {sid} cannot be read again"
        raws = [c.raw_output for c in calls if c.raw_output is not None]
        return NodeResult(value=None, calls=calls, failure=NodeFailure(node=TRACK_NODE, key=sid, kind=FailureKind.UNPARSEABLE, reason=reason, raw_outputs=raws))

    def judge(self, request: JudgeRequest) -> NodeResult[Ballot]:
        """Not a judge: raises TypeError (a re-judged run seats its judges from the new settings)."""
        raise TypeError("ReusedTracker only replays tracker outputs; it cannot judge")

"""The single-call verdict: assembled from one result per protocol instance (no panel, no ballots)."""

from __future__ import annotations

from typing import Any

from adjudicator import __version__
from adjudicator.input.formats import Side
from adjudicator.input.match import MatchView
from adjudicator.input.rubric import Rubric
from adjudicator.judges.base import NodeResult
from adjudicator.records import CallRecord, NodeFailure, in_call_order, in_failure_order
from adjudicator.single_call.tasks import TaskInstance
from adjudicator.verdict.aggregate import provenance_of, rank_votes, with_transcripts
from adjudicator.verdict.ballots import Provenance, SpeechResult, StageScore, TaskStatus, UnitResult, Verdict
from adjudicator.verdict.dimensions import DimensionVote, dimension_decision, panel_dimensions
from adjudicator.verdict.review import review_of


def _status(instance: TaskInstance, result: NodeResult[Any]) -> TaskStatus:
    last = result.calls[-1] if result.calls else None
    return TaskStatus(
        task=instance.task,
        key=instance.key,
        ok=result.value is not None,
        parse=last.parse if last is not None else "failed",
        attempts=len(result.calls),
        error=None if result.failure is None else result.failure.reason,
    )


def build_verdict(view: MatchView, instances: list[TaskInstance], results: list[NodeResult[Any]], model: str, prompt_hashes: dict[str, str], rubric: Rubric | None = None) -> Verdict:
    """Assemble the single-call :class:`Verdict` from one result per instance (same order).

    ``p`` is Task 1's p as extracted (0.5 kept; then ``winner`` is None); ``stage_scores`` one
    StageScore per parsed Task 2 unit with ``judge_scores = [score]`` and ``mean = score``;
    ``best_debater_votes`` Task 3's nine votes; ``ballots`` empty; ``tasks`` the parse status of
    every instance; ``failures`` every failed instance with its raw outputs; provenance with arm
    ``single-call``; under a dimensional ``rubric`` the per-dimension task's votes as the panel's
    dimension results (one "judge", ``single-call``) and the decision they give. Pure.
    """
    if view.spec().verdict == "ranking":
        return _ranking_verdict(view, instances, results, model, prompt_hashes)
    p: float | None = None
    votes: dict[str, int] = {}
    scores: dict[str, int] = {}
    dim_votes: list[DimensionVote] = []
    for inst, res in zip(instances, results):
        if res.value is None:
            continue
        if inst.task == "task1":
            p = float(res.value)
        elif inst.task == "task2":
            scores[inst.key] = int(res.value)
        elif inst.task == "dimensions":
            dim_votes = list(res.value)
        else:
            votes = dict(res.value)
    dims = panel_dimensions(rubric, {"single-call": dim_votes}) if rubric is not None and rubric.dimensional and dim_votes else []
    winner: Side | None = None if p is None or p == 0.5 else ("affirmative" if p > 0.5 else "negative")
    stage_scores = []
    for stage_id, side in view.scored_units():
        score = scores.get(f"{stage_id}|{side}")
        if score is None:
            continue
        st = view.stage(stage_id)
        stage_scores.append(
            StageScore(stage_id=stage_id, stage_name=st.name, stage_type=st.type, side=side, role=st.role_of(side), judge_scores=[score], mean=float(score))
        )
    votes, best = rank_votes(votes, view.debater_labels())
    calls, failures, provenance = _records(results, model, prompt_hashes)
    verdict = Verdict(
        match_id=view.match_id,
        format=view.format,
        motion=view.motion,
        arm="single-call",
        winner=winner,
        p=p,
        rubric=rubric.name if dims and rubric is not None else "",
        dimensions=dims,
        dimension_decision=dimension_decision(rubric, dims) if dims and rubric is not None else None,
        stage_scores=stage_scores,
        best_debater_votes=votes,
        best_debaters=best,
        ballots=[],
        failures=failures,
        tasks=[_status(i, r) for i, r in zip(instances, results)],
        review=review_of(p, None, failures, match=view, calls=calls),
        provenance=provenance,
        calls=calls,
    )
    return with_transcripts(verdict, view.stages)


def _records(results: list[NodeResult[Any]], model: str, prompt_hashes: dict[str, str]) -> tuple[list[CallRecord], list[NodeFailure], Provenance]:
    """The call records and failures of every task instance, in record order, and the provenance
    built from them (both single-call verdict builders)."""
    calls = in_call_order(c for r in results for c in r.calls)
    failures = in_failure_order(r.failure for r in results if r.failure is not None)
    provenance = provenance_of("single-call", model, {"single-call": model}, True, dict(sorted(prompt_hashes.items())), calls, __version__)
    return calls, failures, provenance


def _ranking_verdict(view: MatchView, instances: list[TaskInstance], results: list[NodeResult[Any]], model: str, prompt_hashes: dict[str, str]) -> Verdict:
    """The single-call verdict of a ranking format (BP): ``ranking`` from the house-order task (each
    unit's one rank), ``speaker_scores`` from the speaker-score and speaker-rank tasks (a speech keeps
    whichever of the two was parsed; the other stays empty). The three are separate answers, as in
    DebateBench, so the ranks are not forced to agree with the scores. Pure."""
    spec = view.spec()
    values = {inst.task: res.value for inst, res in zip(instances, results) if res.value is not None}
    ranks: dict[str, int] = values.get("bp_house_order") or {}
    ranking = [
        UnitResult(unit=u, name=spec.unit(u).name, rank=ranks[u], judge_ranks=[ranks[u]], mean_rank=float(ranks[u]))
        for u in sorted(ranks, key=lambda u: ranks[u])
    ]
    scores: dict[str, int] = values.get("bp_speaker_scores") or {}
    srank: dict[str, int] = values.get("bp_speaker_ranks") or {}
    speeches = []
    for sid, unit, abbr in view.speeches():
        if abbr not in scores and abbr not in srank:
            continue
        s = scores.get(abbr)
        r = srank.get(abbr)
        speeches.append(SpeechResult(stage_id=sid, speech=abbr, unit=unit, judge_scores=[] if s is None else [s], mean=None if s is None else float(s), judge_ranks=[] if r is None else [r], rank=r))
    calls, failures, provenance = _records(results, model, prompt_hashes)
    verdict = Verdict(
        match_id=view.match_id,
        format=view.format,
        motion=view.motion,
        arm="single-call",
        winner=None,
        p=None,
        ranking=ranking,
        speaker_scores=speeches,
        failures=failures,
        tasks=[_status(i, r) for i, r in zip(instances, results)],
        provenance=provenance,
        calls=calls,
    )
    return with_transcripts(verdict, view.stages)

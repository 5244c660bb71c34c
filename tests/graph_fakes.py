"""A scripted backend for graph tests: records every request it receives, returns fixed structures.

Not a model and not a stub of the product: it lets the topology and update-stream tests see exactly
which node ran on which input.
"""

from __future__ import annotations

import threading

from adjudicator.input.match import Match
from adjudicator.judges.base import JudgeRequest, NodeResult, StageRequest
from adjudicator.records import CallRecord, FailureKind, NodeFailure
from adjudicator.verdict.ballots import Ballot, BallotScore
from adjudicator.verdict.battlefield import ClashUpdate, SideAnalysis, StageAnalysis


class RecordingBackend:
    """Each stage: both evaluated sides rated "well/correct_important/effective" (7), one clash
    update per stage on clash "c1" advanced by the first acting side. Each judge: scores 7 for the
    affirmative and 6 for the negative (or the reverse for judges listed in ``negative_judges``),
    p 0.7 / 0.3, three votes to the first debater of its winning side. Judges in ``failing_judges``
    return a NodeFailure."""

    name = "recording"
    is_llm = False

    def __init__(self, negative_judges=(), failing_judges=()):
        self.stage_requests: list[StageRequest] = []
        self.judge_requests: list[JudgeRequest] = []
        self.negative_judges = set(negative_judges)
        self.failing_judges = set(failing_judges)
        self._lock = threading.Lock()

    def prompt_hashes(self, format_name=None, panel="scoring"):
        return {"recording": "0"}

    def analyse_stage(self, request: StageRequest):
        with self._lock:
            self.stage_requests.append(request)
        st = request.stage
        sides = [SideAnalysis.rated(st.stage_id, s, st.role_of(s), "well", "correct_important", "effective") for s in st.evaluated_sides()]
        upd = [ClashUpdate(clash_id="c1", title="main clash", side=st.sides[0], kind="opened" if request.index == 0 else "advanced")]
        value = StageAnalysis(stage_id=st.stage_id, stage_index=request.index, sides=sides, clash_updates=upd, summary=f"stage {request.index}")
        return NodeResult(value=value, calls=[CallRecord(node="track_stage", key=st.stage_id, model=self.name)])

    def judge(self, request: JudgeRequest):
        with self._lock:
            self.judge_requests.append(request)
        call = CallRecord(node="judge", key=request.judge_id, model=self.name)
        if request.judge_id in self.failing_judges:
            return NodeResult(value=None, calls=[call], failure=NodeFailure(node="judge", key=request.judge_id, kind=FailureKind.UNPARSEABLE, reason="scripted failure", raw_outputs=["garbage"]))
        neg = request.judge_id in self.negative_judges
        winner = "negative" if neg else "affirmative"
        scores = [BallotScore(stage_id=sid, side=side, score=(6 if (side == "affirmative") == neg else 7)) for sid, side in request.match.scored_units()]
        first = next(d.label for d in request.match.debaters if d.side == winner)
        ballot = Ballot(judge_id=request.judge_id, perspective=request.perspective, model=self.name, winner=winner, p=0.3 if neg else 0.7, stage_scores=scores, best_debater_votes={first: 3})
        return NodeResult(value=ballot, calls=[call])


def tiny_match(n_stages: int = 4, with_labels: bool = True) -> Match:
    """An online-1v1 match with ``n_stages`` alternating speeches (affirmative first)."""
    stages = []
    for i in range(n_stages):
        side = "affirmative" if i % 2 == 0 else "negative"
        label = f"{side.capitalize()} Speaker 1"
        kind = "constructive" if i < 2 else ("closing" if i >= n_stages - 2 else "supplementary")
        stages.append({"stage_id": f"s{i + 1}", "name": f"Speech {i + 1}", "type": kind, "sides": [side], "speakers": [label],
                       "utterances": [{"speaker": label, "side": side, "text": f"Argument number {i + 1} about school uniforms."}]})
    data = {"match_id": "tiny", "format": "online-1v1", "language": "en", "motion": "Schools should require uniforms",
            "affirmative_position": "For uniforms", "negative_position": "Against uniforms",
            "debaters": [{"side": "affirmative", "position": 1, "name": "Ann"}, {"side": "negative", "position": 1, "name": "Ned"}],
            "stages": stages}
    if with_labels:
        data["labels"] = {"outcome": "negative", "vote_count": 4, "note": "GOLD-LABEL-MARKER-XYZ"}
    return Match.model_validate(data)

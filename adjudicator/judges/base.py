"""The node interfaces every model implements: the offline judge and the LLM judge alike.

The graph nodes in ``graphs/`` build a :class:`StageRequest` or :class:`JudgeRequest` from state and
hand it to the :class:`Backend` found in the graph's runtime context; they never know which model is
behind it. Requests are built only from a :class:`~adjudicator.input.match.MatchView` and tracker outputs,
so gold labels cannot reach a backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, Protocol, TypeVar, runtime_checkable

from pydantic import ConfigDict, Field, SkipValidation

from adjudicator.config import JUDGE_IDS, JudgeEvidence
from adjudicator.frozen import FrozenModel
from adjudicator.input.match import MatchView, Stage
from adjudicator.input.rubric import Rubric
from adjudicator.pairwise.comparisons import Level, PairChoice
from adjudicator.records import CallRecord, NodeFailure
from adjudicator.verdict.ballots import Ballot
from adjudicator.verdict.battlefield import Clash, StageAnalysis

T = TypeVar("T")


class StageRequest(FrozenModel):
    """Input of the clash tracker for one stage.

    ``match`` is the label-free header; ``stage`` the stage to analyse; ``index`` its 0-based
    position; ``previous`` the stages before it (a backend should read only what it needs, e.g. the
    last opposing stage, plus ``clashes``/``analyses``: the accumulated ledger). ``rubric``: a
    dimensional rubric whose dimensions the tracker rates per side (None or ccdb: the CCDB levels
    only); ``evidence``: the run's evidence source for fact authenticity (an
    :class:`~adjudicator.input.evidence.EvidenceSource`, ``"transcript"``, or None = not assessed).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    # The match, the earlier stages, the clash map and the analyses are the graph state's own
    # validated models: they are taken as they are (pydantic would run every stage's and analysis's
    # validators again for each request, so a stage's request cost grew with the stages before it).
    match: Annotated[MatchView, SkipValidation]
    stage: Stage
    index: int = Field(ge=0)
    previous: Annotated[list[Stage], SkipValidation] = Field(default_factory=list)
    clashes: Annotated[dict[str, Clash], SkipValidation] = Field(default_factory=dict)
    analyses: Annotated[list[StageAnalysis], SkipValidation] = Field(default_factory=list)
    rubric: Rubric | None = None
    evidence: Any = None


class JudgeRequest(FrozenModel):
    """Input of one judge: its id and perspective, the label-free match, and the final battlefield
    state. Each judge receives its own request and nothing of the other judges. ``rubric``: the
    dimensional rubric whose dimensions the ballot decides (None or ccdb: none); ``judge_evidence``:
    what the judge reads beyond the tracker's output (:mod:`adjudicator.judges.llm.quotes`);
    ``cache_shared``: the panel is sent lead-first (``send_order``), so a provider's prompt cache can
    serve the beginning the judges share from the lead's entry (an LLM judge marks where it ends);
    ``feedback``: the panel asks for the coach's feedback (``--no-feedback``: False, and no ballot
    carries it, :func:`~adjudicator.verdict.feedback.asks_feedback`)."""

    judge_id: str
    perspective: str
    match: MatchView
    clashes: dict[str, Clash]
    analyses: list[StageAnalysis]
    rubric: Rubric | None = None
    judge_evidence: JudgeEvidence = "ledger"
    cache_shared: bool = False
    feedback: bool = True


class CompareRequest(FrozenModel):
    """Input of one pairwise comparison (a judge of a pairwise panel): the judge's id and
    perspective, the label-free match, the final battlefield state, the ``level`` (``"unit"`` or
    ``"speaker"``) and the two competitors, ``a`` shown first (as "A") and ``b`` second."""

    judge_id: str
    perspective: str
    match: MatchView
    clashes: dict[str, Clash]
    analyses: list[StageAnalysis]
    level: Level
    a: str
    b: str

    @property
    def key(self) -> str:
        """The call key: ``"judge-1|unit|OG|OO"`` (unique per judge and ordered pair)."""
        return f"{self.judge_id}|{self.level}|{self.a}|{self.b}"

    def judge_request(self) -> JudgeRequest:
        """The judge's whole input without the pair (what a scoring judge would see)."""
        return JudgeRequest(judge_id=self.judge_id, perspective=self.perspective, match=self.match, clashes=self.clashes, analyses=self.analyses)


@dataclass
class NodeResult(Generic[T]):
    """What a backend returns for one node run: the value (None when it failed), the call records of
    every attempt, and a failure record when no valid value could be produced."""

    value: T | None
    calls: list[CallRecord] = field(default_factory=list)
    failure: NodeFailure | None = None
    response: Any = None  # the accepted attempt's ChatResponse (LLM backends), for its token log-probabilities


@dataclass
class WindowResult:
    """What a tracker returns for one window of consecutive stages (:mod:`adjudicator.workflow.windows`):
    one :class:`~adjudicator.verdict.battlefield.StageAnalysis` per stage in stage order (empty when the
    window failed), the call records of every attempt of its one request, and one
    :class:`~adjudicator.records.NodeFailure` per stage (key = stage id) when no valid answer came."""

    analyses: list[StageAnalysis] = field(default_factory=list)
    calls: list[CallRecord] = field(default_factory=list)
    failures: list[NodeFailure] = field(default_factory=list)


@runtime_checkable
class Backend(Protocol):
    """A model behind the nodes. ``name`` appears in the verdict as the model; ``is_llm`` is False for
    the offline judge. Implementations must be safe to call from several threads at once (the three
    judges run concurrently)."""

    name: str
    is_llm: bool

    def analyse_stage(self, request: StageRequest) -> NodeResult[StageAnalysis]: ...

    def judge(self, request: JudgeRequest) -> NodeResult[Ballot]: ...

    def compare(self, request: CompareRequest) -> NodeResult[PairChoice]:
        """One ordered pairwise comparison (a pairwise panel's judge): "A", "B" or "tie"."""
        ...

    def prompt_hashes(self, format_name: str | None = None, panel: str = "scoring") -> dict[str, str]:
        """Template name -> content hash of the prompts the backend renders (for ``format_name``'s
        own templates where it declares them; a ``"pairwise"`` panel's judges render the compare
        template instead of the judge template)."""
        ...


#: The three judges' perspectives (a real panel differs by emphasis, not by rules). Each judge applies
#: the whole rubric; the perspective says which dimension it weighs first when the evidence is close.
JUDGE_PERSPECTIVES: dict[str, str] = {
    JUDGE_IDS[0]: "task",  # task performance first: did each side do what its stage asked of it?
    JUDGE_IDS[1]: "battlefield",  # battlefield judgement first: who fought on the clashes that decide the motion?
    JUDGE_IDS[2]: "advancement",  # degree of advancement first: who moved the decisive clashes furthest?
}

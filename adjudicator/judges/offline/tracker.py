"""The offline clash tracker: the :class:`~adjudicator.verdict.battlefield.StageAnalysis` of one stage
(:func:`analyse`), behind the ``analyse_stage`` node.

For each evaluated side: its features (:mod:`adjudicator.judges.offline.features`), rated into rubric
levels (:mod:`adjudicator.judges.offline.rating`), with the debaters' shares of the side's words
(:func:`contributions`); then the stage's clash updates (:mod:`adjudicator.judges.offline.clashes`), fed
each side's stage quality (suggested score + substance) to break engagement ties, and a one-line summary.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from adjudicator.input.evidence import source_for_match
from adjudicator.input.formats import Side, other_side
from adjudicator.input.match import MatchView, Stage
from adjudicator.input.rubric import Rubric
from adjudicator.judges.offline.clashes import track_clashes
from adjudicator.judges.offline.dimensions import rate_dimensions
from adjudicator.judges.offline.features import CASE_STAGES, SideFeatures, side_features
from adjudicator.judges.offline.rating import rate
from adjudicator.judges.offline.reading import DebateReading, read_through
from adjudicator.judges.offline.text import content_terms
from adjudicator.judges.offline.words import Words
from adjudicator.verdict.battlefield import Clash, ClashUpdate, SideAnalysis, StageAnalysis


def analyse(
    match: MatchView,
    stage: Stage,
    index: int,
    previous: list[Stage],
    clashes: dict[str, Clash],
    reading: DebateReading | None = None,
    rubric: Rubric | None = None,
    evidence: Any = None,
) -> StageAnalysis:
    """The offline :class:`StageAnalysis` of ``stage`` (a pure function of its arguments; see the module
    docstring, and that of :mod:`adjudicator.judges.offline`). ``index`` is the stage's position in the
    match, ``previous`` the stages before it and ``clashes`` the clash map as it stands before it.
    ``reading`` is the match's :class:`~adjudicator.judges.offline.reading.DebateReading`, advanced
    here to ``previous`` and ``stage`` (one stage read when it held ``previous``); None reads them
    afresh. The analysis is the same either way. Under a dimensional ``rubric`` each side also gets
    its dimension ratings (:func:`adjudicator.judges.offline.dimensions.rate_dimensions`), fact
    authenticity checked against ``evidence`` (a source, ``"transcript"`` for the quotations up to
    this stage, or None)."""
    lang = match.language
    if reading is None:
        reading = read_through(match, previous, stage)
    else:
        reading.advance(previous, stage)
    source = None
    if rubric is not None and rubric.dimensional and evidence is not None:
        source = source_for_match(evidence, [(s.stage_id, "\n".join(u.text for u in s.utterances)) for s in [*previous, stage]])
    sides: list[SideAnalysis] = []
    quality: dict[str, float] = {}
    words = Words(lang)
    for side in stage.evaluated_sides():
        role = stage.role_of(side)
        f = side_features(match, stage, previous, side, clashes, reading)
        task, bf, adv, prior = rate(stage.type, role, f)
        spoke = any(u.side == other_side(side) for st in (*previous, stage) for u in st.utterances)
        rationale = rationale_words(f, stage.type, role, prior, bool(clashes), spoke, words)
        sa = SideAnalysis.rated(stage.stage_id, side, role, task, bf, adv, rationale=rationale, contributions=contributions(stage, side, lang))
        if rubric is not None and rubric.dimensional:
            sa = sa.model_copy(update={"dimensions": rate_dimensions(rubric, match, stage, previous, side, sa.suggested_score, source)})
        sides.append(sa)
        quality[side] = sa.suggested_score + f.substance
    updates = track_clashes(match, stage, previous, clashes, quality, reading)
    return StageAnalysis(stage_id=stage.stage_id, stage_index=index, sides=sides, clash_updates=updates, summary=_summary(stage, sides, updates, words))


def _summary(stage: Stage, sides: list[SideAnalysis], updates: list[ClashUpdate], words: Words) -> str:
    """One line in the match's language: the stage's name, each side's suggested score, the clashes
    opened (id and title), advanced and conceded (ids by side, sorted)."""
    scores = words.join([words.t("summary.score", side=words.side(sa.side), score=sa.suggested_score) for sa in sides])
    parts = [words.t("summary.scores", stage=words.stage(stage.name), scores=scores)]
    opened = [words.t("summary.clash", id=u.clash_id, title=u.title) for u in updates if u.kind == "opened"]
    if opened:
        parts.append(words.t("summary.opened", clashes=words.join(opened)))
    for kind in ("advanced", "conceded"):
        for side in dict.fromkeys(u.side for u in updates if u.kind == kind):
            ids = sorted({u.clash_id for u in updates if u.kind == kind and u.side == side})
            parts.append(words.t(f"summary.{kind}", side=words.side(side), ids=words.join(ids)))
    return ("；" if words.lang == "zh" else "; ").join(parts) + ("。" if words.lang == "zh" else ".")


def rationale_words(f: SideFeatures, stage_type: str, role: str | None, prior: float, has_ledger: bool, opponent_spoke: bool, words: Words) -> str:
    """A side's features in a stage as sentences (:class:`~adjudicator.judges.offline.features.SideFeatures`;
    words ``why.*``): its length, how much of the other side's recent points (once the other side
    has spoken: ``opponent_spoke``) and of the motion it takes up, new or repeated material (case-building stages), the open clashes it returns to and its
    weighing (summaries, closings, free debate, once there is a ledger), questions asked and answered,
    rebuttal, evidence and concessions, and the structural prior of its role. A scaled feature in
    [0, 1] is said as "most" (>= 2/3), "some" (>= 1/3) or "hardly"."""
    if f.forfeit:
        return words.t("why.forfeit") + ("。" if words.lang == "zh" else ".")

    def level(x: float) -> str:
        return "high" if x >= 2 / 3 else ("mid" if x >= 1 / 3 else "low")

    said = [words.t(f"why.engage.{level(f.engagement)}")] if opponent_spoke else []
    said.append(words.t(f"why.topic.{level(f.topicality)}"))
    if stage_type in CASE_STAGES:
        said.append(words.t("why.novel.high" if f.novelty >= 0.5 else "why.novel.low"))
    if stage_type in SYNTHESIS_STAGES and has_ledger:
        said += [words.t(f"why.synth.{level(f.synthesis)}"), words.t("why.weigh" if f.weighing_score > 0 else "why.no_weigh")]
    if f.questions:
        said.append(words.t("why.asks", questions=words.n("question", f.questions)))
    if f.asked:
        said.append(words.t("why.answers", answered=f.answered, asked=f.asked))
    said.append(words.t(f"why.rebut.{level(f.rebuttal_score) if f.rebuttal_score > 0 else 'low'}"))
    said.append(words.t("why.evidence" if f.evidence_score > 0 else "why.no_evidence"))
    if f.concessions:
        said.append(words.t("why.concedes", concessions=words.n("concession", f.concessions)))
    what = "，".join(said) if words.lang == "zh" else (", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else said[0])
    text = words.t("why.length", terms=words.n("term", f.n_terms), what=what)
    if prior:
        text += ("" if words.lang == "zh" else " ") + words.t("why.prior", role=words.role(role or ""), prior=prior)
    return text


#: Stage types whose job is to return to the open clashes and weigh them (paper Appendix A.2).
SYNTHESIS_STAGES = frozenset({"summary", "closing", "free_debate"})


def contributions(stage: Stage, side: Side, lang: str) -> dict[str, float]:
    """Debater position label -> share in [0, 1] of the side's content terms in this stage (summing to
    1, rounded to 3 decimals); the stage's listed speakers of that side share equally when the side
    said nothing substantive; {} when there are none."""
    counts: Counter[str] = Counter()
    for u in stage.utterances:
        if u.side == side and u.speaker:  # a machine transcript's utterance without a known debater is nobody's share
            counts[u.speaker] += len(content_terms(u.text, lang))
    total = sum(counts.values())
    if total == 0:
        listed = [sp for sp in stage.speakers if sp.lower().startswith(side)] or list(dict.fromkeys(u.speaker for u in stage.utterances if u.side == side and u.speaker))
        return {sp: round(1.0 / len(listed), 3) for sp in listed} if listed else {}
    return {sp: round(c / total, 3) for sp, c in sorted(counts.items())}


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
from adjudicator.input.formats import Side
from adjudicator.input.match import MatchView, Stage
from adjudicator.input.rubric import Rubric
from adjudicator.judges.offline.clashes import track_clashes
from adjudicator.judges.offline.dimensions import rate_dimensions
from adjudicator.judges.offline.features import side_features
from adjudicator.judges.offline.rating import rate
from adjudicator.judges.offline.reading import DebateReading, read_through
from adjudicator.judges.offline.text import content_terms
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
    for side in stage.evaluated_sides():
        role = stage.role_of(side)
        f = side_features(match, stage, previous, side, clashes, reading)
        task, bf, adv, prior = rate(stage.type, role, f)
        rationale = f"offline features: {f.describe()}" + (f"; structural prior {prior:+.2f} ({role})" if prior else "")
        sa = SideAnalysis.rated(stage.stage_id, side, role, task, bf, adv, rationale=rationale, contributions=contributions(stage, side, lang))
        if rubric is not None and rubric.dimensional:
            sa = sa.model_copy(update={"dimensions": rate_dimensions(rubric, match, stage, previous, side, sa.suggested_score, source)})
        sides.append(sa)
        quality[side] = sa.suggested_score + f.substance
    updates = track_clashes(match, stage, previous, clashes, quality, reading)
    return StageAnalysis(stage_id=stage.stage_id, stage_index=index, sides=sides, clash_updates=updates, summary=_summary(stage, sides, updates))


def _summary(stage: Stage, sides: list[SideAnalysis], updates: list[ClashUpdate]) -> str:
    """One line: the stage's name, each side's suggested score, the clashes opened (id and title),
    advanced and conceded (id by side, sorted)."""
    parts = [f"{sa.side} {sa.suggested_score}" for sa in sides]
    opened = [u.clash_id + " '" + u.title + "'" for u in updates if u.kind == "opened"]
    advanced = sorted({f"{u.clash_id} by {u.side}" for u in updates if u.kind == "advanced"})
    conceded = sorted({f"{u.clash_id} by {u.side}" for u in updates if u.kind == "conceded"})
    summary = f"{stage.name}: " + ", ".join(parts)
    if opened:
        summary += "; opened " + ", ".join(opened)
    if advanced:
        summary += "; advanced " + ", ".join(advanced)
    if conceded:
        summary += "; conceded " + ", ".join(conceded)
    return summary


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


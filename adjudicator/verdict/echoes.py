"""Whether the tracker and the judges wrote their own analysis or handed back what they were shown
(issue 25, the quality gate). Both findings only escalate (:mod:`adjudicator.verdict.review`).

``tracker_scores``: a judge gets the clash tracker's analysis of every unit (one side in one stage) with the score its
rubric levels suggest, and is told the scores are advice: keep them where the analysis supports them,
change them where the ledger shows them too high or too low. A ballot that keeps the suggestion on
every one of its units (at least :data:`MIN_UNITS`) may be a judgement that agrees with the tracker
throughout, or a judge that copied the table it was shown; a person decides.

``echoed_summary``: a tracker stage summary that is text the tracker's prompt held, verbatim once case,
spacing and punctuation are set aside (at least :data:`MIN_ECHO_CHARS` letters or digits): a span of
the motion, a position or the background, of the stage's own transcript or the stage before it
(both are in the prompt), or an earlier stage's summary (the ledger shows those). A summary says how
the battlefield changed; an echo says nothing of its own, and no check on free text caught it (the
copy check compares with the example's placeholders only, and leaves out text the user message holds,
so that a quoted sentence of the debate is not a copy).

Neither is checked for the offline judge: its stage scores are derived from the same suggestions by
design (:mod:`adjudicator.judges.offline.ballot`), and its summaries are its own sentences.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: ``tracker_scores`` needs at least this many scored units on the ballot: with one or two units an
#: agreeing judge and a copying one look the same far too often.
MIN_UNITS = 3
#: ``echoed_summary`` needs a summary of at least this many letters and digits: a short summary
#: ("no change") can match a speech by chance.
MIN_ECHO_CHARS = 20

Finding = tuple[str, dict[str, Any]]


def _letters(text: str | None) -> str:
    """``text`` lower-cased with everything but letters and digits removed (Chinese characters kept)."""
    return "".join(ch for ch in (text or "").lower() if ch.isalnum())


def suggested_scores(analyses: Sequence[Any]) -> dict[tuple[str, str], int]:
    """The tracker's suggested score per unit ``(stage_id, side)`` from its stage analyses
    (:class:`~adjudicator.verdict.battlefield.StageAnalysis`; integers 1-10)."""
    return {(a.stage_id, s.side): s.suggested_score for a in analyses for s in a.sides}


def echo_findings(ballots: Sequence[Any], analyses: Sequence[Any], match: Any) -> list[Finding]:
    """``tracker_scores`` and ``echoed_summary`` (module docstring) of a verdict's ``ballots``, the
    tracker's ``analyses`` (empty: nothing is checked) and its ``match`` (a
    :class:`~adjudicator.input.match.MatchView`; None skips ``echoed_summary``)."""
    found = tracker_score_findings(ballots, analyses)
    return found + (echoed_summary_findings(analyses, match) if match is not None else [])


def echoed_summary_findings(analyses: Sequence[Any], match: Any) -> list[Finding]:
    """``[("echoed_summary", {"stages": [...]})]`` naming each stage whose summary is an echo of its
    prompt's text (module docstring), in stage order; empty when there is none."""
    order = [s.stage_id for s in match.stages]
    speech = {s.stage_id: _letters(" ".join(u.text for u in s.utterances)) for s in match.stages}
    header = [_letters(t) for t in (match.motion, match.affirmative_position, match.negative_position, match.info)]
    echoed: list[str] = []
    earlier: list[str] = []
    for a in sorted(analyses, key=lambda a: a.stage_index):
        text = _letters(a.summary)
        if len(text) >= MIN_ECHO_CHARS and a.stage_id in speech:
            i = order.index(a.stage_id)
            shown = [*header, speech[a.stage_id], speech[order[i - 1]] if i else "", *earlier]
            if any(text in source for source in shown):
                echoed.append(a.stage_id)
        earlier.append(text)
    return [("echoed_summary", {"stages": echoed})] if echoed else []


def tracker_score_findings(ballots: Sequence[Any], analyses: Sequence[Any]) -> list[Finding]:
    """``[("tracker_scores", {"judges": [...], "units": [...]})]`` when some of ``ballots``
    (:class:`~adjudicator.verdict.ballots.Ballot`) give every one of their units, at least
    :data:`MIN_UNITS` of them and each with a suggestion, the tracker's suggested score; ``units`` is
    each such ballot's number of units. Empty otherwise."""
    suggested = suggested_scores(analyses)
    judges, units = [], []
    for b in ballots:
        scores = [(s.stage_id, s.side, s.score) for s in b.stage_scores]
        if len(scores) >= MIN_UNITS and all(suggested.get((sid, side)) == score for sid, side, score in scores):
            judges.append(b.judge_id)
            units.append(len(scores))
    return [("tracker_scores", {"judges": judges, "units": units})] if judges else []

"""Whether the tracker and the judges wrote their own analysis or handed back what they were shown
(issue 25, the quality gate). Both findings only escalate (:mod:`adjudicator.verdict.review`).

``tracker_scores``: a judge gets the clash tracker's analysis of every unit (one side in one stage) with the score its
rubric levels suggest, and is told the scores are advice: keep them where the analysis supports them,
change them where the ledger shows them too high or too low. A ballot that keeps the suggestion on
every one of its units (at least :data:`MIN_UNITS`) may be a judgement that agrees with the tracker
throughout, or a judge that copied the table it was shown; a person decides.

``echoed_summary``: a tracker stage summary that is mostly text the tracker's prompt held: at least
:data:`ECHO_SHARE` of its word triples (in Chinese, runs of four characters; case and punctuation
aside) appear in the messages of the request that stage's analysis came from (the stage's task and
the rules, the motion, the ledger, the stage's transcript and the one before it), in the match's
motion, positions, background or those two transcripts, or in an earlier stage's summary (the ledger
shows those). A summary says how the battlefield changed; an echo says nothing of its own, and no
check on free text caught it: the copy check compares with the example's placeholders only, and
leaves out text the user message holds, so that a quoted sentence of the debate is not a copy. (On
the real 0.5B model, debateart_4739: five of six summaries restated the stage's task, a speech or
an earlier summary, 60% to 100% of their triples.)

Neither is checked for the offline judge: its stage scores are derived from the same suggestions by
design (:mod:`adjudicator.judges.offline.ballot`), and its summaries are its own sentences.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

#: ``tracker_scores`` needs at least this many scored units on the ballot: with one or two units an
#: agreeing judge and a copying one look the same far too often.
MIN_UNITS = 3
#: ``echoed_summary`` fires when at least this share of a summary's word triples is prompt text: a
#: summary in its own words shares a few with the speeches it describes (a name, a phrase quoted).
ECHO_SHARE = 0.6
#: ... and needs at least this many triples (six words): a short summary matches by chance.
MIN_ECHO_GRAMS = 4

Finding = tuple[str, dict[str, Any]]

_TOKEN = re.compile(r"[^\W_]+|[\u3400-\u9fff]")  # a run of letters and digits; one CJK character alone
_LATIN = re.compile(r"[^\W_\u3400-\u9fff]+")


def grams(text: str | None, language: str = "en") -> list[tuple[str, ...]]:
    """The word triples of ``text`` (lower-cased; in Chinese, runs of four characters), in order."""
    if language == "zh":
        tokens = [t for piece in _TOKEN.findall((text or "").lower()) for t in ([piece] if _LATIN.fullmatch(piece) else list(piece))]
        n = 4
    else:
        tokens, n = _TOKEN.findall((text or "").lower()), 3
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def suggested_scores(analyses: Sequence[Any]) -> dict[tuple[str, str], int]:
    """The tracker's suggested score per unit ``(stage_id, side)`` from its stage analyses
    (:class:`~adjudicator.verdict.battlefield.StageAnalysis`; integers 1-10)."""
    return {(a.stage_id, s.side): s.suggested_score for a in analyses for s in a.sides}


def echo_findings(ballots: Sequence[Any], analyses: Sequence[Any], match: Any, calls: Sequence[Any] = ()) -> list[Finding]:
    """``tracker_scores`` and ``echoed_summary`` (module docstring) of a verdict's ``ballots``, the
    tracker's ``analyses`` (empty: nothing is checked), its ``match`` (a
    :class:`~adjudicator.input.match.MatchView`; None skips ``echoed_summary``) and its call records
    ``calls`` (:class:`~adjudicator.records.CallRecord`, whose messages carry their text in memory)."""
    found = tracker_score_findings(ballots, analyses)
    return found + (echoed_summary_findings(analyses, match, calls) if match is not None else [])


def _prompt_texts(calls: Sequence[Any]) -> dict[str, list[str]]:
    """Per stage id, the message texts of the tracker's requests for it (the accepted one among them)."""
    out: dict[str, list[str]] = {}
    for c in calls:
        if c.node.startswith("track"):
            out.setdefault(c.key, []).extend(m.text for m in c.messages if m.text)
    return out


def echoed_summary_findings(analyses: Sequence[Any], match: Any, calls: Sequence[Any] = ()) -> list[Finding]:
    """``[("echoed_summary", {"stages": [...], "shares": [...]})]`` naming each stage whose summary is
    mostly prompt text (module docstring) and that share (0-1, 2 decimals), in stage order; empty
    when there is none."""
    lang = getattr(match, "language", "en")
    order = [s.stage_id for s in match.stages]
    speech = {s.stage_id: " ".join(u.text for u in s.utterances) for s in match.stages}
    header = set(grams(" | ".join(t or "" for t in (match.motion, match.affirmative_position, match.negative_position, match.info)), lang))
    prompts = _prompt_texts(calls)
    stages: list[str] = []
    shares: list[float] = []
    earlier: set[tuple[str, ...]] = set()
    for a in sorted(analyses, key=lambda a: a.stage_index):
        mine = grams(a.summary, lang)
        if len(mine) >= MIN_ECHO_GRAMS and a.stage_id in speech:
            i = order.index(a.stage_id)
            shown = header | earlier | set(grams(speech[a.stage_id], lang)) | set(grams(speech[order[i - 1]] if i else "", lang))
            for text in prompts.get(a.stage_id, []):
                shown |= set(grams(text, lang))
            share = sum(g in shown for g in mine) / len(mine)
            if share >= ECHO_SHARE:
                stages.append(a.stage_id)
                shares.append(round(share, 2))
        earlier |= set(mine)
    return [("echoed_summary", {"stages": stages, "shares": shares})] if stages else []


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

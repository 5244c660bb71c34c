"""Who said what, read off a match's stages for the offline judge: a side's text in a stage, the
opponent's recent stages, the opponent's comparable speech, and the questions put to a side with the
answers it gave.

Pure functions of :class:`~adjudicator.input.stages.Stage` objects (no state), safe to call from several threads.
"""

from __future__ import annotations

from itertools import islice

from adjudicator.input.formats import Side, other_side
from adjudicator.input.match import Stage
from adjudicator.judges.offline.text import content_terms, count_questions, is_substantive


def side_text(stage: Stage, side: Side) -> str:
    """The texts of ``side``'s utterances in ``stage``, one per line ("" when it said nothing)."""
    return "\n".join(u.text for u in stage.utterances if u.side == side)


def opponent_history(previous: list[Stage], side: Side, k: int = 2) -> list[Stage]:
    """The opponent's last ``k`` stages in which it spoke (most recent first). Reads back from the
    end only until it has them (it read every earlier stage, so a stage's cost grew with its position)."""
    opp = other_side(side)
    return list(islice((s for s in reversed(previous) if any(u.side == opp for u in s.utterances)), k))


def comparable_opponent_terms(stage: Stage, previous: list[Stage], side: Side, lang: str) -> int | None:
    """Content-term count of the opponent's comparable speech: its turns in this stage when it speaks
    here; else its latest stage of the same type, else its latest monologue; None if none exists."""
    opp = other_side(side)
    if any(u.side == opp for u in stage.utterances):
        return len(content_terms(side_text(stage, opp), lang))
    same = next((s for s in reversed(previous) if s.type == stage.type and opp in s.sides and s.interaction == "monologue"), None)
    cand = same or next((s for s in reversed(previous) if s.interaction == "monologue" and s.sides == [opp]), None)
    return None if cand is None else len(content_terms(side_text(cand, opp), lang))


def questions_answered(stage: Stage, side: Side, lang: str) -> tuple[int, int]:
    """(questions put to ``side`` by the opponent, how many got a substantive reply from ``side``).

    A question turn is an opponent utterance holding a question; its reply is ``side``'s next
    utterance before the opponent speaks again (none: unanswered)."""
    opp = other_side(side)
    asked = answered = 0
    utts = stage.utterances
    for i, u in enumerate(utts):
        if u.side != opp or count_questions(u.text, lang) == 0:
            continue
        asked += 1
        reply = []
        for v in utts[i + 1 :]:
            if v.side == opp:
                break
            reply.append(v.text)
        if reply and is_substantive(" ".join(reply), lang):
            answered += 1
    return asked, answered


"""What a judge reads beyond the ledger: ``--judge-evidence`` (issue 11, "What the judges see").

- ``ledger`` (the default): the tracker's battlefield ledger and its analysis of every unit, never
  the transcript. Cheap, and a judge's input grows with the number of clashes and stages, not with
  the length of the speeches; but a judge can then never catch a tracker's mistake.
- ``quotes``: the ledger plus, for each decisive clash (:func:`decisive_clashes`), the transcript
  lines the tracker's clash events point at: for each of the clash's latest events, the sentence of
  the event's stage, spoken by the event's debater (else by the event's side), that shares the most
  words with the event's note, the clash's title and the acting side's position on it (none when
  no sentence shares a word), cut to :data:`QUOTE_CHARS`. Bounded whatever the debate's length: at most :data:`QUOTE_CLASHES` x
  :data:`QUOTE_EVENTS` quotes.
- ``transcript``: the ledger plus the whole transcript, stage by stage (for short debates or
  long-context models; the context-window preflight refuses a prompt that does not fit).

Everything is built from the label-free :class:`~adjudicator.input.match.MatchView` and the tracker's
output, so no gold label can reach a judge's prompt. Pure functions.
"""

from __future__ import annotations

import re
from typing import Any

from adjudicator.input.match import MatchView
from adjudicator.judges.base import JudgeRequest
from adjudicator.model.prompts import prompt_language, utterance_lines
from adjudicator.verdict.battlefield import Clash, ClashEvent, event_balance

#: Decisive clashes quoted, events quoted per clash (the latest), characters per quote by prompt
#: language (Chinese runs at about one token per 1-1.5 characters, English at about four characters
#: per token, so a quote is about 60-80 tokens and all quotes together at most ~1,000).
QUOTE_CLASHES = 4
QUOTE_EVENTS = 3
QUOTE_CHARS: dict[str, int] = {"zh": 120, "en": 320}

#: A sentence: up to a stop (., !, ?, ;, their full-width forms, or a line break). A full stop
#: inside a number ("0.5"), before a lower-case word ("e.g. this") or after a single capital
#: ("U.S.") does not end one.
_SENTENCE = re.compile(r"(?:[^.!?。！？；;\n]|(?<=\d)\.(?=\d)|(?<=\b[A-Za-z])\.|\.(?=\s*[a-z]))+[.!?。！？；;]*")
_WORD = re.compile(r"[A-Za-z0-9']+")
_HAN = re.compile(r"[\u4e00-\u9fff]")


def decisive_clashes(clashes: dict[str, Clash], limit: int = QUOTE_CLASHES) -> list[Clash]:
    """The ``limit`` clashes that did most to decide the debate: ranked by the size of their net
    advancement (|net score| of :func:`~adjudicator.verdict.battlefield.event_balance`), then by the number
    of events, then by when they opened (the map's order). Clashes without events are left out."""
    ranked = [(abs(event_balance(c.events)[0]), len(c.events), -i, c) for i, c in enumerate(clashes.values()) if c.events]
    ranked.sort(key=lambda t: (t[0], t[1], t[2]), reverse=True)
    return [c for *_, c in ranked[:limit]]


def _terms(text: str) -> set[str]:
    """Lower-cased words of ``text`` longer than two letters, plus its Chinese character bigrams."""
    words = {w.lower() for w in _WORD.findall(text) if len(w) > 2}
    han = "".join(_HAN.findall(text))
    return words | {han[i : i + 2] for i in range(len(han) - 1)}


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def quote_for(match: MatchView, clash: Clash, event: ClashEvent, limit: int) -> dict[str, str] | None:
    """The transcript sentence ``event`` rests on (module docstring), as ``{"clash_id", "stage_id",
    "speaker", "text"}`` with ``text`` at most ``limit`` characters; None when the event's stage is
    not in ``match``, nobody of the event's side spoke in it, or no sentence shares a word with the
    event (a quote about nothing in particular would only cost tokens). Ties go to the earlier
    sentence."""
    try:
        stage = match.stage(event.stage_id)
    except KeyError:
        return None
    spoken = [u for u in stage.utterances if event.debater and u.speaker == event.debater] or [u for u in stage.utterances if u.side == event.side]
    if not spoken:
        return None
    position = clash.affirmative_position if event.side == "affirmative" else clash.negative_position
    wanted = _terms(" ".join((event.note, clash.title, position)))
    best: tuple[int, str, str] | None = None  # (overlap, who said it, sentence)
    for u in spoken:
        for sentence in _SENTENCE.findall(u.text) or [u.text]:
            if not sentence.strip():
                continue
            overlap = len(wanted & _terms(sentence))
            if best is None or overlap > best[0]:
                best = (overlap, u.who, sentence)
    if best is None or best[0] == 0:
        return None
    return {"clash_id": clash.clash_id, "stage_id": event.stage_id, "speaker": best[1], "text": _cut(best[2], limit)}


def judge_quotes(request: JudgeRequest) -> list[dict[str, str]]:
    """The quotes of ``--judge-evidence quotes``: per decisive clash, one per each of its latest
    :data:`QUOTE_EVENTS` events (a sentence quoted once per clash), in clash order."""
    limit = QUOTE_CHARS[prompt_language(request.match.format)]
    out: list[dict[str, str]] = []
    for clash in decisive_clashes(request.clashes):
        seen: set[tuple[str, str]] = set()
        for event in clash.events[-QUOTE_EVENTS:]:
            q = quote_for(request.match, clash, event, limit)
            if q is not None and (q["stage_id"], q["text"]) not in seen:
                seen.add((q["stage_id"], q["text"]))
                out.append(q)
    return out


def judge_transcript(match: MatchView) -> str:
    """The whole transcript of ``--judge-evidence transcript``: per stage a ``[stage_id] name`` line
    and its utterances (:func:`~adjudicator.model.prompts.utterance_lines`), stages separated by a
    blank line."""
    return "\n\n".join(f"[{st.stage_id}] {st.name}\n{utterance_lines(st.utterances)}" for st in match.stages)


def evidence_variables(request: JudgeRequest) -> dict[str, Any]:
    """Template variables of the judge's evidence (``judge_evidence``, ``quotes``, ``transcript``)
    for ``request.judge_evidence``; the ledger mode adds nothing the prompt shows."""
    mode = request.judge_evidence
    return {
        "judge_evidence": mode,
        "quotes": judge_quotes(request) if mode == "quotes" else [],
        "transcript": judge_transcript(request.match) if mode == "transcript" else "",
    }

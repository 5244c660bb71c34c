"""What a verdict says about machine-made stages: one :class:`TranscriptMark` per stage whose text
came from speech recognition (:class:`~adjudicator.input.stages.Transcript`), and the review reasons
such a stage raises (:mod:`adjudicator.verdict.review`).

Every figure is computed from the stage's utterances as the match holds them (times in seconds from
the start of the recording, the recogniser's confidence per utterance, 0-1), so the rule can be
checked by hand against the stage JSON:

- ``mean_confidence``: the utterances' confidence weighted by their words (an utterance of 20 words
  counts 20 times one of 1 word); ``min_confidence`` the lowest;
- ``low_confidence_share``: the share of the stage's words in utterances whose confidence is below
  :data:`CONFIDENCE_FLOOR`;
- ``longest_silence_s``: the longest stretch of the recording with no utterance: before the first,
  between two (the later one's start minus the latest end so far), or after the last up to the
  recording's ``duration_s``;
- ``unattributed``: utterances with no known speaker (their side may be known).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from adjudicator.frozen import FrozenModel
from adjudicator.input.match import Stage

#: Below this an utterance's confidence is low: exp(-1.0) = 0.368, the mean token log-probability
#: under which Whisper decodes a segment again at a higher temperature (faster-whisper's
#: ``log_prob_threshold`` default, -1.0).
CONFIDENCE_FLOOR = math.exp(-1.0)

#: A stage is doubtful when at least this share of its words lies in low-confidence utterances.
LOW_CONFIDENCE_SHARE = 0.10

#: A stretch of a recording this long (seconds) with no recognised speech is a long silence: a
#: dropped microphone or a cut-off speech is likelier than a debater pausing for ten seconds.
LONG_SILENCE_S = 10.0


class TranscriptMark(FrozenModel):
    """One machine-made stage as the verdict reports it (module docstring for each figure)."""

    stage_id: str
    engine: str
    model: str
    language: str
    attribution: str
    duration_s: float
    utterances: int
    words: int
    mean_confidence: float | None = Field(default=None, ge=0, le=1)
    min_confidence: float | None = Field(default=None, ge=0, le=1)
    low_confidence_share: float = Field(ge=0, le=1)
    longest_silence_s: float = Field(ge=0)
    unattributed: int = Field(ge=0)


def transcript_mark(stage: Stage) -> TranscriptMark | None:
    """The mark of ``stage``, None for a typed stage (no ``transcript``)."""
    t = stage.transcript
    if t is None:
        return None
    words = [len(u.text.split()) for u in stage.utterances]
    conf = [(u.confidence, n) for u, n in zip(stage.utterances, words) if u.confidence is not None]
    weight = sum(n for _, n in conf)
    total = sum(words)
    low = sum(n for c, n in conf if c < CONFIDENCE_FLOOR)
    return TranscriptMark(
        stage_id=stage.stage_id,
        engine=t.engine,
        model=t.model,
        language=t.language,
        attribution=t.attribution,
        duration_s=t.duration_s,
        utterances=len(stage.utterances),
        words=total,
        mean_confidence=round(sum(c * n for c, n in conf) / weight, 3) if weight else None,
        min_confidence=min(c for c, _ in conf) if conf else None,
        low_confidence_share=round(low / total, 3) if total else 0.0,
        longest_silence_s=round(longest_silence(stage), 2),
        unattributed=len(stage.unattributed()),
    )


def longest_silence(stage: Stage) -> float:
    """The longest stretch (seconds) of the stage's recording without an utterance (module
    docstring); 0.0 when the utterances carry no times."""
    spans = sorted((u.start_s, u.end_s) for u in stage.utterances if u.start_s is not None and u.end_s is not None)
    if not spans:
        return 0.0
    longest, reached = spans[0][0], 0.0
    for start, end in spans:
        longest = max(longest, start - reached)
        reached = max(reached, end)
    duration = stage.transcript.duration_s if stage.transcript is not None else reached
    return max(longest, duration - reached, 0.0)


def transcript_marks(stages: Sequence[Stage]) -> list[TranscriptMark]:
    """The marks of the machine-made stages among ``stages``, in stage order."""
    return [m for m in (transcript_mark(s) for s in stages) if m is not None]


def transcript_findings(stages: Sequence[Stage]) -> list[tuple[str, dict[str, Any]]]:
    """The review findings (:func:`adjudicator.verdict.review.review_of`: ``(reason, facts)``) of the
    doubtful machine-made stages among ``stages``, one per reason naming every stage it covers:
    ``low_transcript_confidence`` (facts: stages, floor, share), ``long_silence`` (stages, seconds,
    longest) and ``unattributed_speech`` (stages, n utterances); none for typed stages."""
    marks = transcript_marks(stages)
    out: list[tuple[str, dict[str, Any]]] = []
    low = [m for m in marks if m.low_confidence_share >= LOW_CONFIDENCE_SHARE]
    if low:
        out.append(("low_transcript_confidence", {"stages": [m.stage_id for m in low], "floor": round(CONFIDENCE_FLOOR, 2), "share": LOW_CONFIDENCE_SHARE}))
    quiet = [m for m in marks if m.longest_silence_s >= LONG_SILENCE_S]
    if quiet:
        out.append(("long_silence", {"stages": [m.stage_id for m in quiet], "seconds": LONG_SILENCE_S, "longest": max(m.longest_silence_s for m in quiet)}))
    loose = [m for m in marks if m.unattributed]
    if loose:
        out.append(("unattributed_speech", {"stages": [m.stage_id for m in loose], "n": sum(m.unattributed for m in loose)}))
    return out


def transcript_view(stage: Stage) -> dict[str, Any]:
    """A machine-made stage's transcript as the live board shows it under the stage: engine, model,
    language, attribution and each utterance's times, speaker (None: unknown), side, text and
    confidence. The stage must have a ``transcript``."""
    t = stage.transcript
    assert t is not None
    return {
        "engine": t.engine, "model": t.model, "language": t.language, "attribution": t.attribution, "duration_s": t.duration_s,
        "utterances": [{"start_s": u.start_s, "end_s": u.end_s, "speaker": u.speaker, "side": u.side, "text": u.text, "confidence": u.confidence} for u in stage.utterances],
    }

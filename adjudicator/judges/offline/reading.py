"""What the offline tracker has read of a debate so far: running counts, so a stage costs time in
proportion to that stage alone (:class:`DebateReading`).

Seven quantities of the offline tracker are readings of the whole debate up to a stage. Read afresh
at every stage, they made one stage cost time in proportion to the debate so far, and a whole match
quadratic in its length. A :class:`DebateReading` keeps each as a running count, updated once per
stage with that stage's utterances:

- through the current stage (this stage included): the Chinese phrase vocabulary
  (:class:`~adjudicator.judges.offline.zh_phrases.PhraseCounter`), the number of sentences naming each
  clash unit and the number of sentences (:meth:`DebateReading.sentences_naming`, background
  damping), every content term anyone has said (topicality), each side's content terms with counts
  in order of first use (broad engagement), and, per side, everything the other side said, squashed
  (a quotation test for positions);
- before the current stage: each side's sentences (repetition) and content terms (novelty, engagement).

Every reading equals the full re-reading it replaces (``tests/test_offline_reading.py`` compares them stage by
stage, ``tests/test_golden.py`` holds the verdicts). :meth:`DebateReading.advance` makes the reading
hold exactly the stages of a request: it reads one more stage when the request continues the stages
read (compared by identity, else by value), and reads from the start otherwise, so a reading can
never answer for a different transcript. Not thread-safe: one caller at a time
(:class:`~adjudicator.judges.offline.backend.OfflineBackend` keeps one per match, each with its lock).
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass, field

from adjudicator.input.formats import SIDES, Side
from adjudicator.input.match import MatchView, Stage
from adjudicator.judges.offline.text import content_terms, own_sentences, sentences
from adjudicator.judges.offline.zh_phrases import PhraseCounter, zh_candidates

_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


def squash(text: str) -> str:
    """Lower-case letters, digits and CJK only (to recognise a quoted sentence whatever its markup)."""
    return _NON_WORD.sub("", (text or "").lower())


def norm_sentence(sentence: str) -> str:
    """A sentence lower-cased with its whitespace collapsed (to recognise one said again word for word)."""
    return " ".join(sentence.lower().split())


@dataclass
class _Pending:
    """What the current stage adds to the readings "before the current stage", folded in when the
    reading moves on to the next stage."""

    said: dict[str, set[str]] = field(default_factory=lambda: {s: set() for s in SIDES})
    terms: dict[str, set[str]] = field(default_factory=lambda: {s: set() for s in SIDES})


class DebateReading:
    """The running readings of one match (see the module docstring), for the stages read so far.

    ``match`` gives the language and the motion (the motion opens the Chinese vocabulary). Call
    :meth:`advance` with a request's earlier stages and its stage before reading anything.
    """

    def __init__(self, match: MatchView) -> None:
        self.language = match.language
        self.motion = match.motion
        self.lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self._stages: list[Stage] = []  # read so far; the last is the current stage
        self._pending = _Pending()
        self.phrases = PhraseCounter() if self.language == "zh" else None
        if self.phrases is not None:
            self.phrases.add(self.motion)
        self._naming: Counter[str] = Counter()  # clash unit -> sentences naming it (through the current stage)
        self._n_sentences = 0
        self._spoken: set[str] = set()
        self._side_terms: dict[str, Counter[str]] = {s: Counter() for s in SIDES}
        self._others: dict[str, list[str]] = {s: [] for s in SIDES}  # squashed texts of anyone but the side
        self._others_joined: dict[str, str] = {}
        self._said: dict[str, set[str]] = {s: set() for s in SIDES}
        self._earlier_terms: dict[str, set[str]] = {s: set() for s in SIDES}

    # -- moving along the debate ------------------------------------------------------------------

    def advance(self, previous: list[Stage], stage: Stage) -> None:
        """Hold ``previous`` as the stages before and ``stage`` as the current one: read one stage
        when ``previous`` is what was read so far, nothing when ``previous + [stage]`` is, else read
        everything again from the motion on."""
        read = self._stages
        if len(read) == len(previous) + 1 and _one(read[-1], stage) and (not previous or _one(read[-2], previous[-1])):
            return
        if not _same(read, previous):
            self._reset()
            for st in previous:
                self._read(st)
        self._read(stage)

    def _read(self, stage: Stage) -> None:
        """Move the current stage into "before" and read ``stage`` as the new current one."""
        for s in SIDES:
            self._said[s] |= self._pending.said[s]
            self._earlier_terms[s] |= self._pending.terms[s]
        self._pending = _Pending()
        self._others_joined = {}
        lang = self.language
        for u in stage.utterances:
            terms = content_terms(u.text, lang)
            if self.phrases is not None:
                self.phrases.add(u.text)
            for x in own_sentences(u.text):
                self._n_sentences += 1
                self._naming.update(zh_candidates(x) if lang == "zh" else set(content_terms(x, lang)))
            self._spoken.update(terms)
            if u.side in self._side_terms:
                self._side_terms[u.side].update(terms)
                self._pending.said[u.side].update(norm_sentence(x) for x in sentences(u.text))
                self._pending.terms[u.side].update(terms)
            squashed = squash(u.text)
            for s in SIDES:
                if u.side != s:
                    self._others[s].append(squashed)
        self._stages.append(stage)

    # -- through the current stage ------------------------------------------------------------------

    def sentences_naming(self, unit: str) -> int:
        """How many of the debate's sentences so far (outside quoted lines) name clash ``unit``: a
        vocabulary phrase occurring in the sentence (zh; 0 for anything not in the vocabulary), a
        content term of it (en)."""
        if self.phrases is not None and unit not in self.phrases:
            return 0
        return self._naming.get(unit, 0)

    @property
    def n_sentences(self) -> int:
        """Sentences (outside quoted lines) said so far."""
        return self._n_sentences

    @property
    def spoken_terms(self) -> set[str]:
        """Every content term anyone has said so far (do not modify)."""
        return self._spoken

    def side_terms(self, side: Side) -> Counter[str]:
        """``side``'s content terms so far with their counts, in order of first use (do not modify)."""
        return self._side_terms[side]

    def said_by_others(self, side: Side) -> str:
        """:func:`squash` of everything said so far by anyone but ``side``."""
        if side not in self._others_joined:
            self._others_joined[side] = "".join(self._others[side])
        return self._others_joined[side]

    # -- before the current stage --------------------------------------------------------------------

    def said_before(self, side: Side) -> set[str]:
        """``side``'s sentences in the earlier stages, each :func:`norm_sentence` (do not modify)."""
        return self._said[side]

    def terms_before(self, side: Side) -> set[str]:
        """``side``'s content terms in the earlier stages (do not modify)."""
        return self._earlier_terms[side]


def read_through(match: MatchView, previous: list[Stage], stage: Stage) -> DebateReading:
    """A fresh reading of ``previous`` and ``stage`` (what a one-off call without a kept reading uses)."""
    reading = DebateReading(match)
    reading.advance(previous, stage)
    return reading


def _one(x: Stage, y: Stage) -> bool:
    """The same stage: identity first, equal values otherwise."""
    return x is y or x == y


def _same(a: list[Stage], b: list[Stage]) -> bool:
    """The same stages in the same order. A debate's stages only grow (a stage id is received once),
    so the same count and the same last stage mean the same stages: the check costs the same at every
    stage (comparing every stage made a stage's cost grow with its position)."""
    return len(a) == len(b) and (not a or _one(a[-1], b[-1]))

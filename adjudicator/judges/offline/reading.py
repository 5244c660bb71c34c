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
never answer for a different transcript. :meth:`DebateReading.state` gives the counts as plain data
and :meth:`DebateReading.from_state` builds the reading back (a live room keeps its reading with the
room, :mod:`adjudicator.live.store.readings`); the stages a restored reading holds are :class:`StageMark` objects
(id and content digest), compared with a request's stages as stages are. Not thread-safe: one caller at a time
(:class:`~adjudicator.judges.offline.backend.OfflineBackend` keeps one per match, each with its lock).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

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
        self._stages: list[Stage | StageMark] = []  # read so far; the last is the current stage
        self._marks: list[list[str]] = []  # [stage_id, digest] of the first len(_marks) of _stages (state())
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

    def continues(self, previous: list[Stage], stage: Stage) -> bool:
        """Whether :meth:`advance` to ``previous`` and ``stage`` reads at most ``stage`` (this reading
        holds ``previous``, or ``previous + [stage]``) rather than the whole debate again."""
        read = self._stages
        if len(read) == len(previous) + 1:
            return _one(read[-1], stage) and (not previous or _one(read[-2], previous[-1]))
        return _same(read, previous)

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


    # -- as plain data -------------------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """The reading as plain data (str / int / list / dict values only: any msgpack or JSON encoder
        takes it, and nothing in it names a class to load): ``{"version", "language", "motion",
        "stages": [[stage_id, digest], ...], "counts": {...}}``. Sets become lists (their order
        carries nothing); counters stay in insertion order (:meth:`side_terms`: order of first use)."""
        sides = _lists
        counts: dict[str, Any] = {
            "naming": dict(self._naming), "n_sentences": self._n_sentences, "spoken": list(self._spoken),
            "side_terms": {s: dict(c) for s, c in self._side_terms.items()}, "others": sides(self._others),
            "said": sides(self._said), "earlier_terms": sides(self._earlier_terms),
            "pending_said": sides(self._pending.said), "pending_terms": sides(self._pending.terms),
            "phrases": self.phrases.state() if self.phrases is not None else None,
        }
        self._marks += [_mark(st) for st in self._stages[len(self._marks) :]]  # each stage digested once
        return {"version": STATE_VERSION, "language": self.language, "motion": self.motion, "stages": list(self._marks), "counts": counts}

    @classmethod
    def from_state(cls, match: MatchView, state: dict[str, Any]) -> DebateReading | None:
        """The reading :meth:`state` saved, for ``match``, equal in every count; None when the state
        is of another :data:`STATE_VERSION`, language or motion (the caller reads afresh). Raises
        KeyError / TypeError / ValueError for a malformed state."""
        if state.get("version") != STATE_VERSION or state.get("language") != match.language or state.get("motion") != match.motion:
            return None
        r, c = cls(match), state["counts"]
        r._stages = [StageMark(str(sid), str(digest)) for sid, digest in state["stages"]]
        r._marks = [[m.stage_id, m.digest] for m in r._stages if isinstance(m, StageMark)]
        r._naming, r._n_sentences, r._spoken = Counter(c["naming"]), int(c["n_sentences"]), set(c["spoken"])
        r._side_terms = {s: Counter(c["side_terms"][s]) for s in SIDES}
        r._others = {s: list(c["others"][s]) for s in SIDES}
        r._said = {s: set(c["said"][s]) for s in SIDES}
        r._earlier_terms = {s: set(c["earlier_terms"][s]) for s in SIDES}
        r._pending = _Pending(said={s: set(c["pending_said"][s]) for s in SIDES}, terms={s: set(c["pending_terms"][s]) for s in SIDES})
        if r.phrases is not None:
            r.phrases = PhraseCounter.from_state(c["phrases"])
        return r


#: The layout of :meth:`DebateReading.state`; a state of another version is not restored (read afresh).
STATE_VERSION = 1


def stage_digest(stage: Stage) -> str:
    """SHA-256 (hex) of the stage's JSON dump: equal for equal stages."""
    return hashlib.sha256(stage.model_dump_json().encode("utf-8")).hexdigest()


class StageMark:
    """A stage a restored reading holds: its id and :func:`stage_digest`. Equal to a :class:`Stage`
    with that id and content, and to a mark of the same two."""

    __slots__ = ("digest", "stage_id")

    def __init__(self, stage_id: str, digest: str) -> None:
        self.stage_id = stage_id
        self.digest = digest

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StageMark):
            return (self.stage_id, self.digest) == (other.stage_id, other.digest)
        if isinstance(other, Stage):
            return other.stage_id == self.stage_id and stage_digest(other) == self.digest
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.stage_id, self.digest))


def _lists(per_side: dict[str, Any]) -> dict[str, list[str]]:
    return {s: list(v) for s, v in per_side.items()}


def _mark(stage: Stage | StageMark) -> list[str]:
    return [stage.stage_id, stage.digest if isinstance(stage, StageMark) else stage_digest(stage)]


def read_through(match: MatchView, previous: list[Stage], stage: Stage) -> DebateReading:
    """A fresh reading of ``previous`` and ``stage`` (what a one-off call without a kept reading uses)."""
    reading = DebateReading(match)
    reading.advance(previous, stage)
    return reading


def _one(x: Stage | StageMark, y: Stage | StageMark) -> bool:
    """The same stage: identity first, equal values otherwise (a :class:`StageMark` compares its
    digest)."""
    return x is y or x == y


def _same(a: list[Stage | StageMark], b: list[Stage]) -> bool:
    """The same stages in the same order. A debate's stages only grow (a stage id is received once),
    so the same count and the same last stage mean the same stages: the check costs the same at every
    stage (comparing every stage made a stage's cost grow with its position)."""
    return len(a) == len(b) and (not a or _one(a[-1], b[-1]))

"""Clash tracking for the offline judge: the clash updates of one stage (:func:`track_clashes`).

Clashes (:func:`track_clashes`) are made of units: recurring word-like phrases for Chinese
(:func:`adjudicator.judges.offline.zh_phrases.zh_phrases`) and stemmed words for English. A clash is titled by 2-3
co-occurring salient units; constructives open the clashes their main claims repeat (motion terms may
seed them), later stages those both sides take up; a side's position is its own declarative sentence
on the clash (never a question or a quotation of the opponent); a side "advances" a clash only when it
engages it substantively and clearly more than the other side, otherwise the clash is "contested".

Four inputs cover the whole debate so far: the Chinese vocabulary, the side's earlier sentences
(:func:`_stage_sentences`), the sentence frequencies of background units (:func:`_background_damping`)
and everything the opponent said (:func:`_side_work`). They come from a
:class:`~adjudicator.judges.offline.reading.DebateReading`, which keeps them as running counts, so a
stage costs time in proportion to that stage.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from adjudicator.input.formats import SIDES, Side, other_side
from adjudicator.input.match import MatchView, Stage
from adjudicator.judges.offline.ledger import clash_units, title_units
from adjudicator.judges.offline.reading import DebateReading, norm_sentence, read_through, squash
from adjudicator.judges.offline.text import content_terms, evidence_markers, has_concession, has_rebuttal, is_attributed, is_question, own_sentences, surface_forms, weighing_markers
from adjudicator.judges.offline.titles import clash_title, is_question_title, question_title
from adjudicator.judges.offline.transcript import opponent_history, side_text
from adjudicator.judges.offline.words import Words
from adjudicator.judges.offline.zh_phrases import PhraseCounter
from adjudicator.verdict.battlefield import Clash, ClashEventKind, ClashUpdate
from adjudicator.verdict.markup import strip_markup

#: Clash tracking: at most this many clashes open in one stage, and in the whole map.
MAX_NEW_CLASHES = 2
MAX_CLASHES = 10
#: Terms in a clash title (at least 2: a clash is a relation between terms, not one frequent word).
MIN_TITLE_TERMS = 2
MAX_TITLE_TERMS = 3
#: A unit named in more than this share of the debate's sentences is background (the subject itself).
BACKGROUND_DF = 0.12


@dataclass(frozen=True)
class _Sent:
    """One sentence of a side in the stage under analysis."""

    speaker: str | None  # None: a machine transcript's utterance whose debater is unknown
    text: str
    units: frozenset[str]  # clash units it mentions (Chinese phrases / English stems)
    question: bool
    attributed: bool  # reports or quotes the opponent
    rebuttal: bool
    weighing: bool
    evidence: bool
    concession: bool


class _Touched(NamedTuple):
    """A clash the stage takes up: an existing one its sentences mention, or one it opens. ``title``
    is the title this stage gives it ("" to keep the map's: :mod:`adjudicator.judges.offline.titles`);
    ``terms`` the units later stages count for it (a new clash's, "as its title first read": the
    units of :func:`~adjudicator.judges.offline.ledger.title_units`)."""

    clash_id: str
    title: str
    units: list[str]
    is_new: bool
    terms: list[str] = []


@dataclass(frozen=True)
class _Work:
    """One side's work on one touched clash in the stage (steps 3 and 4 of :func:`track_clashes`)."""

    engagement: float  # 1 per statement (0.5 per question unless the side asks), +0.5 per rebuttal, weighing, evidence marker
    rebuttals: int  # its sentences on the clash with a rebuttal marker
    concessions: int  # its sentences on the clash with a concession marker
    stated: bool  # at least one statement of its own (not a question, not a report of the opponent)
    speaker: str | None  # the debater who said most of those sentences (None: no sentence)
    position: str  # its position on the clash when stated for the first time here, else ""
    sentences: int  # its sentences naming the clash
    questions: int = 0  # of those, questions
    evidence: int = 0  # of those, sentences with an evidence marker


def track_clashes(
    match: MatchView,
    stage: Stage,
    previous: list[Stage],
    clashes: dict[str, Clash],
    sides_quality: dict[str, float],
    reading: DebateReading | None = None,
) -> list[ClashUpdate]:
    """Clash updates for one stage. ``reading`` holds ``previous`` and ``stage`` read (see
    :meth:`~adjudicator.judges.offline.reading.DebateReading.advance`); None reads them here.

    Units are recurring word-like phrases for Chinese (:func:`~adjudicator.judges.offline.zh_phrases.zh_phrases`,
    which avoids cross-word fragments) and content-term stems for English.

    1. Candidates. When the opponent has spoken (this stage or its last two): units a side uses at
       least twice in this stage that the opponent also used, motion terms excluded; salience = own
       count + the opponent's. In a constructive speech before the opponent has spoken: the units
       its main claims repeat (at least twice), motion terms included (they may seed a clash).
    2. Existing clashes (units read back from their titles) are touched when the stage's sentences
       mention them at least twice; up to ``MAX_NEW_CLASHES`` new clashes open from the most salient
       candidates not already covered, each titled by 2-3 co-occurring units (``_title``; a candidate
       with no co-occurring unit opens nothing), ids ``c<n>`` continuing the map's numbering.
    3. Per touched clash and side, engagement = sum over the side's sentences naming it of 1 for a
       statement (0.5 for a question unless the side is the questioner), +0.5 each for a rebuttal,
       weighing or evidence marker. "conceded" when concession sentences on it are at least as many
       as rebuttal ones; a side engages *substantively* when its engagement is at least 2 with at least
       one statement of its own (not a question, not a report of the opponent). Among substantive,
       non-conceding sides the one with at least 1.5x the other's engagement (ties: stage quality)
       "advanced"; every other active side "contested". A new clash's first update is "opened" by
       the side that engages it most.
    4. Positions: a side's position on a clash is set once, the first time the side states one (see
       ``_position``): its own declarative sentence naming the clash units.
    """
    lang = match.language
    evaluated = stage.evaluated_sides()
    reading = reading if reading is not None else read_through(match, previous, stage)
    vocab = reading.phrases
    sents = {side: _stage_sentences(stage, reading.said_before(side), side, lang, vocab) for side in SIDES}
    all_sents = [x for side in SIDES for x in sents[side]]
    # 1. candidates, from the units each side uses in its own (unquoted) text and the opponent's recent ones
    counts = {side: _units("\n".join(x.text for x in sents[side]), lang, vocab) for side in SIDES}
    speaking = [s for s in evaluated if counts[s]]
    opp_counts = {side: _opponent_counts(side, counts, previous, lang, vocab) for side in speaking}
    topic = _topic_units(match, vocab)
    damp = _background_damping(reading)
    cand = _candidates(stage.type, speaking, counts, opp_counts, topic, damp)
    partners = _title_partners(cand, speaking, counts, damp)
    # 2. the clashes the stage touches: existing ones it mentions, then new ones
    said = (match.motion, match.affirmative_position, match.negative_position)
    touched, covered = _existing_clashes(clashes, all_sents, lang, said)
    touched += _new_clashes(cand, partners, covered, all_sents, len(clashes), lang, topic, said)
    words = Words(lang)
    # 3, 4. each side's work on each touched clash, and the clash's updates
    opp_said = {side: reading.said_by_others(side) for side in evaluated}
    updates: list[ClashUpdate] = []
    for clash in touched:
        work = {side: _side_work(clash, side, stage, sents[side], clashes.get(clash.clash_id), opp_said[side], lang) for side in evaluated}
        updates += _clash_updates(clash, stage, work, sides_quality, words)
    return updates


# ---- sentences and units


def _units(text: str, lang: str, vocab: PhraseCounter | None) -> Counter[str]:
    """Clash units of ``text`` with counts: the debate's vocabulary phrases so far (zh, in order of first
    occurrence; :func:`~adjudicator.judges.offline.zh_phrases.zh_phrases`) or content-term stems (en)."""
    if lang == "zh":
        return Counter({p: text.count(p) for p in (vocab.found_in(text) if vocab is not None else [])})
    return Counter(content_terms(text, lang))


def _stage_sentences(stage: Stage, said: set[str], side: Side, lang: str, vocab: PhraseCounter | None) -> list[_Sent]:
    """``side``'s sentences in ``stage`` outside quoted lines, skipping sentences it had already said
    word for word in an earlier stage (``said``: those sentences, normalised; repetition is not clash work)."""
    out = []
    for u in stage.utterances:
        if u.side != side:
            continue
        for sent in own_sentences(u.text):
            if norm_sentence(sent) in said:
                continue
            out.append(_Sent(
                speaker=u.speaker, text=sent, units=frozenset(_units(sent, lang, vocab)),
                question=is_question(sent, lang), attributed=is_attributed(sent, lang),
                rebuttal=has_rebuttal(sent, lang), weighing=weighing_markers(sent, lang) > 0,
                evidence=evidence_markers(sent, lang) > 0, concession=has_concession(sent, lang),
            ))
    return out


def _overlaps(a: str, b: str, lang: str) -> bool:
    """Same unit, or (Chinese) two phrases sharing a character (多数 / 数人 are one word cut twice)."""
    return a == b or (lang == "zh" and bool(set(a) & set(b)))


# ---- step 1: candidates


def _opponent_counts(side: Side, counts: dict[Side, Counter[str]], previous: list[Stage], lang: str, vocab: PhraseCounter | None) -> Counter[str]:
    """Occurrences of each unit in what ``side``'s opponent said in this stage (``counts``: each side's
    own unquoted text here) and in its last two stages."""
    opp = other_side(side)
    oc = Counter(counts[opp])
    for st in opponent_history(previous, side):
        oc.update(_units(side_text(st, opp), lang, vocab))
    return oc


def _topic_units(match: MatchView, vocab: PhraseCounter | None) -> set[str]:
    """The units of the motion and the two positions: vocabulary phrases they contain (zh), their
    content terms (en)."""
    topic_text = " ".join([match.motion, match.affirmative_position, match.negative_position])
    if match.language == "zh":
        return set(vocab.found_in(topic_text)) if vocab is not None else set()
    return set(content_terms(topic_text, match.language))


def _background_damping(reading: DebateReading) -> Callable[[str], float]:
    """Unit -> salience factor in (0, 1]. Background units, named in more than ``BACKGROUND_DF`` of all
    sentences so far (this stage included; the debate's subject itself, e.g. 学生 in a debate about
    students), have their salience scaled down by BACKGROUND_DF / df; every other unit keeps 1."""
    total = reading.n_sentences

    def damp(t: str) -> float:
        share = reading.sentences_naming(t) / total if total else 0.0
        return min(1.0, BACKGROUND_DF / share) if share > 0 else 1.0

    return damp


def _candidates(stage_type: str, speaking: list[Side], counts: dict[Side, Counter[str]], opp_counts: dict[Side, Counter[str]], topic: set[str], damp: Callable[[str], float]) -> dict[str, float]:
    """Candidate seeds of new clashes with their salience (step 1 of :func:`track_clashes`): for each
    speaking side, when the opponent has spoken, units it uses at least twice that the opponent also
    used, motion terms excluded, salience (own count + the opponent's) x damping; in a constructive
    before the opponent has spoken, the units it repeats or motion terms it uses, salience count x
    damping. A unit both sides offer keeps its larger salience."""
    cand: dict[str, float] = {}
    for side in speaking:
        opp_spoke = bool(opp_counts[side])
        for t, c in counts[side].items():
            oc = opp_counts[side].get(t, 0)
            if opp_spoke:
                if c >= 2 and oc >= 1 and t not in topic:
                    cand[t] = max(cand.get(t, 0.0), (c + oc) * damp(t))
            elif stage_type == "constructive" and (c >= 2 or (t in topic and c >= 1)):
                cand[t] = max(cand.get(t, 0.0), c * damp(t))
    return cand


def _title_partners(cand: dict[str, float], speaking: list[Side], counts: dict[Side, Counter[str]], damp: Callable[[str], float]) -> dict[str, float]:
    """The units a clash title may pair with its seed, with their salience: every candidate, and any
    other unit a speaking side repeats in this stage (salience half its count x damping; the first
    speaking side's count when both repeat it)."""
    partners = dict(cand)
    for side in speaking:
        for t, c in counts[side].items():
            if c >= 2 and t not in partners:
                partners[t] = 0.5 * c * damp(t)
    return partners


# ---- step 2: the clashes the stage touches


def _existing_clashes(clashes: dict[str, Clash], sents: list[_Sent], lang: str, motion: tuple[str, ...]) -> tuple[list[_Touched], list[str]]:
    """The map's clashes the stage's sentences ``sents`` mention at least twice (their units:
    :func:`~adjudicator.judges.offline.ledger.clash_units`), in map order, and the units of every clash
    in the map (``covered``: a new clash may not be seeded by one of them). A clash of this tracker
    still titled by its units is retitled when the stage offers a question about it
    (:func:`~adjudicator.judges.offline.titles.question_title`)."""
    touched: list[_Touched] = []
    covered: list[str] = []
    for cid, clash in clashes.items():
        units = clash_units(clash, lang)
        covered += units
        n = sum(1 for x in sents for u in units if u in x.units)
        if units and n >= 2:
            retitle = question_title(units, [x for x in sents if x.units & set(units)], lang, motion) if clash.terms and not is_question_title(clash.title) else ""
            touched.append(_Touched(cid, retitle, units, False))
    return touched, covered


def _new_clashes(cand: dict[str, float], partners: dict[str, float], covered: list[str], sents: list[_Sent], n_existing: int, lang: str, topic: set[str], motion: tuple[str, ...]) -> list[_Touched]:
    """Up to ``MAX_NEW_CLASHES`` new clashes (and at most ``MAX_CLASHES`` in the map), seeded by the
    most salient candidates (ties: unit) that overlap no covered unit, each titled by :func:`_title`
    (a seed it cannot title opens nothing); ids ``c<n>`` continue the map's numbering."""
    covered = list(covered)
    new: list[_Touched] = []
    surf = surface_forms("\n".join(x.text for x in sents), lang) if lang != "zh" else {}
    for seed, _ in sorted(cand.items(), key=lambda kv: (-kv[1], kv[0])):
        if len(new) >= MAX_NEW_CLASHES or n_existing + len(new) >= MAX_CLASHES:
            break
        if any(_overlaps(seed, c, lang) for c in covered):
            continue
        made = _title_units(seed, partners, covered, sents, lang, topic)
        if made is None:
            continue
        units = made
        covered += units
        first = " / ".join(surf.get(u, u) for u in units)  # the units as the map reads them back (ledger.title_units)
        title = clash_title(units, [x for x in sents if x.units & set(units)], lang, surf, motion)
        new.append(_Touched(f"c{n_existing + len(new) + 1}", title, units, True, title_units(first, lang)))
    return new


def _title_units(seed: str, cand: dict[str, float], covered: list[str], sents: list[_Sent], lang: str, topic: set[str]) -> list[str] | None:
    """A new clash's units: ``seed`` plus 1-2 candidate units that co-occur with it in the stage's
    sentences (most shared sentences first, then salience). None if no unit co-occurs with the seed
    (a single frequent word is not a clash) or if every unit is a motion term (the motion itself is
    not a clash)."""
    seed_sents = [x for x in sents if seed in x.units]
    co: dict[str, int] = {}
    for x in seed_sents:
        for u in x.units:
            if u in cand and not _overlaps(u, seed, lang) and not any(_overlaps(u, c, lang) for c in covered):
                co[u] = co.get(u, 0) + 1
    units = [seed]
    for u, k in sorted(co.items(), key=lambda kv: (-kv[1], -cand[kv[0]], kv[0])):
        if len(units) >= MAX_TITLE_TERMS:
            break
        if k >= max(1, 0.34 * len(seed_sents)) and not any(_overlaps(u, v, lang) for v in units):
            units.append(u)
    if len(units) < MIN_TITLE_TERMS or all(u in topic for u in units):
        return None
    return units


# ---- steps 3 and 4: each side's work on a clash, and the clash's updates


_LINKISH = re.compile(r"https?:|www\.|\w/\w|<|>")


def _side_work(clash: _Touched, side: Side, stage: Stage, side_sents: list[_Sent], old: Clash | None, opponent_text: str, lang: str) -> _Work:
    """``side``'s work on ``clash`` from its sentences ``side_sents`` in the stage (see :class:`_Work`).
    Its position is looked for only when ``old`` (the clash as the map holds it; None for a new one)
    has none for the side yet."""
    uset = set(clash.units)
    mine = [x for x in side_sents if x.units & uset]
    asker = stage.role_of(side) == "questioner"
    has_position = bool(old and getattr(old, f"{side}_position"))
    return _Work(
        engagement=sum((1.0 if (not x.question or asker) else 0.5) + 0.5 * (x.rebuttal + x.weighing + x.evidence) for x in mine),
        rebuttals=sum(1 for x in mine if x.rebuttal),
        concessions=sum(1 for x in mine if x.concession),
        stated=any(not x.question and not x.attributed for x in mine),
        speaker=Counter(x.speaker for x in mine).most_common(1)[0][0] if mine else None,
        position="" if has_position else _position(mine, clash.units, opponent_text, lang),
        sentences=len(mine),
        questions=sum(1 for x in mine if x.question),
        evidence=sum(1 for x in mine if x.evidence),
    )


def _position(sents: list[_Sent], units: list[str], opponent_text: str, lang: str) -> str:
    """The side's position on a clash: its own declarative sentence naming the most clash units, its
    markup removed (:func:`~adjudicator.verdict.markup.strip_markup`); ties go to the sentence nearest
    60 characters, then the earliest. Skipped: questions, sentences that report the opponent
    (:func:`~adjudicator.judges.offline.text.is_attributed`), sentences found word for word in the
    opponent's speeches (a quotation without markup), links, fragments (fewer than 4 content terms)
    and pieces of a sentence cut at a decimal point (an English one starting with a digit or a small
    letter: "00 per movie" from "$3.00 per movie"). "" when there is none. ``opponent_text`` is
    :func:`~adjudicator.judges.offline.reading.squash` of everything the opponent said."""
    best = None
    for i, x in enumerate(sents):
        k = sum(1 for u in units if u in x.units)
        if k == 0 or x.question or x.attributed or "http" in x.text or "www." in x.text:
            continue
        if len(content_terms(x.text, lang)) < 4:
            continue
        if _LINKISH.search(x.text):
            continue
        sq = squash(x.text)
        if len(sq) >= 12 and (sq in opponent_text or sq[:40] in opponent_text):
            continue
        text = strip_markup(x.text).replace("\n", " ")
        if lang != "zh" and not text[:1].isupper():
            continue
        key = (-k, abs(len(text) - 60), i)
        if best is None or key < best[0]:
            best = (key, text)
    return best[1][:160] if best else ""


def _clash_updates(clash: _Touched, stage: Stage, work: dict[Side, _Work], sides_quality: dict[str, float], words: Words) -> list[ClashUpdate]:
    """The updates of one touched clash (step 3 of :func:`track_clashes`), one per evaluated side that
    names it, in evaluation order (a new clash: most engagement first, after the "opened" update of
    the first); [] when no side names it. Each carries the side's position when it states a new one;
    every update of a new clash carries its title (the "opened" one also its ``terms``), the first
    update of an existing clash the title the stage gives it, if any."""
    evaluated = stage.evaluated_sides()
    active = [s for s in evaluated if work[s].sentences > 0]
    if not active:
        return []
    conceding = [s for s in active if work[s].concessions > 0 and work[s].concessions >= work[s].rebuttals]
    substantive = [s for s in active if s not in conceding and work[s].engagement >= 2 and work[s].stated]
    leader = _leader(substantive, work, sides_quality, evaluated[0])
    order = sorted(active, key=lambda s: (-work[s].engagement, s != evaluated[0])) if clash.is_new else active
    updates: list[ClashUpdate] = []
    for i, side in enumerate(order):
        w = work[side]
        pos_kw: dict[str, Any] = {f"{side}_position": w.position} if w.position else {}
        title = clash.title if clash.is_new or i == 0 else ""
        if clash.is_new and i == 0:
            updates.append(ClashUpdate(clash_id=clash.clash_id, title=title, terms=clash.terms, side=side, kind="opened", note=words.t("note.opened"), debater=w.speaker, **pos_kw))
        kind: ClashEventKind = "conceded" if side in conceding else ("advanced" if side == leader else "contested")
        note = _note(kind, side, work, leader, len(substantive), words)
        updates.append(ClashUpdate(clash_id=clash.clash_id, title=title, side=side, kind=kind, note=note, debater=w.speaker, **pos_kw))
    return updates


def _leader(substantive: list[Side], work: dict[Side, _Work], sides_quality: dict[str, float], first: Side) -> Side | None:
    """The side that advanced a clash: the only substantive, non-conceding side, or of two such sides
    the one with at least 1.5x the other's engagement (ordered by engagement, then stage quality
    ``sides_quality``, then the ``first`` evaluated side); None otherwise."""
    if len(substantive) == 1:
        return substantive[0]
    if len(substantive) == 2:
        x, y = sorted(substantive, key=lambda s: (-work[s].engagement, -sides_quality.get(s, 0.0), s != first))
        if work[x].engagement >= 1.5 * work[y].engagement:
            return x
    return None


def _work_words(w: _Work, words: Words) -> str:
    """What a side put into a clash in the stage: ``3 statements and 1 question on it, with 2 rebuttals``."""
    said = words.join([words.n("statement", w.sentences - w.questions) if w.sentences > w.questions else "", words.n("question", w.questions) if w.questions else ""])
    extra = words.join([words.n("rebuttal", w.rebuttals) if w.rebuttals else "", words.n("evidence", w.evidence) if w.evidence else ""])
    return words.t("note.with", work=words.t("note.work", work=said), extra=extra) if extra else words.t("note.work", work=said)


def _note(kind: ClashEventKind, side: Side, work: dict[Side, _Work], leader: Side | None, n_substantive: int, words: Words) -> str:
    """The history note of a side's move on a clash: what the move did, in the match's language
    (:mod:`adjudicator.judges.offline.words`, keys ``note.*``): how much it said on the clash, and
    against what from the other side."""
    w = work[side]
    other = other_side(side)
    theirs = work.get(other)
    if kind == "conceded":
        return words.t("note.conceded", concessions=words.n("concession", w.concessions), rebuttals=words.n("rebuttal", w.rebuttals) if w.rebuttals else words.t("none.rebuttal"))
    if w.sentences == w.questions:
        return words.t("note.asked_only", questions=words.n("question", w.questions))
    mine = _work_words(w, words)
    if theirs is None:  # the other side does not speak in this stage
        return words.t("note.advanced_solo" if kind == "advanced" else "note.contested_solo", work=mine)
    if kind == "advanced":
        if theirs.sentences == 0:
            return words.t("note.advanced_alone", work=mine, other=words.side(other))
        if n_substantive == 1:
            return words.t("note.advanced_only", work=mine)
        return words.t("note.advanced_more", work=mine, other=words.side(other), theirs=_work_words(theirs, words))
    if leader is not None and leader != side:
        return words.t("note.contested_behind", work=mine, other=words.side(other))
    return words.t("note.contested", work=mine)

"""Clash tracking for the offline judge: the clash updates of one stage (:func:`track_clashes`).

Clashes (:func:`track_clashes`) are made of units: recurring word-like phrases for Chinese
(:func:`adjudicator.judges.offline.text.zh_phrases`) and stemmed words for English. A clash is titled by 2-3
co-occurring salient units; constructives open the clashes their main claims repeat (motion terms may
seed them), later stages those both sides take up; a side's position is its own declarative sentence
on the clash (never a question or a quotation of the opponent); a side "advances" a clash only when it
engages it substantively and clearly more than the other side, otherwise the clash is "contested".
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import adjudicator.judges.offline.text as F
from adjudicator.battlefield import Clash, ClashUpdate
from adjudicator.formats import other_side
from adjudicator.judges.offline.ledger import clash_units
from adjudicator.judges.offline.transcript import opponent_history, side_text
from adjudicator.match import MatchView, Stage

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

    speaker: str
    text: str
    units: frozenset  # clash units it mentions (Chinese phrases / English stems)
    question: bool
    attributed: bool  # reports or quotes the opponent
    rebuttal: bool
    weighing: bool
    evidence: bool
    concession: bool


def _norm(sentence: str) -> str:
    return " ".join(sentence.lower().split())


def _vocabulary(match: MatchView, stage: Stage, previous: list[Stage]) -> dict[str, int] | None:
    """Chinese: the recurring word-like phrases of the debate so far (:func:`features.zh_phrases`) with
    counts; English: None (units are content-term stems)."""
    if match.language != "zh":
        return None
    texts = [match.motion] + [u.text for st in [*previous, stage] for u in st.utterances]
    return F.zh_phrases(texts)


def _units(text: str, lang: str, vocab: dict[str, int] | None) -> Counter:
    """Clash units of ``text`` with counts: vocabulary phrases (zh) or content-term stems (en)."""
    if lang == "zh":
        return Counter({p: text.count(p) for p in (vocab or {}) if p in text})
    return Counter(F.content_terms(text, lang))


def _stage_sentences(stage: Stage, previous: list[Stage], side: str, lang: str, vocab: dict[str, int] | None) -> list[_Sent]:
    """``side``'s sentences in ``stage`` outside quoted lines, skipping sentences it had already said
    word for word in an earlier stage (repetition is not clash work)."""
    said = {_norm(x) for st in previous for u in st.utterances if u.side == side for x in F.sentences(u.text)}
    out = []
    for u in stage.utterances:
        if u.side != side:
            continue
        for sent in F.own_sentences(u.text):
            if _norm(sent) in said:
                continue
            out.append(_Sent(
                speaker=u.speaker, text=sent, units=frozenset(_units(sent, lang, vocab)),
                question=F.is_question(sent, lang), attributed=F.is_attributed(sent, lang),
                rebuttal=F.has_rebuttal(sent, lang), weighing=F.weighing_markers(sent, lang) > 0,
                evidence=F.evidence_markers(sent, lang) > 0, concession=F.has_concession(sent, lang),
            ))
    return out


def _overlaps(a: str, b: str, lang: str) -> bool:
    """Same unit, or (Chinese) two phrases sharing a character (多数 / 数人 are one word cut twice)."""
    return a == b or (lang == "zh" and bool(set(a) & set(b)))


_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)
_LINKISH = re.compile(r"https?:|www\.|\w/\w|<|>")


def _squash(text: str) -> str:
    """Lower-case letters, digits and CJK only (to recognise a quoted sentence whatever its markup)."""
    return _NON_WORD.sub("", (text or "").lower())


def _position(sents: list[_Sent], units: list[str], opponent_text: str, lang: str) -> str:
    """The side's position on a clash: its own declarative sentence naming the most clash units; ties
    go to the sentence nearest 60 characters, then the earliest. Skipped: questions, sentences that
    report the opponent (:func:`features.is_attributed`), sentences found word for word in the
    opponent's speeches (a quotation without markup), links and fragments (fewer than 4 content
    terms). "" when there is none. ``opponent_text`` is :func:`_squash` of everything the opponent said."""
    best = None
    for i, x in enumerate(sents):
        k = sum(1 for u in units if u in x.units)
        if k == 0 or x.question or x.attributed or "http" in x.text or "www." in x.text:
            continue
        if len(F.content_terms(x.text, lang)) < 4:
            continue
        if _LINKISH.search(x.text):
            continue
        sq = _squash(x.text)
        if len(sq) >= 12 and (sq in opponent_text or sq[:40] in opponent_text):
            continue
        key = (-k, abs(len(x.text) - 60), i)
        if best is None or key < best[0]:
            best = (key, x.text)
    return best[1][:160] if best else ""


def _title(seed: str, cand: dict[str, float], covered: list[str], sents: list[_Sent], lang: str, surf: dict[str, str], topic: set[str]) -> tuple[str, list[str]] | None:
    """A clash title from ``seed`` plus 1-2 candidate units that co-occur with it in the stage's
    sentences (most shared sentences first, then salience), joined by " / ". None if no unit
    co-occurs with the seed (a single frequent word is not a clash) or if every unit is a motion
    term (the motion itself is not a clash)."""
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
    return " / ".join(surf.get(u, u) for u in units), units


def track_clashes(match: MatchView, stage: Stage, previous: list[Stage], clashes: dict[str, Clash], sides_quality: dict[str, float]) -> list[ClashUpdate]:
    """Clash updates for one stage.

    Units are recurring word-like phrases for Chinese (:func:`features.zh_phrases`, which avoids
    cross-word fragments) and content-term stems for English.

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
    vocab = _vocabulary(match, stage, previous)
    evaluated = stage.evaluated_sides()
    sents = {side: _stage_sentences(stage, previous, side, lang, vocab) for side in ("affirmative", "negative")}
    counts: dict[str, Counter] = {}  # occurrences of each unit in the side's own (unquoted) text
    for side in sents:
        counts[side] = _units("\n".join(x.text for x in sents[side]), lang, vocab) if lang == "zh" else Counter(F.content_terms("\n".join(x.text for x in sents[side]), lang))
    opp_counts: dict[str, Counter] = {}
    for side in ("affirmative", "negative"):
        opp = other_side(side)  # type: ignore[arg-type]
        oc = Counter(counts[opp])
        for st in opponent_history(previous, side):  # type: ignore[arg-type]
            oc.update(_units(side_text(st, opp), lang, vocab))
        opp_counts[side] = oc
    topic_text = " ".join([match.motion, match.affirmative_position, match.negative_position])
    topic = {p for p in (vocab or {}) if p in topic_text} if lang == "zh" else set(F.content_terms(topic_text, lang))
    speaking = [s for s in evaluated if counts[s]]
    # background units: named in more than BACKGROUND_DF of all sentences so far (the debate's subject
    # itself, e.g. 学生 in a debate about students); their salience is scaled down by BACKGROUND_DF / df
    doc = [frozenset(_units(x, lang, vocab)) for st in [*previous, stage] for u in st.utterances for x in F.own_sentences(u.text)]
    df = Counter(t for d in doc for t in d)

    def damp(t: str) -> float:
        share = df.get(t, 0) / len(doc) if doc else 0.0
        return min(1.0, BACKGROUND_DF / share) if share > 0 else 1.0

    cand: dict[str, float] = {}
    for side in speaking:
        opp_spoke = bool(opp_counts[side])
        for t, c in counts[side].items():
            oc = opp_counts[side].get(t, 0)
            if opp_spoke:
                if c >= 2 and oc >= 1 and t not in topic:
                    cand[t] = max(cand.get(t, 0.0), (c + oc) * damp(t))
            elif stage.type == "constructive" and (c >= 2 or (t in topic and c >= 1)):
                cand[t] = max(cand.get(t, 0.0), c * damp(t))
    # partners of a title may be any unit a side repeats in this stage
    partners = dict(cand)
    for side in speaking:
        for t, c in counts[side].items():
            if c >= 2 and t not in partners:
                partners[t] = 0.5 * c * damp(t)

    touched: list[tuple[str, str, list[str], bool]] = []  # (clash_id, title, units, is_new)
    covered: list[str] = []
    all_sents = [x for side in ("affirmative", "negative") for x in sents[side]]
    for cid, clash in clashes.items():
        units = clash_units(clash, lang)
        covered += units
        n = sum(1 for x in all_sents for u in units if u in x.units)
        if units and n >= 2:
            touched.append((cid, clash.title, units, False))

    n_existing = len(clashes)
    new = 0
    surf = F.surface_forms("\n".join(x.text for x in all_sents), lang) if lang != "zh" else {}
    for seed, _ in sorted(cand.items(), key=lambda kv: (-kv[1], kv[0])):
        if new >= MAX_NEW_CLASHES or n_existing + new >= MAX_CLASHES:
            break
        if any(_overlaps(seed, c, lang) for c in covered):
            continue
        made = _title(seed, partners, covered, all_sents, lang, surf, topic)
        if made is None:
            continue
        title, units = made
        covered += units
        new += 1
        touched.append((f"c{n_existing + new}", title, units, True))

    opp_said = {side: _squash(" ".join(u.text for st in [*previous, stage] for u in st.utterances if u.side != side)) for side in evaluated}
    updates: list[ClashUpdate] = []
    for cid, title, units, is_new in touched:
        uset = set(units)
        info = {}
        for side in evaluated:
            mine = [x for x in sents[side] if x.units & uset]
            asker = stage.role_of(side) == "questioner"
            eng = sum((1.0 if (not x.question or asker) else 0.5) + 0.5 * (x.rebuttal + x.weighing + x.evidence) for x in mine)
            reb = sum(1 for x in mine if x.rebuttal)
            con = sum(1 for x in mine if x.concession)
            stated = any(not x.question and not x.attributed for x in mine)
            speaker = Counter(x.speaker for x in mine).most_common(1)[0][0] if mine else None
            old = clashes.get(cid)
            have = bool(old and getattr(old, f"{side}_position"))
            position = "" if have else _position(mine, units, opp_said[side], lang)
            info[side] = (eng, reb, con, stated, speaker, position, len(mine))
        active = [s for s in evaluated if info[s][6] > 0]
        if not active:
            continue
        conceding = [s for s in active if info[s][2] > 0 and info[s][2] >= info[s][1]]
        substantive = [s for s in active if s not in conceding and info[s][0] >= 2 and info[s][3]]
        leader = None
        if len(substantive) == 1:
            leader = substantive[0]
        elif len(substantive) == 2:
            x, y = sorted(substantive, key=lambda s: (-info[s][0], -sides_quality.get(s, 0.0), s != evaluated[0]))
            if info[x][0] >= 1.5 * info[y][0]:
                leader = x
        order = sorted(active, key=lambda s: (-info[s][0], s != evaluated[0])) if is_new else active
        first = True
        for side in order:
            eng, reb, con, stated, speaker, position, _ = info[side]
            pos_kw = {f"{side}_position": position} if position else {}
            if is_new and first:
                updates.append(ClashUpdate(clash_id=cid, title=title, side=side, kind="opened", note=f"opened in {stage.stage_id}", debater=speaker, **pos_kw))
            first = False
            if side in conceding:
                kind, note = "conceded", f"{con} concession sentence{'' if con == 1 else 's'} on it"
            elif side == leader:
                kind, note = "advanced", f"engagement {eng:.1f}, {reb} rebuttal sentence{'' if reb == 1 else 's'}"
            else:
                kind, note = "contested", f"engagement {eng:.1f}"
            updates.append(ClashUpdate(clash_id=cid, title=title if is_new else "", side=side, kind=kind, note=note, debater=speaker, **pos_kw))
    return updates


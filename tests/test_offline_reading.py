"""The offline tracker's running readings (adjudicator/judges/offline/reading.py): each equals the full
re-reading of the debate it replaces, at every stage; the backend keeps one per match and answers
exactly as a fresh reading would, whatever order requests come in."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

from adjudicator.input.formats import SIDES
from adjudicator.input.match import MatchView
from adjudicator.input.match_file import load_match
from adjudicator.judges.base import StageRequest
from adjudicator.judges.offline import OfflineBackend
from adjudicator.judges.offline import text as F
from adjudicator.judges.offline import zh_phrases as Z
from adjudicator.judges.offline.reading import DebateReading, norm_sentence, squash
from adjudicator.judges.offline.tracker import analyse
from adjudicator.verdict.battlefield import apply_clash_updates, merge_clashes

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from synthetic_ccdb import synthetic_ccdb_view  # noqa: E402

MATCHES = REPO / "adjudicator" / "data" / "matches"


def views() -> list[MatchView]:
    return [load_match(MATCHES / "panelbench" / "debateart_4389.json").view(),
            load_match(MATCHES / "synthetic" / "synthetic_4v4_01.json").view(),
            synthetic_ccdb_view(1)]


# The full re-readings, written out as the tracker used to compute them at every stage.

def full_vocabulary(view: MatchView, upto: int) -> dict[str, int]:
    return Z.zh_phrases([view.motion] + [u.text for st in view.stages[: upto + 1] for u in st.utterances])


def full_naming(view: MatchView, upto: int, vocab: dict[str, int]) -> tuple[Counter[str], int]:
    lang = view.language
    units = []
    for st in view.stages[: upto + 1]:
        for u in st.utterances:
            for x in F.own_sentences(u.text):
                units.append({p for p in vocab if p in x} if lang == "zh" else set(F.content_terms(x, lang)))
    return Counter(t for d in units for t in d), len(units)


@pytest.mark.parametrize("view", views(), ids=lambda v: v.match_id)
def test_every_reading_equals_the_full_rereading_at_every_stage(view):
    lang = view.language
    reading = DebateReading(view)
    for i, stage in enumerate(view.stages):
        previous, through = view.stages[:i], view.stages[: i + 1]
        reading.advance(previous, stage)
        if lang == "zh":
            vocab = full_vocabulary(view, i)
            assert list(reading.phrases.phrases().items()) == list(vocab.items())  # same phrases, counts and order
            for u in stage.utterances:
                assert reading.phrases.found_in(u.text) == [p for p in vocab if p in u.text]
        else:
            vocab = {}
            assert reading.phrases is None
        naming, n = full_naming(view, i, vocab)
        assert reading.n_sentences == n
        for unit in set(naming) | {"学生", "uniform", "nothing-like-this"}:
            assert reading.sentences_naming(unit) == naming.get(unit, 0)
        assert reading.spoken_terms == {t for st in through for u in st.utterances for t in F.content_terms(u.text, lang)}
        for side in SIDES:
            terms = [t for st in through for u in st.utterances if u.side == side for t in F.content_terms(u.text, lang)]
            assert list(reading.side_terms(side).items()) == list(Counter(terms).items())  # counts and first-use order
            others = " ".join(u.text for st in through for u in st.utterances if u.side != side)
            assert reading.said_by_others(side) == squash(others)
            assert reading.said_before(side) == {norm_sentence(x) for st in previous for u in st.utterances if u.side == side for x in F.sentences(u.text)}
            assert reading.terms_before(side) == {t for st in previous for u in st.utterances if u.side == side for t in F.content_terms(u.text, lang)}


def test_the_phrase_counter_equals_zh_phrases_after_every_added_text():
    """After every added text the running counter holds exactly what zh_phrases of every text so far
    returns (phrases, counts, first-occurrence order), and found_in agrees with a scan of that
    vocabulary: no decision is left stale when a later text moves a candidate's or an extension's
    counts. The first 80 utterances of the synthetic 4v4 match plus the motion."""
    view = synthetic_ccdb_view(1)
    texts = [view.motion] + [u.text for st in view.stages for u in st.utterances][:80]
    counter = Z.PhraseCounter()
    for i, text in enumerate(texts):
        counter.add(text)
        expected = Z.zh_phrases(texts[: i + 1])
        assert list(counter.phrases().items()) == list(expected.items())
        assert counter.found_in(text) == [p for p in expected if p in text]
    assert len(counter) > 50  # a real vocabulary, not an empty one agreeing with an empty one


def test_the_phrase_counter_by_hand():
    """A tiny case worked out by hand: 人工智能 alone, then inside 人工智能工具 and 使用人工智能.
    After the first text every candidate occurs once (below min_count 2): no phrase. After all three,
    人工智能, 人工智, 工智能, 人工, 工智 and 智能 each occur 3 times; each of the shorter ones has a
    one-character extension with the same count (3 >= 0.8 * 3), so only the closed 人工智能 is kept:
    its own extensions 人工智能工 and 用人工智能 occur once each (1 < 0.8 * 3, left sum 1 < 2.4)."""
    counter = Z.PhraseCounter()
    counter.add("人工智能")
    assert counter.phrases() == {}  # one occurrence: below min_count 2
    counter.add("人工智能工具")
    counter.add("使用人工智能")
    assert counter.phrases() == {"人工智能": 3}
    assert counter.found_in("我们讨论人工智能") == ["人工智能"]
    assert counter.found_in("人工") == []


def test_a_request_that_does_not_continue_the_reading_is_read_afresh():
    view = synthetic_ccdb_view(1)
    s = view.stages
    reading = DebateReading(view)
    reading.advance(s[:5], s[5])
    reading.advance(s[:5], s[5])  # the same stage again: nothing new is read
    assert reading.n_sentences == DebateReading_fresh(view, 5).n_sentences
    reading.advance(s[:2], s[2])  # back in time: read again from the start
    fresh = DebateReading_fresh(view, 2)
    assert (reading.n_sentences, reading.spoken_terms, reading.said_before("negative")) == (fresh.n_sentences, fresh.spoken_terms, fresh.said_before("negative"))
    altered = s[1].model_copy(update={"utterances": [u.model_copy(update={"text": "完全不同的内容。"}) for u in s[1].utterances]})
    reading.advance([s[0], altered], s[2])  # an earlier stage differs: read again
    assert "完全不同的内容。" in reading.said_before(altered.utterances[0].side)


def DebateReading_fresh(view: MatchView, i: int) -> DebateReading:  # noqa: N802 (reads like the class it builds)
    r = DebateReading(view)
    r.advance(view.stages[:i], view.stages[i])
    return r


def walk(view: MatchView, backend: OfflineBackend | None, order: list[int] | None = None) -> list[str]:
    """Each stage's analysis (JSON) walking the match as the tracking graph does, with ``backend``
    (None: the pure function with a fresh reading per stage)."""
    clashes: dict = {}
    out = []
    for i, stage in enumerate(view.stages):
        req = StageRequest(match=view, stage=stage, index=i, previous=list(view.stages[:i]), clashes=clashes, analyses=[])
        value = backend.analyse_stage(req).value if backend else analyse(view, stage, i, list(view.stages[:i]), clashes)
        clashes = merge_clashes(clashes, apply_clash_updates(clashes, stage.stage_id, value.clash_updates))
        out.append(value.model_dump_json())
    return out


def test_the_backend_answers_as_the_pure_function_for_interleaved_matches():
    """One backend tracking two matches in turn, stage by stage (as live mode does), and again over a
    copy of the stages (as a checkpoint restores them: equal values, new objects), gives what a
    fresh reading of every stage gives."""
    a, b = synthetic_ccdb_view(1), load_match(MATCHES / "panelbench" / "debateart_0750.json").view()
    expected = {v.match_id: walk(v, None) for v in (a, b)}
    backend = OfflineBackend()
    got: dict[str, list[str]] = {a.match_id: [], b.match_id: []}
    clashes: dict = {a.match_id: {}, b.match_id: {}}
    for i in range(max(len(a.stages), len(b.stages))):
        for v in (a, b):
            if i >= len(v.stages):
                continue
            restored = [s.model_copy(deep=True) for s in v.stages[:i]] if i % 3 == 0 else list(v.stages[:i])
            req = StageRequest(match=v, stage=v.stages[i], index=i, previous=restored, clashes=clashes[v.match_id], analyses=[])
            value = backend.analyse_stage(req).value
            clashes[v.match_id] = merge_clashes(clashes[v.match_id], apply_clash_updates(clashes[v.match_id], v.stages[i].stage_id, value.clash_updates))
            got[v.match_id].append(value.model_dump_json())
    assert got == expected


def test_one_backend_tracking_matches_from_several_threads_answers_as_the_pure_function():
    """Live mode: one backend serves several matches' pushes from several threads at once. Four
    matches (two share a match id, so their readings share a key and must still tell their
    transcripts apart), each walked on its own thread, give what a fresh reading of every stage gives."""
    import threading

    a = load_match(MATCHES / "panelbench" / "debateart_4389.json").view()
    b = load_match(MATCHES / "panelbench" / "debateart_0750.json").view()
    c = load_match(MATCHES / "synthetic" / "synthetic_2v2_01.json").view()
    d = c.model_copy(update={"stages": list(reversed(c.stages))})  # same id, language and motion; other order
    expected = [walk(v, None) for v in (a, b, c, d)]
    backend = OfflineBackend()
    got: list[list[str] | None] = [None] * 4

    def run(k: int, v: MatchView) -> None:
        got[k] = walk(v, backend)

    threads = [threading.Thread(target=run, args=(k, v)) for k, v in enumerate((a, b, c, d))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == expected


def test_readings_beyond_the_limit_are_dropped_and_read_afresh(monkeypatch):
    """With room for one reading, two matches pushed in turn evict each other at every stage; every
    stage is then read from the start, and the answers do not change."""
    import adjudicator.judges.offline.backend as backend_module

    monkeypatch.setattr(backend_module, "MAX_READINGS", 1)
    a = load_match(MATCHES / "synthetic" / "synthetic_2v2_01.json").view()
    b = load_match(MATCHES / "panelbench" / "debateart_4389.json").view()
    expected = {v.match_id: walk(v, None) for v in (a, b)}
    backend = OfflineBackend()
    got: dict[str, list[str]] = {a.match_id: [], b.match_id: []}
    clashes: dict = {a.match_id: {}, b.match_id: {}}
    for i in range(max(len(a.stages), len(b.stages))):
        for v in (a, b):
            if i < len(v.stages):
                req = StageRequest(match=v, stage=v.stages[i], index=i, previous=list(v.stages[:i]), clashes=clashes[v.match_id], analyses=[])
                value = backend.analyse_stage(req).value
                clashes[v.match_id] = merge_clashes(clashes[v.match_id], apply_clash_updates(clashes[v.match_id], v.stages[i].stage_id, value.clash_updates))
                got[v.match_id].append(value.model_dump_json())
                assert len(backend.readings) == 1
    assert got == expected


def test_the_reading_of_a_match_is_dropped_when_its_panel_sits():
    from adjudicator.judges.base import JUDGE_PERSPECTIVES, JudgeRequest

    view = load_match(MATCHES / "synthetic" / "synthetic_2v2_01.json").view()
    backend = OfflineBackend()
    walk(view, backend)
    assert len(backend.readings) == 1
    judge_id, perspective = next(iter(JUDGE_PERSPECTIVES.items()))
    ballot = backend.judge(JudgeRequest(judge_id=judge_id, perspective=perspective, match=view, clashes={}, analyses=[]))
    assert ballot.calls[0].node == "judge"
    assert len(backend.readings) == 0

"""The offline tracker's reading kept with each live room (adjudicator/live/store/readings.py): a saved reading
restores equal in every count; a room analysed through its saved reading (after a restart, on another
process, or after it left this process's memory) gets exactly the analyses a fresh reading gives; the
memory holds at most its fixed count and a room's row goes when its panel sits. On SQLite and on
PostgreSQL (``live_store``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from adjudicator.input.match import Match
from adjudicator.input.match_file import load_match
from adjudicator.judges.offline import OfflineBackend
from adjudicator.judges.offline.reading import DebateReading, StageMark
from adjudicator.live.rooms.tracking import LiveStore
from adjudicator.live.store.readings import RoomReadings, pack, unpack
from adjudicator.live.store.storage import open_storage
from adjudicator.workflow.context import AdjudicationContext

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from test_offline_reading import walk  # noqa: E402

MATCHES = REPO / "adjudicator" / "data" / "matches"
ZH = MATCHES / "synthetic" / "synthetic_2v2_01.json"  # zh, 12 stages
EN = MATCHES / "panelbench" / "debateart_4389.json"  # en, 8 stages


def comparable(state: dict) -> dict:
    """A reading's state with its lists of set members sorted (a set's order carries nothing)."""
    c = dict(state["counts"])
    for k in ("spoken",):
        c[k] = sorted(c[k])
    for k in ("said", "earlier_terms", "pending_said", "pending_terms"):
        c[k] = {s: sorted(v) for s, v in c[k].items()}
    if c["phrases"] is not None:
        c["phrases"] = dict(c["phrases"], kept=sorted(c["phrases"]["kept"]))
    return dict(state, counts=c)


@pytest.mark.parametrize("path", [ZH, EN], ids=["zh", "en"])
def test_a_saved_reading_restores_equal_in_every_count_and_reads_on_as_the_kept_one(path):
    view = load_match(path).view()
    kept = DebateReading(view)
    for i, stage in enumerate(view.stages):
        kept.advance(list(view.stages[:i]), stage)
        restored = DebateReading.from_state(view, unpack(pack(kept.state())))
        assert restored is not None
        assert comparable(restored.state()) == comparable(kept.state())
        assert all(isinstance(s, StageMark) for s in restored._stages)
        if kept.phrases is not None:  # the order of first occurrence is rebuilt, not saved
            assert restored.phrases is not None and restored.phrases._order == kept.phrases._order
            assert list(restored.phrases._counts) == list(kept.phrases._counts)
        if i + 1 < len(view.stages):  # the restored reading holds the stages read: it reads one more, as the kept one does
            nxt, before = view.stages[i + 1], list(view.stages[: i + 1])
            assert restored.continues(before, nxt)
            restored.advance(before, nxt)
            again = DebateReading(view)
            again.advance(before, nxt)
            assert comparable(restored.state()) == comparable(again.state())


def test_a_saved_reading_is_not_taken_for_other_stages_or_another_match():
    view = load_match(ZH).view()
    reading = DebateReading(view)
    reading.advance(list(view.stages[:3]), view.stages[3])
    state = reading.state()
    restored = DebateReading.from_state(view, state)
    assert restored is not None
    assert not restored.continues(list(view.stages[:2]), view.stages[2])  # behind: it would read everything again
    edited = view.stages[3].model_copy(update={"utterances": view.stages[3].utterances[:1]})
    assert not restored.continues(list(view.stages[:3]), edited)  # same id, other content
    assert not restored.continues([*view.stages[:3], edited], view.stages[4])
    assert DebateReading.from_state(view.model_copy(update={"motion": "another motion"}), state) is None
    assert DebateReading.from_state(view, dict(state, version=0)) is None


def _bodies(path: Path) -> tuple[dict, list[dict], Match]:
    match = load_match(path)
    return match.view().model_dump(mode="json", exclude={"stages"}), [s.model_dump(mode="json") for s in match.stages], match


def _store(state_dir: Path, url: str | None, cached: int = 64) -> LiveStore:
    return LiveStore(state_dir, AdjudicationContext.single(OfflineBackend()), storage=open_storage(url, state_dir, pool_size=2, lock_pool_size=2), cached_matches=cached)


def _analyses(store: LiveStore, match_id: str) -> list[str]:
    """The room's committed analyses (JSON), read under its lock (a shared store's cache is dropped then)."""
    with store.lock(match_id):
        return [a.model_dump_json() for a in store.tracking_values(match_id).get("analyses") or []]


def test_a_room_pushed_across_a_restart_and_two_processes_gets_the_fresh_analyses(tmp_path, live_store):
    """Stages 1-4 on store A, A closed (a restart); 5-8 alternate between store B and store C (two
    processes on PostgreSQL; on SQLite, one process restarted at every stage). Every stage after the
    first is read from the room's saved reading (never afresh), the analyses are exactly those of a
    fresh reading of every stage, and the room's row is deleted when its panel sits."""
    header, bodies, match = _bodies(EN)
    expected = walk(match.view(), None)
    a = _store(tmp_path / "a", live_store)
    a.create(header)
    for b in bodies[:4]:
        a.push(match.match_id, b)
    a.close()
    # PostgreSQL saves every stage (the next may go to another process); SQLite, one process, saves
    # the reading when the store closes
    assert dict(a.readings.counts) == ({"fresh": 1, "memory": 3, "saved": 4} if live_store else {"fresh": 1, "memory": 3, "saved": 1})
    counts = []
    if live_store:  # two processes over one database
        stores = [_store(tmp_path / "b", live_store), _store(tmp_path / "c", live_store)]
        for k, b in enumerate(bodies[4:]):
            stores[k % 2].push(match.match_id, b)
        got = _analyses(stores[0], match.match_id)
        counts = [dict(s.readings.counts) for s in stores]
        assert len(stores[0].storage.readings) == 1
        stores[0].close_match(match.match_id)  # the panel sits: the room's row goes
        assert len(stores[1].storage.readings) == 0
        for s in stores:
            s.close()
        assert counts == [{"stored": 2, "saved": 2}, {"stored": 2, "saved": 2}]
    else:  # one process per state folder: restarted before every stage
        for b in bodies[4:]:
            s = _store(tmp_path / "a", None)
            s.push(match.match_id, b)
            got = _analyses(s, match.match_id)
            if b is bodies[-1]:
                assert len(s.storage.readings) == 1
                s.close_match(match.match_id)  # the panel sits: the room's row goes
                assert len(s.storage.readings) == 0
            s.close()  # saves the reading it holds (none after the close of the match)
            counts.append(dict(s.readings.counts))
        assert counts == [{"stored": 1, "saved": 1}] * 3 + [{"stored": 1}]
    assert got == expected


def test_rooms_beyond_the_memory_are_restored_not_reread(tmp_path, live_store):
    """Three rooms pushed in turn (four stages each) through a store that keeps two readings in memory:
    memory never holds more than two, each room is read afresh once (its first stage) and restored
    from its row after (the least recently used room is always the one pushed next),
    and the analyses are the fresh ones."""
    header, bodies, match = _bodies(ZH)
    expected = walk(match.view(), None)
    store = _store(tmp_path / "s", live_store, cached=2)
    try:
        rooms = [f"room-{k}" for k in range(3)]
        for mid in rooms:
            store.create({**header, "match_id": mid})
        for b in bodies[:4]:
            for mid in rooms:
                store.push(mid, b)
                assert len(store.readings) <= 2
        counts = dict(store.readings.counts)
        # saved: after every stage on PostgreSQL; on SQLite when a reading leaves memory (every push
        # from the third on pushes one out)
        assert counts == {"fresh": 3, "stored": 3 * 3, "saved": 3 * 4 if live_store else 3 * 4 - 2}
        assert all(_analyses(store, mid) == expected[:4] for mid in rooms)
        assert len(store.storage.readings) == 3

    finally:
        store.close()


def test_an_unreadable_row_costs_a_fresh_read_never_the_push(tmp_path):
    header, bodies, match = _bodies(ZH)
    store = _store(tmp_path / "s", None, cached=1)
    try:
        store.create(header)
        store.create({**header, "match_id": "other"})
        store.push(match.match_id, bodies[0])
        store.push("other", bodies[0])  # evicts the first room's reading from memory
        store.storage.readings.save(match.match_id, b"\xc1 not msgpack")
        store.push(match.match_id, bodies[1])
        assert store.readings.counts["fresh"] == 3
        assert _analyses(store, match.match_id) == walk(match.view(), None)[:2]
    finally:
        store.close()


def test_an_llm_tracker_keeps_no_reading(tmp_path):
    from graph_fakes import RecordingBackend

    store = LiveStore(tmp_path / "s", AdjudicationContext.single(RecordingBackend()))
    try:
        assert isinstance(store.readings, RoomReadings)
        assert isinstance(store.context.tracker, RecordingBackend)
    finally:
        store.close()

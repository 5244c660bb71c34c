"""The live store's conformance suite: every engine (SQLite, PostgreSQL) must pass each test here, as
LangGraph's checkpointer conformance suite does for its savers. The same tests run on each engine
(the ``engine`` parameter); an engine is added by adding it to the fixtures.

- the tournament store contract (:mod:`adjudicator.live.store.tournament_store`): reads what it wrote,
  refuses duplicates, compare-and-set decisions, all-or-nothing writes, the log in commit order, durable;
- the match registry (:mod:`adjudicator.live.store.registry`): creation order, moves, a taken id, reopened;
- the rooms' readings (:mod:`adjudicator.live.store.readings`): upsert, load, delete;
- the schema (:mod:`adjudicator.live.store.schema`): migrations run once, a second start applies none.
"""

from __future__ import annotations

import sqlite3

import pytest
from graph_fakes import tiny_match

from adjudicator.input.match import Debater
from adjudicator.live.errors import Conflict, NotFound
from adjudicator.live.store.readings import SqlReadings
from adjudicator.live.store.registry import MatchRegistry, MatchRow
from adjudicator.live.store.schema import migrate, migrations_for
from adjudicator.live.store.sql import PostgresDatabase, SqliteDatabase
from adjudicator.live.store.tournament_sql import SqliteTournamentStore, SqlTournamentStore
from adjudicator.live.store.tournament_store import DuplicateId, StaleDecision
from adjudicator.live.tournament import lifecycle
from adjudicator.live.tournament.lifecycle import Actor, Automated, Decision, LogEntry, Override
from adjudicator.live.tournament.model import Room, Round, Tournament

KEY = ("t", "r1", "a")
CHAIR = Actor(role="chair", room="t.r1.a", name="Ms Li")
ORGANISER = Actor(role="organiser", name="organiser")
ENGINES = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


def draft() -> Decision:
    auto = Automated(winner="affirmative", stage_scores={"s1|affirmative": 7.0, "s2|negative": 6.0}, best_debater_votes={"Affirmative Speaker 1": 6},
                     p=0.7, winner_split="3:0", model="recording")
    return Decision(tournament_id="t", round_id="r1", room_id="a", state="draft", version=1, automated=auto, recorded_at="2025-01-01T10:00:00+00:00")


# ---------------------------------------------------------------------------------------------
# The tournament store contract


@pytest.fixture(params=ENGINES)
def make(request):
    """A factory of tournament stores over one place (calling it again reconnects to the same data)."""
    if request.param == "sqlite":
        return lambda tmp_path: SqliteTournamentStore(tmp_path / "tournaments.sqlite")
    url = request.getfixturevalue("pg_url")
    return lambda tmp_path: SqlTournamentStore.open_postgres(url)


def entry(kind, **kw) -> LogEntry:
    return LogEntry(at="2025-01-01T10:00:00+00:00", tournament_id="t", kind=kind, actor=ORGANISER, **kw)


def seeded(store):
    store.add_tournament(Tournament(tournament_id="t", name="T"), entry("tournament_created"))
    store.add_round(Round(tournament_id="t", round_id="r1", name="R1", format="online-1v1", language="en", motion="m", affirmative_position="a", negative_position="n"),
                    entry("round_created", round_id="r1"))
    for room_id in ("a", "b"):
        room = Room(tournament_id="t", round_id="r1", room_id=room_id, teams={"affirmative": "X", "negative": "Y"},
                    debaters=[Debater(side="affirmative", position=1), Debater(side="negative", position=1)])
        store.add_room(room, f"digest-{room_id}", [entry("room_created", round_id="r1", room_id=room_id)])
    return store


def test_store_registry_reads_what_it_wrote_and_refuses_duplicates(tmp_path, make):
    store = seeded(make(tmp_path))
    try:
        assert [r.room_id for r in store.rooms("t", "r1")] == ["a", "b"] and store.room_of_match("t.r1.b").room_id == "b"
        assert store.room_of_token("digest-a").room_id == "a" and store.room_of_token("nope") is None
        with pytest.raises(DuplicateId):
            store.add_tournament(Tournament(tournament_id="t", name="again"), entry("tournament_created"))
        with pytest.raises(DuplicateId):
            store.add_room(store.room(("t", "r1", "a")), "digest-new", [entry("room_created", round_id="r1", room_id="a")])
        store.set_chair_token(("t", "r1", "a"), "digest-rotated", entry("chair_token_issued", round_id="r1", room_id="a"))
        assert store.room_of_token("digest-a") is None and store.room_of_token("digest-rotated").room_id == "a"
        # refused writes left no log entry behind
        assert [e.kind for e in store.log("t")] == ["tournament_created", "round_created", "room_created", "room_created", "chair_token_issued"]
    finally:
        store.close()


def test_store_decisions_are_compare_and_set_and_all_or_nothing(tmp_path, make):
    store = seeded(make(tmp_path))
    try:
        da = draft()
        db = da.model_copy(update={"room_id": "b"})
        store.save_decisions([(da, None), (db, None)], [entry("draft_recorded", round_id="r1", room_id="a"), entry("draft_recorded", round_id="r1", room_id="b")])
        ca, ea = lifecycle.confirm(da, Override(winner="negative"), CHAIR, "x")
        cb, eb = lifecycle.confirm(db, Override(), ORGANISER, "x")
        n_log = len(store.log("t"))
        # room b's expected version is stale: neither room changes, no log entry is added
        with pytest.raises(StaleDecision):
            store.save_decisions([(ca, 1), (cb, 2)], [ea, eb])
        assert store.decision(KEY) == da and store.decision(("t", "r1", "b")) == db and len(store.log("t")) == n_log
        with pytest.raises(StaleDecision):
            store.save_decisions([(da, None)], [])  # a second draft of the same room
        store.save_decisions([(ca, 1), (cb, 1)], [ea, eb])
        assert store.decisions("t", "r1") == {"a": ca, "b": cb}
        log = store.log("t", "r1", "a")
        assert [e.kind for e in log] == ["room_created", "draft_recorded", "confirmed"] and log[-1].actor == CHAIR
        assert [e.seq for e in store.log("t")] == sorted(e.seq for e in store.log("t"))
    finally:
        store.close()
    # durable: a new connection to the same file reads the same
    again = make(tmp_path)
    try:
        assert again.decision(KEY).effective().winner == "negative" and again.decision(KEY).automated.winner == "affirmative"
    finally:
        again.close()


# ---------------------------------------------------------------------------------------------
# The live tables: registry, readings, schema


@pytest.fixture(params=ENGINES)
def opener(request, tmp_path):
    """A factory of databases over one place, with the ``live`` component migrated (calling it again
    reconnects to the same data); every database it opened is closed at the end."""
    opened: list = []
    if request.param == "sqlite":
        def open_db():
            db = SqliteDatabase(sqlite3.connect(str(tmp_path / "live.sqlite"), check_same_thread=False))
            opened.append(db)
            return db
    else:
        from adjudicator.live.store.pgconn import connect_pool

        url = request.getfixturevalue("pg_url")

        def open_db():
            db = PostgresDatabase(connect_pool(url, 2, "conformance"))
            opened.append(db)
            return db
    yield open_db
    for db in opened:
        db.close()


def test_migrations_run_once_and_a_second_start_applies_none(opener):
    db = opener()
    assert migrate(db, ["live"]) == [(m.component, m.version) for m in migrations_for(db.dialect.name, ["live"])]
    assert migrate(opener(), ["live"]) == []
    assert sorted((c, int(v)) for c, v in db.all("SELECT component, version FROM adjudicator_migrations")) == \
        ([("live", 1), ("live", 2)] if db.dialect.name == "sqlite" else [("live", 1), ("live", 2), ("live", 3)])


@pytest.mark.parametrize("shared", [False, True])
def test_registry_keeps_creation_order_moves_and_refuses_a_taken_id(opener, shared):
    db = opener()
    migrate(db, ["live"])
    registry = MatchRegistry(db, shared=shared)
    a, b = (MatchRow.new(tiny_match(2).model_copy(update={"match_id": mid}).view()) for mid in ("b-first", "a-second"))
    registry.insert(a)
    registry.insert(b)
    with pytest.raises(Conflict):
        registry.insert(a)
    registry.update(registry.get("b-first").closing())
    # creation order: PostgreSQL's identity column, the in-memory rows' insertion; SQLite read back
    # orders by (created_at, match_id), and both were made within the same second here
    same_second = registry.get("b-first").created_at == registry.get("a-second").created_at
    tie_by_id = db.dialect.name == "sqlite" and shared and same_second
    assert registry.ids() == (["a-second", "b-first"] if tie_by_id else ["b-first", "a-second"])
    assert "a-second" in registry and "nope" not in registry
    with pytest.raises(NotFound):
        registry.get("nope")
    again = MatchRegistry(opener(), shared=shared)  # read back through a new connection
    row = again.get("b-first")
    assert (row.status, row.panel_attempt, row.panel_error, row.header) == ("closing", 1, None, a.header)
    again.update(row.reopened("the panel failed"))
    assert MatchRegistry(opener(), shared=shared).get("b-first").panel_error == "the panel failed"


def test_readings_upsert_load_and_delete(opener):
    db = opener()
    migrate(db, ["live"])
    table = SqlReadings(db)
    assert table.load("m") is None and len(table) == 0
    table.save("m", b"\x01\x02")
    table.save("m", b"\x03")  # the same room again: replaced, not added
    table.save("n", b"")
    assert table.load("m") == b"\x03" and SqlReadings(opener()).load("n") == b"" and len(table) == 2
    table.delete("m")
    assert table.load("m") is None and len(table) == 1

"""Checkpoint pruning in the live store: each thread keeps only its latest checkpoint (and that
checkpoint's pending writes), and everything that depends on the checkpoints still works: a stage
received but not analysed is analysed once after a restart, a panel interrupted mid-way resumes only
its unfinished judges, and the final verdict equals the batch verdict.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from graph_fakes import RecordingBackend
from live_fakes import PanelFault, header_body, online_match, stage_body

from adjudicator.api import adjudicate_with_context
from adjudicator.errors import AdjudicationFailed
from adjudicator.live.rooms.tracking import LiveStore
from adjudicator.live.store.checkpoints import DB_NAME, prune_thread, thread_config
from adjudicator.workflow.context import AdjudicationContext


def _counts(state: Path) -> dict[str, tuple[int, int, int]]:
    """thread id -> (checkpoints, pending writes, writes not on the thread's latest checkpoint)."""
    with sqlite3.connect(state / DB_NAME) as conn:
        out = {}
        for (tid,) in conn.execute("SELECT DISTINCT thread_id FROM checkpoints ORDER BY thread_id"):
            (n,) = conn.execute("SELECT COUNT(*) FROM checkpoints WHERE thread_id = ?", (tid,)).fetchone()
            (latest,) = conn.execute("SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ?", (tid,)).fetchone()
            (w,) = conn.execute("SELECT COUNT(*) FROM writes WHERE thread_id = ?", (tid,)).fetchone()
            (stale,) = conn.execute("SELECT COUNT(*) FROM writes WHERE thread_id = ? AND checkpoint_id <> ?", (tid, latest)).fetchone()
            out[tid] = (n, w, stale)
    return out


def _push_two_and_receive_a_third(store: LiveStore, m) -> None:
    store.create(header_body(m))
    for i in range(2):
        assert store.push("m", stage_body(m, i))["status"] == "analysed"
    assert store.receive("m", stage_body(m, 2)) == ("s3", False)  # the crash window: stored, not analysed


def test_unpruned_history_grows_two_checkpoints_per_stage(tmp_path):
    # The size problem being fixed, measured with pruning switched off. Checkpoints written by LangGraph
    # (one per superstep, plus the input one): creating the thread 2 (input, then __start__ routing to
    # END); each receive 1 (update_state as track_stage: issue 32 cut the input checkpoint and the
    # __start__ step an interrupt_before took); each analysis 1 (track_stage). Two stages pushed and
    # analysed and a third received: 2 + 2 * (1 + 1) + 1 = 7 (10 before the cut).
    store = LiveStore(tmp_path / "state", AdjudicationContext.single(RecordingBackend()))
    store.prune_history = False
    try:
        _push_two_and_receive_a_third(store, online_match("m", 4))
        assert _counts(tmp_path / "state")["m"][0] == 7
    finally:
        store.close()


def test_each_thread_keeps_one_checkpoint_and_a_restart_still_resumes(tmp_path):
    state = tmp_path / "state"
    m = online_match("m", 4)
    b1 = RecordingBackend()
    store = LiveStore(state, AdjudicationContext.single(b1))
    try:
        assert store.prune_history is True
        _push_two_and_receive_a_third(store, m)
        # two checkpoints: s2's analysis and s3's receipt (paused before its analysis; a receipt is not
        # pruned: the analysis after it prunes both, one transaction fewer per push), and the writes
        # of s2's analysis, which its checkpoint keeps; none of a deleted checkpoint
        assert _counts(state) == {"m": (2, 2, 2)}
        snap = store.tracking.get_state(thread_config("m"))
        assert snap.next == ("track_stage",) and len(snap.values["stages"]) == 3 and snap.values["next_stage"] == 2
    finally:
        store.close()
    assert [q.stage.stage_id for q in b1.stage_requests] == ["s1", "s2"]

    # restart: the pruned thread still resumes s3, once, from the checkpointed ledger
    b2 = RecordingBackend()
    store = LiveStore(state, AdjudicationContext.single(b2))
    try:
        assert store.recover() == ["m"]
        assert [q.stage.stage_id for q in b2.stage_requests] == ["s3"]
        req = b2.stage_requests[0]
        assert [s.stage_id for s in req.previous] == ["s1", "s2"] and [e.stage_id for e in req.clashes["c1"].events] == ["s1", "s2"]
        assert store.push("m", stage_body(m, 3))["analysed"] == 4
        verdict = store.close_match("m")
        assert _counts(state) == {"m": (1, 0, 0), "m:panel:1": (1, 0, 0)}
        assert store.close_match("m") == verdict  # idempotent: read back, no judge called again
        assert len(b2.judge_requests) == 3
    finally:
        store.close()
    assert [q.stage.stage_id for q in b2.stage_requests] == ["s3", "s4"]
    batch = adjudicate_with_context(m, AdjudicationContext.single(RecordingBackend()))
    assert json.loads(verdict.model_dump_json()) == json.loads(batch.model_dump_json())

    # a third start reads the closed match from the pruned state
    b3 = RecordingBackend()
    store = LiveStore(state, AdjudicationContext.single(b3))
    try:
        assert store.recover() == []
        snap = store.snapshot("m")
        assert snap["status"] == "closed" and snap["analysed"] == 4 and snap["verdict"]["winner"] == verdict.winner
    finally:
        store.close()
    assert b3.stage_requests == [] and b3.judge_requests == []


def test_pruning_an_interrupted_panel_keeps_the_finished_ballots(tmp_path):
    state = tmp_path / "state"
    m = online_match("m", 2)
    store = LiveStore(state, AdjudicationContext.single(PanelFault()))
    try:
        store.create(header_body(m))
        for i in range(2):
            store.push("m", stage_body(m, i))
        with pytest.raises(AdjudicationFailed, match="judge-2 lost its connection"):
            store.close_match("m")
        before = _counts(state)["m:panel:1"]
        assert before[0] > 1 and before[1] > 0  # history, and the ballots of judge-1 and judge-3 as pending writes
        # prune the unfinished panel thread (the store itself only prunes a panel after it completed):
        # the latest checkpoint keeps its pending writes, so the finished ballots survive
        assert prune_thread(store.saver, "m:panel:1") == before[0] - 1
        after = _counts(state)["m:panel:1"]
        assert after[0] == 1 and after[2] == 0 and after[1] > 0
    finally:
        store.close()

    b2 = RecordingBackend()
    store = LiveStore(state, AdjudicationContext.single(b2))
    try:
        assert store.recover() == ["m"]
        verdict = store.verdict("m")
    finally:
        store.close()
    assert [q.judge_id for q in b2.judge_requests] == ["judge-2"] and b2.stage_requests == []
    assert sorted(b.judge_id for b in verdict.ballots) == ["judge-1", "judge-2", "judge-3"]
    assert _counts(state)["m:panel:1"] == (1, 0, 0)

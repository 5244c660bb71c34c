"""The live checkpointer: one SQLite file of LangGraph checkpoints (``STATE_DIR/live.sqlite``), the
serializer's allowlist of the package's state models, the thread ids and run configs, and the pruning of
superseded checkpoints.

Thread ids: a match's clash-tracking thread is its match id; panel attempt ``k`` (1, 2, ...) of that
match runs in its own thread ``<match_id>:panel:<k>`` on the same checkpointer.

Pruning (:func:`prune_thread`): SqliteSaver stores the whole state (every stage's text so far) in each
checkpoint, two per pushed stage (the receipt and the analysis), so a thread's history grows with the
square of its stage count (~5 MB for a 14-stage, 20,000-character match). Resuming needs only a thread's
latest checkpoint and its pending writes, so after every committed analysis the superseded checkpoints
of the match's thread are deleted (a receipt alone is not pruned: the analysis that follows prunes
both, one transaction fewer per push), and after a successful close those of its panel threads; history
(``get_state_history``) is therefore not kept. A panel thread is not pruned while the panel runs, so a
crash mid-panel still resumes the judges that had not finished.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

log = logging.getLogger("adjudicator.live")

DB_NAME = "live.sqlite"


def live_serde() -> JsonPlusSerializer:
    """The checkpoint serializer with an explicit allowlist of the package's state models (LangGraph
    otherwise warns that unregistered types will be blocked when read back)."""
    from adjudicator import records
    from adjudicator.input import match, stages
    from adjudicator.judges import base as backend
    from adjudicator.pairwise import agreement, bradley_terry, comparisons, record
    from adjudicator.verdict import ballots as verdict
    from adjudicator.verdict import battlefield

    types = [
        match.MatchView, match.Debater, stages.Stage, stages.Utterance, stages.Exchange,
        battlefield.Clash, battlefield.ClashEvent, battlefield.ClashUpdate, battlefield.SideAnalysis, battlefield.StageAnalysis,
        records.CallRecord, records.NodeFailure,
        verdict.Ballot, verdict.BallotScore, verdict.Verdict, verdict.StageScore, verdict.Dissent, verdict.Provenance, verdict.TaskStatus,
        verdict.SpeakerScore, verdict.UnitResult, verdict.SpeechResult,
        backend.JudgeRequest,
        comparisons.PairChoice, comparisons.PairResult, bradley_terry.BradleyTerryFit, agreement.LevelAgreement, agreement.JudgePairAgreement,
        record.PairwiseRecord,
    ]
    # A checkpoint names each object's class by module and name. The stages of a live match written
    # before the stage models left input/match.py (5ac4d7b) name input.match.Stage, which still
    # imports from there: allowed, so that a server upgraded mid-tournament resumes its matches.
    moved = [("adjudicator.input.match", "Stage")]
    return JsonPlusSerializer(allowed_msgpack_modules=[*types, *moved])


def open_checkpointer(db_path: Path) -> SqliteSaver:
    """A set-up SqliteSaver on ``db_path`` with :func:`live_serde`, over one connection that every
    thread of the server shares (30 s busy timeout). ``saver.lock`` serialises the use of
    ``saver.conn``; the match registry shares both."""
    conn = sqlite3.connect(str(db_path), check_same_thread=False, timeout=30)
    saver = SqliteSaver(conn, serde=live_serde())
    saver.setup()
    return saver


def thread_config(thread_id: str, n_stages: int = 0) -> RunnableConfig:
    """The run config of one checkpointer thread: recursion limit ``n_stages + 16`` supersteps."""
    return {"recursion_limit": n_stages + 16, "configurable": {"thread_id": thread_id}}


def panel_thread_id(match_id: str, attempt: int) -> str:
    """The thread of panel attempt ``attempt`` (1-based) of ``match_id``: ``<match_id>:panel:<attempt>``."""
    return f"{match_id}:panel:{attempt}"


def keeps_full_values(graph) -> bool:
    """Whether every channel of the compiled ``graph`` stores its full value in each checkpoint (no
    ``DeltaChannel``), which :func:`prune_thread` requires."""
    from langgraph.channels import DeltaChannel

    return not any(isinstance(c, DeltaChannel) for c in graph.channels.values())


def prune_thread(saver: SqliteSaver, thread_id: str) -> int:
    """Delete every checkpoint of ``thread_id`` except the latest of each namespace, and the pending
    writes of the deleted ones, in one transaction. Returns the number of checkpoints deleted.

    Safe for graphs whose channels store full values in each checkpoint (LastValue,
    BinaryOperatorAggregate, ...): reading or resuming a thread uses only its latest checkpoint and that
    checkpoint's writes (``SqliteSaver.get_tuple``). Not for graphs with a ``DeltaChannel``, whose values
    are rebuilt from ancestors (check with :func:`keeps_full_values`)."""
    with saver.cursor() as cur:
        cur.execute(
            "DELETE FROM writes WHERE thread_id = ? AND checkpoint_id < "
            "(SELECT MAX(c.checkpoint_id) FROM checkpoints c WHERE c.thread_id = writes.thread_id AND c.checkpoint_ns = writes.checkpoint_ns)",
            (thread_id,),
        )
        cur.execute(
            "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id < "
            "(SELECT MAX(c.checkpoint_id) FROM checkpoints c WHERE c.thread_id = checkpoints.thread_id AND c.checkpoint_ns = checkpoints.checkpoint_ns)",
            (thread_id,),
        )
        return cur.rowcount


def prune_threads(saver: SqliteSaver, thread_ids: Iterable[str]) -> None:
    """:func:`prune_thread` each of ``thread_ids`` (run after their latest checkpoint is committed). A
    failure is logged, never raised: pruning only saves space."""
    for tid in thread_ids:
        try:
            prune_thread(saver, tid)
        except sqlite3.Error:
            log.exception("live: pruning the checkpoints of %s failed", tid)

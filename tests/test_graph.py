"""The graphs' topology and update stream: each stage exactly once, in order; exactly three judges,
each with only its own input; aggregation at the end."""

from __future__ import annotations

from graph_fakes import RecordingBackend, tiny_match

from adjudicator.api import adjudicate_with_context, initial_state, run_config
from adjudicator.workflow.context import AdjudicationContext


def test_adjudication_topology_snapshot():
    from adjudicator.workflow.adjudication import compiled

    g = compiled().get_graph()
    nodes = sorted(n for n in g.nodes if not n.startswith("__"))
    edges = sorted((e.source, e.target) for e in g.edges)
    assert nodes == ["aggregate_panel", "convene_panel", "judge", "lead_judge", "track_stage"]
    assert edges == sorted(
        [
            ("__start__", "track_stage"),
            ("__start__", "convene_panel"),
            ("track_stage", "track_stage"),
            ("track_stage", "convene_panel"),
            ("convene_panel", "judge"),
            ("convene_panel", "lead_judge"),
            ("lead_judge", "judge"),
            ("lead_judge", "aggregate_panel"),
            ("judge", "aggregate_panel"),
            ("aggregate_panel", "__end__"),
        ]
    )


def test_tracking_and_panel_topologies():
    from adjudicator.workflow import panel as panel_graph
    from adjudicator.workflow import tracking as tracking_graph

    panel, tracking = panel_graph.compiled(), tracking_graph.compiled()
    t_edges = sorted((e.source, e.target) for e in tracking.get_graph().edges)
    assert t_edges == sorted([("__start__", "track_stage"), ("__start__", "__end__"), ("track_stage", "track_stage"), ("track_stage", "__end__")])
    p_edges = sorted((e.source, e.target) for e in panel.get_graph().edges)
    assert p_edges == sorted([("__start__", "convene_panel"), ("convene_panel", "judge"), ("convene_panel", "lead_judge"), ("lead_judge", "judge"), ("lead_judge", "aggregate_panel"), ("judge", "aggregate_panel"), ("aggregate_panel", "__end__")])


def test_langgraph_tools_graphs_start_with_the_json_reader():
    """graphs/ (langgraph.json) compiles the same workflows behind one entry node that reads JSON; the
    clash-tracking graph ends in a node that writes its result, ``{"battlefield": ...}``."""
    from graphs.adjudication import graph as adjudication
    from graphs.panel import graph as panel
    from graphs.tracking import graph as tracking

    def edges(g):
        return sorted((e.source, e.target) for e in g.get_graph().edges)

    assert edges(adjudication) == sorted([
        ("__start__", "read_input"), ("read_input", "track_stage"), ("read_input", "convene_panel"), ("track_stage", "track_stage"),
        ("track_stage", "convene_panel"), ("convene_panel", "judge"), ("convene_panel", "lead_judge"), ("lead_judge", "judge"), ("lead_judge", "aggregate_panel"), ("judge", "aggregate_panel"),
        ("aggregate_panel", "__end__"),
    ])  # fmt: skip
    assert edges(tracking) == sorted([
        ("__start__", "read_input"), ("read_input", "track_stage"), ("read_input", "write_output"), ("track_stage", "track_stage"),
        ("track_stage", "write_output"), ("write_output", "__end__"),
    ])  # fmt: skip
    assert edges(panel) == sorted([("__start__", "read_input"), ("read_input", "convene_panel"), ("convene_panel", "judge"), ("convene_panel", "lead_judge"), ("lead_judge", "judge"), ("lead_judge", "aggregate_panel"), ("judge", "aggregate_panel"), ("aggregate_panel", "__end__")])


def test_update_stream_visits_each_stage_once_in_order_then_three_judges():
    from adjudicator.workflow.adjudication import compiled

    graph = compiled()
    match = tiny_match(6)
    view = match.view()
    backend = RecordingBackend()
    updates = list(graph.stream(initial_state(view), config=run_config(view), context=AdjudicationContext.single(backend), stream_mode="updates"))
    names = [next(iter(u)) for u in updates]
    # six tracker runs, one convener, three judges (in any order within their superstep), one aggregate
    assert names[:6] == ["track_stage"] * 6
    assert names[6] == "convene_panel"
    assert sorted(names[7:10]) == ["judge"] * 3
    assert names[10:] == ["aggregate_panel"]
    analysed = [u["track_stage"]["analyses"][0].stage_id for u in updates[:6]]
    assert analysed == ["s1", "s2", "s3", "s4", "s5", "s6"]
    assert [u["track_stage"]["next_stage"] for u in updates[:6]] == [1, 2, 3, 4, 5, 6]
    assert [r.index for r in backend.stage_requests] == [0, 1, 2, 3, 4, 5]
    # the tracker sees the previous stages as context, never later ones
    assert [len(r.previous) for r in backend.stage_requests] == [0, 1, 2, 3, 4, 5]
    ballots = [u["judge"]["ballots"][0].judge_id for u in updates[7:10]]
    assert sorted(ballots) == ["judge-1", "judge-2", "judge-3"]


def test_each_judge_receives_only_its_own_request():
    backend = RecordingBackend()
    adjudicate_with_context(tiny_match(4), AdjudicationContext.single(backend))
    ids = sorted(r.judge_id for r in backend.judge_requests)
    assert ids == ["judge-1", "judge-2", "judge-3"]
    perspectives = {r.judge_id: r.perspective for r in backend.judge_requests}
    assert perspectives == {"judge-1": "task", "judge-2": "battlefield", "judge-3": "advancement"}
    for r in backend.judge_requests:
        # a request holds the battlefield and the label-free match, nothing of another judge
        assert set(r.model_dump()) == {"judge_id", "perspective", "match", "clashes", "analyses", "rubric", "judge_evidence", "cache_shared", "feedback"}
        assert r.rubric is None  # the ccdb rubric: no dimensions to decide
        assert r.judge_evidence == "ledger"  # the default: the ledger and analyses, no transcript
        assert r.feedback is True  # the default: the chair writes the coach's feedback
        assert len(r.match.stages) == 4


def test_verdict_from_graph_aggregates_three_ballots():
    backend = RecordingBackend(negative_judges=["judge-2"])
    v = adjudicate_with_context(tiny_match(4), AdjudicationContext.single(backend))
    # p = round(mean(0.7, 0.3, 0.7), 2) = round(0.5667, 2) = 0.57; 2:1 for the affirmative
    assert v.p == 0.57 and v.winner == "affirmative"
    assert v.dissent.winner_split == "2:1" and v.dissent.dissenting_judges == ["judge-2"]
    assert sum(v.best_debater_votes.values()) == 9
    assert v.best_debater_votes == {"Affirmative Speaker 1": 6, "Negative Speaker 1": 3}
    # s1 affirmative: judge-1 7, judge-2 6, judge-3 7 -> mean 6.667
    s1 = next(s for s in v.stage_scores if s.stage_id == "s1")
    assert s1.judge_scores == [7, 6, 7] and s1.mean == 6.667
    assert [c.clash_id for c in v.battlefields] == ["c1"]
    assert [e.stage_id for e in v.battlefields[0].events] == ["s1", "s2", "s3", "s4"]
    assert v.provenance.calls == 4 + 3


def test_one_failed_judge_still_gives_a_verdict_from_the_other_two():
    backend = RecordingBackend(failing_judges=["judge-3"])
    v = adjudicate_with_context(tiny_match(4), AdjudicationContext.single(backend))
    assert [b.judge_id for b in v.ballots] == ["judge-1", "judge-2"]
    assert [f.key for f in v.failures] == ["judge-3"] and v.failures[0].raw_outputs == ["garbage"]
    assert sum(v.best_debater_votes.values()) == 6  # two ballots x 3 votes; the failure is not a score
    assert v.dissent.winner_split == "2:0"


def test_two_failed_judges_fail_the_panel_without_losing_state():
    import pytest

    from adjudicator.api import run_agentic
    from adjudicator.errors import AdjudicationFailed

    backend = RecordingBackend(failing_judges=["judge-2", "judge-3"])
    verdict, state = run_agentic(tiny_match(4), AdjudicationContext.single(backend))
    assert verdict is None
    assert "at least 2 deciding ballots, got 1" in state["panel_error"]
    assert len(state["analyses"]) == 4 and len(state["ballots"]) == 1  # finished work kept
    with pytest.raises(AdjudicationFailed):
        adjudicate_with_context(tiny_match(4), AdjudicationContext.single(RecordingBackend(failing_judges=["judge-1", "judge-3"])))


def test_tracking_graph_continues_from_checkpoint_when_stages_arrive():
    from langgraph.checkpoint.memory import InMemorySaver

    from adjudicator.workflow.tracking import build

    graph = build(checkpointer=InMemorySaver())
    match = tiny_match(4)
    header = match.view().model_copy(update={"stages": []})
    backend = RecordingBackend()
    ctx = AdjudicationContext.single(backend)
    cfg = {"configurable": {"thread_id": "live-1"}}
    graph.invoke({"match": header, "stages": [], "next_stage": 0}, config=cfg, context=ctx)
    assert backend.stage_requests == []
    for st in match.stages[:2]:
        graph.invoke({"stages": [st]}, config=cfg, context=ctx)
    graph.invoke({"stages": [match.stages[1]]}, config=cfg, context=ctx)  # a repeated push is ignored
    state = graph.get_state(cfg).values
    assert state["next_stage"] == 2 and [a.stage_id for a in state["analyses"]] == ["s1", "s2"]
    assert [r.stage.stage_id for r in backend.stage_requests] == ["s1", "s2"]

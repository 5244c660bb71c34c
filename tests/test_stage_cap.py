"""A cap on the stages per format, and per-stage work that does not grow with the stages before (issue 26, item 2).

Before: no cap (30,000 one-word stages had not finished after 566 s of CPU; with a model, one paid
request per stage), and each stage's request re-validated every earlier stage, the offline judge's
opponent history read every earlier stage, and a live push re-validated the whole match. Now every
format declares ``max_stages`` with its reason (fixed-order formats: their order; online-1v1: 500), a
file over the largest cap is refused before its stages are read, and the work per stage is counted
here in Python function calls -- a count, not a time, so it does not depend on the machine's load
(``benchmarks/long_input.py`` prints the times).
"""

from __future__ import annotations

import json
import sys

import httpx
import pytest
from graph_fakes import RecordingBackend
from live_fakes import TOKEN

from adjudicator.api import adjudicate
from adjudicator.cli import main
from adjudicator.input.formats import FORMATS, MAX_STAGES, ONLINE_MAX_STAGES
from adjudicator.input.match import Stage
from adjudicator.input.match_file import parse_match
from adjudicator.live.app import create_app
from adjudicator.live.server import LiveServer
from adjudicator.live.validation import validate_header, validate_push
from adjudicator.workflow.context import AdjudicationContext


def stage(k: int, n: int) -> dict:
    """Speech ``k`` of ``n`` of an online-1v1 debate: one short sentence."""
    side = "affirmative" if k % 2 == 0 else "negative"
    kind = "constructive" if k < 2 else ("closing" if k >= n - 2 else "supplementary")
    speaker = f"{side.capitalize()} Speaker 1"
    return {"stage_id": f"s{k}", "name": f"Speech {k}", "type": kind, "sides": [side], "utterances": [{"speaker": speaker, "side": side, "text": f"point {k} on uniforms"}]}


def header() -> dict:
    return {
        "match_id": "long", "format": "online-1v1", "language": "en", "motion": "Schools should require uniforms",
        "affirmative_position": "For", "negative_position": "Against",
        "debaters": [{"side": "affirmative", "position": 1}, {"side": "negative", "position": 1}],
    }  # fmt: skip


def online(n: int) -> dict:
    return header() | {"stages": [stage(k, n) for k in range(n)]}


def test_every_format_declares_its_cap_and_why():
    caps = {name: (f.max_stages, f.max_stages_reason) for name, f in FORMATS.items()}
    assert caps == {
        "ccdb-4v4": (14, "its 14 stages"),
        "ccdb-2v2": (14, "its 12 stages and a surprise challenge for each side"),
        "online-1v1": (500, "the longest PanelBench DebateArt debate has 10 speeches; 500 is fifty times that, and each stage is a tracker request with a model"),
        "bp": (8, "its 8 stages"),
    }
    assert MAX_STAGES == ONLINE_MAX_STAGES == 500


def test_an_online_match_at_the_cap_is_read_and_one_more_stage_is_refused(tmp_path, capsys):
    assert len(parse_match(online(500)).stages) == 500
    path = tmp_path / "m.json"
    data = online(500)
    data["stages"].append(stage(500, 501) | {"type": "closing"})
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main([str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "stages: 501 stages, more than the 500 a online-1v1 match may have (the longest PanelBench DebateArt debate has 10 speeches" in err


def test_a_file_far_over_the_cap_is_refused_before_its_stages_are_read(tmp_path, capsys):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(header() | {"stages": [{"not": "a stage"}] * 30_000}), encoding="utf-8")
    assert main([str(path)]) == 2  # before: every stage parsed first (and 566 s for 30,000 real ones)
    err = capsys.readouterr().err
    assert "field stages has 30,000 items, far more than the 500 any format allows" in err


def python_calls(fn, *args) -> int:
    """How many Python functions ``fn(*args)`` calls (a profile hook's count: deterministic)."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(count)
    try:
        fn(*args)
    finally:
        sys.setprofile(None)
    return calls


def test_tracking_stage_400_costs_what_tracking_stage_100_does(monkeypatch):
    # the Python calls made while each stage is tracked in a 400-stage run (building its request
    # from the graph state, the offline tracker, folding its clash updates in)
    import adjudicator.workflow.nodes as nodes

    per_stage: list[int] = []
    update = nodes.stage_update

    def counted(state, i, context):
        calls = 0

        def count(frame, event, arg):
            nonlocal calls
            calls += event == "call"

        sys.setprofile(count)
        try:
            return update(state, i, context)
        finally:
            sys.setprofile(None)
            per_stage.append(calls)

    adjudicate(parse_match(online(20)))  # imports and first-use caches out of the count
    monkeypatch.setattr(nodes, "stage_update", counted)
    adjudicate(parse_match(online(400)))
    early, late = sum(per_stage[90:100]) / 10, sum(per_stage[390:400]) / 10
    assert late / early < 1.2  # before: about 3 (each stage re-validated and re-read the stages before it)


def test_a_live_push_costs_the_same_at_stage_100_and_at_stage_400():
    head = validate_header(header())
    received = [Stage.model_validate(stage(k, 500)) for k in range(400)]
    early = python_calls(validate_push, head, received[:100], stage(100, 500))
    late = python_calls(validate_push, head, received, stage(400, 500))
    assert late / early < 1.5  # before: the whole match dumped and validated again at every push (about 4x)


def test_a_live_push_over_the_cap_is_refused(tmp_path):
    app = create_app(tmp_path / "state", AdjudicationContext.single(RecordingBackend()), TOKEN, store="sqlite")
    head = validate_header(header())
    received = [Stage.model_validate(stage(k, 501)) for k in range(500)]
    with pytest.raises(Exception, match=r"stages: 501 stages, more than the 500 a online-1v1 match may have"):
        validate_push(head, received, stage(500, 501))
    server = LiveServer(app).start()
    try:
        auth = {"Authorization": f"Bearer {TOKEN}"}
        with httpx.Client(base_url=server.url, timeout=30, trust_env=False, headers=auth) as http:
            mid = http.post("/api/matches", json=header()).json()["match_id"]
            r = http.post(f"/api/matches/{mid}/stages", json=stage(0, 2) | {"stage_id": "s0", "utterances": [{"speaker": "Negative Speaker 1", "side": "negative", "text": "x"}]})
            assert r.status_code == 422 and r.json()["detail"].startswith("stage: stages.0.utterances.0.side")  # the path as in the whole file
    finally:
        server.stop()

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
from adjudicator.live.rooms.validation import validate_header, validate_push
from adjudicator.live.server.app import create_app
from adjudicator.live.server.serving import LiveServer
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


def test_a_run_at_the_cap_compiles_no_more_patterns_than_a_run_of_100_stages(monkeypatch):
    # the review's whole-word search of a ballot's reasoning compiled a pattern for each stage id and
    # name; past re's cache of 512 (at 500 stages: 1,500 terms) every ballot compiled them all again
    import re
    import re._compiler

    compiled = 0
    compile_pattern = re._compiler.compile

    def counted(*args, **kwargs):
        nonlocal compiled
        compiled += 1
        return compile_pattern(*args, **kwargs)

    monkeypatch.setattr(re._compiler, "compile", counted)
    words = ["cost", "expression", "discipline", "equality"]
    per_run = {}
    for n in (100, ONLINE_MAX_STAGES):
        data = online(n)
        for k, st in enumerate(data["stages"]):  # one more word: the offline ballots then name no stage, so every term is searched
            st["utterances"][0]["text"] += f" {words[k % len(words)]}"
        re.purge()
        compiled = 0
        adjudicate(parse_match(data))
        per_run[n] = compiled
    assert per_run[ONLINE_MAX_STAGES] <= per_run[100]  # before: 150 at 100 stages, 502 at 500 (re.purge() first)


def test_the_reviews_whole_word_search_finds_what_the_pattern_found():
    import random
    import re

    from adjudicator.verdict.review import _contains

    cases = [("s1 and s10", "s1", True), ("s10 only", "s1", False), ("see s1.", "s1", True), ("xs1", "s1", False), ("s1_x", "s1", False),
             ("the closing", "closing", True), ("enclosing", "closing", False), ("é s1é", "s1", False), ("speech 3, s2", "speech 3", True),
             ("", "s1", False), ("s1", "  S1 ", True), ("正方赢了", "正方", True), ("a", "", False)]  # fmt: skip
    for haystack, needle, found in cases:
        assert _contains(haystack, needle) is found, (haystack, needle)
    rng = random.Random(26)
    alphabet = "ab1_ .,-é"
    for _ in range(3000):
        haystack = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        needle = "".join(rng.choice("ab1_ .-") for _ in range(rng.randint(1, 3))).strip()
        if needle:
            expected = re.search(r"(?<!\w)" + re.escape(needle) + r"(?!\w)", haystack) is not None
            assert _contains(haystack, needle) is expected, (haystack, needle)


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

"""Stage windows of the LLM clash tracker (``--track-window-chars``): the grouping rule, a windowed run
through the loopback server (one analysis per stage, one request per window, the same battlefield as
one stage per request), a failed window (one failure per stage, the other window's work kept), a
repair turn asking only for the stage that failed, the setting in provenance and in a bench
manifest (a resume refuses another value), and the backends that keep one stage per step."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench_helpers import answer, bench, run_dir_of, write_dataset
from bench_helpers import online as bench_online
from fake_openai import fake_openai, ok  # noqa: F401  (fixture)
from llm_helpers import online_match, request_schema, schema_responder, tracker_json

from adjudicator.cli import main
from adjudicator.config import ModelConfig
from adjudicator.input.match import Match
from adjudicator.judges.base import StageRequest
from adjudicator.judges.llm.backend import LLMBackend
from adjudicator.judges.offline import OfflineJudge
from adjudicator.model.cache import NullCache
from adjudicator.model.llm import LLMClient
from adjudicator.probes.pressure import PressureBackend
from adjudicator.workflow.context import AdjudicationContext
from adjudicator.workflow.windows import MAX_WINDOW_STAGES, stage_chars, window_size, windows


def _match(lengths: list[int]) -> Match:
    """An online-1v1 match whose stage i has a transcript of exactly ``lengths[i]`` characters:
    "Affirmative Speaker 1: " is 23 characters and "Negative Speaker 1: " 20, the rest is text."""
    texts = [("x" * (n - 23) if i % 2 == 0 else "y" * (n - 20)) for i, n in enumerate(lengths)]
    return online_match(texts)


# ---------------------------------------------------------------------------------------------
# the grouping rule


def test_stage_chars_counts_the_transcript_lines_the_prompt_shows() -> None:
    m = _match([100, 100, 250])
    assert [stage_chars(s) for s in m.stages] == [100, 100, 250]


def test_windows_are_greedy_within_the_budget_and_capped_at_six_stages() -> None:
    stages = _match([100] * 6).stages
    # 100 + 100 = 200 <= 250, + 100 = 300 > 250: windows of two
    assert windows(stages, 250) == [(0, 2), (2, 2), (4, 2)]
    # 300 <= 300: windows of three
    assert windows(stages, 300) == [(0, 3), (3, 3)]
    # 800 would fit 1,000, but a window holds at most six stages: 6 + 2
    assert MAX_WINDOW_STAGES == 6
    assert windows(_match([100] * 8).stages, 1000) == [(0, 6), (6, 2)]
    # no budget: one stage per window (today's per-stage tracking)
    assert windows(stages, 0) == [(i, 1) for i in range(6)]
    assert windows(stages, 1000, max_stages=1) == [(i, 1) for i in range(6)]


def test_a_stage_longer_than_the_budget_is_a_window_of_its_own() -> None:
    stages = _match([100, 500, 100, 100, 260]).stages
    # 100 + 500 > 250: s1 alone; s2 (500 > 250) alone; 100 + 100 = 200 <= 250, + 260 > 250; s5 alone
    assert windows(stages, 250) == [(0, 1), (1, 1), (2, 2), (4, 1)]
    # the window at any cursor the walk reaches is the walk's own
    assert [window_size(stages, i, 250) for i in (0, 1, 2, 4)] == [1, 1, 2, 1]
    assert window_size(stages, 5, 250) == 0


# ---------------------------------------------------------------------------------------------
# a windowed run through the loopback server


def _write(tmp_path: Path, match: Match | None = None) -> Path:
    path = tmp_path / "match.json"
    path.write_text((match or online_match()).model_dump_json(), encoding="utf-8")
    return path


def _schema(body: dict[str, Any]) -> dict[str, Any]:
    return request_schema(body) or {}


def _window_ids(body: dict[str, Any]) -> list[str] | None:
    """The stage ids a window request asks for (None for any other request)."""
    props = _schema(body).get("properties") or {}
    return list(props["stages"]["required"]) if "stages" in props else None


def _adjudicate(server, tmp_path: Path, capsys, *extra: str, name: str = "run") -> tuple[int, dict, str]:
    args = [str(_write(tmp_path)), "--model", "openai/test-model", "--api-base", server.base_url, "--json-mode", "schema", "--cache-dir", str(tmp_path / f"cache-{name}"), *extra]
    code = main(args)
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else {}), err


def test_a_window_run_sends_one_tracker_request_and_keeps_one_analysis_per_stage(fake_openai, tmp_path, capsys) -> None:  # noqa: F811
    fake_openai.respond_with(schema_responder)
    code, per_stage, err = _adjudicate(fake_openai, tmp_path, capsys, name="per-stage")
    assert code == 0, err
    assert fake_openai.count == 4 + 3  # one request per stage, three judges
    fake_openai.reset()
    fake_openai.respond_with(schema_responder)
    code, windowed, err = _adjudicate(fake_openai, tmp_path, capsys, "--track-window-chars", "1000", name="windowed")
    assert code == 0, err
    # the stages have 108 + 99 + 107 + 103 = 417 characters <= 1,000: one window of the four stages
    assert fake_openai.count == 1 + 3
    assert _window_ids(fake_openai.requests[0]) == ["s1", "s2", "s3", "s4"]
    user = fake_openai.requests[0]["messages"][1]["content"]
    assert all(f'id "s{k}"' in user for k in range(1, 5)) and "This is the first stage of the debate." in user
    # every stage reuses clash c1 (the scripted answer): folded in stage order, its events are s1..s4,
    # exactly as with one stage per request; so the ballots, scores and battlefield are the same
    (c1,) = windowed["battlefields"]
    assert c1["clash_id"] == "c1" and c1["opened_in"] == "s1" and [e["stage_id"] for e in c1["events"]] == ["s1", "s2", "s3", "s4"]
    for key in ("winner", "p", "stage_scores", "best_debater_votes", "battlefields", "ballots", "failures"):
        assert windowed[key] == per_stage[key], key
    assert fake_openai.requests[0]["max_tokens"] == 4 * 1280  # the per-stage budget times the stages
    prov = windowed["provenance"]
    assert prov["track_window_chars"] == 1000 and "track_window.en.j2" in prov["prompt_hashes"]
    assert prov["calls"] == 1 + 3 and prov["attempts"] == 4
    assert "track_window_chars" not in per_stage["provenance"]  # one stage per request: not recorded


def test_call_records_one_per_request_keyed_by_the_window(fake_openai, tmp_path) -> None:  # noqa: F811
    from adjudicator.api import adjudicate

    fake_openai.respond_with(schema_responder)
    config = ModelConfig.resolve(model="openai/test-model", api_base=fake_openai.base_url, json_mode="schema", no_cache=True, track_window_chars=210, env={})
    v = adjudicate(online_match(), config)
    tracker = [c for c in v.calls if c.node == "track_stage"]
    assert [(c.key, c.attempt, c.turn, c.max_tokens) for c in tracker] == [("s1+s2", 1, "answer", 2 * 1280), ("s3+s4", 1, "answer", 2 * 1280)]
    assert [s.stage_id for s in v.stage_scores] == ["s1", "s2", "s3", "s4"]
    assert v.provenance.calls == 2 + 3 and v.provenance.track_window_chars == 210


def test_windows_of_two_and_progress_lines_per_stage(fake_openai, tmp_path, capsys) -> None:  # noqa: F811
    fake_openai.respond_with(schema_responder)
    # 108 + 99 = 207 <= 210, + 107 > 210; 107 + 103 = 210 <= 210: windows s1+s2 and s3+s4
    code, v, err = _adjudicate(fake_openai, tmp_path, capsys, "--track-window-chars", "210")
    assert code == 0, err
    assert [_window_ids(b) for b in fake_openai.requests[:2]] == [["s1", "s2"], ["s3", "s4"]]
    assert fake_openai.count == 2 + 3
    stage_lines = [line for line in err.splitlines() if line.startswith("stage ")]
    # one line per stage; each window's request is counted once, on its first stage's line
    assert [line.split(":")[0] for line in stage_lines] == ["stage 1/7 s1 Speech 1", "stage 2/7 s2 Speech 2", "stage 3/7 s3 Speech 3", "stage 4/7 s4 Speech 4"]
    assert [line.endswith("(1 request)") or "(1 request," in line for line in stage_lines] == [True, False, True, False]
    assert len(v["stage_scores"]) == 4


def test_a_failed_window_fails_each_of_its_stages_and_keeps_the_other_window(fake_openai, tmp_path, capsys) -> None:  # noqa: F811
    def respond(body: dict[str, Any]) -> str:
        return "no json here at all" if _window_ids(body) == ["s1", "s2"] else schema_responder(body)

    fake_openai.respond_with(respond)
    code, v, err = _adjudicate(fake_openai, tmp_path, capsys, "--track-window-chars", "210")
    assert code == 0, err
    # window s1+s2: three attempts, nothing decodable; window s3+s4: one; three judges
    assert fake_openai.count == 3 + 1 + 3
    track_failures = [f for f in v["failures"] if f["node"] == "track_stage"]
    assert [f["key"] for f in track_failures] == ["s1", "s2"]
    assert all(f["kind"] == "unparseable" and "(window s1+s2)" in f["reason"] and len(f["raw_outputs"]) == 3 for f in track_failures)
    # the judges score only the analysed stages
    assert sorted(s["stage_id"] for s in v["stage_scores"]) == ["s3", "s4"]
    assert [_window_ids(b) for b in fake_openai.requests[:4]] == [["s1", "s2"]] * 3 + [["s3", "s4"]]


def test_a_repair_turn_asks_only_for_the_stage_that_failed(fake_openai, tmp_path, capsys) -> None:  # noqa: F811
    first = {"done": False}

    def respond(body: dict[str, Any]) -> str:
        ids = _window_ids(body)
        if ids == ["s1", "s2", "s3", "s4"] and not first["done"]:
            first["done"] = True
            full = json.loads(schema_responder(body))
            del full["stages"]["s3"]["sides"]  # stage s3 comes back without its ratings
            return json.dumps(full)
        return schema_responder(body)

    fake_openai.respond_with(respond)
    code, v, err = _adjudicate(fake_openai, tmp_path, capsys, "--track-window-chars", "1000")
    assert code == 0, err
    assert fake_openai.count == 2 + 3
    repair = fake_openai.requests[1]
    assert _window_ids(repair) == ["s3"] and list(_schema(repair)["properties"]["stages"]["properties"]) == ["s3"]
    assert len(v["stage_scores"]) == 4 and v["provenance"]["repaired"] == 1


# ---------------------------------------------------------------------------------------------
# settings and the backends that keep one stage per step


def test_the_setting_resolves_from_flag_env_and_file_and_rejects_a_negative_value(tmp_path) -> None:
    assert ModelConfig.resolve(env={}).track_window_chars == 0
    assert ModelConfig.resolve(env={"ADJUDICATOR_TRACK_WINDOW_CHARS": "1500"}).track_window_chars == 1500
    cfg = tmp_path / "c.toml"
    cfg.write_text("track_window_chars = 900\n", encoding="utf-8")
    assert ModelConfig.resolve(config_file=cfg, env={}).track_window_chars == 900
    assert ModelConfig.resolve(track_window_chars=700, config_file=cfg, env={"ADJUDICATOR_TRACK_WINDOW_CHARS": "1500"}).track_window_chars == 700


def test_a_negative_flag_is_refused_before_any_request(fake_openai, tmp_path, capsys) -> None:  # noqa: F811
    code, _, err = _adjudicate(fake_openai, tmp_path, capsys, "--track-window-chars", "-5")
    assert code == 2 and fake_openai.count == 0 and "--track-window-chars" in err


def test_offline_judge_ignores_the_window_setting(tmp_path, capsys) -> None:
    path = _write(tmp_path)
    assert main([str(path)]) == 0
    plain = capsys.readouterr().out
    assert main([str(path), "--track-window-chars", "1000"]) == 0
    assert capsys.readouterr().out == plain  # byte-identical: the offline tracker reads one stage per step


def test_llm_backend_windows_and_the_pressure_wrapper_delegates() -> None:
    llm = LLMBackend(LLMClient("openai/test-model", cache=NullCache()))
    assert llm.supports_windows("online-1v1") and llm.supports_windows("ccdb-2v2")
    assert not llm.supports_windows("bp")  # BP's own tracker template: one speech per request
    assert PressureBackend(llm).supports_windows("online-1v1")
    assert not PressureBackend(OfflineJudge()).supports_windows("online-1v1")


def test_live_tracking_stays_one_stage_per_request(tmp_path) -> None:
    from adjudicator.live.rooms.tracking import LiveStore

    ctx = AdjudicationContext.single(OfflineJudge())
    store = LiveStore(tmp_path / "live", AdjudicationContext(tracker=ctx.tracker, judges=ctx.judges, track_window_chars=1000))
    try:
        assert store.context.track_window_chars == 0
    finally:
        store.close()


def test_a_resumed_bench_refuses_another_window_budget(fake_openai, tmp_path, capsys) -> None:  # noqa: F811
    data = write_dataset(tmp_path / "data", [bench_online(i) for i in range(1, 3)])
    runs = tmp_path / "runs"
    fake_openai.respond_with(answer)
    llm = ["--model", "openai/test-model", "--api-base", fake_openai.base_url, "--json-mode", "object", "--cache-dir", str(tmp_path / "cache")]
    base = [str(data), "--name", "win", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "0"]
    code, _, err = bench(base + ["--limit", "1", "--track-window-chars", "1000"] + llm, capsys)
    assert code == 0, err
    run = run_dir_of(runs)
    assert json.loads((run / "manifest.json").read_text())["config"]["track_window_chars"] == 1000
    result = json.loads((run / "results" / "agentic" / "m01.json").read_text())
    assert result["status"] == "ok"
    fake_openai.reset()
    code, out, err = bench(base + ["--resume", "--track-window-chars", "500"], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "configuration differs from run" in err and "'track_window_chars'" in err
    assert fake_openai.count == 0
    # without the option the resume keeps the run's budget: the second sample is tracked in one window
    code, _, err = bench(base + ["--resume", "--limit", "2"] + llm, capsys)
    assert code == 0, err
    tracker = [b for b in fake_openai.requests if _window_ids(b) is not None or "sides" in (_schema(b).get("properties") or {})]
    assert len(tracker) == 1 and _window_ids(tracker[0]) == ["s1", "s2", "s3", "s4"]


def test_tracker_json_is_a_stage_answer() -> None:
    # the window answers of schema_responder are made of tracker_json stage answers
    assert set(json.loads(tracker_json(["affirmative"]))) == {"sides", "clash_updates", "summary"}


def test_a_chinese_match_in_windows_of_six_keeps_every_stage_and_its_sides(fake_openai, tmp_path) -> None:  # noqa: F811
    from llm_helpers import ccdb_2v2_match

    from adjudicator.api import adjudicate

    match = ccdb_2v2_match()
    # twelve short stages (a few hundred characters together): windows of six, the cap
    assert windows(match.view().stages, 100000) == [(0, 6), (6, 6)]
    fake_openai.respond_with(schema_responder)
    config = ModelConfig.resolve(model="openai/test-model", api_base=fake_openai.base_url, json_mode="schema", no_cache=True, track_window_chars=100000, env={})
    v = adjudicate(match, config)
    assert fake_openai.count == 2 + 3
    assert [_window_ids(b) for b in fake_openai.requests[:2]] == [[f"s{k:02d}" for k in range(i, i + 6)] for i in (1, 7)]
    system = fake_openai.requests[0]["messages"][0]["content"]
    assert "本次请求一次分析若干个连续环节" in system  # the Chinese window template
    # the questioning stage s02 evaluates both sides: its schema part asks for both keys
    s02 = _schema(fake_openai.requests[0])["properties"]["stages"]["properties"]["s02"]["properties"]["sides"]
    assert s02["required"] == ["affirmative", "negative"]
    assert sorted({(s.stage_id, s.side) for s in v.stage_scores}) == sorted(set(match.view().scored_units()))
    assert v.provenance.track_window_chars == 100000 and "track_window.zh.j2" in v.provenance.prompt_hashes


def test_a_rejudge_replays_a_windowed_parent_one_stage_per_step() -> None:
    from adjudicator.judges.base import StageRequest
    from adjudicator.judges.reused import ReusedTracker
    from adjudicator.records import CallRecord
    from adjudicator.verdict.battlefield import StageAnalysis

    match = online_match()
    view = match.view()
    window_call = CallRecord(node="track_stage", key="s1+s2", model="openai/test-model", parse="strict", prompt_tokens=900, completion_tokens=300)
    analyses = [StageAnalysis(stage_id=s.stage_id, stage_index=i, sides=[], clash_updates=[], summary=f"stage {i + 1}") for i, s in enumerate(view.stages[:2])]
    tracker = ReusedTracker("openai/test-model", is_llm=True, calls=[window_call], analyses=analyses)
    first = tracker.analyse_stage(StageRequest(match=view, stage=view.stages[0], index=0))
    second = tracker.analyse_stage(StageRequest(match=view, stage=view.stages[1], index=1, previous=list(view.stages[:1])))
    # the window's one request comes back once, with its first stage (as a cache hit: no new spend)
    assert [(c.key, c.cache_hit, c.prompt_tokens) for c in first.calls] == [("s1+s2", True, 900)] and second.calls == []
    assert first.value == analyses[0] and second.value == analyses[1]


def test_a_window_gets_the_time_limit_of_its_stages(fake_openai, tmp_path) -> None:  # noqa: F811
    """A window of N stages asks for N stages' answers, so its request may take N times the time limit
    of one (issue 39: Qwen2.5-Coder 0.5B's six-stage window ran past the 120 s of one stage on every
    attempt). Here the limit is 0.5 s and the two-stage window's answer takes 0.75 s: it is answered on
    its first attempt (on the old code it timed out every time), while a judge's request keeps 0.5 s."""
    from adjudicator.api import adjudicate

    def slow_window(body: dict) -> Any:
        text = schema_responder(body)
        return ok(text, delay_s=0.75) if "stages" in json.loads(text) else text

    fake_openai.respond_with(slow_window)
    config = ModelConfig.resolve(model="openai/test-model", api_base=fake_openai.base_url, json_mode="schema", no_cache=True,
                                 track_window_chars=210, timeout_s=0.5, env={})  # fmt: skip
    v = adjudicate(online_match(), config)
    tracker = [c for c in v.calls if c.node == "track_stage"]
    assert [(c.key, c.attempt) for c in tracker] == [("s1+s2", 1), ("s3+s4", 1)]
    assert not v.failures and [s.stage_id for s in v.stage_scores] == ["s1", "s2", "s3", "s4"]
    # the limit litellm is given, per request: the window's twice the one-stage limit
    client = LLMClient("openai/test-model", api_base=fake_openai.base_url, api_key="sk-test-0123456789", timeout_s=0.5, cache=NullCache())
    backend = LLMBackend(client)
    view = online_match().view()
    requests = [StageRequest(match=view, stage=view.stages[i], index=i, previous=list(view.stages[:i])) for i in range(2)]
    window = backend.window_prompt(requests)
    assert window.timeout_scale == 2 and client._kwargs(window)["timeout"] == 1.0
    assert client._kwargs(backend.stage_prompt(requests[0]))["timeout"] == 0.5

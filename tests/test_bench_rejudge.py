"""``bench --rejudge RUN``: the parent's tracker outputs, a new panel, no tracker request.

LLM runs go over real HTTP to the loopback server (tests/fake_openai.py). Its request log is the
proof that a re-judge run sends no tracker request: a tracker request is the one whose response
schema has ``sides`` (the stage analysis), a judge request the one with ``stage_scores``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_helpers import answer, bench, isolate_env, online, write_dataset
from fake_openai import fake_openai  # noqa: F401 (fixture)

from adjudicator.bench.results import SampleResult
from adjudicator.judges.reused import ReusedTracker


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    isolate_env(monkeypatch, tmp_path)


def schema_props(body: dict) -> dict:
    rf = body.get("response_format") or {}
    schema = rf.get("schema") or (rf.get("json_schema") or {}).get("schema") or {}
    return schema.get("properties") or {}


def is_tracker(body: dict) -> bool:
    return "sides" in schema_props(body)


def responder(body: dict) -> str:
    """``answer``, except that the model ``judge-b`` gives every ballot p = 0.3 (so its verdicts
    differ from the parent's panel on test-model, whose ballots say 0.62)."""
    text = answer(body)
    if body.get("model") == "judge-b" and "stage_scores" in schema_props(body):
        obj = json.loads(text)
        obj["p"] = 0.3
        obj["winner"] = "negative"
        text = json.dumps(obj)
    return text


def common(server, cache: Path) -> list[str]:
    return ["--api-base", server.base_url, "--json-mode", "object", "--cache-dir", str(cache), "--timeout-s", "20", "--no-progress", "--bootstrap", "0"]


def only_run(runs: Path, name: str) -> Path:
    (d,) = [p for p in runs.iterdir() if p.is_dir() and p.name.endswith(f"_{name}")]
    return d


def verdicts(run: Path) -> dict[str, dict]:
    out = {}
    for f in sorted((run / "results" / "agentic").glob("*.json")):
        out[f.stem] = json.loads(f.read_text(encoding="utf-8"))["verdict"]
    return out


@pytest.fixture
def parent(tmp_path, capsys, fake_openai):
    """A full run on test-model (tracker and judges) over two matches."""
    data = write_dataset(tmp_path / "data", [online(1), online(2, "negative")])
    runs = tmp_path / "runs"
    fake_openai.respond_with(responder)
    code, _, err = bench([str(data), "--name", "base", "--runs-dir", str(runs), "--model", "openai/test-model", *common(fake_openai, tmp_path / "c1")], capsys)
    assert code == 0, err
    assert sum(is_tracker(b) for b in fake_openai.requests) == 8  # 2 matches x 4 stages
    fake_openai.reset()
    return data, runs, only_run(runs, "base")


def test_rejudge_sends_no_tracker_request_and_equals_a_full_run_with_the_same_judges(parent, tmp_path, capsys, fake_openai):
    data, runs, base = parent
    code, out, err = bench(["--rejudge", str(base), "--judge-model", "openai/judge-b", "--name", "rj", "--runs-dir", str(runs), *common(fake_openai, tmp_path / "c2")], capsys)
    assert code == 0, err
    rj = only_run(runs, "rj")
    assert out.strip() == str(rj)
    # the server's log: 2 matches x 3 judges, every one a judge request for judge-b, none a tracker request
    assert len(fake_openai.requests) == 6
    assert not any(is_tracker(b) for b in fake_openai.requests)
    assert {b["model"] for b in fake_openai.requests} == {"judge-b"}

    manifest = json.loads((rj / "manifest.json").read_text())
    assert manifest["parent"]["run_id"] == base.name and manifest["parent"]["tracker"] == "openai/test-model"
    assert manifest["arms"] == ["agentic"]
    assert manifest["models"]["agentic"] == {"tracker": "openai/test-model", "judge-1": "openai/judge-b", "judge-2": "openai/judge-b", "judge-3": "openai/judge-b"}
    ledger = json.loads((rj / "report.json").read_text())["ledger"]["arms"]["agentic"]
    assert ledger["requests"] == 6  # the reused tracker calls count as cache hits, not requests
    assert f"Re-judged from run {base.name}" in (rj / "report.md").read_text()

    # a full run with the same judge settings (fresh cache, so every call is really sent)
    fake_openai.reset()
    code, _, err = bench([str(data), "--name", "full", "--runs-dir", str(runs), "--tracker-model", "openai/test-model", "--judge-model", "openai/judge-b",
                          *common(fake_openai, tmp_path / "c3")], capsys)
    assert code == 0, err
    assert sum(is_tracker(b) for b in fake_openai.requests) == 8
    full = only_run(runs, "full")
    assert verdicts(rj) == verdicts(full)
    # and the new judges did decide: judge-b's ballots say 0.3, the parent's 0.62
    assert {v["p"] for v in verdicts(rj).values()} == {0.3}
    assert {v["p"] for v in verdicts(base).values()} == {0.62}


def test_the_stored_analyses_and_the_raw_outputs_give_the_same_battlefield(parent):
    """A result file without stored analyses (written before re-judging existed) is read again from
    the tracker's raw outputs, with the same verdict."""
    from adjudicator.api import adjudicate_with_context
    from adjudicator.input.match_file import load_match
    from adjudicator.judges.offline import OfflineJudge
    from adjudicator.workflow.context import AdjudicationContext

    data, _, base = parent
    res = SampleResult.model_validate_json((base / "results" / "agentic" / "m01.json").read_text())
    assert len(res.analyses) == 4
    match = load_match(data / "m01.json")
    offline = OfflineJudge()
    got = []
    for analyses in (res.analyses, []):
        tracker = ReusedTracker("openai/test-model", is_llm=True, calls=res.calls, failures=res.failures, analyses=analyses)
        ctx = AdjudicationContext(tracker=tracker, judges={j: offline for j in ("judge-1", "judge-2", "judge-3")})
        v = adjudicate_with_context(match, ctx)
        got.append(v.model_dump(mode="json"))
        assert all(c.cache_hit for c in v.calls if c.node == "track_stage")
    assert got[0] == got[1]
    assert got[0]["battlefields"] == res.verdict["battlefields"]


def test_an_offline_parent_is_rejudged_by_a_model_without_tracker_requests(tmp_path, capsys, fake_openai):
    data = write_dataset(tmp_path / "data", [online(3)])
    runs = tmp_path / "runs"
    code, _, err = bench([str(data), "--name", "off", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "0"], capsys)
    assert code == 0, err
    off = only_run(runs, "off")
    fake_openai.respond_with(responder)
    code, _, err = bench(["--rejudge", "off", "--model", "openai/judge-b", "--name", "rj", "--runs-dir", str(runs), *common(fake_openai, tmp_path / "c")], capsys)
    assert code == 0, err
    assert len(fake_openai.requests) == 3 and not any(is_tracker(b) for b in fake_openai.requests)
    rj = only_run(runs, "rj")
    assert json.loads((rj / "manifest.json").read_text())["models"]["agentic"]["tracker"] == "offline"
    # the same battlefield as the parent's, judged anew
    assert verdicts(rj)["m03"]["battlefields"] == verdicts(off)["m03"]["battlefields"]
    assert verdicts(rj)["m03"]["p"] == 0.3


def test_refusals_name_the_option_and_send_nothing(parent, tmp_path, capsys, fake_openai):
    _, runs, base = parent
    args = ["--runs-dir", str(runs), *common(fake_openai, tmp_path / "c2")]
    cases = [
        (["--rejudge", "nosuchrun", "--name", "x"], "--rejudge: nosuchrun: not a run folder"),
        (["--rejudge", str(base), "--tracker-model", "openai/other", "--name", "x"], "--tracker-model: a re-judge run keeps the tracker"),
        (["--rejudge", str(base), "--arm", "single-call", "--model", "openai/x", "--name", "x"], "--rejudge: only the agentic arm"),
        (["--rejudge", str(base), "--fold", "0", "--name", "x"], "--fold: a re-judge run keeps the parent's selection"),
        (["--rejudge", str(base), "--rubric", "inspire", "--name", "x"], "--rubric: a re-judge run keeps the rubric its tracker outputs were made under"),
    ]
    for extra, message in cases:
        code, _, err = bench([*extra, *args], capsys)
        assert code == 2, err
        assert message in err and "Traceback" not in err
    assert fake_openai.requests == []
    assert sorted(p.name.split("_", 1)[1] for p in runs.iterdir()) == ["base"]


def test_a_parent_sample_without_a_result_fails_alone_without_a_request(parent, tmp_path, capsys, fake_openai):
    _, runs, base = parent
    (base / "results" / "agentic" / "m02.json").unlink()
    code, _, err = bench(["--rejudge", str(base), "--judge-model", "openai/judge-b", "--name", "rj", "--runs-dir", str(runs), *common(fake_openai, tmp_path / "c2")], capsys)
    assert code == 0, err
    assert len(fake_openai.requests) == 3  # m01's three judges only
    res = json.loads((only_run(runs, "rj") / "results" / "agentic" / "m02.json").read_text())
    assert res["status"] == "failed" and "no agentic result in parent run" in res["error"] and res["calls"] == []


def test_a_rejudge_run_resumes_under_its_own_parent_and_judges(parent, tmp_path, capsys, fake_openai):
    _, runs, base = parent
    args = ["--runs-dir", str(runs), *common(fake_openai, tmp_path / "c2")]
    assert bench(["--rejudge", str(base), "--judge-model", "openai/judge-b", "--name", "rj", "--limit", "1", *args], capsys)[0] == 0
    fake_openai.reset()
    code, _, err = bench(["--rejudge", str(base), "--name", "rj", "--resume", "--limit", "2", *args], capsys)
    assert code == 0, err
    assert len(fake_openai.requests) == 3 and {b["model"] for b in fake_openai.requests} == {"judge-b"}
    code, _, err = bench(["--rejudge", str(base), "--name", "rj", "--resume", "--judge-model", "openai/judge-c", *args], capsys)
    assert code == 2 and "differs from run" in err


def test_a_rejudge_under_another_judge_evidence_changes_only_the_judges_input(parent, tmp_path, capsys, fake_openai):
    """The ablation of --judge-evidence on one frozen run: the same tracker outputs, judges that now
    read quotes; the value is in the manifest and every verdict, and a resume refuses another."""
    _, runs, base = parent
    args = ["--runs-dir", str(runs), *common(fake_openai, tmp_path / "c2")]
    code, _, err = bench(["--rejudge", str(base), "--judge-model", "openai/test-model", "--judge-evidence", "quotes", "--name", "rq", *args], capsys)
    assert code == 0, err
    assert not any(is_tracker(b) for b in fake_openai.requests) and len(fake_openai.requests) == 6  # 2 matches x 3 judges
    assert all("QUOTES" in b["messages"][-1]["content"] for b in fake_openai.requests)
    run = only_run(runs, "rq")
    assert json.loads((run / "manifest.json").read_text())["config"]["judge_evidence"] == "quotes"
    assert {v["provenance"]["judge_evidence"] for v in verdicts(run).values()} == {"quotes"}
    assert {v["provenance"]["judge_evidence"] for v in verdicts(base).values()} == {"ledger"}
    code, _, err = bench(["--rejudge", str(base), "--name", "rq", "--resume", "--judge-evidence", "transcript", *args], capsys)
    assert code == 2 and "differs from run" in err

"""How ``adjudicate bench`` ends when samples fail: exit 1 and "finished with errors" when no sample
of an arm succeeded in the session, the unreachable-server stop (3 samples in a row that failed
without the model answering), the first underlying failure next to each listed failure, resuming on
the manifest's model settings, the ranking metric and undefined correlations in the reports, and
the cost wording when prices are unknown.

LLM runs go over real HTTP: to the loopback OpenAI-compatible server (tests/fake_openai.py), or to a
loopback port with nothing listening (connection refused). Transport backoff is set to 0 so a dead
server costs no waiting.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from bench_helpers import answer, bench, isolate_env, online, run_dir_of, tokens_in, write_dataset
from fake_openai import error, fake_openai  # noqa: F401 (fixture)

from adjudicator.bench.results import SampleResult, first_cause, is_unreachable
from adjudicator.records import CallRecord, FailureKind, NodeFailure


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    """No user setting reaches the tests; transport retries wait 0 s (one retry only)."""
    isolate_env(monkeypatch, tmp_path)
    monkeypatch.setenv("ADJUDICATOR_BACKOFF_BASE_S", "0")
    monkeypatch.setenv("ADJUDICATOR_TRANSPORT_RETRIES", "1")


def dead_port() -> int:
    """A loopback port with nothing listening: bind, read the port, close."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def llm_args(base_url: str, tmp_path: Path, model: str = "openai/test-model") -> list[str]:
    return ["--model", model, "--api-base", base_url, "--json-mode", "object", "--cache-dir", str(tmp_path / "cache"), "--timeout-s", "20"]


def status_of(run: Path) -> dict:
    return json.loads((run / "status.json").read_text())


# ---------------------------------------------------------------------------------------------
# 1(b), 1(c): a dead server stops the run after 3 samples; the cause is shown


@pytest.mark.parametrize("concurrency, expected_ran", [(1, 3), (4, 4)])
def test_unreachable_server_stops_after_three_samples_and_names_the_cause(tmp_path, capsys, concurrency, expected_ran):
    data = write_dataset(tmp_path / "data", [online(i) for i in range(1, 9)])
    runs = tmp_path / "runs"
    url = f"http://127.0.0.1:{dead_port()}/v1"
    args = [str(data), "--name", "dead", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "0", "--concurrency", str(concurrency)]
    code, out, err = bench(args + llm_args(url, tmp_path), capsys)
    assert code == 1 and out == ""
    last = err.strip().splitlines()[-1]
    assert last.startswith("adjudicate: error: stopped: 3 samples in a row failed without the model answering")
    assert "first cause: transport:" in last and "connection refused" in last and "--retry-errors" in last
    run = run_dir_of(runs)
    # concurrency 1: samples 1-3 fail in turn, then the stop; concurrency 4: four start together and,
    # while the latest finished one failed unreachable, no new one starts, so the four in flight are all
    ran = sorted(f.stem for f in (run / "results" / "agentic").glob("*.json"))
    assert len(ran) == expected_ran
    st = status_of(run)
    assert (st["state"], st["reason"], st["pending"]) == ("stopped", "unreachable", 8 - expected_ran)
    # 1(c): every listed failure carries its first underlying node failure, shown next to the summary
    report = json.loads((run / "report.json").read_text())
    assert len(report["failures"]) == expected_ran
    for f in report["failures"]:
        assert f["cause"].startswith("transport: openai/test-model: cannot connect to") and "connection refused" in f["cause"]
        assert not f["error"].startswith("transport:")  # the summary alone would not say it
    md = (run / "report.md").read_text()
    assert "| Arm | Sample | Status | Error | First underlying failure | Result file |" in md
    rows = [line for line in md.splitlines() if line.startswith("| agentic | m0")]
    assert len(rows) == expected_ran and all("| transport: openai/test-model: cannot connect to" in r for r in rows)
    assert "- **State:** stopped (unreachable): 3 samples in a row failed" in md
    assert "First underlying failure</th>" in (run / "report.html").read_text()
    # 6: no price is known for a dead server's model: said so, never "$0.0000"
    assert "cost unknown (no prices for these models)" in err and "$0.0000" not in err
    # resumable: the remaining samples are pending, and a resume plans them (and nothing finished)
    code, _, err = bench(args + llm_args(url, tmp_path) + ["--resume"], capsys)
    assert code == 1 and f"{8 - expected_ran} to run, {expected_ran} already finished" in err


def test_a_refused_streak_is_reset_by_a_success(tmp_path, capsys, fake_openai):
    """Samples m01, m02, m04, m05 are refused (HTTP 400, not retried); m03 and m06 answered. Never three
    unreachable samples in a row, so the run completes; exit 0 because the arm produced verdicts."""
    data = write_dataset(tmp_path / "data", [online(i) for i in range(1, 7)])
    runs = tmp_path / "runs"
    refused = {"SAMPLETOKEN-1", "SAMPLETOKEN-2", "SAMPLETOKEN-4", "SAMPLETOKEN-5"}
    fake_openai.respond_with(lambda body: error(400, "model not loaded") if tokens_in(body) & refused else answer(body))
    args = [str(data), "--name", "streak", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "0", "--concurrency", "1"]
    code, _, err = bench(args + llm_args(fake_openai.base_url, tmp_path), capsys)
    assert code == 0, err
    run = run_dir_of(runs)
    assert status_of(run)["state"] == "complete"
    report = json.loads((run / "report.json").read_text())
    assert report["samples"]["per_arm"]["agentic"] == {"ok": 2, "partial": 0, "failed": 4, "not_run": 0}
    assert sorted(f["sample_id"] for f in report["failures"]) == ["m01", "m02", "m04", "m05"]
    assert all(f["cause"].startswith("refused: ") and "model not loaded" in f["cause"] for f in report["failures"])
    assert "(cause: refused: " in err  # the stderr line of each failed sample names it too


# ---------------------------------------------------------------------------------------------
# 1(a): no sample of an arm succeeded -> exit 1, "finished with errors", resumable


def test_no_sample_succeeded_exits_1_and_is_not_complete_then_retry_completes(tmp_path, capsys, fake_openai):
    data = write_dataset(tmp_path / "data", [online(1), online(2, "negative")])
    runs = tmp_path / "runs"
    fake_openai.respond_with(lambda body: "not json at all")  # answered, so not an unreachable server
    base = [str(data), "--name", "allfail", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "0"] + llm_args(fake_openai.base_url, tmp_path)
    code, out, err = bench(base, capsys)
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    assert lines[-1].startswith("adjudicate: error: no sample succeeded in this session for arm agentic (2 failed; first cause: unparseable: ")
    assert "--retry-errors" in lines[-1]
    assert any(line.startswith("agentic: 0 ok, 0 partial, 2 failed;") for line in lines)  # the summary is still printed
    run = run_dir_of(runs)
    st = status_of(run)
    assert (st["state"], st["reason"], st["pending"]) == ("finished with errors", "no-sample-succeeded", 0)
    report = json.loads((run / "report.json").read_text())
    assert (report["run"]["state"], report["run"]["reason"]) == ("finished with errors", "no-sample-succeeded")
    md = (run / "report.md").read_text()
    (state_line,) = [line for line in md.splitlines() if line.startswith("- **State:**")]
    assert state_line.startswith("- **State:** finished with errors (no-sample-succeeded): no sample succeeded") and "complete" not in state_line
    assert "State:</b> finished with errors" in (run / "report.html").read_text()

    fake_openai.respond_with(answer)
    code, out, err = bench(base + ["--retry-errors"], capsys)
    assert code == 0, err
    assert out.strip() == str(run) and status_of(run)["state"] == "complete"
    assert json.loads((run / "report.json").read_text())["samples"]["per_arm"]["agentic"]["ok"] == 2


def test_first_cause_and_is_unreachable():
    judge = NodeFailure(node="judge", key="judge-1", kind=FailureKind.NO_EVIDENCE, reason="no stage analysis succeeded, so there is nothing to judge from")
    bad = NodeFailure(node="track_stage", key="s02", kind=FailureKind.UNPARSEABLE, reason="unparseable: no valid output in 3 attempts (last: not JSON)")
    dead = NodeFailure(node="track_stage", key="s01", kind=FailureKind.TRANSPORT, reason="transport: openai/x: cannot connect to http://127.0.0.1:9/v1")
    # sorted by node, the judge's derived failure comes first; the cause is the transport one, then unparseable
    assert first_cause([judge, bad, dead]) == dead.reason
    assert first_cause([judge, bad]) == bad.reason
    assert first_cause([judge]) == judge.reason and first_cause([]) is None

    sent = CallRecord(node="track_stage", key="s01", model="openai/x", parse="failed", error="cannot connect")
    native = CallRecord(node="judge", key="judge-2", model="offline", parse="native", raw_output="offline ballot")
    answered = CallRecord(node="track_stage", key="s02", model="openai/x", parse="failed", raw_output="not json")

    def res(status, failures, calls):
        return SampleResult(sample_id="m", arm="agentic", sample_sha256="x", status=status, failures=failures, calls=calls)

    assert is_unreachable(res("failed", [judge, dead], [sent]))
    assert is_unreachable(res("failed", [dead], [sent, native]))  # an offline judge in a mixed panel is not the server
    assert not is_unreachable(res("failed", [dead, bad], [sent, answered]))  # the model answered once
    assert not is_unreachable(res("failed", [dead], [sent, answered]))
    assert not is_unreachable(res("failed", [judge], []))
    assert not is_unreachable(res("partial", [dead], [sent]))


# ---------------------------------------------------------------------------------------------
# 4: --resume keeps the manifest's model settings


def test_resume_without_model_options_uses_the_manifests_and_refuses_a_different_explicit_one(tmp_path, capsys, fake_openai):
    data = write_dataset(tmp_path / "data", [online(i) for i in range(1, 4)])
    runs = tmp_path / "runs"
    fake_openai.respond_with(answer)
    base = [str(data), "--name", "syn", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "0"]
    code, _, err = bench(base + ["--limit", "2"] + llm_args(fake_openai.base_url, tmp_path), capsys)
    assert code == 0, err
    run = run_dir_of(runs)
    fake_openai.reset()

    # no model option at all: the run's model, API base and JSON mode from manifest.json
    code, out, err = bench(base + ["--resume", "--limit", "3"], capsys)
    assert code == 0, err
    assert out.strip() == str(run)
    assert "note: using the run's model settings from manifest.json: model 'openai/test-model', api_base " in err and "json_mode 'object'" in err
    assert fake_openai.count > 0 and all(tokens_in(b) == {"SAMPLETOKEN-3"} for b in fake_openai.requests)
    assert all(b["model"] == "test-model" for b in fake_openai.requests)
    m03 = json.loads((run / "results" / "agentic" / "m03.json").read_text())
    assert m03["status"] == "ok" and m03["session"] == 2

    # an explicit option equal to the manifest's is fine; the rest still comes from the manifest
    code, _, err = bench(base + ["--resume", "--model", "openai/test-model"], capsys)
    assert code == 0, err
    # an explicit option that differs is refused before any call
    fake_openai.reset()
    before = (run / "sessions.jsonl").read_text()
    code, out, err = bench(base + ["--resume", "--api-base", "http://127.0.0.1:9/v1"], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "configuration differs from run" in err and "'api_base'" in err
    assert fake_openai.count == 0 and (run / "sessions.jsonl").read_text() == before
    # the manifest never holds a key
    assert not any("key" in k.lower() for k in json.loads((run / "manifest.json").read_text())["config"])


# ---------------------------------------------------------------------------------------------
# 2: the ranking metric is stated; an undefined r says why


def test_ranking_metric_is_stated_and_constant_predictions_explain_an_undefined_r(tmp_path, capsys, fake_openai, bundled_matches_dir):
    # the single-call arm answers 7 for every stage score (bench_helpers.answer), so its predictions
    # are constant: Pearson r and Spearman rho are 0/0, undefined, and the row is not ranked
    fake_openai.respond_with(answer)
    runs = tmp_path / "runs"
    args = [str(bundled_matches_dir / "synthetic"), "--name", "const", "--runs-dir", str(runs), "--arm", "single-call", "--no-progress", "--bootstrap", "0"]
    code, _, err = bench(args + llm_args(fake_openai.base_url, tmp_path), capsys)
    assert code == 0, err
    run = run_dir_of(runs)
    report = json.loads((run / "report.json").read_text())
    t2 = report["tasks"]["task2"]
    assert t2["ranked_by"]["metric"] == "stage_pearson" and t2["ranked_by"]["label"] == "Pearson r" and t2["ranked_by"]["higher_is_better"] is True
    assert report["tasks"]["task1"]["ranked_by"]["metric"] == "winner_accuracy" and report["tasks"]["task3"]["ranked_by"]["metric"] == "best_debater_top1"
    (arm,) = [r for r in t2["rows"] if r["kind"] == "arm"]
    r = arm["metrics"]["stage_pearson"]
    assert r["value"] is None and r["reason"] == "r undefined (constant predictions)" and r["n"] == t2["n_units"]
    assert arm["metrics"]["stage_spearman"]["reason"] == "ρ undefined (constant predictions)"
    assert arm["metrics"]["stage_mse"]["value"] is not None and arm["rank"] is None
    md = (run / "report.md").read_text()
    for title in ("## Task 1", "## Task 2", "## Task 3"):
        section = md.split(title)[1].split("\n## ")[0]
        assert "Rows ranked by " in section and section.count("ranked by ") == 2  # the full table and the common subset
    assert "Rows ranked by Pearson r (higher is better); a row whose Pearson r is undefined is not ranked, nor is a seeded random baseline (one draw, shown with its expected value E)." in md
    assert "Rows ranked by winner accuracy (higher is better)" in md and "Rows ranked by top-1 accuracy (higher is better)" in md
    row = next(line for line in md.split("## Task 2")[1].splitlines() if line.startswith("| — | single-call"))
    assert f"r undefined (constant predictions) (n={t2['n_units']})" in row
    html = (run / "report.html").read_text()
    assert "Rows ranked by Pearson r" in html and "r undefined (constant predictions)" in html
    # 6: the loopback model has no price: the summary and the report say unknown; the HTML plots tokens instead
    assert "cost unknown (no prices for these models)" in err
    assert "| unknown (no prices for these models) |" in md
    assert html.count("data:image/png;base64,") == 3  # tokens chart, reliability curve, stage scatter
    assert "Cost not plotted: no price is known for these models; tokens per sample are shown instead." in html

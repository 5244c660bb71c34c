"""The benchmark runner end to end through the CLI: run folders, manifest, per-sample result files,
resume without new work, failures counted/excluded/listed, the common subset, budget and error
stops, --retry-errors, and per-sample isolation (a planted marker reaches no other sample).

Offline-judge runs use the bundled real PanelBench matches; LLM runs go over real HTTP to the
loopback OpenAI-compatible server (tests/fake_openai.py) with the real litellm client.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from bench_helpers import answer, bench, isolate_env, online, run_dir_of, tokens_in, write_dataset
from fake_openai import fake_openai  # noqa: F401 (fixture)

from adjudicator.bench.dataset import load_folder
from adjudicator.cli import main


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    """No user config file, ADJUDICATOR_* variable, key or proxy may change the tests' configuration."""
    isolate_env(monkeypatch, tmp_path)


def llm_args(server, tmp_path, model="openai/test-model"):
    return ["--model", model, "--api-base", server.base_url, "--json-mode", "object", "--cache-dir", str(tmp_path / "cache"), "--timeout-s", "20"]


def result_files(run: Path, arm="agentic"):
    return sorted((run / "results" / arm).glob("*.json"))


# ---------------------------------------------------------------------------------------------
# offline judge


def test_offline_run_writes_manifest_results_reports_and_resume_does_nothing(tmp_path, capsys, bundled_matches_dir):
    data = bundled_matches_dir / "panelbench"
    runs = tmp_path / "runs"
    code, out, err = bench([str(data), "--name", "pb5", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "20"], capsys)
    assert code == 0, err
    run = run_dir_of(runs)
    assert out.strip() == str(run)
    assert run.name.endswith("_pb5") and run.name[:8].isdigit()
    for name in ("manifest.json", "status.json", "sessions.jsonl", "report.json", "report.md", "report.html"):
        assert (run / name).is_file(), name

    manifest = json.loads((run / "manifest.json").read_text())
    ds = load_folder(data)
    assert manifest["dataset"]["sha256"] == ds.sha256 and manifest["dataset"]["n_matches"] == 5
    assert manifest["arms"] == ["agentic"] and manifest["is_llm"] == {"agentic": False}
    assert manifest["models"]["agentic"]["judge-1"] == "offline"
    assert manifest["seeds"] == {"baselines": 0, "bootstrap": 0}
    assert manifest["packages"]["adjudicator"] and manifest["python"]
    assert "judge.en.j2" in manifest["prompt_files"]
    assert not any("key" in k.lower() for k in manifest["config"])

    files = result_files(run)
    assert [f.stem for f in files] == sorted(s.sample_id for s in ds.samples)
    one = json.loads(files[0].read_text())
    assert one["status"] == "ok" and one["verdict"]["p"] is not None and one["calls"]  # every call record kept

    report = json.loads((run / "report.json").read_text())
    assert report["tasks"]["task1"]["applicable"] is True
    t1 = report["tasks"]["task1"]
    arm_row = next(r for r in t1["rows"] if r["kind"] == "arm")
    assert arm_row["metrics"]["winner_accuracy"]["n"] == sum(1 for s in ds.samples if s.match.labels.outcome in ("affirmative", "negative"))
    for task in ("task2", "task3"):  # PanelBench has no stage scores or votes: not applicable, never 0
        assert report["tasks"][task]["applicable"] is False and report["tasks"][task]["reason"]
    md = (run / "report.md").read_text()
    assert "Not applicable to this dataset" in md and "always affirmative" in md and "the offline judge: a deterministic baseline, not a judge" in md
    # real PanelBench data: no synthetic banner; the dataset line names the label convention of labels.note
    assert report["warnings"] == [] and "WARNING" not in md and "human judge" not in md  # (no judge panels: no reference rows)
    (ds_line,) = [line for line in md.splitlines() if line.startswith("- **Dataset:**")]
    assert "formats online-1v1 x5" in ds_line and "'content' convention (upstream 1.0 = negative win, 0.5 = tie, 0.0 = affirmative win)" in ds_line
    assert "- **Arm** agentic: models tracker offline; judges offline x3 — the offline judge: a deterministic baseline" in md
    # research-validity caveats: the offline judge was designed on these texts; the label convention decides Task 1
    assert len(report["caveats"]) == 2 and all(f"- **Caveat:** {c}." in md for c in report["caveats"])
    assert "features were designed while reading these PanelBench debates' texts (not their labels)" in md
    assert "every winner accuracy becomes 1 − accuracy on the decisive matches" in md
    # the Task 1 table: the arm and always affirmative/negative ranked and in rank order, then the seeded
    # random draw unranked (one draw), the majority class unranked last
    t1_rows = report["tasks"]["task1"]["rows"]
    assert {r["predictor"] for r in t1_rows if r["comparable"]} == {"agentic · offline", "always affirmative", "always negative", "random"}
    ranks = [r["rank"] for r in t1_rows]
    assert ranks[:3] == sorted(ranks[:3]) and ranks[3:] == [None, None] and t1_rows[3]["predictor"] == "random"
    # gold: 3 negative and 2 affirmative winners -> majority class "always negative", 3/5, non-comparable
    assert t1_rows[-1]["predictor"] == "majority class (always negative)" and t1_rows[-1]["metrics"]["winner_accuracy"]["value"] == 0.6
    html = (run / "report.html").read_text()
    # self-contained: plots inline, and the one script (the sample viewer's) inline too, with its data island
    assert "data:image/png;base64," in html and html.count("<script") == 2 and "<script>" in html and '<script type="application/json" id="sample-data">' in html
    assert 'src="http' not in html and "<script src" not in html
    for text in (md, html):
        assert "{'" not in text and "{&#39;" not in text  # no raw Python dicts
    assert "&#39;content&#39; convention" in html and "models tracker offline; judges offline x3" in html
    assert html.count("<b>Caveat:</b>") == 2 and "not a held-out estimate" in html

    before = {f.name: (f.read_bytes(), f.stat().st_mtime_ns) for f in files}
    code, out, err = bench([str(data), "--name", "pb5", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "20", "--resume"], capsys)
    assert code == 0, err
    assert out.strip() == str(run)
    assert "0 to run, 5 already finished" in err
    assert {f.name: (f.read_bytes(), f.stat().st_mtime_ns) for f in result_files(run)} == before
    sessions = [json.loads(line) for line in (run / "sessions.jsonl").read_text().splitlines()]
    assert [(s["event"], s["session"]) for s in sessions] == [("start", 1), ("end", 1), ("start", 2), ("end", 2)]
    assert sessions[2]["to_run"] == 0 and sessions[3]["ran"] == 0


def test_upstream_panelbench_is_converted_into_the_run_folder(tmp_path, capsys, panelbench_dir):
    runs = tmp_path / "runs"
    code, _, err = bench([str(panelbench_dir), "--name", "up", "--runs-dir", str(runs), "--limit", "3", "--no-progress", "--bootstrap", "0"], capsys)
    assert code == 0, err
    run = run_dir_of(runs)
    assert len(list((run / "dataset").glob("debateart_*.json"))) == 61
    assert len(result_files(run)) == 3
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["dataset"]["kind"] == "panelbench" and manifest["limit"] == 3


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--arm", "single-call"], "--arm single-call"),
        (["--resume"], "no run named"),
        (["--limit", "0"], "--limit"),
        (["--name", "bad name!"], "--name"),
        (["--label-convention", "documented"], "--label-convention"),
    ],
)
def test_bad_usage_is_one_line_exit_2_and_creates_no_run(tmp_path, capsys, bundled_matches_dir, args, needle):
    runs = tmp_path / "runs"
    argv = [str(bundled_matches_dir / "panelbench"), "--runs-dir", str(runs), "--no-progress"]
    if "--name" not in args:
        argv += ["--name", "x"]
    code, out, err = bench(argv + args, capsys)
    assert code == 2 and out == ""
    assert needle in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not runs.exists() or not any(runs.iterdir())


def test_missing_dataset_is_exit_2(tmp_path, capsys):
    code, _, err = bench([str(tmp_path / "nope"), "--name", "x", "--runs-dir", str(tmp_path / "runs")], capsys)
    assert code == 2 and "no such folder" in err


# ---------------------------------------------------------------------------------------------
# loopback LLM


def test_failing_samples_are_counted_excluded_listed_and_the_common_subset_reported(tmp_path, capsys, fake_openai):
    data = write_dataset(tmp_path / "data", [online(1), online(2, "negative"), online(3), online(4, "negative")])
    runs = tmp_path / "runs"

    def responder(body):
        return "this is not json at all" if "SAMPLETOKEN-3" in tokens_in(body) else answer(body)

    fake_openai.respond_with(responder)
    args = [str(data), "--name", "lb", "--runs-dir", str(runs), "--arm", "agentic", "--arm", "single-call", "--no-progress", "--bootstrap", "20", "--concurrency", "2"]
    code, _, err = bench(args + llm_args(fake_openai, tmp_path), capsys)
    assert code == 0, err
    run = run_dir_of(runs)
    report = json.loads((run / "report.json").read_text())
    assert report["samples"]["per_arm"]["agentic"] == {"ok": 3, "partial": 0, "failed": 1, "not_run": 0}
    assert report["samples"]["per_arm"]["single-call"]["failed"] == 1
    assert sorted((f["arm"], f["sample_id"]) for f in report["failures"]) == [("agentic", "m03"), ("single-call", "m03")]
    failed = json.loads((run / "results" / "agentic" / "m03.json").read_text())
    assert failed["status"] == "failed" and failed["verdict"] is None
    raws = [c["raw_output"] for c in failed["calls"]]
    assert raws and all(r == "this is not json at all" for r in raws)
    assert max(c["attempt"] for c in failed["calls"]) == 3  # three attempts, each raw output kept

    t1 = report["tasks"]["task1"]
    for r in t1["rows"]:
        if r["kind"] == "arm":
            leaf = r["metrics"]["winner_accuracy"]
            assert (leaf["n"], leaf["n_excluded"]) == (3, 1)  # the failed sample is excluded, not wrong
    assert t1["common_subset"]["n"] == 3 and t1["common_subset"]["arms"] == ["agentic", "single-call"]
    assert report["parsing"]["single-call"]["task1"]["failed"] == 1
    assert report["parsing"]["agentic"]["task1"]["strict"] == 3
    (pc,) = report["paired"]
    assert pc["tests"]["winner_accuracy"]["n"] == 3
    md = (run / "report.md").read_text()
    assert "## Failures (2)" in md and "| agentic | m03 | failed |" in md and "**Common subset**" in md
    ledger = report["ledger"]["arms"]
    # agentic: 3 ok samples x (4 trackers + 3 judges) + the failed one's first tracker 3 attempts ...
    assert ledger["agentic"]["requests"] >= 21 and ledger["single-call"]["requests"] >= 18

    # --retry-errors reruns only the failed samples, now answered properly
    fake_openai.respond_with(answer)
    fake_openai.reset()
    code, _, err = bench([str(data), "--name", "lb", "--runs-dir", str(runs), "--retry-errors", "--no-progress", "--bootstrap", "0"] + llm_args(fake_openai, tmp_path), capsys)
    assert code == 0, err
    assert fake_openai.count > 0
    assert all(tokens_in(b) <= {"SAMPLETOKEN-3"} for b in fake_openai.requests)
    assert "2 to run, 6 already finished" in err
    report = json.loads((run / "report.json").read_text())
    assert report["failures"] == []
    redone = json.loads((run / "results" / "agentic" / "m03.json").read_text())
    assert redone["status"] == "ok" and redone["session"] == 2 and redone["superseded"] == ["results/agentic/superseded/m03.1.json"]
    assert (run / "results" / "agentic" / "superseded" / "m03.1.json").is_file()
    # the failed attempts' spend stays in the ledger; the sample itself is counted once
    led = report["ledger"]["arms"]["agentic"]
    assert (led["samples"], led["superseded_samples"]) == (4, 1)


def test_each_sample_is_isolated_a_marker_reaches_no_other_sample(tmp_path, capsys, fake_openai):
    marker = "ISOLATIONMARKER-5b1e9c"
    data = write_dataset(tmp_path / "data", [online(1), online(2, extra=marker), online(3), online(4)])
    runs = tmp_path / "runs"
    manifest_seen = []
    first_request = threading.Lock()  # the server answers on several threads: check-then-append must be atomic

    def responder(body):
        with first_request:
            if not manifest_seen:
                manifest_seen.append(any(runs.glob("*/manifest.json")))
        return answer(body)

    fake_openai.respond_with(responder)
    args = [str(data), "--name", "iso", "--runs-dir", str(runs), "--arm", "agentic", "--arm", "single-call", "--concurrency", "4", "--no-progress", "--bootstrap", "0"]
    code, _, err = bench(args + llm_args(fake_openai, tmp_path), capsys)
    assert code == 0, err
    assert manifest_seen == [True]  # the manifest was on disk before the first model request
    with_marker = [b for b in fake_openai.requests if marker in json.dumps(b)]
    assert with_marker  # positive control: sample 2's own requests carry it
    for body in fake_openai.requests:
        toks = tokens_in(body)
        assert len(toks) == 1, toks  # every request is about exactly one sample
        if toks != {"SAMPLETOKEN-2"}:
            assert marker not in json.dumps(body)  # no other sample's request carries the marker
    run = run_dir_of(runs)
    for arm in ("agentic", "single-call"):
        for f in result_files(run, arm):
            text = f.read_text()
            assert (marker in text) == (f.stem == "m02"), (arm, f.stem)
            others = {t for t in ("SAMPLETOKEN-1", "SAMPLETOKEN-2", "SAMPLETOKEN-3", "SAMPLETOKEN-4") if t in text}
            assert others == {f"SAMPLETOKEN-{int(f.stem[1:])}"}, (arm, f.stem, others)


def test_budget_stops_cleanly_and_resume_finishes_without_rebilling(tmp_path, capsys, fake_openai):
    data = write_dataset(tmp_path / "data", [online(i) for i in range(1, 5)])
    runs = tmp_path / "runs"
    fake_openai.respond_with(answer)
    # gpt-4o-mini is in litellm's price map, so every request has a known (tiny) cost
    base = [str(data), "--name", "budget", "--runs-dir", str(runs), "--concurrency", "1", "--no-progress", "--bootstrap", "0"] + llm_args(fake_openai, tmp_path, "openai/gpt-4o-mini")
    code, out, err = bench(base + ["--budget-usd", "0.000000001"], capsys)
    assert code == 1 and out == ""
    last = err.strip().splitlines()[-1]
    assert last.startswith("adjudicate: error: stopped: budget of $0.0000 reached") and "3 sample(s) not run" in last
    run = run_dir_of(runs)
    status = json.loads((run / "status.json").read_text())
    assert (status["state"], status["reason"], status["pending"]) == ("stopped", "budget", 3)
    assert status["ledger"]["total"]["cost_usd"] > 0 and status["ledger"]["total"]["cost_known"] is True
    (done,) = result_files(run)
    first = done.read_bytes()
    assert json.loads((run / "report.json").read_text())["run"]["reason"] == "budget"  # reports of what finished

    fake_openai.reset()
    code, _, err = bench(base + ["--resume", "--budget-usd", "1"], capsys)
    assert code == 0, err
    assert len(result_files(run)) == 4 and done.read_bytes() == first
    finished_token = {f"SAMPLETOKEN-{int(done.stem[1:])}"}
    assert not any(tokens_in(b) == finished_token for b in fake_openai.requests)  # never re-billed


def test_max_errors_stops_after_that_many_failures(tmp_path, capsys, fake_openai):
    data = write_dataset(tmp_path / "data", [online(i) for i in range(1, 5)])
    runs = tmp_path / "runs"
    fake_openai.respond_with(lambda body: "nope")
    args = [str(data), "--name", "errs", "--runs-dir", str(runs), "--concurrency", "1", "--max-errors", "1", "--no-progress", "--bootstrap", "0"]
    code, _, err = bench(args + llm_args(fake_openai, tmp_path), capsys)
    assert code == 1
    assert "reached --max-errors 1" in err.strip().splitlines()[-1]
    run = run_dir_of(runs)
    assert len(result_files(run)) == 1
    assert json.loads((run / "status.json").read_text())["reason"] == "max-errors"


def test_resume_refuses_a_different_model(tmp_path, capsys, fake_openai, bundled_matches_dir):
    runs = tmp_path / "runs"
    data = bundled_matches_dir / "panelbench"
    code, _, err = bench([str(data), "--name", "m", "--runs-dir", str(runs), "--limit", "1", "--no-progress", "--bootstrap", "0"], capsys)
    assert code == 0, err
    code, _, err = bench([str(data), "--name", "m", "--runs-dir", str(runs), "--resume", "--no-progress"] + llm_args(fake_openai, tmp_path), capsys)
    assert code == 2 and "model configuration differs" in err and fake_openai.count == 0


def test_ccdb_dataset_reports_every_task_with_plots(tmp_path, capsys, bundled_matches_dir):
    runs = tmp_path / "runs"
    code, _, err = bench([str(bundled_matches_dir / "synthetic"), "--name", "syn", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "20"], capsys)
    assert code == 0, err
    run = run_dir_of(runs)
    report = json.loads((run / "report.json").read_text())
    assert all(report["tasks"][t]["applicable"] for t in ("task1", "task2", "task3"))
    names = [r["predictor"] for r in report["tasks"]["task2"]["rows"]]
    # synthetic labels: the individual-judge references are relabelled, listed after every ranked row
    assert sorted(names[:3]) == ["agentic · offline", "random", "structure-aware random"]
    assert names[3:] == ["synthetic judge (self-included)", "synthetic judge (leave-one-out)"]
    for task in ("task1", "task2", "task3"):
        ranks = [r["rank"] for r in report["tasks"][task]["rows"] if r["rank"] is not None]
        assert ranks == sorted(ranks), task
    t3 = [r["predictor"] for r in report["tasks"]["task3"]["rows"]]
    assert "winning-side third speaker (oracle)" in t3 and "uniform votes" in t3
    # the banner heads every report file
    banner = "SYNTHETIC labels written by developers -- not real judges; human-reference rows are not human"
    assert report["warnings"] == [banner] and list(report)[:2] == ["schema_version", "warnings"]
    assert report["caveats"] == [] and "Caveat" not in (run / "report.md").read_text()  # not PanelBench
    assert report["run"]["dataset"]["provenance"]["synthetic"] is True
    assert report["reliability"]["stage_scores"]["icc_1_3"]["value"] is not None
    html = (run / "report.html").read_text()
    # reliability curve and predicted vs human scores; the offline judge sent no request, so no cost chart but a sentence
    assert html.count("data:image/png;base64,") == 2
    assert "No cost or token chart: no model request was sent" in html
    md = (run / "report.md").read_text()
    for heading in ("## Task 1", "## Task 2", "## Task 3", "## Label reliability", "Spearman ρ", "Pred.-winner 3rd speaker"):
        assert heading in md
    assert md.splitlines()[2] == f"> **WARNING: {banner}.**"
    assert "human judge (" not in md and "Human references" not in md and "synthetic judge (self-included)*" in md
    assert "formats ccdb-2v2 x2, ccdb-4v4 x2" in md and "convention" not in md.split("## Samples")[0]  # not PanelBench
    assert html.index(f"WARNING: {banner}") < html.index("<ul>") and "human judge (" not in html
    for text in (md, html):
        assert "{'" not in text and "{&#39;" not in text
    assert main(["bench", str(bundled_matches_dir / "synthetic"), "--name", "syn", "--runs-dir", str(runs), "--report-only", "--bootstrap", "0"]) == 0
    assert capsys.readouterr().out.strip() == str(run)


def test_resume_keeps_limit_and_seed_refuses_another_seed_or_a_smaller_limit_and_records_a_larger_one(tmp_path, capsys, bundled_matches_dir):
    data = str(bundled_matches_dir / "panelbench")  # 5 matches
    runs = tmp_path / "runs"
    base = [data, "--name", "r", "--runs-dir", str(runs), "--no-progress"]

    def sessions(run):
        return [json.loads(line) for line in (run / "sessions.jsonl").read_text().splitlines()]

    code, _, err = bench(base + ["--limit", "2", "--seed", "3", "--bootstrap", "10"], capsys)
    assert code == 0, err
    run = run_dir_of(runs)
    manifest = json.loads((run / "manifest.json").read_text())
    assert (manifest["limit"], manifest["seeds"], manifest["options"]["n_bootstrap"], manifest["amendments"]) == (2, {"baselines": 3, "bootstrap": 3}, 10, [])

    # no --limit / --seed / --bootstrap: the run keeps 2 samples, seed 3 and 10 resamples
    code, _, err = bench(base + ["--resume"], capsys)
    assert code == 0, err
    assert "2 samples x 1 arm(s); 0 to run, 2 already finished" in err
    assert len(result_files(run)) == 2
    report = json.loads((run / "report.json").read_text())
    assert (report["run"]["seeds"], report["run"]["n_bootstrap"], report["samples"]["selected"]) == ({"baselines": 3, "bootstrap": 3}, 10, 2)
    assert sessions(run)[2]["limit"] == 2 and sessions(run)[2]["seed"] == 3 and "changed" not in sessions(run)[2]

    # refused, one line, exit 2, nothing run or logged: another seed (resume and --report-only), a smaller limit
    before = (run / "sessions.jsonl").read_text()
    for extra, needle in ((["--resume", "--seed", "5"], "--seed: run"), (["--report-only", "--seed", "5"], "--seed: run"), (["--resume", "--limit", "1"], "--limit: run")):
        code, out, err = bench(base + extra, capsys)
        assert code == 2 and out == "" and needle in err and len(err.strip().splitlines()) == 1, (extra, err)
    assert (run / "sessions.jsonl").read_text() == before and json.loads((run / "manifest.json").read_text()) == manifest
    # the same seed, given explicitly, is fine
    code, _, err = bench(base + ["--resume", "--seed", "3"], capsys)
    assert code == 0, err

    # a larger limit grows the run and is recorded in the manifest and the sessions log
    code, _, err = bench(base + ["--resume", "--limit", "4", "--bootstrap", "0"], capsys)
    assert code == 0, err
    assert "2 to run, 2 already finished" in err and "limit changed from 2 to 4" in err
    assert len(result_files(run)) == 4
    m2 = json.loads((run / "manifest.json").read_text())
    (amend,) = m2["amendments"]
    assert (m2["limit"], amend["field"], amend["from"], amend["to"], amend["session"]) == (4, "limit", 2, 4, 4)
    assert {k: v for k, v in m2.items() if k not in ("limit", "amendments")} == {k: v for k, v in manifest.items() if k not in ("limit", "amendments")}
    start = sessions(run)[-2]
    assert start["event"] == "start" and start["changed"] == {"limit": {"from": 2, "to": 4}, "n_bootstrap": {"from": 10, "to": 0}}
    report = json.loads((run / "report.json").read_text())
    assert (report["samples"]["selected"], report["run"]["n_bootstrap"], report["run"]["seeds"]["baselines"]) == (4, 0, 3)

    # and from then on a plain resume keeps 4; --report-only rebuilds with the run's seed
    code, _, err = bench(base + ["--resume"], capsys)
    assert code == 0 and "4 samples x 1 arm(s); 0 to run, 4 already finished" in err
    code, _, err = bench(base + ["--report-only"], capsys)
    assert code == 0, err
    report = json.loads((run / "report.json").read_text())
    assert (report["samples"]["selected"], report["run"]["seeds"]["baselines"], report["run"]["n_bootstrap"]) == (4, 3, 10)

"""A real ``adjudicate bench`` process killed with SIGKILL mid-run resumes without redoing or
re-billing finished samples and ends with a complete result.

The run talks to the loopback OpenAI-compatible server over HTTP with a delay on every reply, so the
kill lands while samples are in flight; the resumed run is watched request by request.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from bench_helpers import answer, isolate_env, online, subprocess_env, tokens_in, write_dataset
from fake_openai import Reply, fake_openai  # noqa: F401 (fixture)
from processes import stop

from adjudicator.cli import main

ADJUDICATE = Path(sys.executable).parent / "adjudicate"
N = 8


def test_kill_minus_nine_then_resume(tmp_path, fake_openai, monkeypatch, capsys):
    data = write_dataset(tmp_path / "data", [online(i) for i in range(1, N + 1)])
    runs = tmp_path / "runs"
    isolate_env(monkeypatch, tmp_path)  # this process (the resume below) ...
    env = subprocess_env(tmp_path)  # ... and the killed child, given its environment explicitly
    args = [
        str(ADJUDICATE), "bench", str(data), "--name", "killed", "--runs-dir", str(runs), "--concurrency", "2", "--no-progress", "--bootstrap", "0",
        "--model", "openai/test-model", "--api-base", fake_openai.base_url, "--json-mode", "object", "--cache-dir", str(tmp_path / "cache"),
    ]
    fake_openai.respond_with(lambda body: Reply(content=answer(body), delay_s=0.15))
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    results = None
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            found = list(runs.glob("*/results/agentic/*.json"))
            if len(found) >= 2:
                break
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        stop(proc, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    (run,) = runs.iterdir()
    results = run / "results" / "agentic"
    finished = {f.stem: f.read_bytes() for f in results.glob("*.json")}
    assert 2 <= len(finished) < N  # killed mid-run
    status = json.loads((run / "status.json").read_text())
    assert status["state"] == "running"  # the killed process never got to say otherwise

    # resume in this process (same console entry point, main()), watching every request it makes
    fake_openai.respond_with(answer)
    fake_openai.reset()
    code = main(args[1:] + ["--resume"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert f"{N - len(finished)} to run, {len(finished)} already finished" in err

    # nothing finished before the kill was asked again, and its file is untouched
    finished_tokens = {f"SAMPLETOKEN-{int(stem[1:])}" for stem in finished}
    assert fake_openai.count > 0
    assert not any(tokens_in(b) & finished_tokens for b in fake_openai.requests)
    for stem, raw in finished.items():
        assert (results / f"{stem}.json").read_bytes() == raw
    # a complete result: one ok file per sample, each written once, by the session that ran it
    files = sorted(results.glob("*.json"))
    assert [f.stem for f in files] == [f"m{i:02d}" for i in range(1, N + 1)]
    for f in files:
        r = json.loads(f.read_text())
        assert r["status"] == "ok"
        assert r["session"] == (1 if f.stem in finished else 2)
    assert not list(run.rglob("*.tmp"))
    assert json.loads((run / "status.json").read_text())["state"] == "complete"
    report = json.loads((run / "report.json").read_text())
    assert report["samples"]["per_arm"]["agentic"] == {"ok": N, "partial": 0, "failed": 0, "not_run": 0}
    events = [(e["event"], e["session"]) for e in map(json.loads, (run / "sessions.jsonl").read_text().splitlines())]
    assert events == [("start", 1), ("end", 1), ("start", 2), ("end", 2)]  # session 2 recorded the death of session 1
    first_end = json.loads((run / "sessions.jsonl").read_text().splitlines()[1])
    assert (first_end["state"], first_end["reason"], first_end["was"]) == ("interrupted", "killed", "running")


def test_requests_of_a_sample_killed_in_flight_stay_in_the_ledger(tmp_path, fake_openai, monkeypatch, capsys):
    # m03's judges never answer before the kill: its four tracker requests were answered (and priced),
    # its judge requests were sent, and no result file is ever written for it by session 1.
    data = write_dataset(tmp_path / "data", [online(i) for i in range(1, 6)])
    runs = tmp_path / "runs"
    isolate_env(monkeypatch, tmp_path)
    env = subprocess_env(tmp_path)
    args = [
        str(ADJUDICATE), "bench", str(data), "--name", "inflight", "--runs-dir", str(runs), "--concurrency", "2", "--no-progress", "--bootstrap", "0",
        "--model", "openai/gpt-4o-mini", "--api-base", fake_openai.base_url, "--json-mode", "object", "--cache-dir", str(tmp_path / "cache"),
    ]

    def is_m03_judge(body) -> bool:
        return "SAMPLETOKEN-3" in json.dumps(body) and "stage_scores" in json.dumps(body.get("response_format"))

    # From m03's first judge request on, every reply is held, so the workers end up blocked on requests
    # the server has seen; the kill waits for that (no new request for 0.5 s). A request logged but
    # killed before it reached the socket would be counted by the ledger and not by the server (an
    # over-count, never an under-count); holding the replies keeps that window closed here.
    held = threading.Event()

    def reply(body):
        if is_m03_judge(body):
            held.set()
        return Reply(content=answer(body), delay_s=60 if held.is_set() else 0.05, usage=(100, 20))

    fake_openai.respond_with(reply)
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 60
        while not held.is_set():
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.02)
        seen, quiet_since = fake_openai.count, time.monotonic()
        while time.monotonic() - quiet_since < 0.5:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.02)
            if fake_openai.count != seen:
                seen, quiet_since = fake_openai.count, time.monotonic()
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        stop(proc, signal.SIGKILL)
    (run,) = runs.iterdir()
    assert not (run / "results" / "agentic" / "m03.json").exists()
    sent_before = fake_openai.count

    fake_openai.respond_with(lambda body: Reply(content=answer(body), usage=(100, 20)))
    assert main(args[1:] + ["--resume"]) == 0, capsys.readouterr().err
    capsys.readouterr()
    ledger = json.loads((run / "report.json").read_text())["ledger"]
    # every request the server saw is in the ledger, the killed sample's included, each once
    assert ledger["total"]["requests"] == fake_openai.count > sent_before
    assert ledger["total"]["unfinished_requests"] >= 5  # m03's 4 trackers + at least one judge, never in a result file
    assert json.loads((run / "status.json").read_text())["ledger"]["total"]["requests"] == fake_openai.count
    # the answered ones among them are priced: gpt-4o-mini at 100 prompt + 20 completion tokens each
    from adjudicator.bench.requests import logged_spend

    m03 = logged_spend(run)[("agentic", "m03", 1)]
    assert m03.requests >= 5 and m03.priced_requests == 4 and m03.prompt_tokens == 400 and m03.cost_usd > 0

"""One process per run folder, and a status.json that says what is true after any exit (issue 10,
items 3 and 4). Real ``adjudicate bench`` processes against the loopback model server.

- Two ``--resume`` started together on one run: before the lock both ran every pending sample (each
  request twice) and both exited 0; now one runs them and the other is refused with one line, exit 2.
- SIGTERM while samples run: the status said ``running`` forever; now ``interrupted`` / ``terminated``.
- kill -9 while the reports are being written: the status said ``complete`` with no report present;
  now it says ``reporting`` with the reports ``missing``, and the next command on the run records the
  death (``interrupted`` / ``killed``) before it does anything else.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

from bench_helpers import answer, isolate_env, online, run_dir_of, subprocess_env, write_dataset
from fake_openai import Reply, fake_openai  # noqa: F401 (fixture)
from processes import started

from adjudicator.cli import main

ADJUDICATE = Path(sys.executable).parent / "adjudicate"
REQUESTS_PER_SAMPLE = 7  # online-1v1 with four speeches: 4 tracker calls + 3 judges


def base_args(data: Path, runs: Path, name: str, server, tmp_path: Path) -> list[str]:
    return [
        str(ADJUDICATE), "bench", str(data), "--name", name, "--runs-dir", str(runs), "--concurrency", "2", "--no-progress", "--bootstrap", "0",
        "--model", "openai/test-model", "--api-base", server.base_url, "--json-mode", "object", "--cache-dir", str(tmp_path / "cache"),
    ]


def wait_for(predicate, proc, timeout_s: float = 180.0) -> None:
    """Poll ``predicate`` until it holds, failing if ``proc`` exits first or ``timeout_s`` passes (a
    bound, not a target: three samples of seven requests took over 60 s on the shared 2-core machine
    under a load of 10-14 in the newest-versions run, and passed alone)."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def status(run: Path) -> dict:
    return json.loads((run / "status.json").read_text())


def test_two_resumes_on_one_run_one_runs_the_other_is_refused(tmp_path, fake_openai, monkeypatch, capsys):
    data = write_dataset(tmp_path / "data", [online(i) for i in range(1, 5)])
    runs = tmp_path / "runs"
    isolate_env(monkeypatch, tmp_path)
    env = subprocess_env(tmp_path)
    args = base_args(data, runs, "twice", fake_openai, tmp_path)
    fake_openai.respond_with(answer)
    assert main(args[1:] + ["--limit", "1"]) == 0  # a run with one sample done, three to go
    capsys.readouterr()
    fake_openai.reset()
    fake_openai.respond_with(lambda body: Reply(content=answer(body), delay_s=0.05))

    with ExitStack() as running:
        procs = [running.enter_context(started(args + ["--resume", "--limit", "4"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)) for _ in range(2)]
        outs = [p.communicate(timeout=120) for p in procs]
    codes = sorted(p.returncode for p in procs)
    assert codes == [0, 2], [o[1].decode() for o in outs]
    refused = next(o for p, o in zip(procs, outs, strict=True) if p.returncode == 2)
    winner = next(p for p in procs if p.returncode == 0)
    lines = refused[1].decode().strip().splitlines()
    assert len(lines) == 1 and "is in use by another adjudicate process" in lines[0] and "Traceback" not in lines[0]
    assert refused[0] == b""
    run = run_dir_of(runs)
    assert f"(pid {winner.pid})" in lines[0]
    # the three pending samples ran once: each request once, not twice
    assert fake_openai.count == 3 * REQUESTS_PER_SAMPLE
    assert status(run)["state"] == "complete"
    events = [json.loads(x) for x in (run / "sessions.jsonl").read_text().splitlines()]
    assert [(e["event"], e["session"]) for e in events] == [("start", 1), ("end", 1), ("start", 2), ("end", 2)]


def test_sigterm_while_samples_run_records_interrupted(tmp_path, fake_openai, monkeypatch, capsys):
    data = write_dataset(tmp_path / "data", [online(i) for i in range(1, 5)])
    runs = tmp_path / "runs"
    isolate_env(monkeypatch, tmp_path)
    args = base_args(data, runs, "term", fake_openai, tmp_path)
    fake_openai.respond_with(lambda body: Reply(content=answer(body), delay_s=0.1))
    with started(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=subprocess_env(tmp_path)) as proc:
        wait_for(lambda: len(list(runs.glob("*/results/agentic/*.json"))) >= 1, proc)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err.decode()
    assert err.decode().strip().splitlines()[-1] == "adjudicate: stopped by SIGTERM"
    run = run_dir_of(runs)
    st = status(run)
    assert (st["state"], st["reason"], st["reports"], st["message"]) == ("interrupted", "terminated", "missing", "stopped by SIGTERM")
    done = len(list((run / "results" / "agentic").glob("*.json")))
    assert st["pending"] == 4 - done > 0
    last = json.loads((run / "sessions.jsonl").read_text().splitlines()[-1])
    assert (last["event"], last["state"], last["reason"]) == ("end", "interrupted", "terminated")
    # the lock went with the process: the run resumes and completes
    fake_openai.respond_with(answer)
    assert main(args[1:] + ["--resume"]) == 0
    capsys.readouterr()
    assert (status(run)["state"], status(run)["reports"]) == ("complete", "written")


def test_kill_minus_nine_while_reporting_is_never_complete(tmp_path, fake_openai, monkeypatch, capsys):
    data = write_dataset(tmp_path / "data", [online(i) for i in range(1, 4)])
    runs = tmp_path / "runs"
    isolate_env(monkeypatch, tmp_path)
    args = base_args(data, runs, "reporting", fake_openai, tmp_path)
    args[args.index("--bootstrap") + 1] = "2000"  # a report that takes a moment to write
    fake_openai.respond_with(answer)
    seen: dict = {}

    def reporting() -> bool:
        files = list(runs.glob("*/status.json"))
        if files:
            try:
                seen.update(json.loads(files[0].read_text()))
            except (OSError, ValueError):
                return False
        return seen.get("state") == "reporting"

    with started(args, stop_signal=signal.SIGKILL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=subprocess_env(tmp_path)) as proc:
        wait_for(reporting, proc)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    run = run_dir_of(runs)
    st = status(run)
    if not (run / "report.html").exists():  # killed before the last report file was written
        assert (st["state"], st["outcome"], st["reports"]) == ("reporting", "complete", "missing")
    assert st["state"] != "complete"
    # the next command on the run records the death first, then rebuilds the reports
    assert main(["bench", str(data), "--name", "reporting", "--runs-dir", str(runs), "--report-only", "--bootstrap", "0"]) == 0
    capsys.readouterr()
    st = status(run)
    assert (st["state"], st["reason"], st["was"], st["reports"]) == ("interrupted", "killed", "reporting", "written")
    assert all((run / n).exists() for n in ("report.json", "report.md", "report.html"))
    last = json.loads((run / "sessions.jsonl").read_text().splitlines()[-1])
    assert (last["event"], last["session"], last["reason"]) == ("end", 1, "killed")

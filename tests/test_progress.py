"""Progress of one match on stderr: a line per stage and per judge while it runs (a live bar on a
terminal), ``--quiet`` to silence it, stdout the verdict only, and the same verdict either way."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from env_isolation import isolate_env
from fake_openai import FakeOpenAI
from llm_helpers import schema_responder

from adjudicator.cli import main
from adjudicator.cli.progress import StderrProgress, event_line
from adjudicator.input.match_file import load_match
from adjudicator.workflow.progress import ProgressEvent

MATCHES = Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches"
ONLINE = MATCHES / "panelbench" / "debateart_4389.json"


def _run(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_line_per_stage_and_per_judge_through_a_model_server(tmp_path, capsys, monkeypatch):
    isolate_env(monkeypatch, tmp_path)
    match = load_match(ONLINE)
    server = FakeOpenAI()
    try:
        server.respond_with(schema_responder)
        args = [ONLINE, "--model", "openai/test-model", "--api-base", server.base_url, "--json-mode", "object", "--no-cache"]
        code, out, err = _run(args, capsys)
        code_q, out_q, err_q = _run([*args, "--quiet"], capsys)
    finally:
        server.close()
    assert code == code_q == 0
    assert out == out_q and json.loads(out)["match_id"] == match.match_id  # stdout: the verdict only, progress or not
    assert err_q == ""  # --quiet: nothing on stderr
    lines = err.splitlines()
    n, total = len(match.stages), len(match.stages) + 3
    stage_lines = [line for line in lines if line.startswith("stage ")]
    judge_lines = [line for line in lines if line.startswith("judge ")]
    # stages in order, each analysed with one request; then the three judges in any order
    for i, (line, stage) in enumerate(zip(stage_lines, match.stages, strict=True)):
        assert line.startswith(f"stage {i + 1}/{total} {stage.stage_id} {stage.name}: ")
        # the number says what it is: the tracker's suggestion, not the verdict's score (issue 25, item 5)
        assert re.search(r": tracker's suggested score (affirmative|negative) \d+(, negative \d+)? \(1-10, advice to the judges\); \d+ clash moves? \(1 request(, [\d.]+ s)?\)$", line), line
    assert len(judge_lines) == 3
    assert sorted(re.match(r"judge (\d+)/(\d+) (judge-\d) \((\w+)\): votes (affirmative|negative), winner tendency p = 0\.\d\d", line).group(3) for line in judge_lines) == ["judge-1", "judge-2", "judge-3"]
    assert [int(line.split()[1].split("/")[0]) for line in judge_lines] == [n + 1, n + 2, n + 3]
    assert lines.index(stage_lines[-1]) < lines.index(judge_lines[0])
    assert lines[-2].startswith("openai/test-model: winner")  # the summary comes last, then the review
    assert lines[-1].startswith("review: escalate (")


def test_single_call_reports_every_instance(tmp_path, capsys, monkeypatch):
    isolate_env(monkeypatch, tmp_path)
    match = load_match(ONLINE)
    server = FakeOpenAI()
    try:
        server.respond_with(schema_responder)
        code, _, err = _run([ONLINE, "--arm", "single-call", "--model", "openai/test-model", "--api-base", server.base_url, "--json-mode", "object", "--no-cache"], capsys)
    finally:
        server.close()
    assert code == 0
    tasks = [line for line in err.splitlines() if line.startswith("task ")]
    total = 1 + len(match.scored_units()) + 1  # Task 1, one Task 2 instance per scored unit, Task 3
    assert len(tasks) == total and {int(t.split()[1].split("/")[0]) for t in tasks} == set(range(1, total + 1))
    assert sum(t.split()[2] == "task2" for t in tasks) == len(match.scored_units())


def test_failed_steps_say_so():
    e = ProgressEvent("judge", 16, 17, "judge-2", "battlefield", False, "unparseable: no valid output in 3 attempts", requests=3, latency_s=4.25)
    assert event_line(e) == "judge 16/17 judge-2 (battlefield): FAILED: unparseable: no valid output in 3 attempts (3 requests, 4.2 s)"
    e = ProgressEvent("stage", 2, 7, "s02", "Round 1, negative speech", True, "negative 6; 1 clash move", requests=1, cache_hits=0, latency_s=0.01)
    assert event_line(e) == "stage 2/7 s02 Round 1, negative speech: negative 6; 1 clash move (1 request)"


def test_the_live_bar_draws_on_a_terminal():
    buf = io.StringIO()
    with StderrProgress("m1 (agentic)", stream=buf, live=True) as progress:
        progress(ProgressEvent("stage", 1, 4, "s01", "Opening", True, "affirmative 7; 2 clash moves"))
        progress(ProgressEvent("judge", 4, 4, "judge-3", "advancement", True, "negative, p = 0.41"))
    text = buf.getvalue()
    assert "stage 1/4 s01 Opening: affirmative 7; 2 clash moves" in text and "judge 4/4 judge-3 (advancement): negative, p = 0.41" in text
    plain = io.StringIO()
    with StderrProgress("m1", stream=plain, live=False) as progress:
        progress(ProgressEvent("stage", 1, 4, "s01", "Opening", True, "affirmative 7; 2 clash moves"))
    assert plain.getvalue() == "stage 1/4 s01 Opening: affirmative 7; 2 clash moves\n"  # no bar, no escape codes off a terminal

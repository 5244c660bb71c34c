"""What a researcher reads of a run: every call's messages kept in the run folder (prompts/, once per
distinct text), and report.html's per-sample viewer in a real headless Chromium (the transcript, the
calls with their messages, numeric filters, the human column).

One bench over the bundled PanelBench matches through the loopback server, shared by the module: the
judges of debateart_0750 first answer a winner tendency out of range, so that sample has a repair turn.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from bench_helpers import answer, run_dir_of
from env_isolation import home_vars, user_setting
from fake_openai import FakeOpenAI

from adjudicator.bench.prompt_store import PromptReader, prompt_path
from adjudicator.bench.results import read_result
from adjudicator.cli import main
from adjudicator.records import text_sha256

REPO = Path(__file__).resolve().parents[1]
MATCHES = REPO / "adjudicator/data/matches/panelbench"
REPAIRED = "debateart_0750"


def _is_judge(body: dict) -> bool:
    rf = body.get("response_format") or {}
    schema = rf.get("schema") or (rf.get("json_schema") or {}).get("schema") or {}
    return "best_debater_votes" in (schema.get("properties") or {})


class _Responder:
    """Valid answers, except each judge's first answer about :data:`REPAIRED`, whose p is 1.7 (out of
    range: it decodes, fails validation, and the judge's next attempt is a repair turn)."""

    def __init__(self) -> None:
        self.spoiled: set[str] = set()

    def __call__(self, body: dict) -> str:
        if any(m["role"] == "assistant" for m in body["messages"]):  # a repair turn: it asks for p alone
            return json.dumps({"p": 0.3})
        text = answer(body)
        judge = json.dumps(body["messages"])  # each judge's request (its perspective) is its own
        if _is_judge(body) and "Basics of Law" in json.dumps(body["messages"]) and judge not in self.spoiled:
            self.spoiled.add(judge)
            obj = json.loads(text)
            obj["p"] = 1.7
            return json.dumps(obj)
        return text


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """``(run folder, the loopback server's request bodies)`` of one bench over the bundled matches."""
    tmp = tmp_path_factory.mktemp("viewer")
    with pytest.MonkeyPatch.context() as mp:
        for key in [k for k in os.environ if user_setting(k)]:
            mp.delenv(key)
        for key, value in home_vars(tmp / "home").items():
            mp.setenv(key, value)
        mp.setenv("ADJUDICATOR_BACKOFF_BASE_S", "0")
        server = FakeOpenAI()
        server.respond_with(_Responder())
        try:
            code = main(["bench", str(MATCHES), "--name", "viewer", "--runs-dir", str(tmp / "runs"), "--no-progress", "--bootstrap", "0",
                         "--concurrency", "4", "--model", "openai/test-model", "--api-base", server.base_url, "--json-mode", "object", "--no-cache"])
            bodies = list(server.requests)
        finally:
            server.close()
    assert code == 0
    return run_dir_of(tmp / "runs"), bodies


def _results(run_dir: Path):
    return {p.stem: read_result(p) for p in sorted((run_dir / "results" / "agentic").glob("*.json"))}


def test_every_call_keeps_the_messages_it_sent_once_per_distinct_text(run):
    run_dir, bodies = run
    results = _results(run_dir)
    assert len(results) == 5
    reader = PromptReader(run_dir)
    sent = sorted(json.dumps(b["messages"], ensure_ascii=False) for b in bodies)
    kept, refs = [], 0
    for res in results.values():
        for c in res.calls:
            assert c.messages, f"{res.sample_id} {c.node} {c.key}: no messages recorded"
            refs += len(c.messages)
            kept.append(json.dumps([{"role": m.role, "content": reader.text(m)} for m in c.messages], ensure_ascii=False))
            for m in c.messages:
                assert m.text is None  # read back from JSON: the text lives in prompts/, not in the result file
                assert text_sha256(prompt_path(run_dir, m.sha256).read_text(encoding="utf-8")) == m.sha256
    # exactly the requests the server received, message for message (one record per request: no cache, no retry)
    assert sorted(kept) == sent
    stored = list((run_dir / "prompts").glob("*.txt"))
    assert len(stored) == len({json.dumps(m) for b in bodies for m in b["messages"]}) < refs  # each distinct text once
    assert all(not p.name.startswith(".") for p in stored)  # no temporary file left


def test_a_repair_turn_keeps_the_answer_it_showed_the_model(run):
    run_dir, _ = run
    res = _results(run_dir)[REPAIRED]
    repairs = [c for c in res.calls if c.turn == "repair"]
    assert len(repairs) == 3 and all(c.node == "judge" and c.attempt == 2 for c in repairs)  # each of the three judges once
    reader = PromptReader(run_dir)
    for c in repairs:
        roles = [m.role for m in c.messages]
        assert roles[:2] == ["system", "user"] and "assistant" in roles
        shown = reader.text(next(m for m in c.messages if m.role == "assistant"))
        assert json.loads(shown)["p"] == 1.7  # the failed answer, as the model is shown it

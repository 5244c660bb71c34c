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
        shown = [m["content"] for m in body["messages"] if m["role"] == "assistant"]
        if shown:  # a repair turn: it asks for p alone; answer one that agrees with the winner shown
            return json.dumps({"p": 0.7 if json.loads(shown[0]).get("winner") == "affirmative" else 0.3})
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


def _js(expr: str) -> str:
    return f"(function () {{ {expr} }})()"


_VISIBLE = "Array.from(document.querySelectorAll('#sample-table tbody tr')).filter(function (r) { return !r.hidden; }).map(function (r) { return r.cells[0].textContent; })"


def _filter(page, text: str) -> list[str]:
    page.eval(_js(f"var f = document.getElementById('sample-filter'); f.value = {json.dumps(text)}; f.dispatchEvent(new Event('input'));"))
    return page.eval(_VISIBLE)


def test_the_viewer_shows_calls_messages_transcript_and_filters_by_number_in_chromium(run, tmp_path):
    from cdp_chromium import CHROMIUM, Chromium

    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    run_dir, bodies = run
    rows = {r["sample_id"]: r for r in map(json.loads, (run_dir / "samples.jsonl").read_text(encoding="utf-8").splitlines())}
    res = _results(run_dir)[REPAIRED]
    with Chromium((run_dir / "report.html").as_uri(), root=tmp_path / "chromium") as page:
        page.wait_for("window.benchViewer !== undefined")
        # a numeric filter narrows the table to exactly the rows it names; a combined one too
        above = sorted(s for s, r in rows.items() if r["p"] is not None and r["p"] > 0.65)
        assert above == [REPAIRED]  # its repaired judges answered p 0.7, every other sample's 0.62
        assert sorted(_filter(page, "p > 0.65")) == above
        assert page.eval("document.getElementById('sample-count').textContent") == f"{len(above)} shown"
        wrong_low = sorted(s for s, r in rows.items() if r["correct"] is False and r["p"] <= 0.65)
        assert 0 < len(wrong_low) < len(rows) - 1
        assert sorted(_filter(page, "wrong and not p > 0.65")) == wrong_low
        assert sorted(_filter(page, "(escalated and right) or p >= 0.7")) == sorted(s for s, r in rows.items() if (r["escalated"] and r["correct"]) or r["p"] >= 0.7)
        assert sorted(_filter(page, "sample_id = " + REPAIRED)) == [REPAIRED]
        # open the repaired sample: its calls in order, the messages' texts on demand, the transcript by stage
        sid = page.eval(_js("return document.querySelector('#sample-table tbody tr:not([hidden])').dataset.target;"))
        page.eval(f"location.hash = '{sid}'")
        page.wait_for(f"getComputedStyle(document.getElementById('{sid}')).display !== 'none'")
        calls = page.eval(f"Array.from(document.querySelectorAll('#{sid} details.call')).map(function (d) {{ return d.dataset.node + ' ' + d.dataset.key + ' ' + d.dataset.attempt; }})")
        assert len(calls) == len(res.calls) and calls[0].startswith("track_stage s01 ") and calls[-1] == "judge judge-3 2"
        repair = page.eval(_js(f"var d = Array.from(document.querySelectorAll('#{sid} details.call')).find(function (d) {{ return d.dataset.key === 'judge-1' && d.dataset.attempt === '2'; }});"
                               " d.open = true; var ms = d.querySelectorAll('details.message'); ms.forEach(function (m) { m.open = true; });"
                               " return d.innerText;"))
        page.wait_for(f"Array.from(document.querySelectorAll('#{sid} details.call[data-key=\"judge-1\"][data-attempt=\"2\"] pre.message-text')).every(function (p) {{ return p.textContent.length > 0; }})")
        texts = page.eval(f"Array.from(document.querySelectorAll('#{sid} details.call[data-key=\"judge-1\"][data-attempt=\"2\"] pre.message-text')).map(function (p) {{ return p.textContent; }})")
        reader = PromptReader(run_dir)
        record = next(c for c in res.calls if c.key == "judge-1" and c.attempt == 2)
        assert texts == [reader.text(m) for m in record.messages] and len(texts) == 4  # the whole texts (each < SHOWN_CHARS)
        assert json.loads(texts[2])["p"] == 1.7  # the failed answer the repair turn showed the model
        assert "repair" in repair and "parse" in repair and "tokens" in repair and "cost unknown" in repair  # no price for a test model: unknown, not $0
        match = json.loads((MATCHES / f"{REPAIRED}.json").read_text(encoding="utf-8"))
        assert page.eval(f"document.querySelectorAll('#{sid} div.transcript details.stage').length") == len(match["stages"]) == 6
        page.eval(_js(f"document.querySelector('#{sid} div.transcript details.stage').open = true;"))
        first = page.eval(f"document.querySelector('#{sid} div.transcript details.stage p.utterance').innerText")
        utterance = match["stages"][0]["utterances"][0]
        assert first.startswith(utterance["speaker"]) and utterance["text"][:60] in first
        page.screenshot(REPO / "test-artifacts" / "bench_viewer.png")


def test_annotate_keeps_a_persons_call_beside_the_run_and_the_reports_read_it_back(run, tmp_path, capsys):
    import shutil

    src, _ = run
    run_dir = tmp_path / "runs" / src.name
    shutil.copytree(src, run_dir)
    rows = {r["sample_id"]: r for r in map(json.loads, (run_dir / "samples.jsonl").read_text(encoding="utf-8").splitlines())}
    assert main(["annotate", str(run_dir), REPAIRED, "--disagree", "--comment", "the rebuttal decided it", "--annotator", "ana"]) == 0
    other = next(s for s in rows if s != REPAIRED)
    assert main(["annotate", str(run_dir), other, "--agree"]) == 0
    human = json.loads((run_dir / "human.json").read_text(encoding="utf-8"))
    entries = {a["sample_id"]: a for a in human["annotations"]}
    assert entries[REPAIRED]["call"] == "disagree" and entries[REPAIRED]["comment"] == "the rebuttal decided it" and entries[REPAIRED]["arm"] == "agentic"
    assert entries[other]["call"] == "agree" and len(entries) == 2
    counts = json.loads((run_dir / "report.json").read_text(encoding="utf-8"))["human"]["arms"]["agentic"]
    wrong = rows[REPAIRED]["correct"] is False
    assert counts == {"annotated": 2, "agree": 1, "disagree": 1, "with_comment": 1, "disagree_scored": int(rows[REPAIRED]["correct"] is not None), "disagree_arm_wrong": int(wrong)}
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "## Human annotations (human.json)" in md and f"| agentic | 2 | 1 | 1 | 1 | {int(wrong)} of {counts['disagree_scored']} scored |" in md
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert '"human": {"' in html and "the rebuttal decided it" in html  # the page's data island starts from human.json
    # the viewer's export is imported (a later entry replaces the earlier); a sample the run lacks is refused, nothing written
    export = tmp_path / "export.json"
    export.write_text(json.dumps({"schema_version": 1, "annotations": [{"sample_id": REPAIRED, "arm": "agentic", "call": "agree"}]}), encoding="utf-8")
    assert main(["annotate", str(run_dir), "--import", str(export)]) == 0
    assert {a["sample_id"]: a["call"] for a in json.loads((run_dir / "human.json").read_text(encoding="utf-8"))["annotations"]} == {REPAIRED: "agree", other: "agree"}
    export.write_text(json.dumps({"schema_version": 1, "annotations": [{"sample_id": "nope", "arm": "agentic", "call": "agree"}]}), encoding="utf-8")
    capsys.readouterr()
    assert main(["annotate", str(run_dir), "--import", str(export)]) == 2
    err = capsys.readouterr().err
    assert "annotations.0: the run has no sample 'nope'" in err and "Traceback" not in err
    # a bench leaves the runs folder to run folders; the index is written on request, lists the run and links its page
    assert [p.name for p in (tmp_path / "runs").iterdir()] == [run_dir.name]
    assert main(["index", str(tmp_path / "runs")]) == 0
    index = (tmp_path / "runs" / "index.html").read_text(encoding="utf-8")
    assert f'href="{run_dir.name}/report.html"' in index and "2 annotated" in index


def test_the_inspect_export_round_trips_through_inspect_ais_own_reader(run, tmp_path):
    inspect_log = pytest.importorskip("inspect_ai.log", reason="the optional extra inspect-ai is not installed (pip install 'adjudicator[inspect]')")
    run_dir, _ = run
    rows = {r["sample_id"]: r for r in map(json.loads, (run_dir / "samples.jsonl").read_text(encoding="utf-8").splitlines())}
    results = _results(run_dir)
    reader = PromptReader(run_dir)
    for fmt in ("eval", "json"):
        assert main(["export", "inspect", str(run_dir), "--format", fmt, "--out", str(tmp_path / fmt)]) == 0
        log = inspect_log.read_eval_log(str(tmp_path / fmt / f"agentic.{fmt}"), resolve_attachments=True)  # inspect stores each long text once, too
        assert log.status == "success" and log.eval.run_id == json.loads((run_dir / "manifest.json").read_text())["run_id"]
        assert log.results.total_samples == log.results.completed_samples == 5 and len(log.samples) == 5
        by_id = {s.id: s for s in log.samples}
        assert set(by_id) == set(rows)
        for sid, s in by_id.items():
            res, row = results[sid], rows[sid]
            assert s.target == row["gold_winner"] and s.metadata["status"] == "ok" and len(s.metadata["ballots"]) == 3
            assert s.scores["winner"].value == ("C" if row["correct"] else "I") and s.scores["p"].value == pytest.approx(row["p"], abs=1e-12)
            assert s.scores["brier"].value == pytest.approx((row["p"] - (row["gold_winner"] == "affirmative")) ** 2, abs=1e-12)
            events = [e for e in s.events if e.event == "model"]
            assert len(events) == len(res.calls)  # every call, the failed and the repair turns too
            assert sorted(e.output.completion for e in events) == sorted(c.raw_output or "" for c in res.calls)
            sent = sorted(json.dumps([reader.text(m) for m in c.messages]) for c in res.calls)
            assert sorted(json.dumps([m.text for m in e.input]) for e in events) == sent
            usage = s.model_usage["openai/test-model"]
            assert (usage.input_tokens, usage.output_tokens) == (res.usage.prompt_tokens, res.usage.completion_tokens) and usage.total_cost is None  # no price: unknown
        accuracy = next(sc for sc in log.results.scores if sc.name == "winner").metrics["accuracy"].value
        scored = [r["correct"] for r in rows.values() if r["correct"] is not None]
        assert accuracy == pytest.approx(sum(scored) / len(scored), abs=1e-12)


def test_export_inspect_without_the_extra_is_a_one_line_error(run, monkeypatch, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "inspect_ai", None)  # import inspect_ai now raises ImportError
    capsys.readouterr()
    assert main(["export", "inspect", str(run[0])]) == 2
    err = capsys.readouterr().err
    assert "inspect-ai is not installed" in err and "adjudicator[inspect]" in err and "Traceback" not in err

"""--judge-evidence (issue 11, "What the judges see"): what an LLM judge reads beyond the tracker's
ledger -- nothing (ledger), the transcript sentences behind the decisive clashes (quotes), or the
whole transcript -- recorded in the verdict and the bench manifest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fake_openai import fake_openai  # noqa: F401  (pytest fixture)
from llm_helpers import online_match, schema_responder

from adjudicator.cli import main
from adjudicator.judges.llm.quotes import decisive_clashes, quote_for
from adjudicator.verdict.battlefield import Clash, ClashEvent


def _ev(stage: str, side: str, kind: str, note: str = "", debater: str | None = None) -> ClashEvent:
    return ClashEvent(stage_id=stage, side=side, kind=kind, note=note, debater=debater)  # type: ignore[arg-type]


def test_decisive_clashes_rank_by_net_advancement_then_events() -> None:
    clashes = {
        "c": Clash(clash_id="c", title="C", opened_in="s1", events=[_ev("s1", "affirmative", "advanced")]),  # net +1, 1 event
        "a": Clash(clash_id="a", title="A", opened_in="s1", events=[_ev("s1", "affirmative", "advanced"), _ev("s2", "affirmative", "defended")]),  # net +2
        "b": Clash(
            clash_id="b",
            title="B",
            opened_in="s1",
            events=[_ev("s1", "negative", "advanced"), _ev("s2", "affirmative", "advanced"), _ev("s3", "negative", "defended")],
        ),  # net -1 +1 -1 = -1 -> |1|, 3 events: ahead of c (|1|, 1 event)
        "d": Clash(clash_id="d", title="D", opened_in="s1"),  # no events: never quoted
    }
    assert [c.clash_id for c in decisive_clashes(clashes, limit=3)] == ["a", "b", "c"]
    assert [c.clash_id for c in decisive_clashes(clashes, limit=2)] == ["a", "b"]


def test_a_quote_is_the_debaters_sentence_sharing_most_words_with_the_event() -> None:
    view = online_match(["We open. Sleep loss harms memory consolidation in teenagers! Drills matter less.", "Homework builds discipline."]).view()
    clash = Clash(clash_id="sleep", title="sleep and memory", affirmative_position="homework costs sleep", opened_in="s1")
    # wanted terms: {pressed, memory, sleep, and, homework, costs}; sentence 2 shares sleep + memory (2),
    # "We open." none, "Drills matter less." none -> sentence 2, cut to 30 characters with an ellipsis
    q = quote_for(view, clash, _ev("s1", "affirmative", "advanced", "pressed memory", "Affirmative Speaker 1"), limit=30)
    assert q == {"clash_id": "sleep", "stage_id": "s1", "speaker": "Affirmative Speaker 1", "text": "Sleep loss harms memory conso…"}
    # a full stop inside a number, before a lower-case word or after a single capital ends no sentence
    view2 = online_match(["The U.S. study found less than 0.5 hours of sleep lost, e.g. on weekdays. Next point.", "No."]).view()
    q2 = quote_for(view2, clash, _ev("s1", "affirmative", "advanced", "sleep"), limit=200)
    assert q2 is not None and q2["text"] == "The U.S. study found less than 0.5 hours of sleep lost, e.g. on weekdays."
    # a sentence sharing no word with the event is no quote
    tariffs = Clash(clash_id="tariffs", title="tariffs", opened_in="s1")
    assert quote_for(view2, tariffs, _ev("s1", "affirmative", "advanced", "tariffs"), limit=200) is None
    # an event whose stage the match lacks, or where nobody of its side spoke, has no quote
    assert quote_for(view, clash, _ev("s9", "affirmative", "advanced"), limit=30) is None
    assert quote_for(view, clash, _ev("s1", "negative", "advanced"), limit=30) is None


def _write_match(tmp_path: Path) -> Path:
    path = tmp_path / "match.json"
    path.write_text(online_match().model_dump_json(), encoding="utf-8")
    return path


def _judge_requests(server) -> list[dict[str, Any]]:
    def schema(b: dict[str, Any]) -> dict[str, Any]:
        rf = b.get("response_format") or {}
        return rf.get("schema") or (rf.get("json_schema") or {}).get("schema") or {}

    return [b for b in server.requests if "stage_scores" in schema(b).get("properties", {})]


def _run(server, tmp_path: Path, capsys, mode: str | None) -> tuple[int, dict, str]:
    server.respond_with(schema_responder)
    extra = [] if mode is None else ["--judge-evidence", mode]
    args = [str(_write_match(tmp_path)), "--model", "openai/test-model", "--api-base", server.base_url, "--json-mode", "schema", "--cache-dir", str(tmp_path / f"cache-{mode}"), *extra]
    code = main(args)
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else {}, err


def _user_text(request: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in request["messages"] if m["role"] == "user")


def test_quotes_mode_shows_the_sentences_behind_the_decisive_clash(fake_openai, tmp_path: Path, capsys) -> None:  # noqa: F811
    code, v, err = _run(fake_openai, tmp_path, capsys, "quotes")
    assert code == 0, err
    assert v["provenance"]["judge_evidence"] == "quotes"
    judges = _judge_requests(fake_openai)
    assert len(judges) == 3
    text = _user_text(judges[0])
    # the scripted tracker advances clash c1 ("sleep versus discipline", note "pressed") for the stage's
    # own side in each of the four speeches; its latest three events are s2, s3, s4. s3's speech has two
    # sentences ("Discipline can be built in class;" shares "discipline", the rest shares "sleep"): a tie
    # on one word, so the earlier one is quoted. s2 is one sentence sharing "discipline"; s4's one
    # sentence shares no word with the event, so it is not quoted.
    assert "- [c1] s2 | Negative Speaker 1: Homework builds discipline and lets teachers see what students have understood." in text
    assert "- [c1] s3 | Affirmative Speaker 1: Discipline can be built in class;" in text
    assert "s4 | Negative" not in text
    assert "s1 | Affirmative" not in text  # the clash's first event is older than the latest three
    assert "sentences its latest events rest on" in judges[0]["messages"][0]["content"]
    assert "TRANSCRIPT" not in text


def test_transcript_mode_shows_every_utterance_and_ledger_mode_none(fake_openai, tmp_path: Path, capsys) -> None:  # noqa: F811
    code, v, err = _run(fake_openai, tmp_path, capsys, "transcript")
    assert code == 0, err
    assert v["provenance"]["judge_evidence"] == "transcript"
    n_transcript = len(fake_openai.requests)
    transcript_judge = _user_text(_judge_requests(fake_openai)[0])
    for stage in online_match().stages:
        assert f"[{stage.stage_id}] {stage.name}\n{stage.utterances[0].speaker}: {stage.utterances[0].text}" in transcript_judge

    code, v, err = _run(fake_openai, tmp_path, capsys, None)  # the default: the ledger alone
    assert code == 0, err
    assert v["provenance"]["judge_evidence"] == "ledger"
    ledger_requests = fake_openai.requests[n_transcript:]
    ledger_judge = _user_text(_judge_requests(fake_openai)[-1])
    assert "QUOTES" not in ledger_judge and "TRANSCRIPT" not in ledger_judge
    assert "Homework takes sleep from teenagers" not in ledger_judge
    # the setting changes the judges' requests only: the trackers' are byte-identical
    trackers = [b["messages"] for b in fake_openai.requests[:n_transcript] if b not in _judge_requests(fake_openai)]
    assert trackers == [b["messages"] for b in ledger_requests if b not in _judge_requests(fake_openai)]
    assert len(transcript_judge) > len(ledger_judge)


def test_the_offline_judge_records_no_judge_evidence(tmp_path: Path, capsys) -> None:
    code = main([str(_write_match(tmp_path)), "--judge-evidence", "transcript"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["provenance"]["judge_evidence"] is None  # offline judges never read text


def test_a_pairwise_panel_refuses_quotes_before_any_request(fake_openai, tmp_path: Path, capsys) -> None:  # noqa: F811
    fake_openai.respond_with(schema_responder)
    code = main([str(_write_match(tmp_path)), "--model", "openai/test-model", "--api-base", fake_openai.base_url, "--panel", "pairwise", "--judge-evidence", "quotes"])
    _, err = capsys.readouterr()
    assert code == 2 and fake_openai.requests == []
    assert "--judge-evidence quotes: a pairwise panel's judges read the ledger only" in err and len(err.strip().splitlines()) == 1


def test_a_bp_judge_reads_the_same_evidence() -> None:
    from bp_helpers import bp_data

    from adjudicator.input.match import Match
    from adjudicator.judges.base import JudgeRequest
    from adjudicator.judges.llm.backend import LLMBackend
    from adjudicator.model.prompts import PromptStore

    view = Match.model_validate(bp_data()).view()
    backend = LLMBackend.__new__(LLMBackend)
    backend.prompts = PromptStore()  # judge_prompt renders only; no client is needed

    def user(mode: str) -> str:
        request = JudgeRequest(judge_id="judge-1", perspective="task", match=view, clashes={}, analyses=[], judge_evidence=mode)  # type: ignore[arg-type]
        return backend.judge_prompt(request).messages[1]["content"]

    first = view.stages[0]
    assert f"[{first.stage_id}] {first.name}\n{first.utterances[0].speaker}: " in user("transcript")
    # no clash has an event yet, so the quotes section says so instead of quoting
    assert "(no clash has an event to quote)" in user("quotes")
    assert "QUOTES" not in user("ledger") and "TRANSCRIPT" not in user("ledger")


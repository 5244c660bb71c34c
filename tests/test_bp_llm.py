"""The LLM judges and the single-call arm on a BP match, over real HTTP to the loopback server."""

from __future__ import annotations

import json
import re

from bp_helpers import SPEECHES, bp_data
from fake_openai import fake_openai  # noqa: F401 (fixture)

from adjudicator.api import adjudicate_with_context, build_context
from adjudicator.config import ModelConfig
from adjudicator.input.match_file import parse_match
from adjudicator.model.llm import LLMClient
from adjudicator.single_call.run import run_single_call

KEY = "sk-test-key-0123456789"
#: OG 83+82 = 165 > OO 81+81 = 162 > CG 80+79 = 159 > CO 78+78 = 156
SCORES = {"s01": 83, "s02": 81, "s03": 82, "s04": 81, "s05": 80, "s06": 78, "s07": 79, "s08": 78}


def _config(server, tmp_path, **kw) -> ModelConfig:
    base = dict(model="openai/test-model", api_base=server.base_url, json_mode="object", cache_dir=tmp_path / "cache", backoff_base_s=0.01)
    base.update(kw)
    return ModelConfig(**base)


def ranking_ballot_json(scores: dict[str, int] = SCORES, ranking: dict[str, int] | None = None) -> str:
    order = sorted(scores, key=lambda s: (-scores[s], s))
    return json.dumps(
        {
            "reasoning": "OG's set-up framed every clash; CG's extension on climate was new but thin",
            "ranking": ranking or {"OG": 1, "OO": 2, "CG": 3, "CO": 4},
            "speaker_scores": [{"stage_id": s, "score": scores[s], "rank": order.index(s) + 1} for s in scores],
        }
    )


def bp_responder(body: dict) -> str:
    """Tracker answers from the schema's side and speaker enums; judge answers a valid ranking ballot."""
    rf = body.get("response_format") or {}
    schema = rf.get("schema") or (rf.get("json_schema") or {}).get("schema") or {}
    props = schema.get("properties", {})
    if "ranking" in props:
        return ranking_ballot_json()
    side = props["sides"]["required"][0]  # the exact schema: one required entry per evaluated side
    # a speech has one speaker, so the schema asks no contributions (issue 32): the labels come from the prompt
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    speakers = user.split("Speakers (use exactly these labels): ", 1)[1].split("\n", 1)[0].split(", ")
    speaker = next(s for s in speakers if ("Government" in s) == (side == "affirmative") and " " in s and s.split()[0] in ("Opening", "Closing"))
    return json.dumps(
        {
            "reasoning": "the speech engaged the health clash",
            "sides": [{"side": side, "rationale": "did its job", "task_performance": "well", "battlefield_judgement": "correct_important", "advancement": "effective", "score": None}],
            "clash_updates": [{"clash_id": "c1", "title": "public health", "side": side, "kind": "advanced", "note": "pressed", "debater": speaker, "affirmative_position": "", "negative_position": ""}],
            "summary": "the health clash moved",
        }
    )


def test_agentic_panel_on_bp_over_http(fake_openai, tmp_path):
    fake_openai.respond_with(bp_responder)
    match = parse_match(bp_data(labels={"advanced": ["OG", "OO"], "note": "GOLD-MARKER-BP-91c2"}))
    verdict = adjudicate_with_context(match, build_context(_config(fake_openai, tmp_path), api_key=KEY))
    assert fake_openai.count == 8 + 3  # one tracker call per speech, one per judge
    assert verdict.failures == [] and len(verdict.ballots) == 3
    assert [r.unit for r in verdict.ranking] == ["OG", "OO", "CG", "CO"]
    assert [s.mean for s in verdict.speaker_scores] == [83.0, 81.0, 82.0, 81.0, 80.0, 78.0, 79.0, 78.0]
    assert verdict.dissent.winner_split == "3:0" and verdict.dissent.rank_error == {"judge-1": 0, "judge-2": 0, "judge-3": 0}
    assert set(verdict.provenance.prompt_hashes) == {"track_stage_bp.en.j2", "judge_bp.en.j2", "repair.en.j2"}  # the trackers have repair turns
    prompts = fake_openai.user_prompts()
    systems = [m["content"] for r in fake_openai.requests for m in r["messages"] if m["role"] == "system"]
    # the MG speech is tracked as Closing Government's extension; judges are told closing houses are judged on it
    mg = next(p for p in prompts if "the MG speech of Closing Government (CG), role: extension" in p)
    assert "Its task (extension)" in mg
    assert sum("A closing house is judged on its extension" in s for s in systems) == 3
    # a judge sees the ledger and analyses, not the transcript
    judge_prompts = [p for p in prompts if "Houses to rank: OG, OO, CG, CO." in p]
    assert len(judge_prompts) == 3 and all(SPEECHES[4][3] not in p for p in judge_prompts)
    # static first: the three judges' systems are one text and their user messages one text up to the
    # line naming the judge; only the id and the emphasis follow, after every fenced block
    judge_bodies = [r for r in fake_openai.requests if "ranking" in json.dumps(r.get("response_format") or {})]
    assert len({r["messages"][0]["content"] for r in judge_bodies}) == 1
    heads = {p[: p.index("You are judge-")] for p in judge_prompts}
    assert len(heads) == 1 and "<<<LEDGER-" in heads.pop() and all("<<<" not in p[p.index("You are judge-"):] for p in judge_prompts)
    # the judge's schema is built from the match's units and speeches
    judge_body = next(r for r in fake_openai.requests if "ranking" in json.dumps(r.get("response_format") or {}))
    schema = judge_body["response_format"].get("schema") or judge_body["response_format"]["json_schema"]["schema"]
    assert list(schema["properties"]["ranking"]["properties"]) == ["OG", "OO", "CG", "CO"]
    assert schema["properties"]["speaker_scores"]["items"]["properties"]["stage_id"]["enum"] == [f"s{k:02d}" for k in range(1, 9)]
    # gold labels never reach a request
    assert all("GOLD-MARKER-BP-91c2" not in json.dumps(r) for r in fake_openai.requests)


def test_a_low_point_win_ballot_is_retried(fake_openai, tmp_path):
    calls = {"judge": 0}
    per_judge: dict[str, int] = {}
    low = dict(SCORES, s02=90)  # OO 90+81 = 171 > OG 165, yet OG is ranked first
    emphases = ("job of its position", "fought on the clashes", "moved the decisive clashes")

    def responder(body):
        rf = body.get("response_format") or {}
        if "ranking" in json.dumps(rf):
            calls["judge"] += 1
            # each judge's own first answer is the low-point win, whatever order the three judges run in
            judge = next(e for e in emphases if e in json.dumps(body["messages"]))
            per_judge[judge] = per_judge.get(judge, 0) + 1
            return ranking_ballot_json(low) if per_judge[judge] == 1 else ranking_ballot_json()
        return bp_responder(body)

    fake_openai.respond_with(responder)
    verdict = adjudicate_with_context(parse_match(bp_data()), build_context(_config(fake_openai, tmp_path), api_key=KEY))
    assert len(verdict.ballots) == 3 and verdict.failures == []
    assert calls["judge"] == 6  # each judge's first answer (a low-point win) was refused and asked again
    attempts = [c for c in verdict.calls if c.node == "judge"]
    assert len(attempts) == 6 and sum(c.parse == "failed" for c in attempts) == 3


def _single_call_answer(body) -> str:
    text = "\n".join(m["content"] for m in body["messages"])
    if "rank the four houses" in text:
        return "First: OO\nSecond: OG\nThird: CO\nFourth: CG"
    abbrs = ["PM", "LO", "DPM", "DLO", "MG", "MO", "GW", "OW"]
    if "assign speaker scores" in text:
        return "\n".join(f"{a}: {80 - k}" for k, a in enumerate(abbrs))
    return "\n".join(f"{a}: {k + 1}" for k, a in enumerate(abbrs))


def test_single_call_arm_on_bp(fake_openai):
    fake_openai.respond_with(_single_call_answer)
    client = LLMClient("openai/test-model", api_base=fake_openai.base_url, api_key=KEY)
    verdict = run_single_call(parse_match(bp_data()).view(), client, concurrency=1)
    assert fake_openai.count == 3  # one call per task
    for body in fake_openai.requests:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        system = next(m["content"] for m in body["messages"] if m["role"] == "system")
        assert all(text in user for _, _, _, text in SPEECHES)  # the whole transcript in each call
        assert "Judging manual (British Parliamentary)" in system and "No additional explanation should be provided." in user
        assert body.get("temperature") == 0
    assert len({r["messages"][0]["content"] for r in fake_openai.requests}) == 1  # one system message for the three tasks (docs/cost.md)
    assert [(r.unit, r.rank) for r in verdict.ranking] == [("OO", 1), ("OG", 2), ("CO", 3), ("CG", 4)]
    assert [s.mean for s in verdict.speaker_scores] == [80.0, 79.0, 78.0, 77.0, 76.0, 75.0, 74.0, 73.0]
    assert [s.rank for s in verdict.speaker_scores] == list(range(1, 9))
    assert [(t.task, t.ok, t.parse) for t in verdict.tasks] == [("bp_house_order", True, "strict"), ("bp_speaker_scores", True, "strict"), ("bp_speaker_ranks", True, "strict")]
    assert set(verdict.provenance.prompt_hashes) == {"single_call_bp_house_order.en.j2", "single_call_bp_speaker_scores.en.j2", "single_call_bp_speaker_ranks.en.j2"}


def test_single_call_bp_answer_naming_a_house_twice_is_a_failure(fake_openai):
    def answer(body):
        out = _single_call_answer(body)
        return re.sub(r"Second: OG", "Second: OO", out)

    fake_openai.respond_with(answer)
    client = LLMClient("openai/test-model", api_base=fake_openai.base_url, api_key=KEY)
    verdict = run_single_call(parse_match(bp_data()).view(), client, concurrency=1, max_attempts=2)
    assert verdict.ranking == []  # never turned into a ranking
    order = next(t for t in verdict.tasks if t.task == "bp_house_order")
    assert not order.ok and order.attempts == 2 and "twice" in (order.error or "")
    assert any(f.node == "bp_house_order" and len(f.raw_outputs) == 2 for f in verdict.failures)
    # a recovered answer in other words is still read (markdown bold, a preamble)
    fake_openai.respond_with(lambda b: "Here is my ranking:\n**First:** CO\n**Second:** OO\n**Third:** OG\n**Fourth:** CG" if "four houses" in json.dumps(b) else _single_call_answer(b))
    verdict = run_single_call(parse_match(bp_data()).view(), client, concurrency=1)
    assert [r.unit for r in verdict.ranking] == ["CO", "OO", "OG", "CG"]
    assert next(t for t in verdict.tasks if t.task == "bp_house_order").parse in ("regex", "normalised")

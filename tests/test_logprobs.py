"""--p-source logprob: p and stage scores read off token log-probabilities (by hand), through the
loopback server and the cache, and calibrated beside the stated p in the bench."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from fake_openai import Reply, fake_openai  # noqa: F401 (fixture)
from llm_helpers import online_match, schema_responder

from adjudicator.api import adjudicate
from adjudicator.bench.gold import gold_from_matches
from adjudicator.bench.predictions import ArmPredictions
from adjudicator.bench.scoring.leaves import ScoreSettings
from adjudicator.bench.scoring.winner import calibration
from adjudicator.config import ModelConfig
from adjudicator.model.logprobs import TokenLogprob, TopLogprob, expected_score, logprob_p, token_logprobs_of


def tok(text: str, **alternatives: float) -> TokenLogprob:
    """A token with its alternatives given as probabilities (stored as natural logs)."""
    top = [TopLogprob(token=t, logprob=math.log(p)) for t, p in alternatives.items()]
    return TokenLogprob(token=text, logprob=top[0].logprob if top else 0.0, top=top)


ANSWER = '{"stage_scores": {"s1|affirmative": 7}, "winner": "affirmative", "p": 0.7}'


def tokens_of_answer() -> list[TokenLogprob]:
    head, rest = ANSWER.split('7}, "winner": "', 1)
    return [tok(head), tok("7", **{"7": 0.5, "8": 0.3, " 6": 0.2}), tok('}, "winner": "'), tok("aff", aff=0.6, neg=0.3, the=0.1), tok(rest[3:])]


def test_logprob_p_is_the_winner_mass_share():
    assert "".join(t.token for t in tokens_of_answer()) == ANSWER
    assert logprob_p(ANSWER, tokens_of_answer()) == pytest.approx(0.6667, abs=1e-4)  # 0.6 / (0.6 + 0.3)


def test_expected_score_is_the_expectation_over_integer_tokens():
    # 7 x 0.5 + 8 x 0.3 + 6 x 0.2 = 7.1 (" 6" counts as 6)
    assert expected_score(ANSWER, tokens_of_answer(), "s1|affirmative") == pytest.approx(7.1)
    assert expected_score(ANSWER, tokens_of_answer(), "s2|negative") is None  # no such unit in the answer


def test_no_reading_when_the_tokens_do_not_spell_the_reply():
    tokens = tokens_of_answer()[:-1]
    assert logprob_p(ANSWER, tokens) is None and expected_score(ANSWER, tokens, "s1|affirmative") is None
    assert logprob_p(ANSWER, None) is None


def test_token_logprobs_of_reads_an_openai_shaped_choice():
    choice = {"logprobs": {"content": [{"token": "a", "logprob": -0.1, "top_logprobs": [{"token": "a", "logprob": -0.1}, {"token": "b", "logprob": -2.3}]}]}}
    (t,) = token_logprobs_of(choice)
    assert (t.token, t.logprob, [a.token for a in t.top]) == ("a", -0.1, ["a", "b"])
    assert token_logprobs_of({"logprobs": None}) is None


def _char_tokens(text: str, winner_alts: dict[str, float], score_alts: dict[str, float]) -> list[dict]:
    """One token per character; alternatives where the winner's value and each score start."""
    w = text.index('"winner": "') + len('"winner": "')
    scores = {m + len('": ') for m in [i for i in range(len(text)) if text.startswith('": ', i)] if text[m + 3 : m + 4].isdigit()}
    out = []
    for i, ch in enumerate(text):
        alts = winner_alts if i == w else score_alts if i in scores else {ch: 1.0}
        out.append({"token": ch, "logprob": math.log(alts.get(ch, 1e-9)), "top_logprobs": [{"token": t, "logprob": math.log(p)} for t, p in alts.items()]})
    return out


def test_logprob_p_through_the_loopback_server_and_the_cache(fake_openai, tmp_path):
    def answer(body):
        text = schema_responder(body)
        if "stage_scores" not in text:
            return text
        obj = json.loads(text)
        obj["stage_scores"] = {f"{s['stage_id']}|{s['side']}": 7 for s in obj["stage_scores"]}  # keyed, as the exact schema asks
        text = json.dumps(obj)
        return Reply(content=text, logprobs=_char_tokens(text, {"a": 0.7, "n": 0.2, "x": 0.1}, {"7": 0.5, "8": 0.5}))

    fake_openai.respond_with(answer)
    config = ModelConfig.model_validate({"model": "openai/test-model", "api_base": fake_openai.base_url, "json_mode": "object", "cache_dir": tmp_path / "cache", "p_source": "logprob"})
    v = adjudicate(online_match(), config)
    judges = [r for r in fake_openai.requests if "best_debater_votes" in r["response_format"]["schema"]["properties"]]
    assert len(judges) == 3 and all(r.get("logprobs") is True and r.get("top_logprobs") == 20 for r in judges)
    # only the judges' replies are read for log-probabilities: the trackers' 4 requests do not ask for them
    assert [r for r in fake_openai.requests if "logprobs" in r] == judges and fake_openai.count == 7
    assert (v.provenance.p_source, v.provenance.p_logprob_missing) == ("logprob", 0)
    assert [b.p_logprob for b in v.ballots] == [pytest.approx(0.7778, abs=1e-4)] * 3  # 0.7 / (0.7 + 0.2)
    assert v.p_logprob == pytest.approx(0.7778, abs=1e-4) and v.p == 0.62  # beside the stated p
    assert {s.logprob_mean for s in v.stage_scores} == {7.5}  # (7 + 8) / 2 on every unit
    assert "p_logprob" in v.model_dump_json()
    sent = fake_openai.count
    again = adjudicate(online_match(), config)
    assert fake_openai.count == sent and again.p_logprob == v.p_logprob  # the cache keeps the log-probabilities


def test_stated_p_source_sends_no_logprob_request_and_writes_no_field(fake_openai, tmp_path):
    fake_openai.respond_with(schema_responder)
    config = ModelConfig.model_validate({"model": "openai/test-model", "api_base": fake_openai.base_url, "json_mode": "object", "cache_dir": tmp_path / "cache"})
    v = adjudicate(online_match(), config)
    assert not any("logprobs" in r for r in fake_openai.requests)
    assert v.p_logprob is None and "p_logprob" not in v.model_dump_json() and "logprob_mean" not in v.model_dump_json()
    assert v.provenance.p_source is None and "p_source" not in v.model_dump_json()  # the default, stated, is left out


def test_a_server_sending_no_logprobs_is_counted_and_warned_about(fake_openai, tmp_path, capsys):
    from adjudicator.cli import main

    fake_openai.respond_with(schema_responder)  # answers, but never with log-probabilities
    path = tmp_path / "m.json"
    path.write_text(online_match().model_dump_json(), encoding="utf-8")
    args = [str(path), "--model", "openai/test-model", "--api-base", fake_openai.base_url, "--json-mode", "object", "--cache-dir", str(tmp_path / "cache"), "--p-source", "logprob"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    v = json.loads(out)
    assert v["provenance"]["p_source"] == "logprob" and v["provenance"]["p_logprob_missing"] == 3
    assert "p_logprob" not in v and all("p_logprob" not in b for b in v["ballots"])
    assert "warning: --p-source logprob: 3 of 3 ballots carry no log-prob p (the server sent no log-probabilities" in err


def test_bench_calibrates_each_p_source_on_the_same_matches():
    matches = [online_match(match_id=f"m{i}") for i in range(4)]  # gold: negative wins every match
    gold = gold_from_matches(matches)
    stated = np.array([0.8, 0.8, 0.2, 0.2])
    logprob = np.array([0.6, 0.6, 0.4, 0.4])
    pr = ArmPredictions("agentic", "agentic · m", {}, stated, [None] * 4, np.empty(0), np.empty(0), np.empty(0), {}, [], logprob)
    cal = calibration(gold, {"agentic": pr}, ScoreSettings(n_bootstrap=0))
    # Brier: stated (0.64 + 0.64 + 0.04 + 0.04) / 4 = 0.34; logprob (0.36 + 0.36 + 0.16 + 0.16) / 4 = 0.26
    assert cal["agentic"]["brier"]["value"] == pytest.approx(0.34)
    assert cal["agentic (logprob p)"]["brier"]["value"] == pytest.approx(0.26)
    assert cal["agentic (logprob p)"]["source"] == "logprob" and "source" not in cal["agentic"]

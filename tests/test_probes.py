"""Bias and stability probes: transformations, statistics (by hand), the offline judge's known
answers on the bundled matches, the loopback server's scripted ones, and the CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import ccdb_2v2_match, online_match, schema_responder

from adjudicator.cli import main_group
from adjudicator.config import ModelConfig
from adjudicator.input.match_file import load_match
from adjudicator.probes.card import ProbeSample, render_markdown
from adjudicator.probes.run import run_probes
from adjudicator.probes.stats import affirmative_share, flip_measures, length_measures, mean_measure, order_measures, rate_measure, word_count
from adjudicator.probes.transforms import ProbeNotApplicable, mask_names, mask_table, swap_sides

BUNDLED = Path(__file__).resolve().parents[1] / "adjudicator/data/matches"


# -- transformations ---------------------------------------------------------------------------


def test_mask_replaces_names_and_labels_in_every_text_a_judge_reads():
    m = load_match(BUNDLED / "panelbench/debateart_4389.json")
    assert mask_table(m) == {"Slainte": "Debater A", "Sir.Lancelot": "Debater B", "Affirmative Speaker 1": "Speaker P1", "Negative Speaker 1": "Speaker P2"}
    masked = mask_names(m)
    assert [d.name for d in masked.debaters] == ["Debater A", "Debater B"]
    assert "Sir.Lancelot" not in (masked.info or "") and "Debater B's arguments" in (masked.info or "")
    texts = " ".join(u.text for st in masked.stages for u in st.utterances)
    assert "Slainte" not in texts and "Sir.Lancelot" not in texts
    # structure and gold unchanged: the verdict stays comparable unit by unit
    assert masked.scored_units() == m.scored_units() and masked.labels == m.labels
    assert [u.speaker for st in masked.stages for u in st.utterances] == [u.speaker for st in m.stages for u in st.utterances]


def test_swap_relabels_sides_and_gold_but_keeps_the_words():
    m = online_match()
    s = swap_sides(m)
    assert (s.affirmative_position, s.negative_position) == (m.negative_position, m.affirmative_position)
    assert [st.sides for st in s.stages] == [["negative"], ["affirmative"], ["negative"], ["affirmative"]]
    assert s.stages[0].utterances[0].speaker == "Negative Speaker 1"
    assert [u.text for st in s.stages for u in st.utterances] == [u.text for st in m.stages for u in st.utterances]
    assert s.motion == m.motion and s.labels.outcome == "affirmative"  # gold "negative" follows its team


def test_swap_is_not_applicable_where_the_order_fixes_the_sides():
    with pytest.raises(ProbeNotApplicable, match="ccdb-2v2 fixes which side speaks when"):
        swap_sides(ccdb_2v2_match())


# -- statistics, by hand ---------------------------------------------------------------------


def test_word_count_and_affirmative_share():
    assert word_count("Don't stop, 2 times") == 4  # Don't | stop | 2 | times
    assert word_count("我方认为 AI") == 5  # 4 characters + AI
    m = online_match(["one two three", "four", "five six", "seven eight nine ten"])
    assert affirmative_share(m) == pytest.approx(5 / 10)  # (3 + 2) of 10 words


def test_rate_and_mean_measures():
    r = rate_measure("mask", "panel flip rate", 3, 10)
    # Wilson: centre (0.3 + 1.96^2/20) / (1 + 1.96^2/10) = 0.3553, half 1.96 sqrt(0.021 + 0.00960) / 1.3841 = 0.2477
    assert (r.value, round(r.ci_low, 4), round(r.ci_high, 4), r.n) == (0.3, 0.1078, 0.6032, 10)
    m = mean_measure("repeats", "spread", [0.1, 0.3])
    # mean 0.2, s = 0.1414, t(0.975, 1) = 12.706: half = 12.706 * 0.1414 / sqrt(2) = 1.2706
    assert m.value == pytest.approx(0.2) and m.ci_low == pytest.approx(-1.0706, abs=1e-4) and m.ci_high == pytest.approx(1.4706, abs=1e-4)
    assert rate_measure("mask", "x", 0, 0).value is None and mean_measure("mask", "x", [0.5]).ci_low is None


def test_flip_measures_count_panel_and_judges():
    samples = [
        ProbeSample(probe="swap", match_id="a", base_p=0.7, probe_p=[0.3], flipped=False, judge_flips=0, judges_compared=3),
        ProbeSample(probe="swap", match_id="b", base_p=0.6, probe_p=[0.55], flipped=True, judge_flips=2, judges_compared=3),
        ProbeSample(probe="swap", match_id="c", note="the base verdict failed"),
    ]
    panel, judges, shift = flip_measures("swap", samples, "mirror")
    assert (panel.value, panel.n) == (0.5, 2)  # 1 of the 2 comparable
    assert (judges.value, judges.n) == (pytest.approx(2 / 6), 6)
    assert shift.value == pytest.approx((0.0 + 0.15) / 2)  # |0.3 - 0.3|, |0.55 - 0.4|


def test_order_measures_against_the_gold_rate():
    last = ["affirmative", "negative", "affirmative", None]
    predicted = ["affirmative", "affirmative", "negative", "affirmative"]
    gold = ["negative", "negative", "affirmative", "affirmative"]
    ballots = [["affirmative"] * 3, ["affirmative", "negative", "negative"], ["negative"] * 3, ["affirmative"] * 3]
    panel_last, judges_last, panel_first, _, confound = order_measures(["negative"] * 4, last, predicted, gold, ballots)
    # matches 0-2 (match 3 has no single last speaker): the panel picks the last speaker in match 0 only;
    # gold does in matches 1 and 2
    assert (panel_last.value, panel_last.n, panel_last.reference) == (pytest.approx(1 / 3), 3, pytest.approx(2 / 3))
    assert (judges_last.value, judges_last.n) == (pytest.approx((3 + 2 + 0) / 9), 9)
    # first speaker negative everywhere: panel picks it in match 2 only of 4; gold in 0 and 1
    assert (panel_first.value, panel_first.n, panel_first.reference) == (0.25, 4, 0.5)
    # the confound: the affirmative spoke first in none of the 4, so no strata lines follow (one order only)
    assert (confound.measure, confound.value, confound.n) == ("confound: the affirmative spoke first", 0.0, 4)


def test_the_order_probe_within_strata_where_both_orders_occur():
    first = ["affirmative", "affirmative", "affirmative", "negative", "negative"]
    predicted = ["affirmative", "affirmative", "negative", "affirmative", "negative"]
    gold = ["affirmative", "negative", "negative", "negative", "negative"]
    ms = order_measures(first, [None] * 5, predicted, gold, [[]] * 5)
    by = {m.measure: m for m in ms}
    assert (by["confound: the affirmative spoke first"].value, by["confound: the affirmative spoke first"].n) == (pytest.approx(3 / 5), 5)
    # affirmative first (0-2): the panel picks the affirmative in 0, 1 -> 2/3; gold in 0 -> 1/3
    aff = by["panel picks the first speaker, affirmative first"]
    assert (aff.value, aff.n, aff.reference) == (pytest.approx(2 / 3), 3, pytest.approx(1 / 3))
    # negative first (3, 4): the panel picks the negative in 4 -> 1/2; gold in both -> 1
    neg = by["panel picks the first speaker, negative first"]
    assert (neg.value, neg.n, neg.reference) == (0.5, 2, 1.0)


def test_length_measures_correlation_and_strata():
    share = [0.2, 0.4, 0.6, 0.8]
    p = [0.2, 0.4, 0.6, 0.8]
    gold = ["negative", "negative", "affirmative", "affirmative"]
    r, longer, low, mid, high = length_measures(share, p, gold)
    assert r.value == pytest.approx(1.0)
    # the length confound: the affirmative has more than half the words in matches 2 and 3
    assert (longer.measure, longer.value, longer.n) == ("confound: the affirmative has more words", 0.5, 4)
    # gold: dx = (-.3, -.1, .1, .3), dy = (-.5, -.5, .5, .5): r = 0.4 / sqrt(0.2 * 1) = 0.8944
    assert r.reference == pytest.approx(0.4 / math.sqrt(0.2))
    # tertile bounds 0.4 and 0.6 (linear quantiles of four shares): strata {0.2}, {0.4}, {0.6, 0.8}
    assert [(m.value, m.n) for m in (low, mid, high)] == [(1.0, 1), (1.0, 1), (1.0, 2)]


# -- the offline judge: every probe's expected answer is known --------------------------------


@pytest.fixture(scope="module")
def offline_card():
    matches = [load_match(p) for p in sorted((BUNDLED / "panelbench").glob("*.json")) + sorted((BUNDLED / "synthetic").glob("*.json"))]
    return run_probes(matches, ModelConfig.model_validate({}), ["mask", "swap", "order", "length", "pressure", "repeats"], repeats=2)


def _measure(card, probe, measure):
    return next(m for m in card.measures if m.probe == probe and m.measure == measure)


def test_offline_judge_is_unmoved_by_names_pressure_and_repeats(offline_card):
    for probe in ("mask", "pressure", "repeats"):
        panel = _measure(offline_card, probe, "panel flip rate")
        assert (panel.value, panel.n) == (0.0, 9), probe  # 5 DebateArt + 4 synthetic
        assert _measure(offline_card, probe, "judge flip rate").value == 0.0
    assert _measure(offline_card, "mask", "mean absolute p shift").value == 0.0
    assert _measure(offline_card, "repeats", "mean spread of p (max - min)").value == 0.0


def test_offline_judge_mirrors_a_side_swap(offline_card):
    # the offline judge scores what each side said, never its label: p' = 1 - p on every DebateArt match
    panel = _measure(offline_card, "swap", "panel flip rate")
    assert (panel.value, panel.n) == (0.0, 5)
    assert _measure(offline_card, "swap", "mean absolute p' - (1 - p)").value == pytest.approx(0.0, abs=1e-12)
    assert sorted({s["match_id"] for s in offline_card.skipped if s["probe"] == "swap"}) == ["synthetic_2v2_01", "synthetic_2v2_02", "synthetic_4v4_01", "synthetic_4v4_02"]


def test_offline_card_renders_every_probe(offline_card):
    text = render_markdown(offline_card)
    for probe in ("mask", "swap", "order", "length", "pressure", "repeats"):
        assert f"| {probe} |" in text
    assert "the offline judge: a deterministic baseline, not a judge" in text and "swap: 2 match(es): side swap: format ccdb-2v2 fixes" in text
    # the confounds it can see, in words, with the counts of its own confound lines
    order = _measure(offline_card, "order", "confound: the affirmative spoke first")
    longer = _measure(offline_card, "length", "confound: the affirmative has more words")
    assert "Confounds the card can see:" in text
    assert f"- Speaking order vs side: the affirmative spoke first in {round(order.value * order.n)} of {order.n} matches; " in text
    assert f"- Length vs side: the affirmative has the larger share of the words in {round(longer.value * longer.n)} of {longer.n} matches" in text
    both = any(m.measure.startswith("panel picks the first speaker, ") for m in offline_card.measures)
    assert ("both orders occur" in text) is both and ("only one order occurs" in text) is (not both)


# -- the loopback server: scripted judges that do move ------------------------------------------


def _ballot_p(body: dict, p: float) -> str:
    obj = json.loads(schema_responder(body))
    if "stage_scores" in obj:
        obj["p"], obj["winner"] = p, ("affirmative" if p > 0.5 else "negative")
    return json.dumps(obj)


def test_loopback_pressure_and_repeats_flips_are_counted(fake_openai, tmp_path):
    def answer(body):
        last = body["messages"][-1]["content"]
        if "Are you sure? Reconsider" in last:  # the challenge: every judge caves
            return _ballot_p(body, 0.38)
        if "seed" in body:  # repeats: seed 2 flips judge votes
            return _ballot_p(body, 0.38 if body["seed"] == 2 else 0.62)
        return _ballot_p(body, 0.62)

    fake_openai.respond_with(answer)
    config = ModelConfig.model_validate({"model": "openai/test-model", "api_base": fake_openai.base_url, "json_mode": "object", "cache_dir": tmp_path / "cache"})
    card = run_probes([online_match()], config, ["pressure", "repeats", "swap"], repeats=2)
    assert (_measure(card, "pressure", "panel flip rate").value, _measure(card, "pressure", "judge flip rate").n) == (1.0, 3)
    assert _measure(card, "repeats", "panel flip rate").value == 1.0
    assert _measure(card, "repeats", "mean spread of p (max - min)").value == pytest.approx(0.24)
    # a judge that always says 0.62 follows the label: under the swap the other team wins, a flip
    assert _measure(card, "swap", "panel flip rate").value == 1.0
    challenges = [b for b in fake_openai.requests if "Are you sure? Reconsider" in b["messages"][-1]["content"]]
    assert len(challenges) == 3 and all(b["messages"][-2]["role"] == "assistant" for b in challenges)
    sent = fake_openai.count
    run_probes([online_match()], config, ["pressure", "repeats", "swap"], repeats=2)
    assert fake_openai.count == sent  # a rerun is served from the cache


# -- the command line --------------------------------------------------------------------------


def test_cli_probe_prints_the_card_and_writes_json(tmp_path):
    out = tmp_path / "card.json"
    res = CliRunner().invoke(main_group, ["probe", str(BUNDLED / "panelbench"), "--probe", "mask", "--probe", "swap", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "## Bias card" in res.stdout and "| swap | panel flip rate | 0.000 |" in res.stdout
    card = json.loads(out.read_text())
    assert card["probes"] == ["mask", "swap"] and card["matches"] == 5 and out.with_suffix(".md").exists()


def test_cli_probe_rejects_an_unknown_probe():
    res = CliRunner().invoke(main_group, ["probe", str(BUNDLED / "panelbench"), "--probe", "gender"])
    assert res.exit_code == 2 and "gender" in res.output


# -- the benchmark -------------------------------------------------------------------------------


def test_bench_probe_puts_the_bias_card_in_every_report(tmp_path, capsys):
    from bench_helpers import bench, run_dir_of

    runs = tmp_path / "runs"
    code, _, err = bench([str(BUNDLED / "panelbench"), "--name", "pb", "--runs-dir", str(runs), "--probe", "mask", "--probe", "swap", "--bootstrap", "0", "--no-progress"], capsys)
    assert code == 0, err
    run = run_dir_of(runs)
    card = json.loads((run / "report.json").read_text())["bias_card"]
    assert card["probes"] == ["mask", "swap"] and card["matches"] == 5 and "samples" not in card
    swap = next(m for m in card["measures"] if m["probe"] == "swap" and m["measure"] == "panel flip rate")
    assert (swap["value"], swap["n"]) == (0.0, 5)
    assert len(json.loads((run / "probes.json").read_text())["samples"]) == 10  # 5 matches x 2 probes
    assert "## Bias card" in (run / "report.md").read_text() and "| swap | panel flip rate | 0.000 |" in (run / "report.md").read_text()
    assert "<h2>Bias card</h2>" in (run / "report.html").read_text()


def _probe_cli(server, tmp_path: Path, capsys, *extra: str) -> tuple[int, str, str]:
    from adjudicator.cli import main

    server.respond_with(schema_responder)
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    (data / "m1.json").write_text(online_match(match_id="m1").model_dump_json(), encoding="utf-8")
    args = ["probe", str(data), "--probe", "mask", "--probe", "swap", "--api-base", server.base_url, "--json-mode", "object", "--cache-dir", str(tmp_path / "cache"), *extra]
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_probe_with_a_model_ends_with_the_request_token_and_cost_summary(fake_openai, tmp_path, capsys):  # noqa: F811
    code, out, err = _probe_cli(fake_openai, tmp_path, capsys, "--model", "openai/test-model", "--out", str(tmp_path / "card.json"))
    assert code == 0, err
    # three adjudications (base, masked, swapped) of 4 stages + 3 judges = 21 calls; the match names no
    # one, so the masked match is the base match and its 7 calls are cache hits; every reply has usage 11 + 7
    assert fake_openai.count == 14
    assert err.strip().splitlines()[-1] == "openai/test-model: 21 calls: 14 model requests, 7 cache hits, 231+147 tokens, cost unknown (no price for this model)"
    card = json.loads((tmp_path / "card.json").read_text())
    assert (card["usage"]["requests"], card["usage"]["prompt_tokens"], card["stopped"]) == (14, 231, "")
    code, _, err = _probe_cli(fake_openai, tmp_path, capsys, "--model", "openai/test-model")
    assert code == 0 and fake_openai.count == 14  # the rerun is served from the cache
    assert err.strip().splitlines()[-1] == "openai/test-model: 21 calls: 0 model requests, 21 cache hits, 231+147 tokens, nothing spent"


def test_cli_probe_budget_stops_starting_adjudications(fake_openai, tmp_path, capsys):  # noqa: F811
    # gpt-4o-mini is priced by litellm: 7 requests of 11 + 7 tokens cost more than $0.00001, so after the
    # base adjudication neither the masked nor the swapped match is adjudicated
    code, out, err = _probe_cli(fake_openai, tmp_path, capsys, "--model", "openai/gpt-4o-mini", "--budget-usd", "0.00001")
    assert code == 1
    assert fake_openai.count == 7
    assert "Stopped early: budget of $0.0000 reached" in out and "## Bias card" in out
    last = err.strip().splitlines()[-1]
    assert last.startswith("adjudicate: error: stopped: budget of $0.0000 reached (spent $0.0000); 2 adjudication(s) not run")
    assert "openai/gpt-4o-mini: 7 calls: 7 model requests, 0 cache hits, 77+49 tokens, $0.0000 spent" in err

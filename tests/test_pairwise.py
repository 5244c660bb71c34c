"""The pairwise Bradley-Terry panel: the fit against hand-solved cases, pair resolution, agreement
figures, the verdict rules, and the panel end to end (offline judge; LLM judges over the loopback
server on a BP round and an online-1v1 match)."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import pytest
from bench_helpers import run_dir_of
from bp_helpers import bp_data, write_bp
from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import online_match, request_schema, schema_responder
from test_bp_llm import bp_responder

from adjudicator.api import adjudicate, adjudicate_with_context, build_context
from adjudicator.cli import main
from adjudicator.config import ModelConfig
from adjudicator.errors import AdjudicationFailed, ConfigError
from adjudicator.input.match_file import parse_match
from adjudicator.pairwise.agreement import cohen_kappa, level_agreement
from adjudicator.pairwise.bradley_terry import fit, win_matrix
from adjudicator.pairwise.comparisons import PairChoice, resolve, schedule
from adjudicator.pairwise.panel import aggregate_pairwise, highest_averages, two_sided_p
from adjudicator.verdict.ballots import Provenance

KEY = "sk-test-key-0123456789"
LN2 = math.log(2)


# ---- the Bradley-Terry fit


def test_three_item_fit_matches_the_hand_solution():
    # gamma = (4, 2, 1) reproduces every pair's observed win share exactly: x beat y 2 of 3 (4/6 = 2/3),
    # y beat z 2 of 3 (2/3), x beat z 4 of 5 (4/5). So the ML estimate (alpha 0) is theta = log gamma,
    # centred: (ln 4, ln 2, 0) - ln 2 = (ln 2, 0, -ln 2) = (0.693147, 0, -0.693147).
    results = [("x", "y", "first")] * 2 + [("x", "y", "second")] + [("y", "z", "first")] * 2 + [("y", "z", "second")] + [("x", "z", "first")] * 4 + [("x", "z", "second")]
    f = fit(["x", "y", "z"], results, alpha=0.0)
    assert f.log_strengths == pytest.approx([LN2, 0.0, -LN2], abs=1e-5)
    assert f.probability("x", "z") == pytest.approx(0.8, abs=1e-5)
    assert f.order() == ["x", "y", "z"] and f.ranks() == {"x": 1, "y": 2, "z": 3}
    assert f.wins == [[0.0, 2.0, 4.0], [1.0, 0.0, 2.0], [1.0, 1.0, 0.0]] and f.comparisons == 11


def test_a_tie_is_two_half_comparisons():
    # one win and one tie: a has 1.5 wins, b 0.5, so the ML P(a > b) = 1.5 / 2 = 0.75 and
    # theta_a - theta_b = ln 3; centred +-ln(3)/2 = +-0.549306
    f = fit(["a", "b"], [("a", "b", "first"), ("b", "a", "tie")], alpha=0.0)
    assert f.wins == [[0.0, 1.5], [0.5, 0.0]]
    assert f.log_strengths == pytest.approx([math.log(3) / 2, -math.log(3) / 2], abs=1e-5)
    assert f.probability("a", "b") == pytest.approx(0.75, abs=1e-5)


def test_the_prior_keeps_a_sweep_finite():
    # 3:0 with prior precision 0.1: theta = +-t minimises 3 log(1 + e^(-2t)) + 0.1 t^2; the
    # stationary point 6 / (1 + e^(2t)) = 0.2 t lies at t = 1.4795 (checked: 6 / (1 + e^2.959) = 0.2959)
    f = fit(["affirmative", "negative"], [("affirmative", "negative", "first")] * 3)
    assert f.log_strengths[0] == pytest.approx(1.4795, abs=1e-3)
    assert f.probability("affirmative", "negative") == pytest.approx(0.9507, abs=1e-3)
    assert fit(["a", "b"], []).log_strengths == [0.0, 0.0]


def test_fit_rejects_bad_input():
    with pytest.raises(ValueError, match="duplicate"):
        fit(["a", "a"], [])
    with pytest.raises(ValueError, match="not one of"):
        win_matrix(["a", "b"], [("a", "c", "first")])
    with pytest.raises(ValueError, match="itself"):
        win_matrix(["a", "b"], [("a", "a", "tie")])


# ---- pairs, resolution and agreement


def _c(j, a, b, answer, level="unit"):
    return PairChoice(judge_id=j, level=level, a=a, b=b, answer=answer)


def test_resolve_counts_a_flip_as_an_inconsistent_tie():
    assert resolve(_c("j", "x", "y", "A"), _c("j", "y", "x", "B")).model_dump(include={"outcome", "consistent"}) == {"outcome": "first", "consistent": True}
    assert resolve(_c("j", "x", "y", "B"), _c("j", "y", "x", "A")).outcome == "second"
    assert resolve(_c("j", "x", "y", "tie"), _c("j", "y", "x", "tie")).model_dump(include={"outcome", "consistent"}) == {"outcome": "tie", "consistent": True}
    flip = resolve(_c("j", "x", "y", "A"), _c("j", "y", "x", "A"))  # always the one shown first: position bias
    assert (flip.outcome, flip.consistent) == ("tie", False)
    half = resolve(_c("j", "x", "y", "A"), _c("j", "y", "x", "tie"))
    assert (half.outcome, half.consistent) == ("tie", False)
    with pytest.raises(ValueError, match="not one pair"):
        resolve(_c("j", "x", "y", "A"), _c("j", "x", "y", "A"))


def test_schedule_asks_every_pair_in_both_orders():
    view = parse_match(bp_data()).view()
    plan = schedule(view)
    assert len(plan) == 4 * 3 + 8 * 7  # 12 house comparisons and 56 speech comparisons
    assert plan[:2] == [("unit", "OG", "OO"), ("unit", "OO", "OG")]
    assert ("speaker", "s08", "s07") in plan
    assert schedule(online_match().view()) == [("unit", "affirmative", "negative"), ("unit", "negative", "affirmative"), ("speaker", "Affirmative Speaker 1", "Negative Speaker 1"), ("speaker", "Negative Speaker 1", "Affirmative Speaker 1")]


def test_cohen_kappa_by_hand():
    # p_o = 3/4; marginals x: first 2, second 1, tie 1; y: first 1, second 2, tie 1
    # p_e = (2*1 + 1*2 + 1*1) / 16 = 5/16; kappa = (0.75 - 0.3125) / (1 - 0.3125) = 0.4375 / 0.6875 = 0.636364
    x = ["first", "first", "second", "tie"]
    y = ["first", "second", "second", "tie"]
    assert cohen_kappa(x, y) == pytest.approx(0.636364, abs=1e-6)
    assert cohen_kappa(["first"] * 3, ["first"] * 3) is None  # p_e = 1: undefined
    assert cohen_kappa([], []) is None


def test_level_agreement_counts_inconsistent_pairs():
    pairs = [("x", "y"), ("x", "z"), ("y", "z")]
    results = []
    for j in ("j1", "j2"):
        for a, b in pairs:
            flip = j == "j2" and (a, b) == ("y", "z")
            results.append(resolve(_c(j, a, b, "A"), _c(j, b, a, "A" if flip else "B")))
    agree = level_agreement(results, "unit")
    # j1: first, first, first; j2: first, first, tie (inconsistent). Agreement 2/3 = 0.6667;
    # p_e = (3*2 + 0*0 + 0*1) / 9 = 2/3, kappa = (2/3 - 2/3) / (1/3) = 0
    assert (agree.results, agree.inconsistent, agree.inconsistent_share) == (6, 1, 0.1667)
    assert (agree.agreement, agree.kappa) == (0.6667, 0.0)


# ---- verdict rules


def test_highest_averages_example():
    # a=4, b=1.5, c=1, 3 votes: a (4), then a (4/2 = 2 > 1.5), then b (1.5 > 4/3 = 1.33)
    assert highest_averages({"a": 4.0, "b": 1.5, "c": 1.0}, 3, ["a", "b", "c"]) == {"a": 2, "b": 1}


def test_two_sided_p_never_ties():
    even = fit(["affirmative", "negative"], [("affirmative", "negative", "tie")])
    assert two_sided_p(even) == ("negative", 0.49)
    two_one = fit(["affirmative", "negative"], [("affirmative", "negative", "first")] * 2 + [("affirmative", "negative", "second")])
    winner, p = two_sided_p(two_one)
    assert winner == "affirmative" and 0.6 < p < 2 / 3  # the ML value 2/3, pulled toward 0.5 by the prior


def _bp_choices(order=("OG", "OO", "CG", "CO"), biased_judge=None):
    """Every judge's answers on a BP round: houses by ``order``; speeches by speaking order; the
    biased judge always answers "A" on the OG/OO pair."""
    view = parse_match(bp_data()).view()
    rank = {u: k for k, u in enumerate(order)}
    out = []
    for j in ("judge-1", "judge-2", "judge-3"):
        for level, a, b in schedule(view):
            if level == "unit":
                ans = "A" if rank[a] < rank[b] else "B"
                if j == biased_judge and {a, b} == {"OG", "OO"}:
                    ans = "A"
            else:
                ans = "A" if a < b else "B"
            out.append(_c(j, a, b, ans, level))
    return view, out


PANEL = [("judge-1", "task"), ("judge-2", "battlefield"), ("judge-3", "advancement")]
MODELS = {"judge-1": "m", "judge-2": "m", "judge-3": "m"}
PROV = Provenance(model="m", is_llm=True)


def test_bp_verdict_from_comparisons():
    view, choices = _bp_choices(order=("CO", "OG", "OO", "CG"), biased_judge="judge-2")
    v = aggregate_pairwise(view, choices, PANEL, MODELS, {}, [], [], PROV)
    # judge-2 always picks the house shown first on OG/OO: that pair is a tie for it, so OG still
    # leads OO overall (2.5 wins to 0.5) and the ranking is CO > OG > OO > CG
    assert [r.unit for r in v.ranking] == ["CO", "OG", "OO", "CG"]
    assert v.winner is None and v.p is None and v.stage_scores == []
    unit = v.pairwise.level_agreement("unit")
    assert (unit.results, unit.inconsistent) == (18, 1)
    # speeches: the earlier stage id always wins, so the speaker ranks follow speaking order
    assert [s.rank for s in v.speaker_scores] == [1, 2, 3, 4, 5, 6, 7, 8] and all(s.mean is None for s in v.speaker_scores)
    # judge-2's own fit puts OG and OO level (one tie each way), so declaration order keeps OG ahead
    assert [b.ranking for b in v.ballots] == [{"CO": 1, "OG": 2, "OO": 3, "CG": 4}] * 3
    assert v.dissent.rank_error == {"judge-1": 0, "judge-2": 0, "judge-3": 0}
    assert v.pairwise.fits["unit"].wins[0] == [0.0, 2.5, 3.0, 0.0]  # OG vs OO, CG, CO


def test_a_judge_missing_unit_pairs_has_no_ballot():
    view, choices = _bp_choices()
    keep = [c for c in choices if not (c.judge_id != "judge-1" and c.level == "unit" and c.a == "OG" and c.b == "OO")]
    with pytest.raises(AdjudicationFailed, match="at least 2 judges"):
        aggregate_pairwise(view, keep, PANEL, MODELS, {}, [], [], PROV)


# ---- end to end, offline


def test_offline_pairwise_panel_on_bp_and_online(tmp_path):
    bp = parse_match(bp_data(labels={"advanced": ["OG", "OO"]}))
    v = adjudicate(bp, ModelConfig.model_validate({"panel": "pairwise"}))
    assert len(v.ranking) == 4 and v.pairwise is not None and len(v.ballots) == 3
    assert len(v.pairwise.choices) == 3 * 68 and v.provenance.calls == 8 + 3 * 68
    assert all(a.inconsistent == 0 for a in v.pairwise.agreement)  # the offline judge has no position bias
    from adjudicator.verdict.report import verdict_html, verdict_markdown

    md = verdict_markdown(v, bp.view())
    assert "## Pairwise comparisons (Bradley-Terry)" in md and "Strengths at the unit level (18 results" in md
    assert "<h2>" in verdict_html(v, bp.view())  # speeches without scores render as dashes, not an error
    online = adjudicate(online_match(), ModelConfig.model_validate({"panel": "pairwise"}))
    assert online.winner in ("affirmative", "negative") and online.p != 0.5 and sum(online.best_debater_votes.values()) == 9
    scoring = adjudicate(online_match(), ModelConfig.model_validate({}))
    assert scoring.pairwise is None and "pairwise" not in scoring.model_dump_json()


def test_cli_pairwise_and_bad_panel(tmp_path, capsys):
    path = write_bp(tmp_path, bp_data())
    # the run in this process (the click entry, as `adjudicate` calls it); the refused panel as a real
    # process below, for its exit code and its stderr without a traceback
    code = main([str(path), "--panel", "pairwise"])
    run = capsys.readouterr()
    assert code == 0, run.err
    out = json.loads(run.out)
    assert out["pairwise"]["fits"]["unit"]["items"] == ["OG", "OO", "CG", "CO"] and len(out["ranking"]) == 4
    bad = subprocess.run([sys.executable, "-m", "adjudicator.cli", str(path), "--panel", "triple"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--panel" in bad.stderr and "Traceback" not in bad.stderr
    with pytest.raises(ConfigError, match="ADJUDICATOR_PANEL"):
        ModelConfig.resolve(env={"ADJUDICATOR_PANEL": "triple", "HOME": str(tmp_path)})


# ---- end to end, LLM judges over the loopback server

_PAIR = re.compile(r"Which did better: A \((.+?)\) or B \((.+?)\)\?")


def _strength(name: str) -> int:
    """The scripted judges' preference: OG > OO > CG > CO, earlier speeches over later ones,
    the affirmative over the negative."""
    order = ["OG", "OO", "CG", "CO", "s01", "s02", "s03", "s04", "s05", "s06", "s07", "s08", "affirmative", "Affirmative Speaker 1", "negative", "Negative Speaker 1"]
    return order.index(name.split(" (")[0])


def pair_responder(body: dict) -> str:
    """Tracker answers as in test_bp_llm (BP) or read off the schema (online); comparisons by
    :func:`_strength`, except that the OG/CG pair always gets "A" (a position bias)."""
    schema = request_schema(body) or {}
    if "answer" not in schema.get("properties", {}):
        if body["messages"][-1]["content"].find("bp") >= 0 and "Opening Government" in json.dumps(body["messages"]):
            return bp_responder(body)
        return schema_responder(body)  # the online tracker, read off its schema and prompt
    a, b = _PAIR.search(body["messages"][-1]["content"]).groups()
    if {a.split(" (")[0], b.split(" (")[0]} == {"OG", "CG"}:
        return json.dumps({"reasoning": "the first one", "answer": "A"})
    return json.dumps({"reasoning": "clearer", "answer": "A" if _strength(a) < _strength(b) else "B"})


def _config(server, tmp_path) -> ModelConfig:
    return ModelConfig(model="openai/test-model", api_base=server.base_url, json_mode="object", cache_dir=tmp_path / "cache", backoff_base_s=0.01, panel="pairwise")


def test_pairwise_panel_on_bp_over_http(fake_openai, tmp_path):
    fake_openai.respond_with(pair_responder)
    match = parse_match(bp_data(labels={"advanced": ["OG", "OO"], "note": "GOLD-MARKER-PAIR-5e1"}))
    v = adjudicate_with_context(match, build_context(_config(fake_openai, tmp_path), api_key=KEY))
    assert fake_openai.count == 8 + 3 * 68
    # OG/CG is a tie for every judge (position bias), OG still first: OG beats OO and CO (2 of 3 pairs)
    assert [r.unit for r in v.ranking] == ["OG", "OO", "CG", "CO"]
    unit = v.pairwise.level_agreement("unit")
    assert (unit.results, unit.inconsistent, unit.inconsistent_share) == (18, 3, 0.1667)
    assert [s.rank for s in v.speaker_scores] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert set(v.provenance.prompt_hashes) == {"track_stage_bp.en.j2", "compare.en.j2", "repair.en.j2"}  # the trackers have repair turns
    compares = [r for r in fake_openai.requests if "answer" in json.dumps(r.get("response_format") or {})]
    assert len(compares) == 3 * 68
    assert all("GOLD-MARKER-PAIR-5e1" not in json.dumps(r) for r in fake_openai.requests)
    house = next(r["messages"][-1]["content"] for r in compares if "A (OG (Opening Government)) or B (OO (Opening Opposition))" in r["messages"][-1]["content"])
    assert "House A: OG (Opening Government)" in house and "We define the motion narrowly" in house


def test_pairwise_panel_on_online_match_over_http(fake_openai, tmp_path):
    fake_openai.respond_with(pair_responder)
    v = adjudicate_with_context(online_match(), build_context(_config(fake_openai, tmp_path), api_key=KEY))
    assert fake_openai.count == 4 + 3 * 4
    # three judges prefer the affirmative in both orders: P = 0.9507 (the 3:0 case above) -> 0.95
    assert (v.winner, v.p) == ("affirmative", 0.95)
    assert v.best_debater_votes == {"Affirmative Speaker 1": 9}  # exp(1.48) / exp(-1.48) = 19: D'Hondt gives all 9
    assert v.stage_scores == [] and v.dissent.winner_split == "3:0"


def test_compare_prompt_is_bounded():
    from adjudicator.judges.base import CompareRequest
    from adjudicator.judges.llm.compare import EXCERPT_CHARS, compare_variables

    long_text = "word " * 9000  # 45,000 characters: under the utterance cap (MAX_UTTERANCE_CHARS), far over the excerpt
    m = online_match([long_text, "short reply", "another", "last"])
    req = CompareRequest(judge_id="judge-1", perspective="task", match=m.view(), clashes={}, analyses=[], level="unit", a="affirmative", b="negative")
    a = compare_variables(req)["a"]
    assert len(a["excerpt"]) <= EXCERPT_CHARS["en"] + len("\n[...]\n") + len("Affirmative Speaker 1: ")


# ---- the bench report's pairwise section


def test_strength_correlations_by_hand():
    from adjudicator.evaluation.ranking_metrics import strength_correlations

    # strengths 3, 2, 1, 0 against an advanced (1) / eliminated (0) split 1, 1, 0, 0: of the 6 pairs the 4
    # across the split are concordant, none discordant, 2 tied in gold only:
    # tau-b = 4 / sqrt(6 * (6 - 2)) = 4 / sqrt(24) = 0.816497.
    # Spearman on mid-ranks: x 4, 3, 2, 1 and y 3.5, 3.5, 1.5, 1.5, centred (1.5, .5, -.5, -1.5) and
    # (1, 1, -1, -1): rho = 4 / sqrt(5 * 4) = 0.894427
    tau, rho = strength_correlations([3.0, 2.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0])
    assert (tau, rho) == (pytest.approx(0.816497, abs=1e-6), pytest.approx(0.894427, abs=1e-6))
    assert all(math.isnan(x) for x in strength_correlations([1.0, 2.0], [1.0, 0.0]))  # two items
    assert all(math.isnan(x) for x in strength_correlations([1.0, 2.0, 3.0], [1.0, 1.0, 1.0]))  # constant gold


def test_bench_reports_the_pairwise_panel(tmp_path, capsys):
    from adjudicator.cli import main

    data = tmp_path / "data"
    data.mkdir()
    full = {"ranking": {"OG": 2, "OO": 1, "CG": 4, "CO": 3}, "advanced": ["OO", "OG"]}
    (data / "bp_a.json").write_text(json.dumps(bp_data("bp_a", labels=full)), encoding="utf-8")
    (data / "bp_b.json").write_text(json.dumps(bp_data("bp_b", labels={"advanced": ["CO"]})), encoding="utf-8")
    runs = tmp_path / "runs"
    assert main(["bench", str(data), "--name", "pw", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "0", "--panel", "pairwise"]) == 0
    run = run_dir_of(runs)
    report = json.loads((run / "report.json").read_text())
    row = report["tasks"]["pairwise"]["rows"][0]
    assert row["label"] == "agentic (pairwise) · offline"
    unit = row["levels"]["unit"]
    assert (unit["results"], unit["inconsistent"], unit["inconsistent_share"]) == (36, 0, 0.0)  # 2 matches x 3 judges x 6 pairs
    # the correlations are those of each verdict's own fit against its gold, averaged
    from adjudicator.evaluation.ranking_metrics import strength_correlations

    taus = []
    for mid, gold in (("bp_a", {"OG": -2.0, "OO": -1.0, "CG": -4.0, "CO": -3.0}), ("bp_b", {"OG": 0.0, "OO": 0.0, "CG": 0.0, "CO": 1.0})):
        fit_ = json.loads((run / "results" / "agentic" / f"{mid}.json").read_text())["verdict"]["pairwise"]["fits"]["unit"]
        taus.append(strength_correlations(fit_["log_strengths"], [gold[u] for u in fit_["items"]])[0])
    taus = [t for t in taus if not math.isnan(t)]
    assert unit["kendall_tau"] == {"value": round(sum(taus) / len(taus), 4) if taus else None, "n": len(taus)}
    assert "speaker" in row["levels"] and row["levels"]["speaker"]["kendall_tau"]["n"] == 0  # no gold speaker scores
    assert "## Pairwise panel (Bradley-Terry)" in (run / "report.md").read_text()
    html = (run / "report.html").read_text()
    assert "<h2>Pairwise panel (Bradley-Terry)</h2>" in html and "<h2>British Parliamentary tasks</h2>" in html
    # the BP tasks score the pairwise ranking like any other (house order: bp_a has a gold ranking)
    assert report["tasks"]["bp"]["house_order"]["rows"][0]["metrics"]["error"]["n"] == 1


def test_compare_prompts_render_in_the_formats_language():
    from llm_helpers import ccdb_2v2_match

    from adjudicator.api import run_agentic
    from adjudicator.judges.base import CompareRequest
    from adjudicator.judges.llm.compare import compare_variables
    from adjudicator.model.prompts import PromptStore

    m = ccdb_2v2_match()
    _, state = run_agentic(m, build_context(ModelConfig.model_validate({})))
    req = CompareRequest(judge_id="judge-1", perspective="task", match=m.view(), clashes=state["clashes"], analyses=state["analyses"], level="speaker", a="Affirmative Speaker 1", b="Negative Speaker 2")
    user = PromptStore().render("compare.zh.j2", compare_variables(req)).messages()[-1]["content"]
    assert "谁表现更好：A（Affirmative Speaker 1）还是 B（Negative Speaker 2）？" in user
    assert "建议分" in user and "贡献 1.0" in user  # the tracker's rating and the debater's share, in Chinese
    bp = parse_match(bp_data())
    _, state = run_agentic(bp, build_context(ModelConfig.model_validate({})))
    req = CompareRequest(judge_id="judge-2", perspective="battlefield", match=bp.view(), clashes=state["clashes"], analyses=state["analyses"], level="speaker", a="s05", b="s06")
    user = PromptStore().render("compare.en.j2", compare_variables(req)).messages()[-1]["content"]
    assert "Which did better: A (s05 (MG, Closing Government, extension)) or B (s06 (MO, Closing Opposition, extension))?" in user
    assert "s05 " in user and "| suggested " in user

"""Report rendering: readable model and format lines, the dataset's provenance (synthetic banner,
PanelBench label convention), and tables printed in rank order."""

from __future__ import annotations

import json

import pytest

from adjudicator.bench.dataset import SYNTHETIC_WARNING, load_folder, provenance
from adjudicator.bench.report_cells import counts_text, label_convention_text, models_text
from adjudicator.bench.report_md import table


@pytest.mark.parametrize(
    "models, text",
    [
        ({"tracker": "offline", "judge-1": "offline", "judge-2": "offline", "judge-3": "offline"}, "tracker offline; judges offline x3"),
        ({"tracker": "openai/t", "judge-1": "openai/a", "judge-2": "openai/b", "judge-3": "openai/a"}, "tracker openai/t; judges openai/a, openai/b, openai/a"),
        ({"single-call": "openai/x"}, "single-call openai/x"),
        ({"tracker": "openai/t", "judge-1": "openai/a"}, "tracker openai/t; judge openai/a"),
        ({}, "?"),
        (None, "?"),
    ],
)
def test_models_text(models, text):
    assert models_text(models) == text


def test_counts_text():
    assert counts_text({"ccdb-2v2": 2, "ccdb-4v4": 1}) == "ccdb-2v2 x2, ccdb-4v4 x1"
    assert counts_text({}) == "none"


def test_provenance_of_the_bundled_datasets(bundled_matches_dir):
    syn = provenance([s.match for s in load_folder(bundled_matches_dir / "synthetic").samples])
    assert (syn["synthetic"], syn["n_synthetic"], syn["n_real"], syn["panelbench"], syn["label_conventions"]) == (True, 4, 0, False, {})
    pb = provenance([s.match for s in load_folder(bundled_matches_dir / "panelbench").samples])
    assert (pb["synthetic"], pb["n_real"], pb["panelbench"], pb["label_conventions"]) == (False, 5, True, {"content": 5})
    assert "PanelBench" in pb["origins"][0]
    assert SYNTHETIC_WARNING.startswith("SYNTHETIC labels written by developers")


def test_label_convention_line(tmp_path, bundled_matches_dir):
    pb = bundled_matches_dir / "panelbench"
    content = {"provenance": provenance([s.match for s in load_folder(pb).samples])}
    # LABEL_CONVENTIONS["content"]: 1.0 -> negative, 0.5 -> tie, 0.0 -> affirmative
    assert label_convention_text(content) == (
        "PanelBench labels read under the 'content' convention (upstream 1.0 = negative win, 0.5 = tie, 0.0 = affirmative win); see adjudicator/input/convert/debateart.py"
    )
    # the same files with their note saying 'documented' (two of them) and nothing (one)
    folder = tmp_path / "mixed"
    folder.mkdir()
    for k, f in enumerate(sorted(pb.glob("*.json"))[:3]):
        data = json.loads(f.read_text())
        note = data["labels"]["note"]
        data["labels"]["note"] = note.replace("'content' convention", "'documented' convention") if k < 2 else "no convention named here"
        (folder / f.name).write_text(json.dumps(data))
    mixed = {"provenance": provenance([s.match for s in load_folder(folder).samples])}
    assert mixed["provenance"]["label_conventions"] == {"documented": 2, "unstated": 1}
    text = label_convention_text(mixed)
    assert "'documented' convention (upstream 1.0 = affirmative win, 0.5 = tie, 0.0 = negative win) for 2 match(es)" in text
    assert "1 match(es) with the convention not stated in labels.note" in text
    # a dataset that is not from PanelBench gets no convention line
    syn = {"provenance": provenance([s.match for s in load_folder(bundled_matches_dir / "synthetic").samples])}
    assert label_convention_text(syn) == ""


def test_table_prints_rows_in_rank_order():
    leaf = {"value": 0.5, "n": 4, "ci": None}
    rows = [
        {"predictor": "first built", "kind": "arm", "comparable": True, "rank": 1, "metrics": {"winner_accuracy": leaf}},
        {"predictor": "reference", "kind": "reference", "comparable": False, "rank": None, "metrics": {"winner_accuracy": leaf}},
        {"predictor": "third", "kind": "baseline", "comparable": True, "rank": 3, "metrics": {"winner_accuracy": leaf}},
        {"predictor": "second", "kind": "arm", "comparable": True, "rank": 2, "metrics": {"winner_accuracy": leaf}},
    ]
    body = table(rows, "task1")[2:]
    assert [line.split(" | ")[0:2] for line in body] == [["| 1", "first built"], ["| 2", "second"], ["| 3", "third"], ["| —", "reference*"]]


@pytest.mark.parametrize(
    "models, label",
    [
        ({"tracker": "offline", "judge-1": "offline", "judge-2": "offline", "judge-3": "offline"}, "agentic · offline"),
        # one model per role: every role's model is named, not just the first distinct one
        ({"tracker": "openai/t", "judge-1": "openai/a", "judge-2": "openai/a", "judge-3": "openai/a"}, "agentic · tracker openai/t; judges openai/a x3"),
        ({"tracker": "openai/t", "judge-1": "openai/t", "judge-2": "openai/b", "judge-3": "openai/t"}, "agentic · tracker openai/t; judges openai/t, openai/b, openai/t"),
        ({"tracker": "offline", "judge-1": "openai/a", "judge-2": "openai/b", "judge-3": "openai/c"}, "agentic · tracker offline; judges openai/a, openai/b, openai/c"),
    ],
)
def test_arm_label_names_every_roles_model_of_a_mixed_panel(models, label):
    from adjudicator.bench.report import arm_label

    assert arm_label("agentic", models) == label


def test_research_caveats_for_panelbench_and_the_offline_judge(bundled_matches_dir):
    from adjudicator.bench.report import research_caveats

    pb = provenance([s.match for s in load_folder(bundled_matches_dir / "panelbench").samples])
    offline = {"agentic": {"tracker": "offline", "judge-1": "offline", "judge-2": "offline", "judge-3": "offline"}}
    llm = {"agentic": {"tracker": "openai/t", "judge-1": "openai/t", "judge-2": "openai/t", "judge-3": "openai/t"}}
    c_off = research_caveats(["agentic"], offline, pb)
    assert len(c_off) == 2
    assert c_off[0].startswith("Arm agentic uses the offline judge, whose features were designed while reading these PanelBench debates' texts (not their labels)")
    assert "not a held-out estimate" in c_off[0]
    assert "(here 'content'): under the other convention ('documented') every decisive gold winner swaps sides" in c_off[1]
    assert "1 − accuracy on the decisive matches" in c_off[1]
    # an LLM arm on PanelBench: only the label-convention caveat; a synthetic dataset: none
    assert research_caveats(["agentic"], llm, pb) == c_off[1:]
    syn = provenance([s.match for s in load_folder(bundled_matches_dir / "synthetic").samples])
    assert research_caveats(["agentic"], offline, syn) == []


def test_cost_text_when_prices_are_known_partly_known_or_unknown():
    from adjudicator.bench.ledger import cost_text

    assert cost_text({"cost_usd": 0.01234, "priced_requests": 5, "unpriced_requests": 0}) == "$0.0123"
    assert cost_text({"cost_usd": 0.0, "priced_requests": 0, "unpriced_requests": 0}) == "$0.0000"  # nothing sent
    assert cost_text({"cost_usd": 0.0, "priced_requests": 0, "unpriced_requests": 12}) == "unknown (no prices for these models)"
    assert cost_text({"cost_usd": 0.5, "priced_requests": 3, "unpriced_requests": 7}) == "$0.5000 (+ unknown for 7 requests)"
    assert cost_text({"cost_usd": 0.5, "priced_requests": 3, "unpriced_requests": 1}) == "$0.5000 (+ unknown for 1 request)"


def test_cost_chart_plots_tokens_when_no_price_is_known_and_nothing_when_nothing_was_counted():
    import base64

    from adjudicator.bench.plots import cost_note, cost_plots

    def ledger(**arm):
        return {"arms": {"agentic": {"cost_usd": 0.0, "priced_requests": 0, "unpriced_requests": 0, "requests": 0, "tokens_per_sample": None, **arm}}}

    unpriced = ledger(unpriced_requests=8, requests=8, tokens_per_sample=950.0)
    assert cost_note(unpriced) == "Cost not plotted: no price is known for these models; tokens per sample are shown instead."
    pngs = cost_plots(unpriced)  # the tokens panel only
    assert len(pngs) == 1 and base64.b64decode(pngs[0])[:8] == b"\x89PNG\r\n\x1a\n"
    dead = ledger(unpriced_requests=8, requests=40, tokens_per_sample=0.0)
    assert cost_plots(dead) == [] and cost_note(dead).startswith("No cost or token chart: no price is known")
    offline = ledger()
    assert cost_plots(offline) == [] and cost_note(offline).startswith("No cost or token chart: no model request was sent")
    priced = ledger(cost_usd=0.02, priced_requests=8, requests=8, tokens_per_sample=950.0)
    assert cost_note(priced) is None and len(cost_plots(priced)) == 2  # cost, then tokens


def test_the_plot_cache_returns_the_same_png_and_draws_again_when_the_data_changes(tmp_path, monkeypatch):
    """A picture drawn before (same drawn data, code and matplotlib version) is read back byte for
    byte without drawing; other data is drawn; an unusable folder only means drawing; the folder
    keeps the newest PLOT_CACHE_ENTRIES pictures."""
    from adjudicator.bench import plots

    ledger = {"arms": {"agentic": {"cost_usd": 0.0, "priced_requests": 0, "unpriced_requests": 8, "requests": 8, "tokens_per_sample": 950.0}}}
    calibration = {"agentic": {"label": "agentic", "brier": {"value": 0.21}, "curve": [{"mean_p": 0.3, "observed": 0.25, "count": 4}, {"mean_p": 0.8, "observed": 1.0, "count": 0}]}}
    cache = plots.PlotCache(tmp_path / ".plot-cache")
    drawn = plots.cost_plots(ledger)[0], plots.reliability_plot(calibration)
    assert plots.cost_plots(ledger, cache=cache) == [drawn[0]] and plots.reliability_plot(calibration, cache=cache) == drawn[1]
    assert len(list((tmp_path / ".plot-cache").glob("*.b64"))) == 2

    def no_drawing(*a, **k):
        raise AssertionError("drew a picture the cache holds")

    monkeypatch.setattr(plots, "_subplots", no_drawing)
    assert plots.cost_plots(ledger, cache=cache) == [drawn[0]] and plots.reliability_plot(calibration, cache=cache) == drawn[1]
    with pytest.raises(AssertionError, match="drew"):  # 951 tokens is another picture
        plots.cost_plots({"arms": {"agentic": {**ledger["arms"]["agentic"], "tokens_per_sample": 951.0}}}, cache=cache)
    monkeypatch.undo()
    blocked = tmp_path / "file"
    blocked.write_text("x", encoding="utf-8")
    assert plots.cost_plots(ledger, cache=plots.PlotCache(blocked / "sub")) == [drawn[0]]  # cannot write there: drawn, no error
    monkeypatch.setattr(plots, "PLOT_CACHE_ENTRIES", 1)
    plots.cost_plots({"arms": {"agentic": {**ledger["arms"]["agentic"], "tokens_per_sample": 7.0}}}, cache=cache)
    assert len(list((tmp_path / ".plot-cache").glob("*.b64"))) == 1


def test_an_undefined_correlation_says_which_side_is_constant():
    import numpy as np

    from adjudicator.bench.scoring.leaves import ScoreSettings, scored, why_undefined
    from adjudicator.evaluation import metrics as M

    gold = np.array([5.0, 6.0, 8.0])
    const = np.array([7.0, 7.0, 7.0])
    leaf = why_undefined(scored(M.stage_pearson, [const, gold], None, ScoreSettings(n_bootstrap=0)), const, gold, "r")
    assert (leaf["value"], leaf["n"], leaf["reason"]) == (None, 3, "r undefined (constant predictions)")
    varied = np.array([4.0, 6.0, 9.0])
    flat = np.array([6.0, 6.0, 6.0])
    leaf = why_undefined(scored(M.stage_pearson, [varied, flat], None, ScoreSettings(n_bootstrap=0)), varied, flat, "r")
    assert leaf["reason"] == "r undefined (constant human scores)"
    # a defined r is untouched: x = (4, 6, 9), y = (5, 6, 8), both means 19/3;
    # Sxy = 23/3, Sxx = 38/3, Syy = 14/3 -> r = 23 / sqrt(38 * 14) = 0.997176...
    leaf = why_undefined(scored(M.stage_pearson, [varied, gold], None, ScoreSettings(n_bootstrap=0)), varied, gold, "r")
    assert leaf["value"] == pytest.approx(23 / (38 * 14) ** 0.5) and "reason" not in leaf


def test_a_cached_rerun_reads_the_tokens_picture_back_without_drawing(tmp_path, monkeypatch):
    """A cold run of a priced model has two panels (cost, tokens); its rerun from the response cache
    bills nothing (no cost panel) but counts the same tokens per sample: its one picture is the cold
    run's tokens picture, read from the plot cache, nothing drawn."""
    from adjudicator.bench import plots

    arm = {"priced_requests": 8, "unpriced_requests": 0, "requests": 8, "tokens_per_sample": 950.0}
    cold = {"arms": {"agentic": {**arm, "cost_usd": 0.02}}}
    rerun = {"arms": {"agentic": {**arm, "cost_usd": 0.0, "priced_requests": 0, "requests": 0}}}
    cache = plots.PlotCache(tmp_path / ".plot-cache")
    cost_png, tokens_png = plots.cost_plots(cold, cache=cache)

    def no_drawing(*a, **k):
        raise AssertionError("drew a picture the cache holds")

    monkeypatch.setattr(plots, "_subplots", no_drawing)
    assert plots.cost_plots(rerun, cache=cache) == [tokens_png] and cost_png != tokens_png
    # the sentence beside it says why there is no cost panel: nothing was sent, not an unknown price
    assert plots.cost_note(rerun) == "Cost not plotted: no model request was sent (every answer came from the cache), so nothing was billed; tokens per sample are shown instead."


def test_the_held_out_caveat_is_decided_by_the_matches(bundled_matches_dir):
    # The bundled DebateArt matches are among the debates the offline judge was built on; PanelBench
    # debates outside that set are held out, and the caveat says so instead of the false "not held-out".
    from adjudicator.bench.report import development_ids, research_caveats

    pb = provenance([s.match for s in load_folder(bundled_matches_dir / "panelbench").samples])
    offline = {"agentic": {"tracker": "offline", "judge-1": "offline"}}
    bundled = [s.match.match_id for s in load_folder(bundled_matches_dir / "panelbench").samples]
    assert set(bundled) <= development_ids() and len(development_ids()) == 72
    assert "not a held-out estimate" in research_caveats(["agentic"], offline, pb, bundled)[0]
    unseen = ["debateart_0001", "debateart_0002", "debateart_0003"]
    assert not set(unseen) & development_ids()
    c = research_caveats(["agentic"], offline, pb, unseen)[0]
    assert c == "Arm agentic uses the offline judge; none of these 3 matches is among the PanelBench debates its features were designed on, so its accuracy here is a held-out estimate"
    mixed = research_caveats(["agentic"], offline, pb, [*unseen, bundled[0]])[0]
    assert "1 of these 4 matches is among the PanelBench debates" in mixed and "the other 3 are held out" in mixed


def test_the_rendered_report_on_unseen_panelbench_debates_calls_them_held_out(tmp_path, bundled_matches_dir):
    import json
    import shutil

    from bench_helpers import run_dir_of

    from adjudicator.cli import main

    data = tmp_path / "d"
    data.mkdir()
    src = sorted((bundled_matches_dir / "panelbench").glob("*.json"))[0]
    d = json.loads(src.read_text(encoding="utf-8"))
    d["match_id"] = "debateart_0001"  # a PanelBench id outside the development set
    (data / "debateart_0001.json").write_text(json.dumps(d), encoding="utf-8")
    shutil.copy(src, data / src.name)
    assert main(["bench", str(data), "--name", "x", "--runs-dir", str(tmp_path / "runs"), "--no-progress", "--bootstrap", "0"]) == 0
    md = (run_dir_of(tmp_path / "runs") / "report.md").read_text(encoding="utf-8")
    assert "1 of these 2 matches is among the PanelBench debates its features were designed on" in md and "the other 1 is held out" in md

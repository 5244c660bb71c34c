"""``report.md``: the paper's three result tables (Tables 2-4 with the Appendix B.1 references), our
way: every value with its 95% bootstrap interval and effective n, the baselines' seeded draws beside
their expected values, non-comparable references marked with * and unranked, the common-subset
tables, parsing statistics, failures, cost ledger, paired tests, calibration and label reliability.
"""

from __future__ import annotations

from typing import Any

from adjudicator.bench.human import human_markdown
from adjudicator.bench.ledger import cost_text
from adjudicator.bench.report_cells import (
    BP_TASKS,
    COLUMNS,
    bootstrap_p_text,
    cause_text,
    cell,
    counts_text,
    fmt,
    label_convention_text,
    models_text,
    ordered,
    p_text,
    ranked_by_text,
    ranked_label,
    reference_heading,
)
from adjudicator.verdict.offline_note import offline_short


def _esc(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def table(rows: list[dict[str, Any]], task: str) -> list[str]:
    """Markdown table of ``rows`` for ``task``."""
    cols = COLUMNS[task]
    out = ["| Rank | Predictor | " + " | ".join(c[1] for c in cols) + " |", "|---|---|" + "---|" * len(cols)]
    for r in ordered(rows):
        name = _esc(r["predictor"]) + ("*" if not r.get("comparable", True) else "")
        if r.get("kind") == "baseline" and r.get("seed") is not None:
            name += f" (seed {r['seed']})"
        exp = r.get("expected") or {}
        cells = [cell(r["metrics"].get(k), exp.get(k)) if k in r["metrics"] else "—" for k, _ in cols]
        out.append(f"| {r.get('rank') or '—'} | {name} | " + " | ".join(cells) + " |")
    return out


def _task_section(report: dict[str, Any], task: str) -> list[str]:
    t = report["tasks"][task]
    lines = [f"## {t['title']}", ""]
    if not t.get("applicable"):
        lines += [f"Not applicable to this dataset: {t.get('reason')}.", ""]
        return lines
    if task == "task1":
        gb = t.get("gold_balance", {})
        lines.append(f"{t['n_decisive']} matches with a decisive gold winner of {t['n_matches']} (affirmative {gb.get('affirmative')}, negative {gb.get('negative')}, tie/none {gb.get('tie_or_none')}).")
    elif task == "task2":
        lines.append(f"{t['n_units']} scored (stage, side) units with a 3-judge mean in {t['n_matches']} matches; {t['n_pairs']} stages scored for both sides (tendency pairs).")
        if t.get("prediction_note"):
            lines += ["", t["prediction_note"] + ":", ""]
            for r in (t.get("judge_integer") or {}).values():
                per = ", ".join(f"{j} {fmt(v)}" for j, v in r["per_judge"].items())
                lines.append(f"- {r['label']}: MSE panel mean {fmt(r['panel_mean_mse'])}, one judge's integer {fmt(r['judge_integer_mse'])} (mean of {per}; {r['n_units']} units)")
    else:
        lines.append(f"{t['n_matches']} matches with best-debater votes. {t.get('top1_rule', '')}")
        if t.get("pooling_caveat"):
            lines += ["", f"Pooled formats: {t['pooling_caveat']}:", ""]
            for fmt_name, entry in (t.get("by_format") or {}).items():
                vals = "; ".join(f"{a} r {fmt(v['vote_share_pearson']['value'])}, ρ {fmt(v['vote_share_spearman']['value'])}" for a, v in entry.items() if a != "n_matches")
                lines.append(f"- {fmt_name} ({entry['n_matches']} matches): {vals}")
    lines += [
        "",
        "All instances each predictor parsed. Values: metric [95% match-level bootstrap interval] (effective n); "
        "baselines: seeded draw; E = expected value over the baseline's randomness. * non-comparable reference, not ranked. "
        + ranked_by_text(t, task),
        "",
    ]
    lines += table(t["rows"], task)
    notes = [r for r in ordered(t["rows"]) if not r.get("comparable", True) and r.get("note")]
    if notes:
        lines.append("")
        lines += [f"\\* {_esc(r['predictor'])}: {_esc(r['note'])}." for r in notes]
    cs = t["common_subset"]
    n = cs.get("n", cs.get("n_units"))
    extra = f", {cs['n_pairs']} pairs" if "n_pairs" in cs else ""
    label = (t.get("ranked_by") or {}).get("label") or ranked_label(task)
    lines += ["", f"**Common subset** (instances every arm parsed: {n}{extra}; arms: {', '.join(cs['arms'])}; ranked by {label}):", ""]
    lines += table(cs["rows"], task)
    lines.append("")
    return lines


def _header(report: dict[str, Any]) -> list[str]:
    """Title, warnings, and the run's state, dataset, arms, caveats and seeds."""
    run = report["run"]
    ds = run["dataset"]
    L: list[str] = [f"# Benchmark run {run['run_id']}", ""]
    for w in report.get("warnings") or []:
        L += [f"> **WARNING: {_esc(w)}.**", ""]
    state = run.get("state") or "unknown"
    reason = f" ({run['reason']})" if run.get("reason") else ""
    msg = f": {_esc(str(run['message']).removeprefix('stopped: '))}" if run.get("message") else ""
    L.append(f"- **State:** {state}{reason}{msg}")
    conv = label_convention_text(ds)
    L.append(
        f"- **Dataset:** {_esc(ds.get('source'))} ({ds.get('kind')}, {ds.get('n_matches')} matches, formats {counts_text(ds.get('formats'))}), "
        f"sha256 `{ds.get('sha256', '')[:16]}…`" + (f"; {_esc(conv)}" if conv else "")
    )
    if run.get("fold"):
        L.append(f"- **Fold:** {_esc(run['fold']['text'])}")
    if run.get("parent"):
        L.append(f"- **{_esc(run['parent']['text'])}.**")
    for arm in run["arms"]:
        llm = "" if run["is_llm"].get(arm, True) else " — " + offline_short("en")
        L.append(f"- **Arm** {arm}: models {_esc(models_text(run['models'].get(arm)))}{llm}")
    for c in report.get("caveats") or []:
        L.append(f"- **Caveat:** {_esc(c)}.")
    g = run.get("git") or {}
    L.append(f"- **Seeds:** baselines {run['seeds']['baselines']}, bootstrap {run['seeds']['bootstrap']} ({run['n_bootstrap']} resamples); git {g.get('commit', 'n/a')}{' (dirty)' if g.get('dirty') else ''}")
    L.append("")
    return L


def _samples_section(report: dict[str, Any]) -> list[str]:
    """Samples per status and the ledger's requests, tokens and cost, per arm."""
    L = ["## Samples, cost and tokens", "", "| Arm | ok | partial | failed | not run | requests | cache hits | prompt tokens | of them cached | completion tokens | cost (USD) |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for arm in report["run"]["arms"]:
        s = report["samples"]["per_arm"][arm]
        led = report["ledger"]["arms"].get(arm, {})
        cost = cost_text(led)
        L.append(f"| {arm} | {s['ok']} | {s['partial']} | {s['failed']} | {s['not_run']} | {led.get('requests', 0)} | {led.get('cache_hits', 0)} | {led.get('prompt_tokens', 0)} | {led.get('cached_tokens', 0)} | {led.get('completion_tokens', 0)} | {cost} |")
    L.append("")
    unfinished = {arm: int(led.get("unfinished_requests") or 0) for arm, led in report["ledger"]["arms"].items()}
    if any(unfinished.values()):
        parts = ", ".join(f"{arm} {n}" for arm, n in unfinished.items() if n)
        L += [f"Requests include {parts} sent by samples that never finished (in flight when a session was killed; from requests.jsonl).", ""]
    return L


def _parsing_section(report: dict[str, Any]) -> list[str]:
    """Parse statistics per arm and task."""
    L = ["## Parsing", "", "| Arm | Task | instances | parsed | parse rate | strict JSON | recovered | native | failed | not run |", "|---|---|---|---|---|---|---|---|---|---|"]
    for arm, per in report["parsing"].items():
        for task in ("task1", "task2", "task3"):
            p = per[task]
            L.append(f"| {arm} | {task} | {p['instances']} | {p['parsed']} | {fmt(p['parse_rate'])} | {p['strict']} | {p['recovered']} | {p['native']} | {p['failed']} | {p['not_run']} |")
    L += ["", "Instance-level modes: strict JSON, recovered (normalised or regex extraction), native (offline judge). Unparsed instances are excluded from the metrics.", ""]
    return L


def _failures_section(report: dict[str, Any]) -> list[str]:
    """The failed and partial samples with their first underlying failure and result file."""
    fails = report.get("failures") or []
    L = [f"## Failures ({len(fails)})", ""]
    if fails:
        L += [
            "A failed sample (no verdict) is excluded from every metric; a partial sample's failed nodes or protocol instances are excluded "
            "from the metrics they feed (they count as unparsed). Both can be rerun with `--retry-errors`.",
            "",
        ]
        L += ["| Arm | Sample | Status | Error | First underlying failure | Result file |", "|---|---|---|---|---|---|"]
        for f in fails:
            cause = _esc(cause_text(f)) or "—"
            L.append(f"| {f['arm']} | {f['sample_id']} | {f.get('status')} | {_esc(f.get('error_type'))}: {_esc(f.get('error'))[:300]} | {cause} | `{f.get('result_file')}` |")
    else:
        L.append("None.")
    L.append("")
    return L


def _calibration_section(report: dict[str, Any]) -> list[str]:
    """Brier score and ECE of p per arm (empty when Task 1 is not applicable)."""
    if not report.get("calibration"):
        return []
    L = ["## Calibration of p (Task 1)", "", "| Arm | Brier | ECE (10 bins) |", "|---|---|---|"]
    for c in report["calibration"].values():
        L.append(f"| {_esc(c['label'])} | {cell(c['brier'])} | {fmt(c['ece'].get('value'))} (n={c['ece'].get('n')}) |")
    L += ["", "Reliability curves are plotted in report.html.", ""]
    return L


def _paired_test_line(name: str, t: dict[str, Any]) -> str:
    if t["test"] == "exact McNemar":
        return f"| {name} | exact McNemar (A only {t['a_only']}, B only {t['b_only']}) | {fmt(t['accuracy_a'])} | {fmt(t['accuracy_b'])} | {fmt(_sub(t['accuracy_a'], t['accuracy_b']))} | {p_text(t['p_value'])} | {t['n']} |"
    if "difference" in t:
        return f"| {name} | paired bootstrap | {fmt(t['value_a'])} | {fmt(t['value_b'])} | {fmt(t['difference'])} [{fmt(t['low'])}, {fmt(t['high'])}] | {bootstrap_p_text(t)} | {t['n']} |"
    return f"| {name} | {t['test']} | — | — | {t.get('reason', '—')} | — | — |"


def _paired_section(report: dict[str, Any]) -> list[str]:
    """Arms against each other and against the Task 1 baselines (empty when there is neither)."""
    if not (report.get("paired") or report.get("arm_vs_baseline")):
        return []
    L = ["## Paired tests (common subset)", ""]
    for pc in report.get("paired") or []:
        L.append(f"**{_esc(pc['label_a'])}** vs **{_esc(pc['label_b'])}**")
        L.append("")
        L.append("| Metric | Test | A | B | A − B [95% CI] | p | n |")
        L.append("|---|---|---|---|---|---|---|")
        L += [_paired_test_line(name, t) for name, t in pc["tests"].items()]
        L.append("")
    if report.get("arm_vs_baseline"):
        L += ["Arms against the Task 1 baselines (exact McNemar, all decisive matches the arm parsed):", "", "| Arm | Baseline | arm acc. | baseline acc. | arm only | baseline only | p | n |", "|---|---|---|---|---|---|---|---|"]
        for t in report["arm_vs_baseline"]:
            if t.get("test") == "exact binomial":  # against the random baseline's expected 0.5, not one draw
                L.append(f"| {t['arm']} | {t['baseline']}, exact binomial | {fmt(t['accuracy_a'])} | {fmt(t['accuracy_b'])} | {t['k']} of {t['n']} correct | | {p_text(t['p_value'])} | {t['n']} |")
                continue
            L.append(f"| {t['arm']} | {t['baseline']} | {fmt(t['accuracy_a'])} | {fmt(t['accuracy_b'])} | {t['a_only']} | {t['b_only']} | {p_text(t['p_value'])} | {t['n']} |")
        L.append("")
    return L


def _ranking_section(bp: dict[str, Any]) -> list[str]:
    """The British Parliamentary tasks (report.json ``tasks.bp``): one table per task, arms then
    baselines; a baseline's exact expectation is marked E."""
    L = ["## British Parliamentary tasks", ""]
    for key, title, cols in BP_TASKS:
        t = bp.get(key) or {}
        L += [f"### {title}", ""]
        if not t.get("rows"):
            L += [f"{t.get('reason', 'not applicable')}.", ""]
            continue
        n = f"{t.get('n_matches')} matches, effective n {t.get('effective_n')} (distinct motions)"
        L += [f"{t['metric']}; {n}" + (f"; {t['n_speeches']} speeches" if t.get("n_speeches") else "") + ".", ""]
        L.append("| Row | kind | " + " | ".join(c for _, c in cols) + " |")
        L.append("|---|---|" + "---|" * len(cols))
        for row in t["rows"]:
            cells = []
            for k, _ in cols:
                leaf = row["metrics"].get(k)
                cells.append(("E=" + fmt(leaf["value"]) + f" (n={leaf['n']})") if leaf and leaf.get("expected") else cell(leaf))
            L.append(f"| {_esc(row['label'])} | {row['kind']} | " + " | ".join(cells) + " |")
        L.append("")
    return L


def _pairwise_section(pw: dict[str, Any]) -> list[str]:
    """The pairwise panel (report.json ``tasks.pairwise``): per arm and level, order inconsistency,
    agreement and kappa between judges, and the strengths' rank correlations with gold."""
    L = ["## Pairwise panel (Bradley-Terry)", "", f"{pw['metric']}.", ""]
    L.append("| Arm | Level | Pairs judged | Order-inconsistent | Agreement (n) | Kappa (n) | Kendall tau (n) | Spearman rho (n) |")
    L.append("|---|---|---|---|---|---|---|---|")

    def m(leaf: dict[str, Any]) -> str:
        return "n/a" if leaf.get("value") is None else f"{leaf['value']:.3f} ({leaf['n']})"

    for row in pw["rows"]:
        for level, x in row["levels"].items():
            share = "n/a" if x["inconsistent_share"] is None else f"{x['inconsistent_share']:.3f}"
            L.append(f"| {_esc(row['label'])} | {level} | {x['results']} | {x['inconsistent']} ({share}) | {m(x['agreement'])} | {m(x['kappa'])} | {m(x['kendall_tau'])} | {m(x['spearman_rho'])} |")
    return L + [""]
def _dimensions_section(d: dict[str, Any]) -> list[str]:
    """Per-dimension judging (report.json ``tasks.dimensions``): one winner-accuracy table per gold
    dimension with its gold balance, ties and common subset, the correlation line, then the overall
    decision derived from the dimensions against the panel's direct winner."""
    L = [f"## {d['title']}", "", f"Metric: {d['metric']}. Values: accuracy [95% bootstrap interval; resampling unit: the match, over the matches with a decisive gold, as in Task 1, so a statistic shown in both tables has one interval] (effective n); E = expected value.", ""]
    for name, t in d["dimensions"].items():
        gb = t["gold_balance"]
        arms = "; ".join(f"{a}: {c['predicted_ties']} predicted ties, {c['unparsed']} not assessed or unparsed" for a, c in t["per_arm"].items())
        L += [f"### {name}", "", f"{t['n_decisive']} decisive of {t['n_matches']} (affirmative {gb['affirmative']}, negative {gb['negative']}; gold ties excluded: {t['n_gold_ties']}). {arms}.", ""]
        L += table(t["rows"], "task1")
        cs = t["common_subset"]
        L += ["", f"**Common subset** (every arm predicted: {cs['n']}; arms: {', '.join(cs['arms'])}):", ""] + table(cs["rows"], "task1")
        corr = t["correlation"]
        if corr.get("applicable"):
            L += [""] + [f"- Correlation with human dimension scores, {a}: Pearson {cell(v['pearson'])}, Spearman {cell(v['spearman'])}" for a, v in corr["arms"].items()]
        else:
            L += ["", f"Correlation with human dimension scores: {corr['reason']}."]
        L.append("")
    dec = d["decision"]
    L += ["### Overall decision: derived from the dimensions vs the panel's direct winner", "", f"Against the gold outcome, on the {dec['n_decisive']} matches with a decisive one (each arm on the matches where it has both).", ""]
    L += table(dec["rows"], "task1")
    notes = [r for r in dec["rows"] if not r.get("comparable", True) and r.get("note")]
    L += [""] + [f"\\* {_esc(r['predictor'])}: {_esc(r['note'])}." for r in notes] + [""]
    return L


def _cell2(leaf: dict[str, Any] | None, pct: bool = False) -> str:
    """A leaf as ``value [low, high] (n)`` to 2 decimals (x 100 first when ``pct``), as Debatrix prints."""
    if not leaf or leaf.get("value") is None:
        return "—"
    k = 100.0 if pct else 1.0
    ci = leaf.get("ci") or {}
    band = f" [{ci['low'] * k:.2f}, {ci['high'] * k:.2f}]" if ci.get("low") is not None else ""
    return f"{leaf['value'] * k:.2f}{band} (n={leaf.get('n', 0)})"


def _panelbench_section(pb: dict[str, Any]) -> list[str]:
    """PanelBench's own metrics (report.json ``tasks.panelbench``): DebateArt RMSE x 100 overall and per
    dimension, BP best-team accuracy and pick rate per house, then Debatrix's published rows."""
    L = [f"## {pb['title']}", ""]
    da = pb.get("debateart")
    if da:
        L += [f"DebateArt: RMSE × 100 against the audience outcome ({da['coding']}); lower is better; {da['n_matches']} matches.", "",
              "| Predictor | overall | " + " | ".join(da["dimensions"]) + " |", "|---|---|" + "---|" * len(da["dimensions"])]
        for r in da["overall"]:
            per = [_cell2(next((x["rmse_x100"] for x in d["rows"] if x["label"] == r["label"]), None)) for d in da["dimensions"].values()]
            L.append(f"| {_esc(r['label'])} | {_cell2(r['rmse_x100'])} | " + " | ".join(per) + " |")
        L += ["", "— : no prediction (a dimension needs the arm's winner on it, from a dimensional rubric such as `--rubric debateart`; p as given has none).", ""]
    bp = pb.get("bp")
    if bp:
        L += [f"BP, {bp['n_rounds']} rounds: {bp['metric']}; {bp.get('completion_note', 'completion: rounds with one team ranked first')}; "
              "pick rate: how often each house is ranked first (gold: how often it advanced).", "",
              "| Predictor | completion % | best-team accuracy % | OG | OO | CG | CO |", "|---|---|---|---|---|---|---|"]
        for r in bp["rows"]:
            picks = " | ".join(fmt(r["pick_rate"].get(h)) for h in ("OG", "OO", "CG", "CO"))
            L.append(f"| {_esc(r['label'])} | {_cell2(r.get('completion'), pct=True)} | {_cell2(r['best_team_accuracy'], pct=True)} | {picks} |")
        L += ["| gold (advanced) | — | — | " + " | ".join(fmt(bp["gold_share"][h]) for h in ("OG", "OO", "CG", "CO")) + " |", ""]
    pub = pb["published"]
    L += [f"Published ({pub['source']}): {pb['subsets_differ']}.", "",
          "| Published | DebateArt RMSE × 100, score comparison | DebateArt RMSE × 100, direct prediction | BP completion % | BP accuracy % |", "|---|---|---|---|---|"]
    L += [f"| {r['label']} | {r['rmse_score_comparison']:.2f} | {r['rmse_direct']:.2f} | {r['bp_completion']:.2f} | {r['bp_accuracy']:.2f} |" for r in pub["rows"]]
    return L + [""]


def _selective_section(report: dict[str, Any]) -> list[str]:
    """Escalation: selective accuracy against coverage per arm (:mod:`adjudicator.evaluation.selective`)."""
    sel = report.get("selective")
    if not sel:
        return []
    L = ["## Escalation: selective accuracy against coverage", "",
         "A verdict with |p − 0.5| ≤ band goes to a person; accuracy is over the verdicts kept (decisive gold winners only). "
         "Review rule: the verdicts' own `review.escalate` (close call within 0.1, split panel, failed judge or tracker stage, and the quality gate: empty or thin clash map, empty, short or unanchored reasoning, identical ballots, equal stage scores, p against its own scores, most fields repaired, example choices; with probes, their flips).", ""]
    for r in sel.values():
        L += [f"**{r['label']}**", "", "| escalate when | kept / n | coverage | accuracy on kept |", "|---|---|---|---|"]
        for pt in r["curve"]:
            L.append(rf"| \|p − 0.5\| ≤ {pt['band']:.2f} | {pt['kept']} / {pt['n']} | {fmt(pt['coverage'])} | {fmt(pt['accuracy'])} |")
        for key, name in (("review", "review rule"), ("review_with_probes", "review rule + probe flips")):
            pt = r.get(key)
            if pt:
                L.append(f"| {name} | {pt['kept']} / {pt['n']} | {fmt(pt['coverage'])} | {fmt(pt['accuracy'])} |")
        L.append("")
    return L


def _feedback_section(report: dict[str, Any]) -> list[str]:
    """The coach's feedback per debater: how often each arm fills it, and how often a point names a
    real stage of the match and a real clash of the verdict's map (:func:`~adjudicator.verdict.feedback.run_feedback_stats`)."""
    fb = report.get("feedback")
    if not fb:
        return []
    L = ["## Feedback per debater", "",
         "How often a verdict carries a coach's feedback (what worked, the response missed, one thing to work on) for each debater, "
         "and how often a point names a stage of the match and a clash of the verdict's map. The single-call arm has none (the protocol has no such task).", "",
         "| Arm | verdicts | debaters | with feedback | filled | points | names a real stage | names a real clash | names no clash |", "|---|---|---|---|---|---|---|---|---|"]
    for r in fb.values():
        L.append(f"| {r['label']} | {r['verdicts']} | {r['debaters']} | {r['filled']} | {fmt(r['filled_rate'])} | {r['points']} | {fmt(r['stage_rate'])} | {fmt(r['clash_rate'])} | {r['no_clash']} |")
    return L + [""]


def _alt_test_section(report: dict[str, Any]) -> list[str]:
    """The alternative annotator test (:mod:`adjudicator.bench.scoring.alt_test_section`): per task and arm a
    plain sentence on whether the arm passes, omega and rho, and one row per left-out judge."""
    at = report.get("alt_test")
    if not at:
        return []
    L = ["## Alternative annotator test: could the arm replace a judge?", ""]
    if not at.get("applicable"):
        return L + [f"Not applicable: {at.get('reason')}.", ""]
    L += [
        f"Calderon et al. (ACL 2025): each human judge left out in turn; the arm and the left-out judge are compared against the remaining judges "
        f"per instance; one-sided paired t-test with margin ε = {at['epsilon']}, Benjamini–Yekutieli over the judges at α = {at['alpha']}; "
        f"the arm passes when it beats at least half of the judges (ω ≥ 0.5). Scoring as the authors' code (nitaytech/AltTest): accuracy for the winner, "
        f"negative RMSE for stage scores and vote shares; a judge needs {at.get('min_instances', 30)} instances, and a task where none has them has no result "
        f"(\"not enough instances\"), neither pass nor fail. Judges are the panel seats of {at['matches_with_panel']} matches.",
        "",
    ]
    for t in at["tasks"].values():
        L.append(f"### {t['title']}")
        if not t.get("applicable"):
            L += [f"Not applicable: {t.get('reason')}.", ""]
            continue
        for r in t["arms"].values():
            rho = f"; ρ = {fmt(r['rho'])}" if r.get("rho") is not None else ""
            L += ["", f"**{r['label']}**: {r['verdict']}{rho}.", "", "| left-out judge | n | ρ arm | ρ judge | t | p | p (BY) | arm wins | note |", "|---|---|---|---|---|---|---|---|---|"]
            for j in r["judges"]:
                won = "" if j.get("won") is None else ("yes" if j["won"] else "no")
                L.append(f"| {j['judge']} | {j['n']} | {fmt(j.get('rho_f'))} | {fmt(j.get('rho_h'))} | {fmt(j.get('t'))} | {p_text(j.get('p_value'))} | {p_text(j.get('p_adjusted'))} | {won} | {_esc(j.get('note') or '')} |")
        L.append("")
    return L


def _bias_card_section(report: dict[str, Any]) -> list[str]:
    """The bias card of ``bench --probe`` (:func:`adjudicator.probes.card.render_markdown`), if any."""
    card = report.get("bias_card")
    if not card:
        return []
    from adjudicator.probes.card import BiasCard
    from adjudicator.probes.card import render_markdown as card_markdown

    return card_markdown(BiasCard.model_validate({**card, "samples": []})).splitlines() + [""]


def render_markdown(report: dict[str, Any]) -> str:
    """The whole Markdown report: header, samples, parsing, failures, one section per task,
    calibration, paired tests, label reliability."""
    L = _header(report) + _samples_section(report) + _parsing_section(report) + _failures_section(report)
    for task in ("task1", "task2", "task3"):
        L += _task_section(report, task)
    if "bp" in report["tasks"]:
        L += _ranking_section(report["tasks"]["bp"])
    if "pairwise" in report["tasks"]:
        L += _pairwise_section(report["tasks"]["pairwise"])
    if "dimensions" in report["tasks"]:
        L += _dimensions_section(report["tasks"]["dimensions"])
    if "panelbench" in report["tasks"]:
        L += _panelbench_section(report["tasks"]["panelbench"])
    L += _calibration_section(report) + _paired_section(report) + _selective_section(report) + _feedback_section(report) + _alt_test_section(report) + _bias_card_section(report)
    L += report.get("_fold_fit_md") or []  # a --fold run's fits (adjudicator.finetune.render, via report.build_report)
    synthetic = bool((report["run"]["dataset"].get("provenance") or {}).get("synthetic"))
    L += _reliability_section(report.get("reliability") or {}, synthetic=synthetic)
    L += human_markdown(report.get("human"))  # a person's calls on the verdicts, when human.json exists
    return "\n".join(L) + "\n"


def _sub(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _leaf_text(leaf: dict[str, Any] | None) -> str:
    if not leaf:
        return "—"
    if leaf.get("value") is None:
        return f"n/a ({_esc(leaf.get('reason') or 'undefined')})"
    return f"{fmt(leaf['value'])} (n={leaf.get('n')})"


def _reliability_section(rel: dict[str, Any], synthetic: bool = False) -> list[str]:
    L = ["## Label reliability (gold labels only)", ""]
    if not rel:
        return L + ["Not computed.", ""]
    if synthetic:
        L += ["These statistics describe SYNTHETIC labels written by developers, not real judges.", ""]
    L.append(f"{rel.get('n_matches_with_panel', 0)} of {rel.get('n_matches', 0)} matches have a {rel.get('panel_size')}-judge original panel.")
    leaves = [leaf for group in ("winner", "stage_scores", "best_debater") for leaf in (rel.get(group) or {}).values() if isinstance(leaf, dict)]
    reasons = {leaf.get("reason") for leaf in leaves}
    if leaves and all(leaf.get("value") is None for leaf in leaves) and len(reasons) == 1:
        return L + ["", f"Not applicable: {_esc(reasons.pop())}. The human references (Appendix B.1) need the same panels.", ""]
    L += ["", "| Statistic | Value |", "|---|---|"]
    for group in ("winner", "stage_scores", "best_debater"):
        for k, leaf in (rel.get(group) or {}).items():
            if isinstance(leaf, dict):
                L.append(f"| {group}.{k} | {_leaf_text(leaf)} |")
            elif leaf is not None:
                L.append(f"| {group}.{k} | {leaf} |")
    L.append("")
    hr = rel.get("human_reference") or {}
    if hr:
        L += [reference_heading(synthetic), "", "| Setting | Metric | Value |", "|---|---|---|"]
        for setting in ("self_included", "leave_one_out"):
            for k, leaf in (hr.get(setting) or {}).items():
                L.append(f"| {setting} | {k} | {_leaf_text(leaf)} |")
        L.append("")
    return L

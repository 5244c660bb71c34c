"""``report.html``: one self-contained page (no external files, scripts or fonts) with the tables of
report.md and the plots embedded as base64 PNG: reliability curve of p, predicted against human stage
scores, and per-arm cost and tokens (tokens only when no price is known; a sentence instead of the
chart when nothing was spent or counted). Rendered with jinja2, autoescaped.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from adjudicator.bench.ledger import cost_text
from adjudicator.bench.plots import PlotCache, cost_note, cost_plots, reliability_plot, stage_scatter
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
from adjudicator.bench.report_samples import CSS as SAMPLES_CSS
from adjudicator.bench.report_samples import samples_section
from adjudicator.verdict.offline_note import offline_short

_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Benchmark run {{ run.run_id }}</title>
<style>
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.2rem;font-size:.88rem}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3} tr.ref td{color:#666;font-style:italic} tr.baseline td{background:#fafafa}
.warning{background:#fff3cd;border:2px solid #c90;padding:.6rem 1rem;font-size:1.05rem}
.na{color:#a33} .note{color:#555;font-size:.85rem} img{max-width:100%} code{font-size:.85rem}
.review{border:2px solid #b7c3d6;border-radius:6px;padding:.3rem .8rem;margin:.4rem 0} .review.escalate{border-color:#c0392b;background:#fdf1ef} .review ul{margin:.2rem 0}
{{ samples_css }}</style></head><body>
<h1>Benchmark run {{ run.run_id }}</h1>
{% for w in warnings %}<p class="warning"><b>WARNING: {{ w }}.</b></p>
{% endfor %}<ul>
<li><b>State:</b> {{ run.state or "unknown" }}{% if run.reason %} ({{ run.reason }}){% endif %}{% if run.get("message") %}: {{ run.message.removeprefix("stopped: ") }}{% endif %}</li>
<li><b>Dataset:</b> {{ run.dataset.source }} ({{ run.dataset.kind }}, {{ run.dataset.n_matches }} matches, formats {{ counts_text(run.dataset.get("formats")) }}), sha256 <code>{{ run.dataset.sha256[:16] }}…</code>{% if convention %}; {{ convention }}{% endif %}</li>
{% if run.get("fold") %}<li><b>Fold:</b> {{ run.fold.text }}</li>{% endif %}
{% if run.get("parent") %}<li><b>{{ run.parent.text }}.</b></li>{% endif %}
{% for arm in run.arms %}<li><b>Arm</b> {{ arm }}: models {{ models_text(run.models.get(arm)) }}{% if not run.is_llm.get(arm, True) %} — {{ offline_short }}{% endif %}</li>{% endfor %}
{% for c in caveats %}<li class="caveat"><b>Caveat:</b> {{ c }}.</li>{% endfor %}
<li><b>Seeds:</b> baselines {{ run.seeds.baselines }}, bootstrap {{ run.seeds.bootstrap }} ({{ run.n_bootstrap }} resamples){% if run.git %}; git {{ run.git.commit }}{% if run.git.dirty %} (dirty){% endif %}{% endif %}</li>
</ul>

<h2>Samples, cost and tokens</h2>
<table><tr><th>Arm</th><th>ok</th><th>partial</th><th>failed</th><th>not run</th><th>requests</th><th>cache hits</th><th>prompt tokens</th><th>of them cached</th><th>completion tokens</th><th>cost (USD)</th></tr>
{% for arm in run.arms %}{% set s = samples.per_arm[arm] %}{% set l = ledger.arms.get(arm, {}) %}
<tr><td>{{ arm }}</td><td>{{ s.ok }}</td><td>{{ s.partial }}</td><td>{{ s.failed }}</td><td>{{ s.not_run }}</td><td>{{ l.get("requests", 0) }}</td><td>{{ l.get("cache_hits", 0) }}</td><td>{{ l.get("prompt_tokens", 0) }}</td><td>{{ l.get("cached_tokens", 0) }}</td><td>{{ l.get("completion_tokens", 0) }}</td><td>{{ cost_text(l) }}</td></tr>{% endfor %}
</table>
{% for png in plots.cost %}<img alt="per-arm cost and tokens" src="data:image/png;base64,{{ png }}">{% endfor %}
{% if cost_note %}<p class="note">{{ cost_note }}</p>{% endif %}

<h2>Parsing</h2>
<table><tr><th>Arm</th><th>Task</th><th>instances</th><th>parsed</th><th>parse rate</th><th>strict JSON</th><th>recovered</th><th>native</th><th>failed</th><th>not run</th></tr>
{% for arm, per in parsing.items() %}{% for task in ["task1","task2","task3"] %}{% set p = per[task] %}
<tr><td>{{ arm }}</td><td>{{ task }}</td><td>{{ p.instances }}</td><td>{{ p.parsed }}</td><td>{{ fmt(p.parse_rate) }}</td><td>{{ p.strict }}</td><td>{{ p.recovered }}</td><td>{{ p.native }}</td><td>{{ p.failed }}</td><td>{{ p.not_run }}</td></tr>{% endfor %}{% endfor %}
</table>

<h2>Failures ({{ failures|length }})</h2>
{% if failures %}<p class="note">A failed sample (no verdict) is excluded from every metric; a partial sample's failed nodes or instances are excluded from the metrics they feed. Both can be rerun with <code>--retry-errors</code>.</p>
<table><tr><th>Arm</th><th>Sample</th><th>Status</th><th>Error</th><th>First underlying failure</th><th>Result file</th></tr>
{% for f in failures %}<tr><td>{{ f.arm }}</td><td>{{ f.sample_id }}</td><td>{{ f.status }}</td><td>{{ f.error_type }}: {{ (f.error or "")[:300] }}</td><td>{{ cause_text(f) or "—" }}</td><td><code>{{ f.result_file }}</code></td></tr>{% endfor %}
</table>{% else %}<p>None.</p>{% endif %}

{% for task in ["task1","task2","task3"] %}{% set t = tasks[task] %}
<h2>{{ t.title }}</h2>
{% if not t.applicable %}<p class="na">Not applicable to this dataset: {{ t.reason }}.</p>{% else %}
<p class="note">Metric [95% match-level bootstrap interval] (effective n); baselines: seeded draw; E = expected value. * non-comparable reference, not ranked. {{ ranked_by_text(t, task) }}</p>
{% if task == "task3" and t.get("top1_rule") %}<p class="note">{{ t.top1_rule }}</p>{% endif %}
{% if task == "task3" and t.get("pooling_caveat") %}<p class="note">Pooled formats: {{ t.pooling_caveat }}: {% for f, e in t.by_format.items() %}{{ f }} ({{ e.n_matches }} matches){% for a, v in e.items() if a != "n_matches" %} {{ a }} r {{ fmt(v.vote_share_pearson.value) }}, ρ {{ fmt(v.vote_share_spearman.value) }}{% endfor %}; {% endfor %}</p>{% endif %}
{{ table(t.rows, task) }}
{% for r in ordered(t.rows) if not r.get("comparable", True) and r.get("note") %}<p class="note">* {{ r.predictor }}: {{ r.note }}.</p>{% endfor %}
<p><b>Common subset</b> (instances every arm parsed: {{ t.common_subset.n if t.common_subset.n is defined else t.common_subset.n_units }}; ranked by {{ (t.get("ranked_by") or {}).get("label") or ranked_label(task) }}):</p>
{{ table(t.common_subset.rows, task) }}
{% if task == "task1" and plots.reliability %}<img alt="reliability curve" src="data:image/png;base64,{{ plots.reliability }}">{% endif %}
{% if task == "task2" and plots.scatter %}<img alt="predicted vs human stage scores" src="data:image/png;base64,{{ plots.scatter }}">{% endif %}
{% endif %}{% endfor %}
{% if tasks.bp is defined %}<h2>British Parliamentary tasks</h2>
{% for key, title, cols in bp_tasks %}{% set t = tasks.bp[key] %}<h3>{{ title }}</h3>
{% if not t.get("rows") %}<p class="na">{{ t.get("reason", "not applicable") }}.</p>{% else %}
<p class="note">{{ t.metric }}; {{ t.n_matches }} matches, effective n {{ t.effective_n }} (distinct motions){% if t.get("n_speeches") %}; {{ t.n_speeches }} speeches{% endif %}. E = a baseline's exact expectation.</p>
<table><tr><th>Row</th><th>kind</th>{% for k, c in cols %}<th>{{ c }}</th>{% endfor %}</tr>
{% for row in t.rows %}<tr><td>{{ row.label }}</td><td>{{ row.kind }}</td>{% for k, c in cols %}{% set leaf = row.metrics.get(k) %}<td>{% if leaf and leaf.get("expected") %}E={{ fmt(leaf.value) }} (n={{ leaf.n }}){% else %}{{ cell(leaf) }}{% endif %}</td>{% endfor %}</tr>{% endfor %}
</table>{% endif %}{% endfor %}{% endif %}
{% if tasks.pairwise is defined %}<h2>Pairwise panel (Bradley-Terry)</h2>
<p class="note">{{ tasks.pairwise.metric }}.</p>
<table><tr><th>Arm</th><th>Level</th><th>Pairs judged</th><th>Order-inconsistent</th><th>Agreement (n)</th><th>Kappa (n)</th><th>Kendall tau (n)</th><th>Spearman rho (n)</th></tr>
{% for row in tasks.pairwise.rows %}{% for level, x in row.levels.items() %}<tr><td>{{ row.label }}</td><td>{{ level }}</td><td>{{ x.results }}</td><td>{{ x.inconsistent }} ({{ fmt(x.inconsistent_share) }})</td>{% for k in ["agreement", "kappa", "kendall_tau", "spearman_rho"] %}<td>{{ fmt(x[k].value) }} ({{ x[k].n }})</td>{% endfor %}</tr>{% endfor %}{% endfor %}
</table>{% endif %}
{% if task_2_na %}<p class="note">Predicted-versus-human stage-score plot: not applicable (no judge stage scores in this dataset).</p>{% endif %}

{% if calibration %}<h2>Calibration of p</h2>
<table><tr><th>Arm</th><th>Brier</th><th>ECE (10 bins)</th></tr>
{% for arm, c in calibration.items() %}<tr><td>{{ c.label }}</td><td>{{ cell(c.brier) }}</td><td>{{ fmt(c.ece.value) }} (n={{ c.ece.n }})</td></tr>{% endfor %}
</table>{% endif %}

{% if paired %}<h2>Paired tests (common subset)</h2>
{% for pc in paired %}<h3>{{ pc.label_a }} vs {{ pc.label_b }}</h3>
<table><tr><th>Metric</th><th>Test</th><th>A</th><th>B</th><th>A − B [95% CI]</th><th>p</th><th>n</th></tr>
{% for name, t in pc.tests.items() %}{% if t.test == "exact McNemar" %}
<tr><td>{{ name }}</td><td>exact McNemar (A only {{ t.a_only }}, B only {{ t.b_only }})</td><td>{{ fmt(t.accuracy_a) }}</td><td>{{ fmt(t.accuracy_b) }}</td><td>{{ fmt(sub(t.accuracy_a, t.accuracy_b)) }}</td><td>{{ p_text(t.p_value) }}</td><td>{{ t.n }}</td></tr>
{% elif t.difference is defined %}<tr><td>{{ name }}</td><td>paired bootstrap</td><td>{{ fmt(t.value_a) }}</td><td>{{ fmt(t.value_b) }}</td><td>{{ fmt(t.difference) }} [{{ fmt(t.low) }}, {{ fmt(t.high) }}]</td><td>{{ bootstrap_p_text(t) }}</td><td>{{ t.n }}</td></tr>
{% else %}<tr><td>{{ name }}</td><td colspan="6">{{ t.reason }}</td></tr>{% endif %}{% endfor %}
</table>{% endfor %}{% endif %}
{% if arm_vs_baseline %}<h3>Arms against the Task 1 baselines (exact McNemar)</h3>
<table><tr><th>Arm</th><th>Baseline</th><th>arm acc.</th><th>baseline acc.</th><th>arm only</th><th>baseline only</th><th>p</th><th>n</th></tr>
{% for t in arm_vs_baseline %}{% if t.get("test") == "exact binomial" %}<tr><td>{{ t.arm }}</td><td>{{ t.baseline }}, exact binomial</td><td>{{ fmt(t.accuracy_a) }}</td><td>{{ fmt(t.accuracy_b) }}</td><td colspan="2">{{ t.k }} of {{ t.n }} correct</td><td>{{ p_text(t.p_value) }}</td><td>{{ t.n }}</td></tr>{% else %}<tr><td>{{ t.arm }}</td><td>{{ t.baseline }}</td><td>{{ fmt(t.accuracy_a) }}</td><td>{{ fmt(t.accuracy_b) }}</td><td>{{ t.a_only }}</td><td>{{ t.b_only }}</td><td>{{ p_text(t.p_value) }}</td><td>{{ t.n }}</td></tr>{% endif %}{% endfor %}
</table>{% endif %}

{% if feedback %}<h2>Feedback per debater</h2>
<p class="note">How often a verdict carries a coach's feedback (what worked, the response missed, one thing to work on) for each debater, and how often a point names a stage of the match and a clash of the verdict's map. The single-call arm has none (the protocol has no such task).</p>
<table><tr><th>Arm</th><th>verdicts</th><th>debaters</th><th>with feedback</th><th>filled</th><th>points</th><th>names a real stage</th><th>names a real clash</th><th>names no clash</th></tr>
{% for r in feedback.values() %}<tr><td>{{ r.label }}</td><td>{{ r.verdicts }}</td><td>{{ r.debaters }}</td><td>{{ r.filled }}</td><td>{{ fmt(r.filled_rate) }}</td><td>{{ r.points }}</td><td>{{ fmt(r.stage_rate) }}</td><td>{{ fmt(r.clash_rate) }}</td><td>{{ r.no_clash }}</td></tr>{% endfor %}</table>{% endif %}
{% if selective %}<h2>Escalation: selective accuracy against coverage</h2>
<p class="note">A verdict with |p − 0.5| ≤ band goes to a person; accuracy is over the verdicts kept (decisive gold winners only). Review rule: the verdicts' own review.escalate (close call within 0.1, split panel, failed judge or tracker stage, and the quality gate: empty or thin clash map, empty, short or unanchored reasoning, identical ballots, equal stage scores, p against its own scores, most fields repaired, example choices; with probes, their flips).</p>
{% for arm, r in selective.items() %}<p><b>{{ r.label }}</b></p>
<table><tr><th>Escalate when</th><th>kept / n</th><th>coverage</th><th>accuracy on kept</th></tr>
{% for pt in r.curve %}<tr><td>|p − 0.5| ≤ {{ "%.2f"|format(pt.band) }}</td><td>{{ pt.kept }} / {{ pt.n }}</td><td>{{ fmt(pt.coverage) }}</td><td>{{ fmt(pt.accuracy) }}</td></tr>{% endfor %}
{% for key, name in [("review", "review rule"), ("review_with_probes", "review rule + probe flips")] %}{% if r.get(key) %}{% set pt = r[key] %}<tr><td>{{ name }}</td><td>{{ pt.kept }} / {{ pt.n }}</td><td>{{ fmt(pt.coverage) }}</td><td>{{ fmt(pt.accuracy) }}</td></tr>{% endif %}{% endfor %}
</table>{% endfor %}{% endif %}

{% if alt_test %}<h2>Alternative annotator test: could the arm replace a judge?</h2>
{% if not alt_test.applicable %}<p class="na">Not applicable: {{ alt_test.reason }}.</p>{% else %}
<p class="note">Calderon et al. (ACL 2025): each human judge left out in turn, the arm and the left-out judge compared against the remaining judges per instance; one-sided paired t-test with margin ε = {{ alt_test.epsilon }}, Benjamini–Yekutieli at α = {{ alt_test.alpha }}; the arm passes when ω ≥ 0.5. Scoring as the authors' code (nitaytech/AltTest): accuracy for the winner, negative RMSE for stage scores and vote shares; a judge needs {{ alt_test.min_instances }} instances, and a task where none has them has no result ("not enough instances"), neither pass nor fail.</p>
{% for task, t in alt_test.tasks.items() %}<h3>{{ t.title }}</h3>
{% if not t.applicable %}<p class="na">Not applicable: {{ t.reason }}.</p>{% else %}{% for arm, r in t.arms.items() %}
<p><b>{{ r.label }}</b>: {{ r.verdict }}{% if r.rho is not none %}; ρ = {{ fmt(r.rho) }}{% endif %}.</p>
<table><tr><th>Left-out judge</th><th>n</th><th>ρ arm</th><th>ρ judge</th><th>t</th><th>p</th><th>p (BY)</th><th>arm wins</th><th>note</th></tr>
{% for j in r.judges %}<tr><td>{{ j.judge }}</td><td>{{ j.n }}</td><td>{{ fmt(j.rho_f) }}</td><td>{{ fmt(j.rho_h) }}</td><td>{{ fmt(j.t) }}</td><td>{{ p_text(j.p_value) }}</td><td>{{ p_text(j.p_adjusted) }}</td><td>{% if j.won is not none %}{{ "yes" if j.won else "no" }}{% endif %}</td><td>{{ j.note }}</td></tr>{% endfor %}
</table>{% endfor %}{% endif %}{% endfor %}{% endif %}{% endif %}

{% if bias_card %}<h2>Bias card</h2>
<p class="note">Model {{ bias_card.model }}; {{ bias_card.matches }} matches; base winner accuracy {{ fmt(bias_card.accuracy) }} (n={{ bias_card.accuracy_n }}){% if bias_card.repeats %}; repeats: {{ bias_card.repeats }} runs at temperature {{ bias_card.temperature }}{% endif %}. Reference: the gold rate on the same matches, or the value a fair judge shows.</p>
<table><tr><th>Probe</th><th>Measure</th><th>Value</th><th>95% CI</th><th>n</th><th>Reference</th></tr>
{% for m in bias_card.measures %}<tr><td>{{ m.probe }}</td><td>{{ m.measure }}</td><td>{{ fmt(m.value) }}</td><td>{% if m.ci_low is not none %}[{{ fmt(m.ci_low) }}, {{ fmt(m.ci_high) }}]{% endif %}</td><td>{{ m.n }}</td><td>{% if m.reference is not none %}{{ fmt(m.reference) }} ({{ m.reference_kind }}){% endif %}</td></tr>{% endfor %}
</table>{% if bias_card.skipped %}<p class="note">Skipped: {{ bias_card.skipped|length }} (probe, match) pairs, e.g. {{ bias_card.skipped[0].probe }} on {{ bias_card.skipped[0].match_id }}: {{ bias_card.skipped[0].reason }}.</p>{% endif %}{% endif %}
{{ fold_fit_html }}

{{ samples_html }}

<h2>Label reliability (gold labels only)</h2>
{% if synthetic %}<p class="na">These statistics describe SYNTHETIC labels written by developers, not real judges.</p>{% endif %}
<p>{{ reliability.n_matches_with_panel }} of {{ reliability.n_matches }} matches have a {{ reliability.panel_size }}-judge original panel.</p>
<table><tr><th>Statistic</th><th>Value</th></tr>
{% for group in ["winner", "stage_scores", "best_debater"] %}{% for k, leaf in (reliability.get(group) or {}).items() %}
<tr><td>{{ group }}.{{ k }}</td><td>{{ leaf_text(leaf) }}</td></tr>{% endfor %}{% endfor %}
</table>
{% if reliability.human_reference %}<p class="note">{{ reference_heading(synthetic) }}</p>
<table><tr><th>Setting</th><th>Metric</th><th>Value</th></tr>
{% for setting in ["self_included", "leave_one_out"] %}{% for k, leaf in (reliability.human_reference.get(setting) or {}).items() %}
<tr><td>{{ setting }}</td><td>{{ k }}</td><td>{{ leaf_text(leaf) }}</td></tr>{% endfor %}{% endfor %}
</table>{% endif %}
</body></html>
"""


def _leaf_text(leaf: Any) -> str:
    if isinstance(leaf, dict):
        if leaf.get("value") is None:
            return f"n/a ({leaf.get('reason') or 'undefined'})"
        return f"{fmt(leaf['value'])} (n={leaf.get('n')})"
    return "—" if leaf is None else str(leaf)


def _table_html(rows: list[dict[str, Any]], task: str) -> str:
    from markupsafe import Markup, escape

    cols = COLUMNS[task]
    head = "<tr><th>Rank</th><th>Predictor</th>" + "".join(f"<th>{escape(c[1])}</th>" for c in cols) + "</tr>"
    body = []
    for r in ordered(rows):
        cls = "ref" if not r.get("comparable", True) else ("baseline" if r.get("kind") == "baseline" else "arm")
        name = escape(r["predictor"]) + ("*" if not r.get("comparable", True) else "")
        if r.get("kind") == "baseline" and r.get("seed") is not None:
            name += f" (seed {r['seed']})"
        exp = r.get("expected") or {}
        cells = "".join(f"<td>{escape(cell(r['metrics'].get(k), exp.get(k)) if k in r['metrics'] else '—')}</td>" for k, _ in cols)
        body.append(f'<tr class="{cls}"><td>{escape(str(r.get("rank") or "—"))}</td><td>{name}</td>{cells}</tr>')
    return Markup("<table>" + head + "".join(body) + "</table>")


def render_html(report: dict[str, Any], plot_cache: PlotCache | None = None) -> str:
    """The self-contained HTML page of ``report`` (the dict from :func:`adjudicator.bench.report.build_report`);
    pictures drawn before are read from ``plot_cache`` when given (see :mod:`adjudicator.bench.plots`)."""
    plots = {
        "reliability": reliability_plot(report.get("calibration") or {}, cache=plot_cache),
        "scatter": stage_scatter(report.get("_predictions") or {}, report["_gold"], seed=report["run"]["seeds"]["bootstrap"], cache=plot_cache) if report.get("_gold") is not None and report["tasks"]["task2"].get("applicable") else None,
        "cost": cost_plots(report.get("ledger") or {}, cache=plot_cache),
    }
    from adjudicator.bench.templates import report_environment

    env = report_environment({"report.html": _TEMPLATE})
    env.globals.update(
        fmt=fmt, cell=cell, table=_table_html, leaf_text=_leaf_text, sub=lambda a, b: None if a is None or b is None else a - b,
        models_text=models_text, counts_text=counts_text, ordered=ordered, reference_heading=reference_heading,
        cost_text=cost_text, cause_text=cause_text, p_text=p_text, bootstrap_p_text=bootstrap_p_text, ranked_by_text=ranked_by_text, ranked_label=ranked_label,
        bp_tasks=BP_TASKS, offline_short=offline_short("en"),
    )
    tpl = env.get_template("report.html")
    return tpl.render(
        run=report["run"],
        samples=report["samples"],
        ledger=report["ledger"],
        parsing=report["parsing"],
        failures=report.get("failures") or [],
        tasks=report["tasks"],
        calibration=report.get("calibration") or {},
        paired=report.get("paired") or [],
        arm_vs_baseline=report.get("arm_vs_baseline") or [],
        reliability=report.get("reliability") or {},
        bias_card=report.get("bias_card"),
        fold_fit_html=Markup(report.get("_fold_fit_html") or ""),  # a --fold run's fits (adjudicator.finetune.render, via report.build_report)
        alt_test=report.get("alt_test"),
        selective=report.get("selective") or {},
        feedback=report.get("feedback") or {},
        plots=plots,
        task_2_na=not report["tasks"]["task2"].get("applicable"),
        warnings=report.get("warnings") or [],
        caveats=report.get("caveats") or [],
        cost_note=cost_note(report.get("ledger") or {}),
        convention=label_convention_text(report["run"]["dataset"]),
        synthetic=bool((report["run"]["dataset"].get("provenance") or {}).get("synthetic")),
        samples_css=Markup(SAMPLES_CSS),
        samples_html=samples_section(report.get("_samples") or [], report.get("_matches") or [], report.get("_results") or {},
                                     run_dir=report.get("_run_dir"), human=report.get("_human") or {}, run_id=report["run"]["run_id"]),
    )

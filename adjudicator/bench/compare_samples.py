"""What ``adjudicate compare`` says beyond the paired tests: which samples differ, and what setting
differs between the two runs.

- **Settings** (:func:`manifest_differences`): the two manifests' resolved configuration (panel,
  judge evidence, rubric, evidence, stage windows, p source, temperature, JSON mode, ...), each arm's
  models, each arm's prompt template hashes, the dataset, the sample selection (limit, fold) and the
  parent of a re-judge run. Settings that change how a run is carried out but not what it measures
  (:data:`OPERATIONAL`: cache folder, timeouts, retries, concurrency) are left out. Each run is then
  labelled by what is its own (:func:`run_label`), so two runs that differ only by ``--panel
  pairwise`` no longer read as the same ``agentic · offline``.
- **Samples** (:func:`differing_samples`): over the matches both runs finished, each whose winner is
  correct in one run and wrong in the other (against a decisive gold winner), whose winner tendency
  moved by more than ``p_moved`` (absolute, on [0, 1]), or whose status differs (ok / partial / failed),
  with both runs' winner, p, status and the person's annotation of each (``human.json``, where given).
- **The HTML diff** (:func:`diff_page`): one self-contained page with those samples, each with both
  verdicts side by side and both runs' calls (messages and raw outputs, from each run's ``prompts/``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from markupsafe import Markup

from adjudicator.bench.manifest import Manifest

#: Configuration keys that change how a run is carried out, not what it measures.
OPERATIONAL = frozenset({"cache_dir", "no_cache", "timeout_s", "transport_retries", "backoff_base_s", "max_concurrent_requests", "config_file", "api_base"})


def _short(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def manifest_differences(a: Manifest, b: Manifest, arm_a: str, arm_b: str) -> list[dict[str, str]]:
    """``[{"setting", "a", "b"}]``: every measured setting (module docstring) whose value differs
    between the runs, values as text ("—" where a run has none), in a fixed order: configuration,
    models, prompt hashes, dataset, selection, parent."""
    out: list[dict[str, str]] = []

    def add(setting: str, va: Any, vb: Any) -> None:
        if va != vb:
            out.append({"setting": setting, "a": "—" if va is None else _short(va), "b": "—" if vb is None else _short(vb)})

    for key in sorted((set(a.config) | set(b.config)) - OPERATIONAL):
        add(key, a.config.get(key), b.config.get(key))
    ma, mb = a.models.get(arm_a, {}), b.models.get(arm_b, {})
    for role in sorted(set(ma) | set(mb)):
        add(f"model {role}", ma.get(role), mb.get(role))
    ha, hb = a.prompt_hashes.get(arm_a, {}), b.prompt_hashes.get(arm_b, {})
    for name in sorted(set(ha) | set(hb)):
        add(f"prompt {name}", ha.get(name), hb.get(name))
    if arm_a != arm_b:
        add("arm", arm_a, arm_b)
    add("dataset", a.dataset.get("sha256"), b.dataset.get("sha256"))
    add("limit", a.limit, b.limit)
    add("fold", (a.fold or {}).get("fold"), (b.fold or {}).get("fold"))
    add("parent run", (a.parent or {}).get("run_id"), (b.parent or {}).get("run_id"))
    return out


def run_label(base: str, diffs: Sequence[dict[str, str]], side: str) -> str:
    """``base`` (the arm's label) followed by this run's (``side``: ``"a"`` or ``"b"``) value of every
    differing setting, e.g. ``"agentic · offline [panel pairwise; judge_evidence quotes]"``; prompt
    hashes are cut to 12 characters; more than five settings are counted, not listed."""
    parts = [f"{d['setting']} {d[side][:12] if d['setting'].startswith('prompt ') else d[side]}" for d in diffs]
    if not parts:
        return base
    if len(parts) > 5:
        parts = parts[:5] + [f"and {len(parts) - 5} more settings"]
    return f"{base} [{'; '.join(parts)}]"


def differing_samples(rows_a: Sequence[dict[str, Any]], rows_b: Sequence[dict[str, Any]], p_moved: float,
                      human_a: dict[tuple[str, str], Any], human_b: dict[tuple[str, str], Any]) -> list[dict[str, Any]]:  # fmt: skip
    """The samples that differ (module docstring) between two runs' sample rows
    (:func:`adjudicator.bench.samples.sample_rows`, one arm each, the same samples), in row order:
    ``sample_id``, ``motion``, ``gold_winner``, ``why`` (a list: ``"correct in A only"``, ``"correct
    in B only"``, ``"p moved +0.150"``, ``"status ok -> failed"``), ``p_delta`` (B - A, None when
    either p is missing) and per run (``a``, ``b``) its winner, p, correct, status and annotation."""
    by_b = {r["sample_id"]: r for r in rows_b}
    out = []
    for ra in rows_a:
        rb = by_b.get(ra["sample_id"])
        if rb is None:
            continue
        why = []
        if ra["correct"] is not None and rb["correct"] is not None and ra["correct"] != rb["correct"]:
            why.append("correct in A only" if ra["correct"] else "correct in B only")
        delta = None if ra["p"] is None or rb["p"] is None else rb["p"] - ra["p"]
        if delta is not None and abs(delta) > p_moved:
            why.append(f"p moved {delta:+.3f}")
        if ra["status"] != rb["status"]:
            why.append(f"status {ra['status']} -> {rb['status']}")
        if not why:
            continue

        def side(r: dict[str, Any], human: dict[tuple[str, str], Any]) -> dict[str, Any]:
            h = human.get((r["sample_id"], r["arm"]))
            return {"arm": r["arm"], "winner": r["predicted_winner"], "p": r["p"], "correct": r["correct"], "status": r["status"],
                    "human": {"call": h.call, "comment": h.comment} if h else None}

        out.append({"sample_id": ra["sample_id"], "motion": ra["motion"], "gold_winner": ra["gold_winner"], "why": why,
                    "p_delta": delta, "a": side(ra, human_a), "b": side(rb, human_b)})
    return out


def format_differences(c: dict[str, Any]) -> str:
    """Plain text of the settings that differ and the samples that differ (``c`` from
    :func:`adjudicator.bench.compare.compare_runs`)."""
    lines = ["", "settings that differ (A -> B):" if c["settings_differ"] else "settings that differ: none (the same configuration, models and prompts)"]
    lines += [f"  {d['setting']}: {d['a']} -> {d['b']}" for d in c["settings_differ"]]
    diff = c["samples_differ"]
    lines += ["", f"samples that differ ({len(diff)}; correct in one run only, p moved by more than {c['p_moved']:g}, or status changed):"]

    def p(x: float | None) -> str:
        return "—" if x is None else f"{x:.3f}"

    for d in diff:
        a, b = d["a"], d["b"]
        lines.append(f"  {d['sample_id']}: {', '.join(d['why'])}; gold {d['gold_winner'] or '—'}; A {a['winner'] or '—'} p {p(a['p'])} {a['status']}; B {b['winner'] or '—'} p {p(b['p'])} {b['status']}")
        for tag, s in (("A", a), ("B", b)):
            if s["human"]:
                lines.append(f"    human on {tag}: {s['human']['call']}" + (f" ({s['human']['comment']})" if s["human"]["comment"] else ""))
    if c.get("diff_html"):
        lines.append(f"\nside by side, with the calls: {c['diff_html']}")
    return "\n".join(lines) + "\n"


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>compare {{ name_a }} · {{ name_b }}</title>
<style>body{font-family:system-ui,sans-serif;margin:1.5rem} table{border-collapse:collapse} td,th{border:1px solid #ccc;padding:.2rem .45rem;text-align:left;vertical-align:top}
th{background:#f2f2f2} .note{color:#555} div.pair{display:grid;grid-template-columns:1fr 1fr;gap:1rem} div.pair>div{min-width:0} pre{white-space:pre-wrap;background:#f6f6f6;border:1px solid #ddd;padding:.4rem;max-height:30rem;overflow:auto}
section.sample{border-top:2px solid #888;margin-top:1.5rem}
{{ css }}</style></head><body>
<h1>{{ name_a }} → {{ name_b }}</h1>
<p><b>A</b>: {{ label_a }}<br><b>B</b>: {{ label_b }}</p>
<h2>Settings that differ</h2>
{% if settings %}<table><tr><th>Setting</th><th>A</th><th>B</th></tr>{% for d in settings %}<tr><td>{{ d.setting }}</td><td><code>{{ d.a }}</code></td><td><code>{{ d.b }}</code></td></tr>{% endfor %}</table>
{% else %}<p class="note">None: the same configuration, models and prompt templates.</p>{% endif %}
<h2>Samples that differ ({{ samples|length }} of {{ shared }} finished in both)</h2>
<p class="note">Correct in one run only, winner tendency moved by more than {{ p_moved }}, or status changed.</p>
<table id="differ"><tr><th>Sample</th><th>Why</th><th>Gold</th><th>A winner</th><th>A p</th><th>B winner</th><th>B p</th><th>Human on A</th><th>Human on B</th></tr>
{% for d in samples %}<tr><td><a href="#{{ d.anchor }}">{{ d.sample_id }}</a></td><td>{{ d.why|join(", ") }}</td><td>{{ d.gold_winner or "—" }}</td>
<td>{{ d.a.winner or "—" }}</td><td>{{ "—" if d.a.p is none else "%.3f"|format(d.a.p) }}</td><td>{{ d.b.winner or "—" }}</td><td>{{ "—" if d.b.p is none else "%.3f"|format(d.b.p) }}</td>
<td>{{ d.a.human.call ~ (": " ~ d.a.human.comment if d.a.human.comment else "") if d.a.human else "—" }}</td><td>{{ d.b.human.call ~ (": " ~ d.b.human.comment if d.b.human.comment else "") if d.b.human else "—" }}</td></tr>
{% endfor %}</table>
{% for d in samples %}<section class="sample" id="{{ d.anchor }}"><h2>{{ d.sample_id }}: {{ d.why|join(", ") }}</h2><p>{{ d.motion }}</p>
<div class="pair"><div><h3>A · {{ name_a }}</h3>{{ d.view_a }}</div><div><h3>B · {{ name_b }}</h3>{{ d.view_b }}</div></div></section>
{% endfor %}
<script type="application/json" id="diff-prompts">{{ prompts }}</script>
<script>(function () {
  var texts = JSON.parse(document.getElementById("diff-prompts").textContent);
  document.querySelectorAll("details.message").forEach(function (d) {
    d.addEventListener("toggle", function () {
      var pre = d.querySelector("pre.message-text");
      if (d.open && pre && !pre.textContent) { var t = texts[d.dataset.sha]; pre.textContent = t === undefined ? "(the text is not in the run's prompts/ folder)" : t; }
    });
  });
})();</script>
</body></html>
"""


def diff_page(c: dict[str, Any], matches: dict[str, Any], results_a: dict[str, Any], results_b: dict[str, Any], rows_a: Sequence[dict[str, Any]],
              rows_b: Sequence[dict[str, Any]]) -> str:  # fmt: skip
    """The HTML diff (module docstring) of ``c`` (:func:`adjudicator.bench.compare.compare_runs`' result)
    given the shared matches by id, each run's results of its arm by sample id and its sample rows."""
    from adjudicator.bench.prompt_store import PromptReader
    from adjudicator.bench.templates import report_environment
    from adjudicator.bench.viewer_sample import PageTexts, sample_view, static_text

    page = PageTexts()
    reader_a, reader_b = PromptReader(Path(c["run_a"])), PromptReader(Path(c["run_b"]))
    row_a = {r["sample_id"]: r for r in rows_a}
    row_b = {r["sample_id"]: r for r in rows_b}
    samples = []
    for k, d in enumerate(c["samples_differ"], 1):
        sid = d["sample_id"]
        samples.append({**d, "anchor": f"d{k}",
                        "view_a": sample_view(row_a[sid], matches[sid], results_a.get(sid), reader_a, page),
                        "view_b": sample_view(row_b[sid], matches[sid], results_b.get(sid), reader_b, page)})
    prompts = Markup(json.dumps(page.texts, ensure_ascii=False).replace("<", "\\u003c"))
    template = report_environment({"diff.html": _PAGE}).get_template("diff.html")
    return template.render(
        name_a=Path(c["run_a"]).name, name_b=Path(c["run_b"]).name, label_a=c["label_a"], label_b=c["label_b"], settings=c["settings_differ"],
        samples=samples, shared=c["matches_shared"], p_moved=c["p_moved"], prompts=prompts, css=Markup(static_text("viewer.css")),
    )

"""The per-sample section of report.html: a sortable, filterable table of every (sample, arm) and, for
each row, the sample opened up (its review first -- whether a person should check the verdict and why,
:mod:`adjudicator.verdict.review` -- then its ballots, the feedback per debater, battlefield map, stage scores against the gold, node
failures with the raw output of every failed attempt, and a link to its result file).

The table rows are :func:`adjudicator.bench.samples.sample_rows`. The page stays self-contained and
opens from disk: every sample's detail is rendered into the page (hidden until its row is chosen,
via the URL fragment, so it works without script), and a small inline script sorts and filters
the table. Debate text and model output are escaped by jinja2's autoescape; the script only moves
rows and reads ``textContent``, never writes markup.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
from markupsafe import Markup

from adjudicator.bench.results import SampleResult
from adjudicator.input.match import Match

#: Longest raw output shown in the page, in characters; the result file keeps the whole text.
RAW_OUTPUT_CHARS = 20_000

#: The table's columns: (row field, heading, kind) with kind ``num`` (sorted as numbers) or ``text``.
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("sample_id", "Match", "text"),
    ("arm", "Arm", "text"),
    ("motion", "Motion", "text"),
    ("format", "Format", "text"),
    ("gold_winner", "Gold", "text"),
    ("p", "p", "num"),
    ("predicted_winner", "Predicted", "text"),
    ("correct", "Correct", "text"),
    ("stage_mse", "Stage MSE", "num"),
    ("parse", "Parse", "text"),
    ("status", "Status", "text"),
    ("escalated", "Escalated", "text"),
    ("prompt_tokens", "Prompt tokens", "num"),
    ("completion_tokens", "Completion tokens", "num"),
    ("cost_usd", "Cost (USD)", "num"),
    ("human", "Human", "text"),
)

_TEMPLATE = """
<h2 id="samples">Samples ({{ rows|length }})</h2>
{{ picker }}<p class="note">Every sample and arm. Click a column heading to sort; click a row to open the sample: its review, ballots, battlefield map,
stage scores against the gold, the verdict beside the gold, the transcript by stage and every call with its messages and raw output.
The filter takes words (every column is searched) or an expression over any field of <code>samples.jsonl</code>:
<code>p &gt; 0.6</code>, <code>escalated and wrong</code>, <code>status = partial or prompt_tokens &gt;= 5000</code>, <code>human = disagree</code>
(operators <code>&gt; &gt;= &lt; &lt;= = != ~</code> (contains), <code>and</code>, <code>or</code>, <code>not</code>, parentheses; the words
<code>wrong</code>, <code>right</code>, <code>ok</code>, <code>partial</code>, <code>failed</code>, <code>agreed</code>, <code>disagreed</code>, <code>annotated</code>).
The same rows are in <code>samples.jsonl</code> and <code>samples.csv</code>.</p>
<p class="filters"><input id="sample-filter" type="search" placeholder="filter, e.g. p > 0.6 and not escalated" size="40" aria-label="filter samples">
{% for key, title, values in selects %}<select class="sample-select" data-col="{{ key }}" aria-label="{{ title }}"><option value="">{{ title }}: all</option>{% for v in values %}<option>{{ v }}</option>{% endfor %}</select>
{% endfor %}<span id="sample-count" class="note">{{ rows|length }} shown</span> <span id="sample-filter-mode" class="note"></span></p>
<p class="human-tools note"><b>Human column</b>: open a sample to record whether you agree with its verdict and why. What you type is kept in this
browser (<span id="human-count">{{ human_count }}</span> annotations); <button id="human-export" type="button">Export human.json</button> saves it, then
<code>adjudicate annotate {{ run_path }} --import human.json</code> checks it, puts it beside the run and rebuilds the reports, which read it back
(as does <code>adjudicate compare</code>). <button id="human-clear" type="button">Forget this browser's edits</button></p>
<table id="sample-table" class="samples"><thead><tr>{% for key, title, kind in columns %}<th data-col="{{ key }}" data-kind="{{ kind }}" tabindex="0">{{ title }}</th>{% endfor %}</tr></thead>
<tbody>{% for r in rows %}<tr class="sample-row {{ r.css }}" data-target="{{ r.id }}">{% for key, title, kind in columns %}<td data-col="{{ key }}" data-v="{{ r.sort[key] }}">{% if loop.first %}<a href="#{{ r.id }}">{{ r.show[key] }}</a>{% else %}{{ r.show[key] }}{% endif %}</td>{% endfor %}</tr>
{% endfor %}</tbody></table>
{% for d in details %}<section class="sample" id="{{ d.id }}">
<h3>{{ d.sample_id }} · {{ d.arm_label }} <a class="close" href="#samples">close</a></h3>
{% if d.review %}<div class="review {{ 'escalate' if d.review.escalate else 'clear' }}"><b>Review:</b> {{ ("a person should check this verdict (" ~ d.review.sentences|length ~ " reason(s)):") if d.review.escalate else "no reason to escalate: every check of the quality gate passed." }}
{% if d.review.sentences %}<ul>{% for x in d.review.sentences %}<li>{{ x }}</li>{% endfor %}</ul>{% endif %}</div>{% endif %}
<p><b>Motion:</b> {{ d.motion }} · <b>Format:</b> {{ d.format }} · <b>Status:</b> {{ d.status }}{% if d.error %} ({{ d.error }}){% endif %}<br>
<b>Gold winner:</b> {{ d.gold_winner or "—" }} · <b>p</b> = {{ d.p_text }} · <b>predicted:</b> {{ d.predicted_winner or "—" }} · <b>correct:</b> {{ d.correct_text }}{% if d.split %} · <b>panel split</b> {{ d.split }}{% endif %}{% if d.escalated is not none %} · <b>escalated:</b> {{ "yes" if d.escalated else "no" }}{% endif %}<br>
{% if d.result_file %}<b>Result file:</b> <a href="{{ d.result_file }}">{{ d.result_file }}</a> (every call and raw output){% else %}Not run.{% endif %}</p>
{% if d.ballots %}<h4>Ballots</h4><table><tr><th>Judge</th><th>Model</th><th>Winner</th><th>p</th><th>Best-debater votes</th><th>Reasoning</th></tr>
{% for b in d.ballots %}<tr><td>{{ b.judge }}</td><td>{{ b.model }}</td><td>{{ b.winner }}</td><td>{{ b.p }}</td><td>{{ b.votes }}</td><td>{{ b.reasoning }}</td></tr>{% endfor %}</table>
{% if d.best %}<p><b>Panel's best-debater votes:</b> {{ d.best }}{% if d.gold_best %} · <b>gold:</b> {{ d.gold_best }}{% endif %}</p>{% endif %}{% endif %}
{% if d.feedback %}<h4>Feedback per debater (from {{ d.feedback_from }})</h4><table><tr><th>Debater</th><th>Point</th><th>Stage</th><th>Clash</th><th>Text</th></tr>
{% for f in d.feedback %}<tr><td>{{ f.debater }}</td><td>{{ f.kind }}</td><td>{{ f.stage }}</td><td>{{ f.clash }}</td><td>{{ f.text }}</td></tr>{% endfor %}</table>{% endif %}
{% if d.clashes %}<h4>Battlefield map</h4><table><tr><th>Clash</th><th>Affirmative position</th><th>Negative position</th><th>Momentum</th><th>History (stage · side · debater · move: note)</th></tr>
{% for c in d.clashes %}<tr><td>{{ c.title }}</td><td>{{ c.aff }}</td><td>{{ c.neg }}</td><td>{{ c.momentum }}</td><td class="history"><ol>{% for e in c.events %}<li>{{ e }}</li>{% endfor %}</ol></td></tr>{% endfor %}</table>
<p class="note">Momentum: the share of the clash's counted moves that went the affirmative's way minus the share that went the negative's (pushing forward or holding counts for the side that made the move, giving ground for the other), from −1 to +1.</p>{% endif %}
{% if d.scores %}<h4>Stage scores{% if d.has_gold_scores %} against the gold{% endif %}</h4><table><tr><th>Stage</th><th>Side</th><th>Judges</th><th>Mean</th>{% if d.has_gold_scores %}<th>Gold judges</th><th>Gold mean</th><th>Difference</th>{% endif %}</tr>
{% for s in d.scores %}<tr><td>{{ s.stage }}</td><td>{{ s.side }}</td><td>{{ s.judges }}</td><td>{{ s.mean }}</td>{% if d.has_gold_scores %}<td>{{ s.gold_judges }}</td><td>{{ s.gold_mean }}</td><td>{{ s.diff }}</td>{% endif %}</tr>{% endfor %}</table>{% endif %}
{% if d.tasks %}<h4>Protocol tasks</h4><table><tr><th>Task</th><th>Key</th><th>ok</th><th>Parse</th><th>Attempts</th><th>Error</th></tr>
{% for t in d.tasks %}<tr><td>{{ t.task }}</td><td>{{ t.key }}</td><td>{{ t.ok }}</td><td>{{ t.parse }}</td><td>{{ t.attempts }}</td><td>{{ t.error or "" }}</td></tr>{% endfor %}</table>{% endif %}
{% if d.failures %}<h4>Failed nodes</h4><ul>{% for f in d.failures %}<li>{{ f }}</li>{% endfor %}</ul>{% endif %}
{% if d.dropped %}<h4>Answers taken without fields still invalid after their repair</h4><ul>{% for f in d.dropped %}<li>{{ f }}</li>{% endfor %}</ul>{% endif %}
{% if d.failed_attempts %}<h4>Raw outputs of failed attempts ({{ d.failed_attempts|length }})</h4>
{% for a in d.failed_attempts %}<p><b>{{ a.what }}</b>: {{ a.error or "unreadable" }}</p><pre>{{ a.raw }}</pre>{% endfor %}{% endif %}
<div class="human" data-row="{{ d.id }}"><b>Your call on this verdict:</b> <select aria-label="agree or disagree"><option value="">—</option><option value="agree">agree</option><option value="disagree">disagree</option></select>
<textarea rows="2" cols="70" maxlength="4000" placeholder="comment: why you disagree, what the verdict missed" aria-label="comment"></textarea></div>
{{ d.viewer }}
</section>
{% endfor %}
<script type="application/json" id="sample-data">{{ island }}</script>
<script>{{ script }}</script>
"""



@functools.lru_cache(maxsize=1)
def _section() -> jinja2.Template:
    """The section's template, compiled on first use (its code cached on disk, :mod:`adjudicator.bench.templates`)."""
    from adjudicator.bench.templates import report_environment

    return report_environment({"samples.html": _TEMPLATE}).get_template("samples.html")


def _viewer_css() -> str:
    from adjudicator.bench.viewer_sample import static_text

    return static_text("viewer.css")


CSS = """
table.samples td,table.samples th{white-space:nowrap} table.samples td[data-col=motion]{white-space:normal;min-width:14rem}
table.samples th{cursor:pointer} table.samples th[data-dir=asc]::after{content:" ▲"} table.samples th[data-dir=desc]::after{content:" ▼"}
tr.sample-row{cursor:pointer} tr.sample-row:hover td{background:#eef4ff} tr.wrong td[data-col=correct]{color:#a33;font-weight:600}
tr.right td[data-col=correct]{color:#276b2f} tr.notok td[data-col=status]{color:#a33}
section.sample{display:none;border:2px solid #9bb8e6;border-radius:6px;padding:.4rem 1rem;margin:1rem 0;background:#fbfcff}
section.sample:target{display:block} section.sample h3 .close{font-size:.8rem;font-weight:400;margin-left:1rem}
section.sample pre{white-space:pre-wrap;background:#f6f6f6;border:1px solid #ddd;padding:.5rem;max-height:24rem;overflow:auto;font-size:.8rem}
p.filters select,p.filters input{margin-right:.4rem} section.sample td.history{min-width:26rem} section.sample td{max-width:40rem}
section.sample ol{margin:0;padding-left:1.4rem}
"""
CSS += _viewer_css()


def _num(x: Any, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _show(key: str, v: Any) -> str:
    """A row value as the table shows it."""
    if v is None:
        return "—" if key not in ("escalated", "correct") else ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if key == "p":
        return f"{v:.2f}"
    if key == "stage_mse":
        return f"{v:.3f}"
    if key == "cost_usd":
        return f"{v:.4f}"
    return str(v)


def _sort_value(key: str, v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "1" if v else "0"
    return str(v)


def _names(match: Match) -> dict[str, str]:
    return {match.label_of(d): d.name for d in match.debaters if d.name}


def _who(label: str | None, names: dict[str, str]) -> str:
    if not label:
        return ""
    return f"{label} ({names[label]})" if label in names else label


def _votes(votes: dict[str, Any], names: dict[str, str]) -> str:
    return ", ".join(f"{_who(k, names)} {v:g}" for k, v in sorted(votes.items(), key=lambda kv: -kv[1]) if v)


def _clashes(verdict: dict[str, Any], stage_names: dict[str, str], names: dict[str, str]) -> list[dict[str, Any]]:
    from adjudicator.verdict.battlefield import Clash

    out = []
    for c in verdict.get("battlefields") or []:
        clash = Clash.model_validate(c)
        events = []
        for e in clash.events:
            parts = [stage_names.get(e.stage_id, e.stage_id), e.side]
            if e.debater:
                parts.append(_who(e.debater, names))
            events.append(" · ".join(parts) + f" · {e.kind}" + (f": {e.note}" if e.note else ""))
        out.append({"title": clash.title, "aff": clash.affirmative_position, "neg": clash.negative_position, "momentum": f"{clash.momentum():+.2f}", "events": events})
    return out


def _scores(verdict: dict[str, Any], match: Match, stage_names: dict[str, str]) -> tuple[list[dict[str, str]], bool]:
    judges = list(match.labels.judges) if match.labels else []
    rows, any_gold = [], False
    for s in verdict.get("stage_scores") or []:
        key = f"{s['stage_id']}|{s['side']}"
        gold = [j.stage_scores[key] for j in judges if key in j.stage_scores]
        gm = float(np.mean(gold)) if gold and len(gold) == len(judges) else None
        any_gold |= gm is not None
        rows.append({
            "stage": stage_names.get(s["stage_id"], s["stage_id"]), "side": s["side"] + (f" ({s['role']})" if s.get("role") else ""),
            "judges": " / ".join(map(str, s.get("judge_scores") or [])), "mean": _num(s.get("mean")),
            "gold_judges": " / ".join(map(str, gold)) or "—", "gold_mean": _num(gm), "diff": "—" if gm is None else f"{float(s['mean']) - gm:+.2f}",
        })
    return rows, any_gold


#: The three points of a debater's feedback as the sample's detail names them.
_FEEDBACK_KINDS = {"worked": "what worked", "missed": "the response missed", "work_on": "one thing to work on"}


def _feedback(verdict: dict[str, Any], stage_names: dict[str, str], names: dict[str, str]) -> list[dict[str, str]]:
    """The verdict's feedback per debater as rows (debater, point, stage, clash, text); a clash by its
    title and id, "—" for none."""
    titles = {c.get("clash_id"): c.get("title", "") for c in verdict.get("battlefields") or []}
    rows = []
    for f in verdict.get("feedback") or []:
        who = f.get("debater", "") + (f" ({names[f['debater']]})" if names.get(f.get("debater", "")) else "")
        for kind, word in _FEEDBACK_KINDS.items():
            pt = f.get(kind) or {}
            cid = pt.get("clash_id") or ""
            rows.append({"debater": who, "kind": word, "stage": stage_names.get(pt.get("stage_id", ""), pt.get("stage_id", "")),
                         "clash": f"{titles.get(cid, '')} ({cid})" if cid else "—", "text": pt.get("text", "")})
    return rows


def _review(verdict: dict[str, Any]) -> dict[str, Any] | None:
    """The verdict's review for the sample's detail, at its top: ``escalate`` and one sentence per
    reason (:func:`~adjudicator.verdict.review.review_sentences`; a review that does not read as one,
    from an older result file, by its recorded ``detail``). None without a review."""
    from adjudicator.verdict.review import Review, review_sentences

    raw = verdict.get("review")
    if not isinstance(raw, dict):
        return None
    try:
        review = Review.model_validate(raw)
    except ValueError:
        return {"escalate": bool(raw.get("escalate")), "sentences": [str(x) for x in raw.get("detail") or []]}
    return {"escalate": review.escalate, "sentences": review_sentences(review)}


def _detail(row: dict[str, Any], match: Match, res: SampleResult | None) -> dict[str, Any]:
    names = _names(match)
    stage_names = {st.stage_id: f"{st.name} ({st.stage_id})" if st.name else st.stage_id for st in match.stages}
    verdict = (res.verdict if res is not None else None) or {}
    gold_votes: dict[str, int] = {}
    for j in (match.labels.judges if match.labels else []):
        for k, v in j.best_debater_votes.items():
            gold_votes[k] = gold_votes.get(k, 0) + v
    scores, has_gold = _scores(verdict, match, stage_names)
    failed = []
    for c in (res.calls if res is not None else []):
        if c.parse == "failed":
            raw = c.raw_output or ""
            cut = len(raw) > RAW_OUTPUT_CHARS
            failed.append({
                "what": f"{c.node} {c.key} attempt {c.attempt} ({c.model})", "error": c.error,
                "raw": (raw[:RAW_OUTPUT_CHARS] + f"\n… ({len(raw) - RAW_OUTPUT_CHARS} more characters in the result file)") if cut else (raw or "(no output)"),
            })
    return {
        **row,
        "review": _review(verdict),
        "p_text": _num(row["p"]), "correct_text": "—" if row["correct"] is None else ("yes" if row["correct"] else "no"),
        "escalated": row.get("escalated"),
        "ballots": [
            {"judge": b["judge_id"] + (f" ({b['perspective']})" if b.get("perspective") else ""), "model": b.get("model", ""),
             "winner": " > ".join(sorted(b["ranking"], key=lambda u: b["ranking"][u])) if b.get("ranking") else (b.get("winner") or "—"),
             "p": _num(b.get("p")), "votes": _votes(b.get("best_debater_votes") or {}, names), "reasoning": b.get("reasoning") or ""}
            for b in verdict.get("ballots") or []
        ],
        "best": _votes(verdict.get("best_debater_votes") or {}, names), "gold_best": _votes(gold_votes, names),
        "clashes": _clashes(verdict, stage_names, names),
        "feedback": _feedback(verdict, stage_names, names), "feedback_from": verdict.get("feedback_from") or "",
        "scores": scores, "has_gold_scores": has_gold,
        "tasks": [t for t in verdict.get("tasks") or [] if not t.get("ok", True) or t.get("parse") not in ("strict", "native")] if verdict.get("tasks") else [],
        "failures": [f"{f.node} {f.key}: {f.reason} ({f.kind.value})" for f in (res.failures if res is not None else []) if not f.partial],
        "dropped": [f"{f.node} {f.key}: {f.reason}" for f in (res.failures if res is not None else []) if f.partial],  # dropped_field: no failed node
        "failed_attempts": failed,
    }


def _island(rows: Sequence[dict[str, Any]], ids: list[str], columns: Sequence[tuple[str, str, str]], page: Any, human: dict[tuple[str, str], Any], run_id: str) -> Markup:
    """The page's data island (read by ``static/samples.js``): every row's fields by row id, the names a
    filter may use (field names and column headings, lower case with ``_`` for spaces), the message
    texts and the human annotations. ``<`` is written as ``\\u003c``, so no text can close the script element."""
    import json

    fields = {k: k for r in rows[:1] for k in r} | {"human": "human", "human_comment": "human_comment"}
    fields |= {title.lower().replace(" (usd)", "").replace(" ", "_"): key for key, title, _ in columns}
    data = {
        "run_id": run_id,
        "rows": {i: {**r, "human": (h.call if (h := human.get((r["sample_id"], r["arm"]))) else None)} for i, r in zip(ids, rows)},
        "fields": fields,
        "prompts": page.texts,
        "human": {i: {"call": a.call, "comment": a.comment, "annotator": a.annotator, "at": a.at} for i, r in zip(ids, rows) if (a := human.get((r["sample_id"], r["arm"])))},
    }
    return Markup(json.dumps(data, ensure_ascii=False, allow_nan=False).replace("<", "\\u003c"))


def samples_section(
    rows: Sequence[dict[str, Any]], matches: Sequence[Match], results: dict[str, dict[str, SampleResult]], *,
    run_dir: Path | None = None, human: dict[tuple[str, str], Any] | None = None, run_id: str = "",
) -> Markup:  # fmt: skip
    """The HTML of the per-sample section (module docstring) for ``rows`` (from
    :func:`adjudicator.bench.samples.sample_rows`), with every sample's detail built from its match and
    result; message texts are read from ``run_dir``'s ``prompts/`` (None: only those the records carry);
    ``human`` the run's annotations by (sample, arm) (:mod:`adjudicator.bench.human`)."""
    from adjudicator.bench.prompt_store import PromptReader
    from adjudicator.bench.run_index import run_picker
    from adjudicator.bench.viewer_sample import PageTexts, sample_view, static_text

    human = human or {}
    by_id = {m.match_id: m for m in matches}
    shown = [{**r, "human": (a.call + (" ✎" if a.comment else "")) if (a := human.get((r["sample_id"], r["arm"]))) else None} for r in rows]
    columns = [c for c in COLUMNS if not shown or c[0] in shown[0]]
    reader = PromptReader(run_dir) if run_dir is not None else None
    page = PageTexts()
    table_rows: list[dict[str, Any]] = []
    details: list[dict[str, Any]] = []
    for k, r in enumerate(shown, 1):
        css = ("right" if r["correct"] else "wrong") if r["correct"] is not None else ""
        if r["status"] != "ok":
            css += " notok"
        show = {key: _show(key, r.get(key)) for key, _, _ in columns}
        table_rows.append({"id": f"s{k}", "css": css.strip(), "show": show, "sort": {key: _sort_value(key, r.get(key)) for key, _, _ in columns}})
        res = results.get(r["arm"], {}).get(r["sample_id"])
        detail = _detail(r, by_id[r["sample_id"]], res)
        detail["viewer"] = sample_view(r, by_id[r["sample_id"]], res, reader, page)
        details.append({"id": f"s{k}", **detail})
    selects = []
    for key, title in (("arm", "Arm"), ("status", "Status"), ("correct", "Correct"), ("format", "Format")):
        values = sorted({tr["show"][key] for tr in table_rows if tr["show"].get(key)})
        if len(values) > 1:
            selects.append((key, title, values))
    island = _island(rows, [t["id"] for t in table_rows], columns, page, human, run_id)
    return Markup(_section().render(
        rows=table_rows, details=details, columns=columns, selects=selects, island=island, script=Markup(static_text("samples.js")),
        human_count=len(human), run_path=str(run_dir) if run_dir is not None else "RUN", picker=run_picker(run_dir) if run_dir is not None else Markup(""),
    ))

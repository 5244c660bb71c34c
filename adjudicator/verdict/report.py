"""The verdict report as Markdown (:func:`verdict_markdown`) or one self-contained HTML page
(:func:`verdict_html`), in the match's language.

Both lay out the sections :func:`adjudicator.verdict.reading.readable_verdict` composes: the match and its
debaters, the result, the reason for decision (from the ballots), the dissent, the battlefield map
(momentum explained once, where it first appears; each clash's history as stage, side, debater, move
and note), the scores by stage, the feedback for each debater, the ballots, failures and provenance;
what the offline judge is (when it judged) and the review (the quality gate) come first. The HTML page has no script and
no external file; jinja2's autoescape keeps debate text and model output from becoming markup.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jinja2

from adjudicator.input.match import MatchView
from adjudicator.verdict.ballots import Verdict
from adjudicator.verdict.reading import ReadableVerdict, readable_verdict

#: The columns of a ranking format's tables (word keys ``read.ranking.*`` and ``read.speeches.*``).
RANKING_COLUMNS = ("rank", "house", "judge_ranks", "mean_rank", "judge_points", "points")
SPEECH_COLUMNS = ("speech", "house", "scores", "mean", "ranks", "rank")


def _md(text: str) -> str:
    """One line of text for the Markdown: whitespace collapsed, pipes escaped, and ``<`` written as
    ``&lt;``, so that a debater's name or a model's reasoning holding ``<script>`` or ``<img onerror=...>``
    shows as text in every Markdown renderer instead of passing through as raw HTML (every HTML tag,
    comment and autolink starts with ``<``; a lone ``>``, as in ``->``, is left as it is)."""
    return " ".join(str(text).split()).replace("|", "\\|").replace("<", "&lt;")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(_md(c) for c in r) + " |" for r in rows)]


def render_markdown(r: ReadableVerdict) -> str:
    """Markdown of a :class:`~adjudicator.verdict.reading.ReadableVerdict`."""
    L = r.L
    lines = [f"# {_md(r.title)}", ""]
    if r.about:  # what the offline judge is, before anything it says
        lines += [f"> {_md(r.about)}", ""]
    if r.escalate is not None:  # the review first: whether a person should check this verdict
        lines += [f"**{L['review.title']}:** {L['review.escalate'].format(n=len(r.review)) if r.escalate else L['review.clear']}", ""]
        lines += [f"- {_md(x)}" for x in r.review] + ([""] if r.review else [])
    lines += [f"**{k}:** {_md(v)}  " for k, v in r.facts]
    if r.positions:
        lines += ["", f"**{L['read.positions']}:**", ""] + [f"- {k}: {_md(v)}" for k, v in r.positions]
    if r.debaters:
        lines += ["", f"**{L['read.debaters']}:**", ""] + [f"- {k}: {_md(v)}" for k, v in r.debaters]
    lines += ["", f"## {L['read.result']}", ""] + [f"{_md(x)}  " for x in r.result]
    lines += ["", f"## {L['read.reason']}", ""]
    lines += [f"{_md(r.reasons[0])}", ""] + [f"- {_md(x)}" for x in r.reasons[1:]]
    if r.momentum_first_in == "reasons":
        lines += ["", f"*{_md(r.momentum_note)}*"]
    if r.dissent:
        lines += ["", f"## {L['read.dissent']}", ""] + [f"- {_md(x)}" for x in r.dissent]
    lines += ["", f"## {L['read.clashes']}", ""]
    if r.clashes:
        if r.momentum_first_in == "clashes":
            lines += [f"*{_md(r.momentum_note)}*", ""]
        for c in r.clashes:
            lines += [f"### {_md(c.title)}", "", _md(c.summary), ""]
            lines += [f"- {k}: {_md(v)}" for k, v in c.positions]
            if c.positions:
                lines.append("")
            header = [L["read.history.stage"], L["read.history.side"], L["read.history.debater"], L["read.history.move"], L["read.history.note"]]
            lines += _table(header, [[h.stage, h.side, h.debater, h.move, h.note] for h in c.history]) + [""]
    else:
        lines += [L["map.none"], ""]
    if r.ranking:
        lines += [f"## {L['read.ranking']}", ""] + _table([L[f"read.ranking.{k}"] for k in RANKING_COLUMNS], r.ranking) + [""]
    if r.speeches:
        lines += [f"## {L['read.speeches']}", ""] + _table([L[f"read.speeches.{k}"] for k in SPEECH_COLUMNS], r.speeches) + [""]
    if r.scores or not r.ranking:
        lines += [f"## {L['read.scores']}", ""]
        counted = any(s.counted for s in r.scores)
        header = [L["read.scores.stage"], L["read.scores.type"], L["read.scores.side"], L["read.scores.judges"], L["read.scores.mean"]]
        header += [L["read.scores.counted"]] * counted + [L["read.scores.band"]]
        rows = [[s.stage, s.type, s.side, s.judges, s.mean, *[s.counted] * counted, s.band] for s in r.scores]
        lines += (_table(header, rows) if r.scores else [L["read.none"]]) + [""]
    if r.feedback:
        lines += [f"## {L['read.feedback']}", "", f"*{r.feedback_note}*", ""]
        for f in r.feedback:
            lines += [f"### {_md(f.debater)}", ""] + [f"- **{head}** ({_md(where)}): {_md(text)}" for head, where, text in f.points] + [""]
    if r.ballots:
        lines += [f"## {L['read.ballots']}", ""]
        for b in r.ballots:
            lines += [f"### {_md(b.heading)}", "", f"- {_md(b.label)}: {_md(b.votes)}"]
            if b.reasoning:
                lines.append(f"- {L['read.ballot.reasoning']}: {_md(b.reasoning)}")
            lines.append("")
    if r.failures:
        lines += [f"## {L['read.failures']}", ""] + [f"- {_md(f)}" for f in r.failures] + [""]
    lines += [f"## {L['read.provenance']}", ""] + [f"- {_md(p)}" for p in r.provenance]
    return "\n".join(lines) + "\n"


_HTML = """<!DOCTYPE html>
<html lang="{{ 'zh-CN' if r.language == 'zh' else 'en' }}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ r.title }}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC","WenQuanYi Micro Hei","Microsoft YaHei",sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1d2330;line-height:1.5}
table{border-collapse:collapse;margin:.5rem 0 1.2rem;font-size:.9rem} th,td{border:1px solid #d5d9e2;padding:.3rem .55rem;text-align:left;vertical-align:top}
th{background:#f3f5f9} .explain{color:#444;font-size:.9rem;max-width:60rem} .result{font-size:1.15rem} .muted{color:#6b7385}
.review{border:2px solid #b7c3d6;border-radius:6px;padding:.4rem .9rem;margin:1rem 0} .review.escalate{border-color:#c0392b;background:#fdf1ef} .review ul{margin:.2rem 0}
.about{border-left:4px solid #b7791f;background:#fdf8ec;padding:.4rem .9rem;margin:1rem 0}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:.2rem 1rem} dl.facts dt{font-weight:600} dl.facts dd{margin:0}
{% block style %}{% endblock %}</style></head><body>
<h1>{{ r.title }}</h1>
{% if r.about %}<p class="about">{{ r.about }}</p>{% endif %}
{% if r.escalate is not none %}<section class="review {{ 'escalate' if r.escalate else 'clear' }}"><p><b>{{ L["review.title"] }}:</b> {{ L["review.escalate"].format(n=r.review|length) if r.escalate else L["review.clear"] }}</p>
{% if r.review %}<ul>{% for x in r.review %}<li>{{ x }}</li>{% endfor %}</ul>{% endif %}</section>{% endif %}
<dl class="facts">{% for k, v in r.facts %}<dt>{{ k }}</dt><dd>{{ v }}</dd>{% endfor %}
{% for k, v in r.positions %}<dt>{{ k }}</dt><dd>{{ v }}</dd>{% endfor %}
{% if r.debaters %}<dt>{{ L["read.debaters"] }}</dt><dd>{% for k, v in r.debaters %}{{ k }}: {{ v }}{% if not loop.last %}<br>{% endif %}{% endfor %}</dd>{% endif %}</dl>
<h2>{{ L["read.result"] }}</h2>
{% block result %}{% for x in r.result %}<p class="{{ 'result' if loop.first else '' }}">{{ x }}</p>{% endfor %}{% endblock %}
{% block after_result %}{% endblock %}<h2>{{ L["read.reason"] }}</h2>
<p>{{ r.reasons[0] }}</p>
<ul>{% for x in r.reasons[1:] %}<li>{{ x }}</li>{% endfor %}</ul>
{% if r.momentum_first_in == "reasons" %}<p class="explain">{{ r.momentum_note }}</p>{% endif %}
{% if r.dissent %}<h2>{{ L["read.dissent"] }}</h2><ul>{% for x in r.dissent %}<li>{{ x }}</li>{% endfor %}</ul>{% endif %}
<h2>{{ L["read.clashes"] }}</h2>
{% if r.clashes %}{% if r.momentum_first_in == "clashes" %}<p class="explain">{{ r.momentum_note }}</p>{% endif %}
{% for c in r.clashes %}<h3>{{ c.title }}</h3><p>{{ c.summary }}</p>
{% if c.positions %}<ul>{% for k, v in c.positions %}<li><b>{{ k }}:</b> {{ v }}</li>{% endfor %}</ul>{% endif %}
<table><tr><th>{{ L["read.history.stage"] }}</th><th>{{ L["read.history.side"] }}</th><th>{{ L["read.history.debater"] }}</th><th>{{ L["read.history.move"] }}</th><th>{{ L["read.history.note"] }}</th></tr>
{% for h in c.history %}<tr><td>{{ h.stage }}</td><td>{{ h.side }}</td><td>{{ h.debater }}</td><td>{{ h.move }}</td><td>{{ h.note }}</td></tr>{% endfor %}</table>
{% endfor %}{% else %}<p class="muted">{{ L["map.none"] }}</p>{% endif %}
{% if r.ranking %}<h2>{{ L["read.ranking"] }}</h2><table><tr>{% for k in ranking_columns %}<th>{{ L["read.ranking." ~ k] }}</th>{% endfor %}</tr>
{% for row in r.ranking %}<tr>{% for c in row %}<td>{{ c }}</td>{% endfor %}</tr>{% endfor %}</table>{% endif %}
{% if r.speeches %}<h2>{{ L["read.speeches"] }}</h2><table><tr>{% for k in speech_columns %}<th>{{ L["read.speeches." ~ k] }}</th>{% endfor %}</tr>
{% for row in r.speeches %}<tr>{% for c in row %}<td>{{ c }}</td>{% endfor %}</tr>{% endfor %}</table>{% endif %}
{% if r.scores or not r.ranking %}<h2>{{ L["read.scores"] }}</h2>
{% if r.scores %}<table><tr><th>{{ L["read.scores.stage"] }}</th><th>{{ L["read.scores.type"] }}</th><th>{{ L["read.scores.side"] }}</th><th>{{ L["read.scores.judges"] }}</th><th>{{ L["read.scores.mean"] }}</th>{% if counted %}<th>{{ L["read.scores.counted"] }}</th>{% endif %}<th>{{ L["read.scores.band"] }}</th></tr>
{% for s in r.scores %}<tr><td>{{ s.stage }}</td><td>{{ s.type }}</td><td>{{ s.side }}</td><td>{{ s.judges }}</td><td>{{ s.mean }}</td>{% if counted %}<td>{{ s.counted }}</td>{% endif %}<td>{{ s.band }}</td></tr>{% endfor %}</table>{% else %}<p class="muted">{{ L["read.none"] }}</p>{% endif %}{% endif %}
{% if r.feedback %}<h2>{{ L["read.feedback"] }}</h2><p class="explain">{{ r.feedback_note }}</p>
{% for f in r.feedback %}<h3>{{ f.debater }}</h3><ul class="feedback">{% for head, where, text in f.points %}<li><b>{{ head }}</b> <span class="muted">({{ where }})</span>: {{ text }}</li>{% endfor %}</ul>{% endfor %}{% endif %}
{% if r.ballots %}<h2>{{ L["read.ballots"] }}</h2>
{% for b in r.ballots %}<h3>{{ b.heading }}</h3><p><b>{{ b.label }}:</b> {{ b.votes }}</p>{% if b.reasoning %}<p><b>{{ L["read.ballot.reasoning"] }}:</b> {{ b.reasoning }}</p>{% endif %}{% endfor %}{% endif %}
{% if r.failures %}<h2>{{ L["read.failures"] }}</h2><ul>{% for f in r.failures %}<li>{{ f }}</li>{% endfor %}</ul>{% endif %}
<h2>{{ L["read.provenance"] }}</h2>
<ul>{% for p in r.provenance %}<li>{{ p }}</li>{% endfor %}</ul>
{% block footer %}{% endblock %}</body></html>
"""

#: The page's template name, for a page that extends it (``{% extends "verdict.html" %}``).
BASE_PAGE = "verdict.html"


def html_environment(pages: Mapping[str, str] | None = None) -> jinja2.Environment:
    """The jinja2 environment of the report page (autoescaped, strict), with ``pages`` (template name ->
    source) beside :data:`BASE_PAGE`. A page that extends it may fill its empty blocks: ``style`` (more
    CSS), ``result`` (replaces the result lines), ``after_result`` (sections between the result and
    the reason for decision) and ``footer`` (after the provenance); the live report does
    (:mod:`adjudicator.live.tournament.report_html`)."""
    loader = jinja2.DictLoader({BASE_PAGE: _HTML, **(pages or {})})
    return jinja2.Environment(loader=loader, autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


_PAGE = html_environment().get_template(BASE_PAGE)


def render_html(r: ReadableVerdict, page: jinja2.Template | None = None, **context: Any) -> str:
    """One self-contained HTML page of a :class:`~adjudicator.verdict.reading.ReadableVerdict`: the
    report page, or ``page``, a template of :func:`html_environment` that extends it (``context``: the
    names its blocks read). The scores table has a counted column when a row has a counted score."""
    counted = any(s.counted for s in r.scores)
    return (page or _PAGE).render(r=r, L=r.L, ranking_columns=RANKING_COLUMNS, speech_columns=SPEECH_COLUMNS, counted=counted, **context)


def verdict_markdown(verdict: Verdict, view: MatchView | None = None, language: str | None = None) -> str:
    """The verdict report of ``verdict`` as Markdown (UTF-8 text), in the match's language
    (``view``: the match, for debater and stage names and positions; ``language`` overrides). A
    dimensional rubric's verdict ends with its per-dimension table (:func:`dimension_markdown`), a
    pairwise panel's with its comparisons (:func:`pairwise_markdown`)."""
    text = render_markdown(readable_verdict(verdict, view, language))
    dims = dimension_markdown(verdict)
    pair = pairwise_markdown(verdict)
    return text + ("\n" + dims if dims else "") + ("\n" + pair if pair else "")


def verdict_html(verdict: Verdict, view: MatchView | None = None, language: str | None = None) -> str:
    """The verdict report of ``verdict`` as one self-contained HTML page (arguments as :func:`verdict_markdown`)."""
    return render_html(readable_verdict(verdict, view, language))


def dimension_markdown(verdict: Verdict) -> str:
    """The per-dimension section of a dimensional rubric's verdict as Markdown (English): the
    panel's winner per dimension, the judges' split (affirmative-negative-tie), the mean score per
    side, and the decision the rubric's rule derives; "" under the ccdb rubric."""
    if not verdict.dimensions:
        return ""
    rows = []
    for d in verdict.dimensions:
        aff, neg = (f"{d.mean_scores[s]:.2f}" if s in d.mean_scores else "-" for s in ("affirmative", "negative"))
        winner = str(d.winner) if d.assessed else f"not assessed ({d.note.removeprefix('not assessed: ')})"
        rows.append([d.name, d.kind, f"{d.weight:g}", winner, d.split or "-", aff, neg])
    lines = [f"## Dimensions ({verdict.rubric})", ""] + _table(["Dimension", "Kind", "Weight", "Winner", "Judges (aff-neg-tie)", "Affirmative", "Negative"], rows)
    dd = verdict.dimension_decision
    if dd is not None:
        pts = ", ".join(f"{k} {v:g}" for k, v in dd.points.items())
        lines += ["", f"**Decision from the dimensions ({dd.rule}):** {dd.winner or 'none'} ({pts}); the panel's direct winner: {verdict.winner}"]
    return "\n".join(lines) + "\n"


def dimensions_line(verdict: Verdict) -> str:
    """One stderr line of a dimensional verdict, e.g. ``dimensions (debateart): argument affirmative
    3-0-0, source tie 0-0-3, language tie 0-0-3; decision affirmative (weighted_points)``; "" under ccdb."""
    if not verdict.dimensions:
        return ""
    parts = [f"{d.dimension} {d.winner} {d.split}" if d.assessed else f"{d.dimension} not assessed" for d in verdict.dimensions]
    dd = verdict.dimension_decision
    tail = f"; decision {dd.winner or 'none'} ({dd.rule})" if dd is not None else ""
    return f"dimensions ({verdict.rubric}): " + ", ".join(parts) + tail


def _fmt(x: float | None, digits: int = 2) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def pairwise_markdown(verdict: Verdict) -> str:
    """The comparisons of a pairwise panel's verdict as Markdown (English): per level the pairs
    judged, the order-inconsistent ones, agreement and Cohen's kappa between judges; the fitted
    strengths of each level; the rules that read the result off them. "" for a scoring panel."""
    rec = verdict.pairwise
    if rec is None:
        return ""
    rows = [[a.level, str(a.results), f"{a.inconsistent} ({_fmt(a.inconsistent_share)})", _fmt(a.agreement), _fmt(a.kappa)] for a in rec.agreement]
    lines = ["## Pairwise comparisons (Bradley-Terry)", ""] + _table(["Level", "Pairs judged", "Order-inconsistent", "Agreement between judges", "Cohen's kappa"], rows)
    for level, f in rec.fits.items():
        if not f.comparisons:
            continue
        strengths = [[str(r), item, f"{f.theta(item):+.3f}", f"{sum(f.wins[f.items.index(item)]):g}"] for r, item in enumerate(f.order(), start=1)]
        lines += ["", f"Strengths at the {level} level ({f.comparisons} results, prior precision {f.alpha}):", ""]
        lines += _table(["Rank", "Competitor", "log-strength", "Wins (ties as halves)"], strengths)
    lines += ["", "Rules: " + "; ".join(rec.rules) + "."]
    return "\n".join(lines) + "\n"

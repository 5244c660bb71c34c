"""The verdict report of a live match as one self-contained HTML page in the match's language (the
board links it instead of the raw Markdown report).

Sections: for the offline judge, what it is and what accuracy to expect from it
(:mod:`adjudicator.verdict.offline_note`); the review (whether a person should check the verdict and why: the quality gate,
:mod:`adjudicator.verdict.review`), the match (motion, format, positions, teams), the result (for a tournament room: its verdict
state, the counted result and, when a person changed it, the automated original beside it with who
and when), the turning points with what moved them, the scores by stage (each judge's score, the panel
mean, the counted score, the rubric band in words), the clash map (positions, moves, momentum, with
the sentence that explains momentum), the feedback for each debater, each judge's ballot and
reasoning, failures, and how the verdict
was made (model, calls, tokens, cost). Rendered with jinja2, autoescaped: debate text and model output
can never become markup, and their own markup (an unclosed ``**``, a tag) is removed from clash titles,
positions, reasonings and feedback (:func:`~adjudicator.verdict.markup.strip_markup`). No script, no external file; the CSS names the CJK fonts a host may have
(README: "Fonts").
"""

from __future__ import annotations

from typing import Any

import jinja2

from adjudicator import __version__
from adjudicator.input.match import MatchView
from adjudicator.input.rubric import band
from adjudicator.live.tournament.lifecycle import Decision
from adjudicator.verdict.ballots import Verdict
from adjudicator.verdict.battlefield import Clash
from adjudicator.verdict.feedback import feedback_views
from adjudicator.verdict.labels import debater_name, labels, stage_name
from adjudicator.verdict.markup import strip_markup
from adjudicator.verdict.review import review_sentences

_TEMPLATE = """<!DOCTYPE html>
<html lang="{{ html_lang }}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ L["report.title"] }} · {{ title }}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC","WenQuanYi Micro Hei","Microsoft YaHei",sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1d2330;line-height:1.5}
table{border-collapse:collapse;margin:.5rem 0 1.2rem;font-size:.9rem}
th,td{border:1px solid #d5d9e2;padding:.3rem .55rem;text-align:left;vertical-align:top}
th{background:#f3f5f9} .aff{color:#1f6fd1;font-weight:600} .neg{color:#c8372d;font-weight:600}
.banner{padding:.6rem 1rem;border-radius:6px;margin:.6rem 0} .draft{background:#fff3cd;border:1px solid #d9b44a}
.changed{background:#eef4ff;border:1px solid #9bb8e6} .muted{color:#6b7385} .explain{color:#444;font-size:.9rem;max-width:60rem}
.big{font-size:1.4rem;font-weight:700} td.num{text-align:right}
.review{border:2px solid #b7c3d6;border-radius:6px;padding:.4rem .9rem;margin:1rem 0} .review.escalate{border-color:#c0392b;background:#fdf1ef} .review ul{margin:.2rem 0}
</style></head><body>
<h1>{{ L["report.title"] }}: {{ title }}</h1>
{% if not verdict.provenance.is_llm %}<p class="explain">{{ L["offline.note"] }}</p>{% endif %}
{% if verdict.review %}<section class="review {{ 'escalate' if verdict.review.escalate else 'clear' }}"><p><b>{{ L["review.title"] }}:</b> {{ fmt(L["review.escalate"], n=review|length) if verdict.review.escalate else L["review.clear"] }}</p>
{% if review %}<ul>{% for x in review %}<li>{{ x }}</li>{% endfor %}</ul>{% endif %}</section>{% endif %}
<p><b>{{ L["report.motion"] }}:</b> {{ match.motion }}<br>
<b>{{ L["report.format"] }}:</b> {{ match.format }}<br>
<span class="aff">{{ L["side_title.affirmative"] }}</span>: {{ match.affirmative_position }}{% if teams %} ({{ teams.affirmative }}){% endif %}<br>
<span class="neg">{{ L["side_title.negative"] }}</span>: {{ match.negative_position }}{% if teams %} ({{ teams.negative }}){% endif %}</p>

<h2>{{ L["report.result"] }}</h2>
{% if decision %}<p><b>{{ L["report.state"] }}:</b> {{ L["state." ~ decision.state] }}</p>
{% if decision.state == "draft" %}<p class="banner draft">{{ L["verdict.draft_banner"] }}</p>{% endif %}{% endif %}
<p class="big {{ 'aff' if result.winner == 'affirmative' else 'neg' }}">{{ fmt(L["verdict.winner"], side=L["side." ~ result.winner]) }}</p>
<p>{% if verdict.p is not none %}{{ fmt(L["verdict.p"], p="%.2f"|format(verdict.p)) }}{% endif %}{% if verdict.dissent %} · {{ fmt(L["verdict.split"], split=verdict.dissent.winner_split) }}{% endif %}<br>
{{ fmt(L["verdict.best"], names=best_names or L["verdict.none"], votes=votes_text or L["verdict.none"]) }}</p>
{% if decision and decision.confirmed_by %}<p>{{ fmt(L["verdict.confirmed_by"], name=decision.confirmed_by.name, at=when(decision.confirmed_at)) }}{% if decision.released_at %} {{ fmt(L["verdict.released_at"], at=when(decision.released_at)) }}{% endif %}</p>{% endif %}
{% if decision and decision.overridden %}<div class="banner changed">
<p>{% if decision.automated.winner != result.winner %}{{ fmt(L["verdict.overridden"], winner=L["side." ~ decision.automated.winner]) }}{% else %}{{ L["verdict.overridden_scores"] }}{% endif %}</p>
{% if decision.override.note %}<p>{{ fmt(L["verdict.note"], note=decision.override.note) }}</p>{% endif %}
<table><tr><th></th><th>{{ L["report.automated"] }}</th><th>{{ L["report.confirmed"] }}</th></tr>
<tr><td>{{ L["confirm.winner"] }}</td><td>{{ L["side." ~ decision.automated.winner] }}</td><td>{{ L["side." ~ result.winner] }}</td></tr>
{% for unit, before, after in changed_scores %}<tr><td>{{ unit }}</td><td class="num">{{ "%.2f"|format(before) }}</td><td class="num">{{ "%.2f"|format(after) }}</td></tr>{% endfor %}
{% if votes_changed %}<tr><td>{{ L["report.votes"] }}</td><td>{{ automated_votes_text }}</td><td>{{ votes_text }}</td></tr>{% endif %}
</table></div>{% endif %}

<h2>{{ L["timeline.title"] }}</h2>
<p class="explain">{{ L["timeline.help"] }}</p>
{% if timeline %}<ol>{% for tp in timeline %}<li><b>{{ tp.stage_display_name }}</b>: {{ fmt(L["timeline.toward"], side=L["side." ~ tp.toward], before=p2(tp.p_before), after=p2(tp.p_after)) }};
{% if tp.driver == "clash" %}{{ fmt(L["timeline.by_clash"], title=plain(tp.clash_title), events=moves(tp.clash_events)) }}{% else %}{{ fmt(L["timeline.by_scores"], before=signed(tp.score_gap_before), after=signed(tp.score_gap_after)) }}{% endif %}</li>{% endfor %}</ol>
{% else %}<p class="muted">{{ L["timeline.none"] }}</p>{% endif %}
<p class="explain">{{ L["explain.gap"] }}</p>

<h2>{{ L["report.stage_scores"] }}</h2>
<table><tr><th>#</th><th>{{ L["report.stage"] }}</th><th>{{ L["scores.type"] }}</th><th>{{ L["report.side"] }}</th><th>{{ L["report.judges"] }}</th><th>{{ L["report.mean"] }}</th>{% if decision %}<th>{{ L["report.confirmed_score"] }}</th>{% endif %}<th></th></tr>
{% for row in score_rows %}<tr><td>{{ row.n }}</td><td>{{ row.stage }}</td><td>{{ row.type }}</td><td class="{{ 'aff' if row.side == 'affirmative' else 'neg' }}">{{ L["side." ~ row.side] }}{% if row.role %} ({{ L["role." ~ row.role] }}){% endif %}</td>
<td>{{ row.judges }}</td><td class="num">{{ "%.2f"|format(row.mean) }}</td>{% if decision %}<td class="num">{{ "%.2f"|format(row.counted) }}{% if row.changed %} ({{ L["report.changed"] }}){% endif %}</td>{% endif %}<td>{{ row.band }}</td></tr>{% endfor %}
</table>

<h2>{{ L["report.clashes"] }}</h2>
<p class="explain">{{ L["explain.momentum"] }}</p>
{% if clashes %}<table><tr><th>{{ L["map.clash"] }}</th><th>{{ L["report.position_aff"] }}</th><th>{{ L["report.position_neg"] }}</th><th>{{ L["report.momentum"] }}</th><th>{{ L["report.moves"] }}</th></tr>
{% for c in clashes %}<tr><td>{{ c.title }}</td><td>{{ c.affirmative_position }}</td><td>{{ c.negative_position }}</td><td class="num">{{ c.momentum }}</td><td>{{ c.moves }}</td></tr>{% endfor %}
</table>{% else %}<p class="muted">{{ L["map.none"] }}</p>{% endif %}

{% if feedback %}<h2>{{ L["read.feedback"] }}</h2><p class="explain">{{ fmt(L["read.feedback.from"], judge=verdict.feedback_from) }}</p>
{% for f in feedback %}<h3>{{ f.debater }}</h3><ul>{% for head, where, text in f.points %}<li><b>{{ head }}</b> <span class="muted">({{ plain(where) }})</span>: {{ plain(text) }}</li>{% endfor %}</ul>{% endfor %}{% endif %}

<h2>{{ L["report.ballots"] }}</h2>
{% for b in verdict.ballots %}<h3>{{ b.judge_id }}{% if b.perspective %} ({{ L.get("perspective." ~ b.perspective, b.perspective) }}){% endif %}</h3>
<p>{{ fmt(L["verdict.winner"], side=L["side." ~ b.winner]) }}, p = {{ "%.2f"|format(b.p) }}; {{ L["report.votes"] }}: {{ ballot_votes(b) }}</p>
{% if b.reasoning %}<p><b>{{ L["report.reasoning"] }}:</b> {{ plain(b.reasoning) }}</p>{% endif %}{% endfor %}
{% if verdict.failures %}<h2>{{ L["report.failures"] }}</h2><ul>{% for f in verdict.failures %}<li>{{ f.node }} {{ f.key }}: {{ f.reason }}</li>{% endfor %}</ul>{% endif %}

<h2>{{ L["report.provenance"] }}</h2>
<p>{{ L["report.model"] }}: {{ verdict.provenance.model }}{% if not verdict.provenance.is_llm %} ({{ L["page.offline"] }}){% endif %}<br>
{{ L["report.calls"] }}: {{ verdict.provenance.calls }} · {{ L["report.tokens"] }}: {{ verdict.provenance.prompt_tokens }} + {{ verdict.provenance.completion_tokens }} · {{ L["report.cost"] }}: {{ cost }}</p>
<p class="muted">{{ fmt(L["report.generated"], version=version) }}</p>
</body></html>
"""

_ENV = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
_PAGE = _ENV.from_string(_TEMPLATE)


def _fmt(text: str, **kw: Any) -> str:
    return text.format(**kw)


def _p2(p: float | None) -> str:
    return "–" if p is None else f"{p:.2f}"


def _signed(x: float) -> str:
    return f"{x:+.2f}"


def report_html(
    header: MatchView,
    verdict: Verdict,
    *,
    timeline: list[dict[str, Any]],
    decision: Decision | None = None,
    teams: dict[str, str] | None = None,
    title: str | None = None,
) -> str:
    """The report page (module docstring) of ``verdict`` for the match ``header``, in the match's
    language. ``timeline`` is the board snapshot's list of turning points; ``decision`` and ``teams``
    are given for a tournament room (the counted result is then the decision's effective result)."""
    lang = header.language
    L = labels(lang)
    names = {d.label: d.name for d in header.debaters}
    counted = decision.effective() if decision is not None else None
    winner = counted.winner if counted else verdict.winner
    votes = counted.best_debater_votes if counted else dict(verdict.best_debater_votes)
    best = counted.best_debaters() if counted else list(verdict.best_debaters)

    def votes_text_of(v: dict[str, int]) -> str:
        return ", ".join(f"{debater_name(k, lang, names)} {n}" for k, n in sorted(v.items(), key=lambda kv: -kv[1]))

    stage_index = {s.stage_id: i + 1 for i, s in enumerate(header.stages)}
    score_rows = []
    for s in verdict.stage_scores:
        unit = f"{s.stage_id}|{s.side}"
        c = counted.stage_scores.get(unit, s.mean) if counted else s.mean
        score_rows.append({
            "n": stage_index.get(s.stage_id, ""), "stage": stage_name(s.stage_name, lang), "type": L.get(f"stage_type.{s.stage_type}", s.stage_type),
            "side": s.side, "role": s.role, "judges": " / ".join(map(str, s.judge_scores)), "mean": s.mean, "counted": c,
            "changed": abs(c - s.mean) > 1e-9, "band": L[f"band.{band(int(round(c)))}"],
        })
    changed_scores = []
    if decision is not None and decision.override is not None:
        for unit, after in decision.override.stage_scores.items():
            before = decision.automated.stage_scores.get(unit)
            if before is not None and abs(before - after) > 1e-9:
                sid, side = unit.split("|")
                label = f"{stage_name(next((s.stage_name for s in verdict.stage_scores if s.stage_id == sid), sid), lang)} · {L['side.' + side]}"
                changed_scores.append((label, before, after))
    clashes = [_clash_row(c, header, lang) for c in verdict.battlefields]
    cost = "–" if verdict.provenance.cost_usd is None else f"${verdict.provenance.cost_usd:.4f}"
    return _PAGE.render(
        L=L, html_lang="zh-CN" if lang == "zh" else "en", title=title or header.match_id, match=header, teams=teams, verdict=verdict,
        decision=decision, result={"winner": winner}, best_names=", ".join(debater_name(b, lang, names) for b in best),
        votes_text=votes_text_of(votes), automated_votes_text=votes_text_of(decision.automated.best_debater_votes) if decision else "",
        votes_changed=bool(decision and decision.override and decision.override.best_debater_votes is not None),
        changed_scores=changed_scores, timeline=timeline, score_rows=score_rows, clashes=clashes, cost=cost, version=__version__,
        review=review_sentences(verdict.review, lang) if verdict.review else [],
        feedback=feedback_views(verdict, L, lambda sid: stage_name(next((s.name for s in header.stages if s.stage_id == sid), sid), lang), lambda label: debater_name(label, lang, names)),
        fmt=_fmt, p2=_p2, signed=_signed, when=_when, moves=lambda evs: "; ".join(_move(e, L) for e in evs),
        ballot_votes=lambda b: votes_text_of(dict(b.best_debater_votes)), plain=strip_markup,
    )


def _when(iso: str | None) -> str:
    """A stored UTC ISO 8601 time, readable: ``2025-03-01 09:30 UTC`` (a saved report has no reader's
    time zone to show it in; the live board shows local times)."""
    if not iso:
        return ""
    from datetime import UTC, datetime

    try:
        return datetime.fromisoformat(iso).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        return iso


def _move(event: str, L: dict[str, str]) -> str:
    """"affirmative advanced" in words of the table: "正方 推进"."""
    side, _, kind = event.partition(" ")
    return f"{L.get('side.' + side, side)} {L.get('kind.' + kind, kind)}"


def _clash_row(c: Clash, header: MatchView, lang: str) -> dict[str, str]:
    L = labels(lang)
    names = {s.stage_id: stage_name(s.name, lang) for s in header.stages}
    moves = "; ".join(f"{names.get(e.stage_id, e.stage_id)}: {_move(f'{e.side} {e.kind}', L)}" for e in c.events)
    return {"title": strip_markup(c.title), "affirmative_position": strip_markup(c.affirmative_position), "negative_position": strip_markup(c.negative_position), "momentum": f"{c.momentum():+.2f}", "moves": moves}

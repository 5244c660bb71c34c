"""The verdict report of a live match as one self-contained HTML page in the match's language (the
board links it instead of the raw Markdown report), rendered through the CLI report's own code: the
sections are composed by :func:`adjudicator.verdict.reading.readable_verdict` and laid out by
:func:`adjudicator.verdict.report.render_html`, so a live match's report reads as ``adjudicate run
--report html`` writes it (what the offline judge is, the review, the match, the result, the reason
for decision, the dissent, the clash map, the scores, the feedback, the ballots, failures, provenance).

What the live page adds, in the blocks the CLI page leaves empty (``{% extends "verdict.html" %}``):

- for a tournament room, the **result** is the counted one (its verdict state, a draft's or a void
  room's banner, the counted winner with the team, the best debaters, who confirmed it and when it was
  released, and, when a person changed it, the automated original beside it with the chair's note);
  the scores table gets a counted column; the teams stand beside the debaters;
- the **turning points** of the board (:mod:`adjudicator.live.rooms.turning_points`), after the result;
- the adjudicator version that generated the page, last.

A result a person confirmed has no quality-gate review box: the review asks for a person's check,
and the state line says whose it was (docs/tournaments.md, "What the public sees"). Autoescaped by
jinja2 as the CLI page is; no script, no external file.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from adjudicator import __version__
from adjudicator.input.match import MatchView, Team
from adjudicator.input.rubric import band
from adjudicator.live.tournament.lifecycle import Decision
from adjudicator.verdict.ballots import Verdict
from adjudicator.verdict.labels import debater_name, stage_name
from adjudicator.verdict.markup import strip_markup
from adjudicator.verdict.reading import ReadableVerdict, readable_verdict
from adjudicator.verdict.report import html_environment, render_html

_LIVE = """{% extends "verdict.html" %}
{% block style %}.banner{padding:.6rem 1rem;border-radius:6px;margin:.6rem 0} .draft{background:#fff3cd;border:1px solid #d9b44a} .void{background:#f1f1f1;border:1px solid #8a8f99}
.changed{background:#eef4ff;border:1px solid #9bb8e6} .aff{color:#1f6fd1;font-weight:600} .neg{color:#c8372d;font-weight:600} .big{font-size:1.4rem;font-weight:700} td.num{text-align:right}
{% endblock %}
{% block result %}{% if room %}<p><b>{{ L["report.state"] }}:</b> {{ room.state }}</p>
{% if room.banner %}<p class="banner {{ room.banner[0] }}">{{ room.banner[1] }}</p>{% endif %}
<p class="big {{ room.side_class }}">{{ room.winner }}</p>
<p>{% if room.p %}{{ room.p }}<br>{% endif %}{{ room.best }}</p>
{% if room.confirmed %}<p>{{ room.confirmed }}</p>{% endif %}
{% if room.changed %}<div class="banner changed">{% for x in room.changed.lines %}<p>{{ x }}</p>{% endfor %}
<table><tr><th></th><th>{{ L["report.automated"] }}</th><th>{{ L["report.confirmed"] }}</th></tr>
{% for what, before, after in room.changed.rows %}<tr><td>{{ what }}</td><td class="num">{{ before }}</td><td class="num">{{ after }}</td></tr>{% endfor %}
</table></div>{% endif %}{% else %}{{ super() }}{% endif %}{% endblock %}
{% block after_result %}<h2>{{ L["timeline.title"] }}</h2>
<p class="explain">{{ L["timeline.help"] }}</p>
{% if timeline %}<ol>{% for stage, text in timeline %}<li><b>{{ stage }}</b>: {{ text }}</li>{% endfor %}</ol>
{% else %}<p class="muted">{{ L["timeline.none"] }}</p>{% endif %}
<p class="explain">{{ L["explain.gap"] }}</p>
{% endblock %}
{% block footer %}<p class="muted">{{ L["report.generated"].format(version=version) }}</p>
{% endblock %}"""

_PAGE = html_environment({"live.html": _LIVE}).get_template("live.html")


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
    (side -> team name) are given for a tournament room, whose counted result is then the decision's
    effective result; ``title`` names the page (default: the match id)."""
    if teams and not header.teams:
        header = header.model_copy(update={"teams": [Team(unit=side, name=name) for side, name in teams.items()]})
    r = readable_verdict(verdict, header)
    r = dataclasses.replace(r, title=f"{r.L['report.title']}: {title or header.match_id}")
    room = None
    if decision is not None:
        if decision.human_confirmed:  # the review asked for a person's check: the state line says whose it was
            r = dataclasses.replace(r, review=[], escalate=None)
        r = dataclasses.replace(r, scores=_counted_scores(r, verdict, decision))
        room = _room_result(r, header, verdict, decision, teams or {})
    return render_html(r, _PAGE, room=room, timeline=[_turning_point(tp, r.L) for tp in timeline], version=__version__)


def _counted_scores(r: ReadableVerdict, verdict: Verdict, d: Decision) -> list[Any]:
    """The scores rows with the counted score (marked where a person changed it) and its rubric band."""
    counted = d.effective().stage_scores
    rows = []
    for row, s in zip(r.scores, verdict.stage_scores, strict=True):
        c = counted.get(f"{s.stage_id}|{s.side}", s.mean)
        text = f"{c:.2f}" + (f" ({r.L['report.changed']})" if abs(c - s.mean) > 1e-9 else "")
        rows.append(dataclasses.replace(row, counted=text, band=r.L[f"band.{band(int(round(c)))}"]))
    return rows


def _room_result(r: ReadableVerdict, header: MatchView, verdict: Verdict, d: Decision, teams: dict[str, str]) -> dict[str, Any]:
    """What the result block of a tournament room says, in words (module docstring)."""
    L, lang = r.L, r.language
    names = {d_.label: d_.name for d_ in header.debaters}
    eff, a = d.effective(), d.automated
    state = d.shown_state

    def votes_text(v: dict[str, int]) -> str:
        return ", ".join(f"{debater_name(k, lang, names)} {n}" for k, n in sorted(v.items(), key=lambda kv: -kv[1])) or L["verdict.none"]

    team = f" ({teams[eff.winner]})" if teams.get(eff.winner) else ""
    p = ""
    if a.winner == eff.winner:  # the panel's p and split describe the automated winner only
        parts = ([L["verdict.p"].format(p=f"{verdict.p:.2f}")] if verdict.p is not None else [])
        parts += [L["verdict.split"].format(split=verdict.dissent.winner_split)] if verdict.dissent else []
        p = " · ".join(parts)
    best = ", ".join(debater_name(b, lang, names) for b in eff.best_debaters()) or L["verdict.none"]
    confirmed = ""
    if d.confirmed_by is not None:
        confirmed = L["verdict.confirmed_by"].format(name=d.confirmed_by.name, at=_when(d.confirmed_at))
        confirmed += " " + L["verdict.released_at"].format(at=_when(d.released_at)) if d.released_at else ""
    banner = ("draft", L["verdict.draft_banner"]) if state == "draft" else ("void", L["verdict.void"]) if state == "void" else None
    return {
        "state": L[f"state.{state}"], "banner": banner, "side_class": "aff" if eff.winner == "affirmative" else "neg",
        "winner": L["verdict.winner"].format(side=L[f"side.{eff.winner}"]) + team, "p": p,
        "best": L["verdict.best"].format(names=best, votes=votes_text(eff.best_debater_votes)), "confirmed": confirmed,
        "changed": _changes(r, verdict, d, votes_text) if d.overridden else None,
    }


def _changes(r: ReadableVerdict, verdict: Verdict, d: Decision, votes_text: Any) -> dict[str, Any]:
    """What a person changed when confirming: a headline, the note, and the rows automated -> counted."""
    L, lang = r.L, r.language
    eff, a, o = d.effective(), d.automated, d.override
    assert o is not None
    lines = [L["verdict.overridden"].format(winner=L[f"side.{a.winner}"]) if a.winner != eff.winner else L["verdict.overridden_scores"]]
    if o.note:
        lines.append(L["verdict.note"].format(note=o.note))
    rows = [(L["confirm.winner"], L[f"side.{a.winner}"], L[f"side.{eff.winner}"])]
    stage_names = {s.stage_id: s.stage_name for s in verdict.stage_scores}
    for unit, after in o.stage_scores.items():
        before = a.stage_scores.get(unit)
        if before is not None and abs(before - after) > 1e-9:
            sid, side = unit.split("|")
            rows.append((f"{stage_name(stage_names.get(sid, sid), lang)} · {L['side.' + side]}", f"{before:.2f}", f"{after:.2f}"))
    if o.best_debater_votes is not None:
        rows.append((L["report.votes"], votes_text(a.best_debater_votes), votes_text(eff.best_debater_votes)))
    return {"lines": lines, "rows": rows}


def _turning_point(tp: dict[str, Any], L: dict[str, str]) -> tuple[str, str]:
    """One turning point of the board's timeline as (stage, what moved the tendency), in words."""
    toward = L["timeline.toward"].format(side=L["side." + tp["toward"]], before=_p2(tp["p_before"]), after=_p2(tp["p_after"]))
    if tp["driver"] == "clash":
        moves = "; ".join(_move(e, L) for e in tp["clash_events"])
        why = L["timeline.by_clash"].format(title=strip_markup(tp["clash_title"] or ""), events=moves)
    else:
        why = L["timeline.by_scores"].format(before=f"{tp['score_gap_before']:+.2f}", after=f"{tp['score_gap_after']:+.2f}")
    return tp["stage_display_name"], f"{toward}; {why}"


def _p2(p: float | None) -> str:
    return "–" if p is None else f"{p:.2f}"


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

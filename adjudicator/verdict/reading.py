"""A verdict as people read it: every section of the verdict report composed in the match's language
from the verdict's own data (the renderers in :mod:`adjudicator.verdict.report` only lay it out).

- What the offline judge is and what accuracy to expect from it, first, when it judged
  (:mod:`adjudicator.verdict.offline_note`); then the review: whether a person should check the
  verdict and why (the quality gate, :mod:`adjudicator.verdict.review`), in the report's language.
- Who is who: each debater's position label with the debater's name beside it
  (``Affirmative Speaker 1 (Ann)``, ``正方一辩（张三）``); stages by name.
- The result in words, then the **reason for decision**, composed from the ballots: the majority's
  judges one by one, each with what they said, then the clash that went most clearly the winner's
  way and the panel's mean score per side; the **dissent** in words (who voted against the majority
  and what they said, and how far the judges' scores spread).
- The battlefield map: each clash with both positions, its momentum (explained in one sentence,
  once, where it first appears) and its history as rows of stage name, side, debater and note.
- Scores by stage with the rubric band in words, the feedback for each debater (what worked, the
  response missed, one thing to work on, each with its stage and clash), the ballots, failures and
  provenance.

The competing units come from the format (:meth:`~adjudicator.input.match.MatchView.units`: two sides, or
a format's houses), their names from the word table (``side.<unit>``, the unit's own name when there
is none) and a clash's positions from the clash's ``<unit>_position`` fields, so a format with other
units needs words, not a new report. Every word is in :mod:`adjudicator.verdict.labels` (``read.*``).
Every text taken from a transcript or a model (the stated positions, clash titles, positions and
notes, reasonings, feedback) has its markup removed (:func:`~adjudicator.verdict.markup.strip_markup`):
an unclosed ``**`` or a ``<b>`` in a debate never reaches a report. The motion and names are shown
as the organiser wrote them, escaped by the renderer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from adjudicator.input.formats import get_format, position_label_zh
from adjudicator.input.match import MatchView
from adjudicator.input.rubric import band
from adjudicator.verdict.ballots import Ballot, Verdict
from adjudicator.verdict.battlefield import Clash, event_balance
from adjudicator.verdict.feedback import FeedbackView, feedback_views
from adjudicator.verdict.labels import labels, stage_name
from adjudicator.verdict.markup import strip_markup
from adjudicator.verdict.review import review_sentences

#: Counted clash moves a clash needs before the reason for decision cites it.
MIN_CITED_MOVES = 2


@dataclass(frozen=True)
class HistoryRow:
    """One move in a clash's history: stage name, side, debater (label and name), move, note."""

    stage: str
    side: str
    debater: str
    move: str
    note: str


@dataclass(frozen=True)
class ClashView:
    """A clash as read: title, each unit's position, a summary (momentum and where it was raised), its history."""

    title: str
    positions: list[tuple[str, str]]
    summary: str
    history: list[HistoryRow]


@dataclass(frozen=True)
class BallotView:
    """One judge's ballot as read: heading (its outcome), its votes or speaker scores (``label``
    names which), reasoning."""

    heading: str
    label: str
    votes: str
    reasoning: str


@dataclass(frozen=True)
class ScoreRow:
    """One (stage, side) of the scores table. ``counted``: the score that counts where a person's
    decision sets it (a tournament room's, :mod:`adjudicator.live.tournament.report_html`), "" for the
    panel's mean; the tables show that column only when a row has one."""

    stage: str
    type: str
    side: str
    judges: str
    mean: str
    band: str
    counted: str = ""


@dataclass(frozen=True)
class ReadableVerdict:
    """Every section of the verdict report, in the words of :attr:`language` (``L`` its word table).
    ``about`` is what the offline judge is and what accuracy to expect from it
    (:mod:`adjudicator.verdict.offline_note`), shown first; "" for a verdict a model judged.
    ``ranking`` and ``speeches`` are the rows of a ranking format's house ranking and speaker scores
    (empty otherwise). ``review`` is the quality gate's finding in sentences, at the report's top
    (:func:`~adjudicator.verdict.review.review_sentences`; ``escalate`` None for a verdict without a
    review). ``momentum_note`` explains momentum once, in the section where it is first mentioned:
    ``momentum_first_in`` is ``"reasons"`` (the reason for decision cites a clash's momentum) or
    ``"clashes"``."""

    language: str
    L: dict[str, str]
    title: str
    about: str
    review: list[str]
    escalate: bool | None
    facts: list[tuple[str, str]]
    positions: list[tuple[str, str]]
    debaters: list[tuple[str, str]]
    result: list[str]
    reasons: list[str]
    dissent: list[str]
    momentum_note: str
    momentum_first_in: str
    clashes: list[ClashView]
    scores: list[ScoreRow]
    ranking: list[list[str]]
    speeches: list[list[str]]
    ballots: list[BallotView]
    feedback: list[FeedbackView]
    feedback_note: str
    failures: list[str]
    provenance: list[str]
    extra: dict[str, Any] = field(default_factory=dict)


class _Words:
    """The word table of one language with the formatting helpers the sections share."""

    def __init__(self, language: str, view: MatchView | None, verdict: Verdict) -> None:
        self.lang = language
        self.L = labels(language)
        self.names = {view.label_of(d): d.name for d in view.debaters if d.name} if view else {}
        self.stages = {s.stage_id: s.name for s in view.stages} if view else {}
        for s in verdict.stage_scores:
            self.stages.setdefault(s.stage_id, s.stage_name)
        spec = get_format(view.format if view is not None else verdict.format)
        self.unit_names = {u.unit_id: u.name for u in spec.units}
        self.bench_names: dict[str, str] = {str(k): v for k, v in spec.bench_names.items()} if language == "en" else {}  # BP: Government / Opposition
        self.speech = {sid: abbr for sid, _, abbr in view.speeches()} if view is not None else {}

    def t(self, word: str, /, **kw: Any) -> str:
        return self.L[word].format(**kw)

    def side(self, unit: str | None) -> str:
        """A unit (side or house) as the sentences name it: the word table's, else the format's name."""
        if not unit:
            return self.L["read.none"]
        return self.L.get(f"side.{unit}") or self.unit_names.get(unit, unit)

    def side_title(self, unit: str) -> str:
        return self.bench_names.get(unit) or self.L.get(f"side_title.{unit}") or self.unit_names.get(unit, unit)

    def ranking(self, ranks: dict[str, int]) -> str:
        """``{"OG": 2, "CO": 1, ...}`` as ``Closing Opposition > Opening Government > ...``."""
        return " > ".join(self.side(u) for u in sorted(ranks, key=lambda u: ranks[u]))

    def debater(self, label: str | None) -> str:
        """A position label in this language with the debater's name beside it."""
        if not label:
            return ""
        base = (position_label_zh(label) or label) if self.lang == "zh" else label
        name = self.names.get(label)
        if not name:
            return base
        return f"{base}（{name}）" if self.lang == "zh" else f"{base} ({name})"

    def stage(self, stage_id: str) -> str:
        name = self.stages.get(stage_id)
        return stage_name(name, self.lang) if name else stage_id

    def perspective(self, p: str) -> str:
        return self.L.get(f"perspective.{p}", p)

    def votes(self, votes: dict[str, int]) -> str:
        sep = "，" if self.lang == "zh" else ", "
        return sep.join(f"{self.debater(k)} {v}" for k, v in sorted(votes.items(), key=lambda kv: -kv[1]) if v) or self.L["read.none"]

    def join(self, items: list[str]) -> str:
        if self.lang == "zh":
            return "、".join(items)
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _units(view: MatchView | None, verdict: Verdict) -> list[str]:
    if view is not None:
        return view.units()
    return get_format(verdict.format).unit_ids()


def clash_positions(clash: Clash, units: list[str]) -> list[tuple[str, str]]:
    """(unit, position) of every unit with a stated position on ``clash`` (read from the clash's
    ``positions`` mapping when it has one, else from its ``<unit>_position`` fields)."""
    mapping = getattr(clash, "positions", None)
    if isinstance(mapping, dict):
        return [(u, mapping.get(u, "") or "") for u in units]
    if not any(hasattr(clash, f"{u}_position") for u in units):
        units = ["affirmative", "negative"]  # a clash of a house format is fought between the two benches
    return [(u, getattr(clash, f"{u}_position", "") or "") for u in units]


def _momentum_text(w: _Words, clash: Clash) -> str:
    """``Momentum +0.14 (toward the affirmative). Raised in <stage>.`` in the report's language."""
    m = clash.momentum()
    toward = w.t("read.clash.toward", side=w.side("affirmative" if m > 0 else "negative")) if m else w.L["read.clash.even"]
    momentum = w.t("read.clash.momentum", momentum=f"{m:+.2f}")
    opened = w.t("read.clash.opened", stage=w.stage(clash.opened_in))
    return f"{momentum}（{toward}）。{opened}" if w.lang == "zh" else f"{momentum} ({toward}). {opened}"


def _clash_view(w: _Words, clash: Clash, units: list[str]) -> ClashView:
    history = [
        HistoryRow(stage=w.stage(e.stage_id), side=w.side(e.side), debater=w.debater(e.debater), move=w.L.get(f"kind.{e.kind}", e.kind), note=strip_markup(e.note))
        for e in clash.events
    ]
    return ClashView(
        title=strip_markup(clash.title), positions=[(w.side_title(u), strip_markup(text)) for u, text in clash_positions(clash, units) if strip_markup(text)],
        summary=_momentum_text(w, clash), history=history,
    )


def _judge_text(w: _Words, b: Ballot) -> str:
    if b.ranking:
        who = w.t("read.reason.judge_ranked", judge=b.judge_id, perspective=w.perspective(b.perspective), ranking=w.ranking(b.ranking))
    else:
        who = w.t("read.reason.judge", judge=b.judge_id, perspective=w.perspective(b.perspective), side=w.side(b.winner), p=_p(b.p))
    reasoning = " ".join(strip_markup(b.reasoning).split())
    return w.t("read.reason.said", who=who, reasoning=reasoning) if reasoning else w.t("read.reason.silent", who=who)


def _p(p: float | None) -> str:
    return "–" if p is None else f"{p:.2f}"


def _first(b: Ballot) -> str | None:
    """The unit a ballot puts first: its winner, or its first-ranked house."""
    return min(b.ranking, key=lambda u: b.ranking[u]) if b.ranking else b.winner


def _panel_first(verdict: Verdict) -> str | None:
    return min(verdict.ranking, key=lambda r: r.rank).unit if verdict.ranking else verdict.winner


def _best_clash(w: _Words, verdict: Verdict) -> str | None:
    """The clash with the strongest momentum toward the winner over at least :data:`MIN_CITED_MOVES` counted moves."""
    if verdict.winner is None:
        return None
    sign = 1.0 if verdict.winner == "affirmative" else -1.0
    best = None
    for c in verdict.battlefields:
        _, n = event_balance(c.events)
        m = c.momentum() * sign
        if n >= MIN_CITED_MOVES and m > 0 and (best is None or (m, n) > best[0]):
            best = ((m, n), c)
    if best is None:
        return None
    (_, n), c = best
    return w.t("read.reason.best_clash", side=w.side(verdict.winner), title=strip_markup(c.title), momentum=f"{c.momentum():+.2f}", n=n)


def _score_summary(w: _Words, verdict: Verdict, units: list[str]) -> str | None:
    items = []
    for u in units:
        means = [s.mean for s in verdict.stage_scores if s.side == u]
        if means:
            items.append(w.t("read.reason.score_item", side=w.side(u), mean=f"{sum(means) / len(means):.2f}", n=len(means)))
    sep = "；" if w.lang == "zh" else "; "
    return w.t("read.reason.scores", scores=sep.join(items)) if items else None


def _points_summary(w: _Words, verdict: Verdict) -> str | None:
    items = [f"{w.side(r.unit)} {r.points:.2f}" for r in sorted(verdict.ranking, key=lambda r: r.rank) if r.points is not None]
    sep = "；" if w.lang == "zh" else "; "
    return w.t("read.reason.points", points=sep.join(items)) if items else None


def _reasons(w: _Words, verdict: Verdict, units: list[str]) -> list[str]:
    out = []
    split = verdict.dissent.winner_split if verdict.dissent else ""
    first = _panel_first(verdict)
    if verdict.ranking:
        out.append(w.t("read.reason.opening_ranked", ranking=w.ranking({r.unit: r.rank for r in verdict.ranking}), split=split))
    elif verdict.winner is None:
        out.append(w.L["read.reason.opening_none"])
    elif verdict.ballots:
        out.append(w.t("read.reason.opening", side=w.side(verdict.winner), split=split))
    else:
        out.append(w.t("read.reason.opening_single", side=w.side(verdict.winner)))
    majority = [b for b in verdict.ballots if first is None or _first(b) == first]
    out += [_judge_text(w, b) for b in majority]
    if not verdict.ballots:  # a partial agentic verdict (every judge failed) is not the single-call arm
        out.append(w.L["read.reason.no_ballots" if verdict.arm == "single-call" else "read.reason.no_valid_ballot"])
    summary = _points_summary(w, verdict) if verdict.ranking else _score_summary(w, verdict, units)
    out += [x for x in (None if verdict.ranking else _best_clash(w, verdict), summary) if x]
    return out


def _dissent(w: _Words, verdict: Verdict) -> list[str]:
    if not verdict.ballots:
        return []
    if len(verdict.ballots) < 2:
        return [w.L["read.dissent.none"]]
    out = []
    first = _panel_first(verdict)
    against = [b for b in verdict.ballots if first is not None and _first(b) != first]
    split = verdict.dissent.winner_split if verdict.dissent else ""
    identical = verdict.review is not None and "identical_ballots" in verdict.review.reasons
    if identical:  # never "Unanimous" for ballots the gate flagged as one decision copied
        out.append(w.t("read.dissent.identical", n=len(verdict.ballots)))
    elif first is not None and not against:
        key = "read.dissent.unanimous_first" if verdict.ranking else "read.dissent.unanimous"
        out.append(w.t(key, n=len(verdict.ballots), side=w.side(first)))
    for side in dict.fromkeys(_first(b) for b in against):
        who = [b.judge_id for b in against if _first(b) == side]
        key = "read.dissent.split_first" if verdict.ranking else "read.dissent.split"
        out.append(w.t(key, split=split, judges=w.join(who), side=w.side(side)))
        out += [_judge_text(w, b) for b in against if _first(b) == side]
    if verdict.dissent and verdict.dissent.rank_error:
        errors = [f"{j} {e}" for j, e in verdict.dissent.rank_error.items()]
        out.append(w.t("read.dissent.rank_error", errors=w.join(errors)))
    if verdict.dissent and verdict.dissent.low_point_wins:
        out.append(w.t("read.dissent.low_point", pairs=w.join(list(verdict.dissent.low_point_wins))))
    spread = [(max(s.judge_scores) - min(s.judge_scores), f"{w.stage(s.stage_id)} · {w.side(s.side)}", s.judge_scores) for s in verdict.stage_scores if len(s.judge_scores) > 1]
    spread += [(max(s.judge_scores) - min(s.judge_scores), f"{w.stage(s.stage_id)} · {w.side(s.unit)}", s.judge_scores) for s in verdict.speaker_scores if len(s.judge_scores) > 1]
    if spread:
        widest, unit, scores = max(spread, key=lambda x: x[0])
        wide = sum(r >= 3 for r, _, _ in spread)
        if wide:
            out.append(w.t("read.dissent.scores_wide", n=wide, unit=unit, scores=" / ".join(map(str, scores))))
        else:
            points = f"{widest} 分" if w.lang == "zh" else f"{widest} point{'' if widest == 1 else 's'}"
            out.append(w.t("read.dissent.scores_close", points=points))
    return out


def _facts(w: _Words, verdict: Verdict) -> list[tuple[str, str]]:
    return [
        (w.L["read.motion"], verdict.motion),  # the organiser's words, shown as written (the renderers escape them)
        (w.L["read.format"], verdict.format),
        (w.L["read.method"], w.L.get(f"read.method.{verdict.arm}", verdict.arm)),
    ]


def _positions(w: _Words, view: MatchView | None, units: list[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(unit, position) of the match's stated positions (a house format states its two benches'),
    each with its team where the match names one; (unit, debaters) of every unit with debaters."""
    if view is None:
        return [], []
    teams = {t.unit: t.name for t in view.teams if t.name}
    sides = units if any(hasattr(view, f"{u}_position") for u in units) else ["affirmative", "negative"]
    positions = []
    for u in sides:
        text = strip_markup(getattr(view, f"{u}_position", "") or "")
        if text:
            positions.append((w.side_title(u), text))
    debaters = []
    for u in units:
        labels_u = [lab for lab in view.debater_labels() if (view.unit_of(lab) or view.side_of(lab)) == u]
        names = ("、" if w.lang == "zh" else ", ").join(w.debater(lab) for lab in labels_u)
        if teams.get(u):
            team = w.t("read.team", team=teams[u])
            names = f"{names}（{team}）" if w.lang == "zh" else (f"{names} ({team})" if names else team)
        if names:
            debaters.append((w.side_title(u), names))
    return positions, debaters


def _result(w: _Words, verdict: Verdict) -> list[str]:
    if verdict.ranking:
        return [w.t("read.ranked", ranking=w.ranking({r.unit: r.rank for r in verdict.ranking}))]
    out = [w.t("read.winner", side=w.side(verdict.winner)) if verdict.winner else w.L["read.no_winner"]]
    if verdict.p is not None:
        out.append(w.t("read.tendency", p=f"{verdict.p:.2f}"))
    votes = verdict.best_debater_votes
    if votes:
        top = max(votes.values())
        best = list(verdict.best_debaters) or [k for k, v in votes.items() if v == top]
        out.append(w.t("read.best", names=w.join([w.debater(b) for b in best]), votes=top, total=sum(votes.values())))
        out.append(w.t("read.votes", votes=w.votes(votes)))
    return out


def _scores(w: _Words, verdict: Verdict) -> list[ScoreRow]:
    rows = []
    for s in verdict.stage_scores:
        side = w.side(s.side) + (f" ({w.L.get('role.' + s.role, s.role)})" if s.role else "")
        rows.append(ScoreRow(
            stage=w.stage(s.stage_id), type=w.L.get(f"stage_type.{s.stage_type}", s.stage_type), side=side,
            judges=" / ".join(map(str, s.judge_scores)), mean=f"{s.mean:.2f}", band=w.L[f"band.{band(int(round(s.mean)))}"],
        ))
    return rows


def _ballots(w: _Words, verdict: Verdict) -> list[BallotView]:
    out = []
    for b in verdict.ballots:
        outcome = w.ranking(b.ranking) if b.ranking else f"{w.side(b.winner)}, p = {_p(b.p)}"
        heading = f"{b.judge_id} ({w.perspective(b.perspective)}) · {w.t('read.ballot.model', model=b.model)}: {outcome}"
        if b.speaker_scores:
            sep = "，" if w.lang == "zh" else ", "
            votes = sep.join(f"{x.speech or w.speech.get(x.stage_id) or x.stage_id} {x.score}" for x in b.speaker_scores)
            label = w.L["read.ballot.speaker_scores"]
        else:
            votes, label = w.votes(dict(b.best_debater_votes)), w.L["read.ballot.votes"]
        out.append(BallotView(heading=heading, label=label, votes=votes, reasoning=" ".join(strip_markup(b.reasoning).split())))
    return out


def _ranking_rows(w: _Words, verdict: Verdict) -> list[list[str]]:
    return [
        [str(r.rank), f"{w.side(r.unit)} ({r.unit})" + (f" · {r.name}" if r.name and r.name != w.unit_names.get(r.unit) else ""), " / ".join(map(str, r.judge_ranks)),
         f"{r.mean_rank:.2f}", " / ".join(map(str, r.judge_points)) or "—", "—" if r.points is None else f"{r.points:.2f}"]
        for r in sorted(verdict.ranking, key=lambda r: r.rank)
    ]


def _speech_rows(w: _Words, verdict: Verdict) -> list[list[str]]:
    return [
        [f"{w.stage(s.stage_id)} ({s.speech})" if s.speech else w.stage(s.stage_id), w.side(s.unit), " / ".join(map(str, s.judge_scores)) or "—",
         "—" if s.mean is None else f"{s.mean:.2f}", " / ".join(map(str, s.judge_ranks)) or "—", "—" if s.rank is None else str(s.rank)]
        for s in verdict.speaker_scores
    ]


def _provenance(w: _Words, verdict: Verdict) -> list[str]:
    pv = verdict.provenance
    models = dict(pv.models or {})
    model = pv.model if len(set(models.values())) <= 1 else ", ".join(f"{m} ({role})" for role, m in models.items())
    if not pv.is_llm:
        model = f"{model} ({w.L['offline.short']})"
    cost = w.L["read.cost_unknown"] if pv.cost_usd is None else f"${pv.cost_usd:.4f}"
    return [
        w.t("read.provenance.model", model=model),
        w.t("read.provenance.calls", calls=pv.calls, attempts=pv.attempts, prompt=pv.prompt_tokens, completion=pv.completion_tokens, cost=cost),
        w.t("read.provenance.parsing", strict=pv.strict_json, recovered=pv.recovered, failed=pv.parse_failures),
    ]


def _feedback(w: _Words, verdict: Verdict) -> list[FeedbackView]:
    """The feedback sections, their texts (and the clash titles they name) without markup."""
    views = feedback_views(verdict, w.L, w.stage, w.debater)
    return [FeedbackView(debater=f.debater, points=[(h, strip_markup(where), strip_markup(text)) for h, where, text in f.points]) for f in views]


def readable_verdict(verdict: Verdict, view: MatchView | None = None, language: str | None = None) -> ReadableVerdict:
    """Compose every section of the verdict report (module docstring) for ``verdict``. ``view``: the
    match (debater names, stage names, positions); without it the report names positions by label.
    ``language``: ``"en"`` or ``"zh"``, by default the match's (or its format's)."""
    lang = language or (view.language if view is not None else get_format(verdict.format).language)
    w = _Words(lang, view, verdict)
    units = _units(view, verdict)
    positions, debaters = _positions(w, view, units)
    reasons = _reasons(w, verdict, units)
    # momentum is explained where the word first appears: a judge's quoted reasoning or the cited clash
    words = {"momentum", w.L["read.clash.momentum"].split("{")[0].strip().lower()}
    in_reasons = any(word in text.lower() for text in reasons for word in words)
    return ReadableVerdict(
        language=lang, L=w.L, title=f"{w.L['read.title']}: {verdict.match_id}", about="" if verdict.provenance.is_llm else w.L["offline.note"],
        review=review_sentences(verdict.review, lang) if verdict.review else [], escalate=verdict.review.escalate if verdict.review else None,
        facts=_facts(w, verdict), positions=positions, debaters=debaters,
        result=_result(w, verdict), reasons=reasons, dissent=_dissent(w, verdict),
        momentum_note=w.L["read.momentum"], momentum_first_in="reasons" if in_reasons else "clashes",
        clashes=[_clash_view(w, c, units) for c in verdict.battlefields], scores=_scores(w, verdict),
        ranking=_ranking_rows(w, verdict), speeches=_speech_rows(w, verdict), ballots=_ballots(w, verdict),
        feedback=_feedback(w, verdict), feedback_note=w.t("read.feedback.from", judge=verdict.feedback_from) if verdict.feedback else "",
        failures=[w.t("read.failure", node=f.node, key=f.key, reason=f.reason, n=len(f.raw_outputs)) for f in verdict.failures],
        provenance=_provenance(w, verdict),
    )

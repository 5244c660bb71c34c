"""Aggregate a panel's ballots into a verdict: plain code, not a model (the design card, Data flow).

Rules (a three-judge CCDB panel, paper 2.2.1 and 2.3):

- Winner: the majority of the deciding ballots' winner votes. With an even split (possible only when a
  ballot failed and two remain 1:1) the side the mean p favours wins (over the ballots whose p
  counts); if the mean p is exactly 0.5 (or no ballot's p counts),
  the side with the higher summed stage-score mean wins, and if that ties too, the negative (the
  conservative convention: the affirmative carries the burden of proof).
- Winner tendency p: the mean of the deciding ballots' p, rounded to two decimals, then made consistent with
  the winner: if it falls on the other side of 0.5, or on 0.5 itself, it becomes 0.51 (affirmative
  winner) or 0.49 (negative winner). So p is never exactly 0.5 (paper 2.3: judges may not tie). A
  ballot whose p is left out (``p_counted`` False: the judge stated a winner but still answered
  p = 0.5 after a repair turn) takes no part in the mean; when no deciding ballot's p counts, the
  panel's p is that same 0.51 / 0.49 (no number is made up for the judges).
- Stage scores: per scored (stage, side), every judge's integer score and their mean (3 decimals).
- Best debater: the ballots' votes summed (9 with three ballots); the best debaters are the labels
  tied for the maximum.
- Feedback per debater: one judge's, the majority judge whose p is nearest the panel's
  (:func:`~adjudicator.verdict.feedback.panel_feedback`): a coach's words are not averaged.
- At least two deciding ballots (ballots with a winner vote) are required; fewer raises
  :class:`AdjudicationFailed`. A ballot that does not decide (its judge still answered p = 0.5 after a
  repair turn and stated no winner, issue 38) is kept and shown and counts in the stage scores and
  votes, not in the winner, p or the split.

Ranking formats (BP; :func:`panel_ranking`), where each ballot ranks the units and scores every speech:

- House ranking: by mean rank over the valid ballots (lower is better); a tie goes to the higher mean
  team points (the sum of the house's speaker scores on a ballot, averaged over ballots), then to the
  unit declared first. The majority of ranks decides, as a WUDC panel votes on the call; where the
  mean points disagree with that order, the pair is recorded in ``dissent.low_point_wins`` rather
  than hidden (each single ballot is consistent by construction).
- Speaker scores: per speech every judge's score and their mean (3 decimals); the panel's speaker
  rank orders the speeches by mean score (higher is better), then by mean judge rank, then speaking
  order.
- Dissent: first-place split, the judges whose ranking differs from the panel's, each judge's rank
  error against the panel (sum of absolute rank differences), and speaker-score ranges.
"""

from __future__ import annotations

from collections.abc import Sequence

from adjudicator.errors import AdjudicationFailed
from adjudicator.input.formats import Side
from adjudicator.input.match import MatchView, Stage
from adjudicator.input.rubric import Rubric
from adjudicator.records import CallRecord, NodeFailure
from adjudicator.verdict.ballots import Arm, Ballot, Dissent, Provenance, SpeechResult, StageScore, UnitResult, Verdict
from adjudicator.verdict.battlefield import Clash, StageAnalysis
from adjudicator.verdict.dimensions import dimension_decision, panel_dimensions
from adjudicator.verdict.feedback import panel_feedback
from adjudicator.verdict.review import review_of
from adjudicator.verdict.transcripts import transcript_marks

MIN_BALLOTS = 2


def rank_votes(votes: dict[str, int], labels: list[str]) -> tuple[dict[str, int], list[str]]:
    """Best-debater votes ordered by count (ties in speaking-position order, ``labels``), and the
    labels tied for the maximum (empty when nobody has a vote)."""
    order = {label: i for i, label in enumerate(labels)}
    ranked = dict(sorted(votes.items(), key=lambda kv: (-kv[1], order.get(kv[0], len(order)))))
    top = max(ranked.values(), default=0)
    return ranked, [label for label, n in ranked.items() if n == top and n > 0]


def panel_winner(ballots: list[Ballot], stage_means: dict[tuple[str, Side], float] | None = None) -> Side:
    """The panel's winner from valid ballots (rules in the module docstring). Raises ValueError if
    ``ballots`` is empty."""
    if not ballots:
        raise ValueError("no ballots")
    aff = sum(1 for b in ballots if b.winner == "affirmative")
    neg = len(ballots) - aff
    if aff != neg:
        return "affirmative" if aff > neg else "negative"
    counted = [b.p or 0.0 for b in ballots if b.p_counted]  # winner ballots always carry p
    mean_p = sum(counted) / len(counted) if counted else 0.5
    if round(mean_p, 2) != 0.5:
        return "affirmative" if mean_p > 0.5 else "negative"
    means = stage_means or {}
    diff = sum(v for (_, side), v in means.items() if side == "affirmative") - sum(v for (_, side), v in means.items() if side == "negative")
    return "affirmative" if diff > 0 else "negative"


def panel_p(ballots: list[Ballot], winner: Side) -> float:
    """Mean p of the ballots whose p counts, rounded to two decimals, forced to the winner's side of 0.5
    and never 0.5 (0.51 / 0.49 when no ballot's p counts).

    Example: ballots p = 0.70, 0.40, 0.45 with winner negative -> mean 0.5167 -> 0.52 is on the
    affirmative side, so p = 0.49.
    """
    counted = [b.p or 0.0 for b in ballots if b.p_counted]
    p = round(sum(counted) / len(counted), 2) if counted else 0.5
    if winner == "affirmative" and p <= 0.5:
        return 0.51
    if winner == "negative" and p >= 0.5:
        return 0.49
    return p


def panel_logprob_p(ballots: list[Ballot]) -> float | None:
    """The mean of the ballots' log-prob p (``--p-source logprob``) over the ballots that have one,
    rounded to 4 decimals; None when none has. Not forced to the winner's side: it is a second
    reading of the panel's belief, to be calibrated against the stated p."""
    values = [b.p_logprob for b in ballots if b.p_logprob is not None]
    return round(sum(values) / len(values), 4) if values else None


def aggregate(
    match: MatchView,
    ballots: list[Ballot],
    clashes: dict[str, Clash],
    failures: list[NodeFailure],
    calls: list[CallRecord],
    provenance: Provenance,
    rubric: Rubric | None = None,
    analyses: Sequence[StageAnalysis] = (),
) -> Verdict:
    """Build the :class:`Verdict` from the valid ballots of a panel.

    ``ballots`` are ordered by judge id before aggregation, so the result does not depend on the order
    in which concurrent judges finished. Raises :class:`AdjudicationFailed` with fewer than two ballots.
    Under a dimensional ``rubric`` the verdict also carries the panel's per-dimension results and the
    decision they give (:func:`adjudicator.verdict.dimensions.panel_dimensions`, :func:`~adjudicator.verdict.dimensions.dimension_decision`).
    ``analyses`` are the tracker's stage analyses; the review compares LLM judges' stage scores with
    their suggested scores (:mod:`adjudicator.verdict.echoes`).
    """
    ballots = _panel(ballots, failures)
    if match.spec().verdict == "ranking":
        return _ranking_verdict(match, ballots, clashes, failures, calls, provenance)
    stage_scores = panel_stage_scores(match, ballots)
    deciding = [b for b in ballots if b.deciding]  # a ballot that did not decide (p = 0.5 after its repair) counts in scores and votes only
    winner = panel_winner(deciding, {(s.stage_id, s.side): s.mean for s in stage_scores})
    votes, best = panel_votes(match, ballots)
    dims = panel_dimensions(rubric, {b.judge_id: b.dimensions for b in ballots}) if rubric is not None and rubric.dimensional else []
    p = panel_p(deciding, winner)
    dissent = panel_dissent(deciding, stage_scores, winner)
    feedback_from, feedback = panel_feedback(ballots, winner, p)
    if provenance.p_source == "logprob":  # how many ballots the log-prob reading could not support
        provenance = provenance.model_copy(update={"p_logprob_missing": sum(1 for b in ballots if b.p_logprob is None)})
    return Verdict(
        match_id=match.match_id,
        format=match.format,
        motion=match.motion,
        arm="agentic",
        winner=winner,
        p=p,
        rubric=rubric.name if dims and rubric is not None else "",
        dimensions=dims,
        dimension_decision=dimension_decision(rubric, dims) if dims and rubric is not None else None,
        p_logprob=panel_logprob_p(ballots),
        stage_scores=stage_scores,
        best_debater_votes=votes,
        best_debaters=best,
        dissent=dissent,
        battlefields=list(clashes.values()),
        ballots=ballots,
        failures=failures,
        feedback=feedback,
        feedback_from=feedback_from,
        review=review_of(
            p, dissent.winner_split, failures, ballots=ballots, match=match, battlefields=list(clashes.values()), calls=calls, analyses=analyses if provenance.is_llm else ()
        ),
        provenance=provenance,
        calls=calls,
    )



def _panel(ballots: list[Ballot], failures: list[NodeFailure]) -> list[Ballot]:
    """``ballots`` ordered by judge id. Raises :class:`AdjudicationFailed` with fewer than
    :data:`MIN_BALLOTS` deciding ballots: one short line of counts (deciding, kept, failed judges and
    their kinds); the reasons and raw outputs are in the failures."""
    deciding = sum(1 for b in ballots if b.deciding)
    if deciding < MIN_BALLOTS:
        failed = [f for f in failures if f.node == "judge" and not f.partial]
        kinds = ", ".join(f"{f.key} {f.kind.value}" for f in sorted(failed, key=lambda f: f.key))
        raise AdjudicationFailed(
            f"the panel needs at least {MIN_BALLOTS} deciding ballots, got {deciding} ({len(ballots)} ballot(s) kept, "
            f"{len(failed)} judge(s) failed{': ' + kinds if kinds else ''}; see failures)",
            "see the failures for each judge's raw outputs; retry or use another model",
        )
    return sorted(ballots, key=lambda b: b.judge_id)


def _ranking_verdict(match: MatchView, ballots: list[Ballot], clashes: dict[str, Clash], failures: list[NodeFailure], calls: list[CallRecord], provenance: Provenance) -> Verdict:
    """The verdict of a ranking format (BP): the panel's house ranking and speeches, no winner or p
    (:func:`panel_ranking`); its review splits on first place."""
    ranking, speeches, dissent = panel_ranking(match, ballots)
    return Verdict(
        match_id=match.match_id,
        format=match.format,
        motion=match.motion,
        arm="agentic",
        winner=None,
        p=None,
        ranking=ranking,
        speaker_scores=speeches,
        dissent=dissent,
        battlefields=list(clashes.values()),
        ballots=ballots,
        failures=failures,
        review=review_of(None, dissent.winner_split, failures, split_label="first place", ballots=ballots, match=match, battlefields=list(clashes.values()), calls=calls),
        provenance=provenance,
        calls=calls,
    )


def panel_stage_scores(match: MatchView, ballots: list[Ballot]) -> list[StageScore]:
    """Per scored (stage, side) of ``match`` that any ballot scored: every judge's integer score (in
    ballot order) and their mean to 3 decimals, in the match's unit order; with ``--p-source logprob``
    also the mean of the judges' expected scores (4 decimals)."""
    stage_by_id = {s.stage_id: s for s in match.stages}
    per_unit: dict[tuple[str, str], list[int]] = {}
    expected: dict[tuple[str, str], list[float]] = {}
    for b in ballots:
        for s in b.stage_scores:
            per_unit.setdefault((s.stage_id, s.side), []).append(s.score)
            if s.expected is not None:
                expected.setdefault((s.stage_id, s.side), []).append(s.expected)
    stage_scores: list[StageScore] = []
    for stage_id, side in match.scored_units():
        scores = per_unit.get((stage_id, side))
        if not scores:
            continue
        st = stage_by_id[stage_id]
        stage_scores.append(
            StageScore(
                stage_id=stage_id,
                stage_name=st.name,
                stage_type=st.type,
                side=side,
                role=st.role_of(side),
                judge_scores=scores,
                mean=round(sum(scores) / len(scores), 3),
                logprob_mean=round(sum(ex) / len(ex), 4) if (ex := expected.get((stage_id, side))) else None,
            )
        )
    return stage_scores


def panel_votes(match: MatchView, ballots: list[Ballot]) -> tuple[dict[str, int], list[str]]:
    """The ballots' best-debater votes summed (9 with three ballots) and ranked, and the labels tied
    for the most votes (:func:`rank_votes`)."""
    votes: dict[str, int] = {}
    for b in ballots:
        for label, n in b.best_debater_votes.items():
            votes[label] = votes.get(label, 0) + n
    return rank_votes(votes, match.debater_labels())


def panel_dissent(ballots: list[Ballot], stage_scores: list[StageScore], winner: Side) -> Dissent:
    """How split the panel was: the winner vote split (e.g. ``"2:1"``), the dissenting judges, the
    widest range of one unit's judge scores, and how many units' scores ranged 3 or more."""
    majority = sum(1 for b in ballots if b.winner == winner)
    ranges = [max(s.judge_scores) - min(s.judge_scores) for s in stage_scores if len(s.judge_scores) > 1]
    return Dissent(
        winner_split=f"{majority}:{len(ballots) - majority}",
        dissenting_judges=[b.judge_id for b in ballots if b.winner != winner],
        max_score_range=max(ranges, default=0),
        units_with_range_ge_3=sum(1 for r in ranges if r >= 3),
    )


def panel_ranking(match: MatchView, ballots: list[Ballot]) -> tuple[list[UnitResult], list[SpeechResult], Dissent]:
    """The panel's unit ranking, speaker scores and dissent from ranking ballots (rules in the
    module docstring). ``ballots`` are valid ranking ballots of ``match`` (every unit ranked), in
    judge order. Returns the units in panel rank order and the speeches in speaking order.

    Example (hand-checked in tests/test_bp_aggregate.py): ranks OG 1,2,1 / OO 2,1,3 / CG 3,3,2 /
    CO 4,4,4 give mean ranks 1.33, 2.0, 2.67, 4.0, so the panel ranking is OG, OO, CG, CO.
    """
    spec = match.spec()
    units = spec.unit_ids()
    points = [b.team_points() for b in ballots]
    results: list[UnitResult] = []
    for u in units:
        ranks = [b.ranking[u] for b in ballots]
        pts = [p[u] for p in points if u in p]
        results.append(
            UnitResult(
                unit=u,
                name=spec.unit(u).name,
                rank=1,
                judge_ranks=ranks,
                mean_rank=round(sum(ranks) / len(ranks), 3),
                judge_points=pts,
                points=round(sum(pts) / len(pts), 2) if pts else None,
            )
        )
    order = sorted(range(len(units)), key=lambda i: (results[i].mean_rank, -(results[i].points or 0.0), i))
    ranked = [results[i].model_copy(update={"rank": r}) for r, i in enumerate(order, start=1)]
    speeches = panel_speeches(match, ballots)
    return ranked, speeches, ranking_dissent(ballots, ranked, speeches)


def panel_speeches(match: MatchView, ballots: list[Ballot]) -> list[SpeechResult]:
    """Per speech of ``match`` scored on any ballot: each judge's score and rank, the mean score (3
    decimals) and the panel's speaker rank (mean score, then mean judge rank, then speaking order)."""
    rows = []
    for k, (sid, unit, abbr) in enumerate(match.speeches()):
        found = [s for b in ballots for s in b.speaker_scores if s.stage_id == sid]
        if not found:
            continue
        scores = [s.score for s in found]
        ranks = [s.rank for s in found]
        rows.append((k, sid, unit, abbr, scores, ranks))
    order = sorted(rows, key=lambda r: (-sum(r[4]) / len(r[4]), sum(r[5]) / len(r[5]), r[0]))
    rank_of = {r[1]: i for i, r in enumerate(order, start=1)}
    return [
        SpeechResult(stage_id=sid, speech=abbr, unit=unit, judge_scores=scores, mean=round(sum(scores) / len(scores), 3), judge_ranks=ranks, rank=rank_of[sid])
        for _, sid, unit, abbr, scores, ranks in rows
    ]


def ranking_dissent(ballots: list[Ballot], ranked: list[UnitResult], speeches: list[SpeechResult]) -> Dissent:
    """Dissent of a ranking panel: first-place split (judges who put the panel's first unit first :
    the others), judges whose ranking differs from the panel's, each judge's rank error (sum over
    units of |judge rank - panel rank|), speaker-score ranges, and the low-point wins of the
    panel's ranking (pairs ranked against their mean team points)."""
    panel = {r.unit: r.rank for r in ranked}
    first = ranked[0].unit
    agree = sum(1 for b in ballots if b.ranking.get(first) == 1)
    ranges = [max(s.judge_scores) - min(s.judge_scores) for s in speeches if len(s.judge_scores) > 1]
    low = [
        f"{a.unit} (rank {a.rank}, {a.points:.2f} points) above {b.unit} (rank {b.rank}, {b.points:.2f})"
        for i, a in enumerate(ranked)
        for b in ranked[i + 1 :]
        if a.points is not None and b.points is not None and a.points < b.points
    ]
    return Dissent(
        winner_split=f"{agree}:{len(ballots) - agree}",
        dissenting_judges=[b.judge_id for b in ballots if b.ranking != panel],
        max_score_range=max(ranges, default=0),
        units_with_range_ge_3=sum(1 for r in ranges if r >= 3),
        rank_error={b.judge_id: sum(abs(b.ranking[u] - panel[u]) for u in panel) for b in ballots},
        low_point_wins=low,
    )


def provenance_of(arm: Arm, model: str, models: dict[str, str], is_llm: bool, prompt_hashes: dict[str, str], calls: list[CallRecord], version: str) -> Provenance:
    """Deterministic provenance from call records: counts, token sums, cost (None if any model
    request had no known price), parse statistics. A cached call contributes the tokens and cost of
    the original request (so a cached rerun reproduces the verdict byte for byte); whether a call was
    a cache hit, and wall-clock latency, are left out."""
    prices = [c.cost_usd for c in calls if c.parse != "native"]
    cost = None if any(x is None for x in prices) else sum(x for x in prices if x is not None)
    return Provenance(
        arm=arm,
        model=model,
        models=models,
        is_llm=is_llm,
        prompt_hashes=prompt_hashes,
        calls=len({(c.node, c.key) for c in calls}),
        attempts=len(calls),
        prompt_tokens=sum(c.prompt_tokens for c in calls),
        completion_tokens=sum(c.completion_tokens for c in calls),
        reasoning_tokens=sum(c.reasoning_tokens for c in calls),
        cached_tokens=sum(c.cached_tokens for c in calls),
        cache_write_tokens=sum(c.cache_write_tokens for c in calls),
        tokens_counted_locally=sum(1 for c in calls if c.tokens_counted_locally),
        cost_usd=None if cost is None else round(cost, 6),
        strict_json=sum(1 for c in calls if c.parse == "strict"),
        recovered=sum(1 for c in calls if c.parse in ("normalised", "regex")),
        repaired=sum(1 for c in calls if c.turn == "repair" and c.parse != "failed"),
        parse_failures=sum(1 for c in calls if c.parse == "failed"),
        json_mode_fallback=[c.json_mode_fallback for c in calls if c.json_mode_fallback],
        package_version=version,
    )





def with_transcripts(verdict: Verdict, stages: Sequence[Stage]) -> Verdict:
    """``verdict`` with the marks of its match's machine-made ``stages`` (``verdict.transcripts``;
    their review reasons come from :func:`~adjudicator.verdict.review.review_of`); unchanged when every
    stage was typed."""
    marks = transcript_marks(stages)
    return verdict.model_copy(update={"transcripts": marks}) if marks else verdict

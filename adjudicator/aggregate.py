"""Aggregate a panel's ballots into a verdict: plain code, not a model (the design card, Data flow).

Rules (a three-judge CCDB panel, paper 2.2.1 and 2.3):

- Winner: the majority of the valid ballots' winner votes. With an even split (possible only when a
  ballot failed and two remain 1:1) the side the mean p favours wins; if the mean p is exactly 0.5,
  the side with the higher summed stage-score mean wins, and if that ties too, the negative (the
  conservative convention: the affirmative carries the burden of proof).
- Winner tendency p: the mean of the ballots' p, rounded to two decimals, then made consistent with
  the winner: if it falls on the other side of 0.5, or on 0.5 itself, it becomes 0.51 (affirmative
  winner) or 0.49 (negative winner). So p is never exactly 0.5 (paper 2.3: judges may not tie).
- Stage scores: per scored (stage, side), every judge's integer score and their mean (3 decimals).
- Best debater: the ballots' votes summed (9 with three ballots); the best debaters are the labels
  tied for the maximum.
- At least two valid ballots are required; fewer raises :class:`AdjudicationFailed`.
"""

from __future__ import annotations

from adjudicator.battlefield import Clash
from adjudicator.errors import AdjudicationFailed
from adjudicator.formats import Side
from adjudicator.match import MatchView
from adjudicator.records import CallRecord, NodeFailure
from adjudicator.verdict import Arm, Ballot, Dissent, Provenance, StageScore, Verdict

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
    mean_p = sum(b.p for b in ballots) / len(ballots)
    if round(mean_p, 2) != 0.5:
        return "affirmative" if mean_p > 0.5 else "negative"
    means = stage_means or {}
    diff = sum(v for (_, side), v in means.items() if side == "affirmative") - sum(v for (_, side), v in means.items() if side == "negative")
    return "affirmative" if diff > 0 else "negative"


def panel_p(ballots: list[Ballot], winner: Side) -> float:
    """Mean ballot p rounded to two decimals, forced to the winner's side of 0.5 and never 0.5.

    Example: ballots p = 0.70, 0.40, 0.45 with winner negative -> mean 0.5167 -> 0.52 is on the
    affirmative side, so p = 0.49.
    """
    p = round(sum(b.p for b in ballots) / len(ballots), 2)
    if winner == "affirmative" and p <= 0.5:
        return 0.51
    if winner == "negative" and p >= 0.5:
        return 0.49
    return p


def aggregate(
    match: MatchView,
    ballots: list[Ballot],
    clashes: dict[str, Clash],
    failures: list[NodeFailure],
    calls: list[CallRecord],
    provenance: Provenance,
) -> Verdict:
    """Build the :class:`Verdict` from the valid ballots of a panel.

    ``ballots`` are ordered by judge id before aggregation, so the result does not depend on the order
    in which concurrent judges finished. Raises :class:`AdjudicationFailed` with fewer than two ballots.
    """
    ballots = sorted(ballots, key=lambda b: b.judge_id)
    if len(ballots) < MIN_BALLOTS:
        reasons = "; ".join(f"{f.node} {f.key}: {f.reason}" for f in failures if f.node == "judge") or "no judge produced a ballot"
        raise AdjudicationFailed(
            f"the panel needs at least {MIN_BALLOTS} valid ballots, got {len(ballots)} ({reasons})",
            "see the failures for each judge's raw outputs; retry or use another model",
        )
    stage_scores = panel_stage_scores(match, ballots)
    winner = panel_winner(ballots, {(s.stage_id, s.side): s.mean for s in stage_scores})
    votes, best = panel_votes(match, ballots)
    return Verdict(
        match_id=match.match_id,
        format=match.format,
        motion=match.motion,
        arm="agentic",
        winner=winner,
        p=panel_p(ballots, winner),
        stage_scores=stage_scores,
        best_debater_votes=votes,
        best_debaters=best,
        dissent=panel_dissent(ballots, stage_scores, winner),
        battlefields=list(clashes.values()),
        ballots=ballots,
        failures=failures,
        provenance=provenance,
        calls=calls,
    )


def panel_stage_scores(match: MatchView, ballots: list[Ballot]) -> list[StageScore]:
    """Per scored (stage, side) of ``match`` that any ballot scored: every judge's integer score (in
    ballot order) and their mean to 3 decimals, in the match's unit order."""
    stage_by_id = {s.stage_id: s for s in match.stages}
    per_unit: dict[tuple[str, str], list[int]] = {}
    for b in ballots:
        for s in b.stage_scores:
            per_unit.setdefault((s.stage_id, s.side), []).append(s.score)
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
        cost_usd=None if cost is None else round(cost, 6),
        strict_json=sum(1 for c in calls if c.parse == "strict"),
        recovered=sum(1 for c in calls if c.parse in ("normalised", "regex")),
        parse_failures=sum(1 for c in calls if c.parse == "failed"),
        package_version=version,
    )

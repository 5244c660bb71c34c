"""The pairwise panel's verdict: resolve every judge's answers, fit Bradley-Terry strengths, and read
the result off them in plain code (the rules are :data:`~adjudicator.pairwise.record.RULES`).

Two-sided formats: winner tendency ``p`` = the panel fit's P(affirmative beats negative); nine
best-debater votes by highest averages over the speaker fit's strengths; each judge's ballot from
its own fit (p, winner, three votes; no 1-10 stage scores: a pairwise judge does not score stages).
Ranking formats (BP): houses ranked by the unit fit, speeches ranked by the speaker fit (speaker
ranks, no speaker scores); each judge's ballot ranks the houses by its own fit.
"""

from __future__ import annotations

import math
from typing import Any

from adjudicator.errors import AdjudicationFailed
from adjudicator.input.formats import Side
from adjudicator.input.match import MatchView
from adjudicator.pairwise.agreement import level_agreement
from adjudicator.pairwise.bradley_terry import PRIOR_PRECISION, BradleyTerryFit, fit
from adjudicator.pairwise.comparisons import LEVELS, Level, PairChoice, PairResult, pairs, resolve_all
from adjudicator.pairwise.record import PairwiseRecord
from adjudicator.records import CallRecord, NodeFailure
from adjudicator.verdict.ballots import BALLOT_VOTES, PANEL_VOTES, Ballot, Dissent, Provenance, SpeechResult, UnitResult, Verdict
from adjudicator.verdict.battlefield import Clash
from adjudicator.verdict.review import review_of

MIN_BALLOTS = 2


def highest_averages(weights: dict[str, float], n: int, order: list[str]) -> dict[str, int]:
    """D'Hondt apportionment of ``n`` votes over positive ``weights``: each vote in turn goes to the
    largest weight / (votes already given + 1); ties go to the larger weight, then the earlier label
    in ``order``. Example: weights a=4, b=1.5, c=1 and 3 votes -> a (4), a (4/2 = 2 > 1.5), b (1.5 > 4/3) ->
    {a: 2, b: 1}. Returns label -> votes (labels with none left out)."""
    pos = {k: i for i, k in enumerate(order)}
    cands = {k: w for k, w in weights.items() if w > 0}
    out: dict[str, int] = {}
    for _ in range(n if cands else 0):
        k = min(cands, key=lambda k: (-cands[k] / (out.get(k, 0) + 1), -cands[k], pos.get(k, len(pos))))
        out[k] = out.get(k, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: (-kv[1], pos.get(kv[0], len(pos)))))


def fit_level(view: MatchView, results: list[PairResult], level: Level, alpha: float = PRIOR_PRECISION) -> BradleyTerryFit:
    """The Bradley-Terry fit of ``level``'s competitors over ``results`` (any judges)."""
    own = [(r.first, r.second, r.outcome) for r in results if r.level == level]
    return fit(view.competitors(level), own, alpha)


def _complete(view: MatchView, results: list[PairResult], judge_id: str) -> bool:
    """True when the judge resolved every unit pair (its ballot can rank every unit)."""
    have = {(r.first, r.second) for r in results if r.judge_id == judge_id and r.level == "unit"}
    return all(p in have for p in pairs(view, "unit"))


def two_sided_p(unit_fit: BradleyTerryFit) -> tuple[Side, float]:
    """(winner, p) from a two-sided unit fit (rule in RULES): p = P(affirmative beats negative) to two
    decimals; exactly 0.50 goes to the negative as 0.49."""
    p = round(unit_fit.probability("affirmative", "negative"), 2)
    if p == 0.5:
        return "negative", 0.49
    return ("affirmative" if p > 0.5 else "negative"), p


def _votes(speaker_fit: BradleyTerryFit, n: int) -> dict[str, int]:
    weights = {it: math.exp(speaker_fit.theta(it)) for it in speaker_fit.items}
    return highest_averages(weights, n, speaker_fit.items)


def judge_ballot(view: MatchView, judge_id: str, perspective: str, model: str, fits: dict[str, BradleyTerryFit]) -> Ballot:
    """One judge's ballot from its own fits (module docstring)."""
    unit = fits["unit"]
    if view.spec().verdict == "ranking":
        order = unit.order()
        return Ballot(
            judge_id=judge_id, perspective=perspective, model=model, winner=None, p=None, stage_scores=[], best_debater_votes={},
            reasoning="pairwise: houses by Bradley-Terry strength " + " > ".join(order), ranking=unit.ranks(),
        )
    winner, p = two_sided_p(unit)
    speaker = fits.get("speaker")
    votes = _votes(speaker, BALLOT_VOTES) if speaker is not None and speaker.items else {}
    if sum(votes.values()) != BALLOT_VOTES:  # no debater to vote for: the winning side's first label
        votes = {next((d for d in view.debater_labels() if view.side_of(d) == winner), winner): BALLOT_VOTES}
    return Ballot(
        judge_id=judge_id, perspective=perspective, model=model, winner=winner, p=p, stage_scores=[], best_debater_votes=votes,
        reasoning=f"pairwise: P(affirmative beats negative) = {unit.probability('affirmative', 'negative'):.3f} from the judge's own comparisons",
    )


def aggregate_pairwise(
    view: MatchView,
    choices: list[PairChoice],
    panel: list[tuple[str, str]],
    models: dict[str, str],
    clashes: dict[str, Clash],
    failures: list[NodeFailure],
    calls: list[CallRecord],
    provenance: Provenance,
) -> Verdict:
    """The pairwise panel's :class:`Verdict` (module docstring). ``panel`` is [(judge id,
    perspective)] in seating order, ``models`` judge id -> model name. Raises
    :class:`AdjudicationFailed` when fewer than two judges resolved every unit pair."""
    choices = sorted(choices, key=lambda c: (c.judge_id, c.level, c.a, c.b))
    results = resolve_all(view, choices)
    seated = [j for j, _ in panel]
    judge_fits: dict[str, dict[str, BradleyTerryFit]] = {j: {lv: fit_level(view, [r for r in results if r.judge_id == j], lv) for lv in LEVELS} for j in seated}
    ballots = [judge_ballot(view, j, persp, models.get(j, ""), judge_fits[j]) for j, persp in panel if _complete(view, results, j)]
    if len(ballots) < MIN_BALLOTS:
        reasons = "; ".join(f"{f.node} {f.key}: {f.reason}" for f in failures if f.node == "compare")[:600] or "no judge answered every unit pair in both orders"
        raise AdjudicationFailed(
            f"the pairwise panel needs at least {MIN_BALLOTS} judges with every unit pair resolved, got {len(ballots)} ({reasons})",
            "see the failures for each comparison's raw outputs; retry or use another model",
        )
    fits: dict[str, BradleyTerryFit] = {lv: fit_level(view, results, lv) for lv in LEVELS}
    record = PairwiseRecord(
        choices=choices, results=results, fits=fits, judge_fits=judge_fits, agreement=[level_agreement(results, lv) for lv in LEVELS if any(r.level == lv for r in results)]
    )
    common: dict[str, Any] = dict(match_id=view.match_id, format=view.format, motion=view.motion, arm="agentic", battlefields=list(clashes.values()),
                  ballots=ballots, failures=failures, provenance=provenance, calls=calls, pairwise=record)
    if view.spec().verdict == "ranking":
        ranking = house_ranking(view, fits["unit"], ballots)
        speeches = speech_ranking(view, fits["speaker"], judge_fits, [b.judge_id for b in ballots])
        dissent = ranking_dissent(ballots, ranking)
        review = review_of(None, dissent.winner_split, failures, split_label="first place", match=view, battlefields=common["battlefields"], calls=calls)
        return Verdict(winner=None, p=None, ranking=ranking, speaker_scores=speeches, dissent=dissent, review=review, **common)
    winner, p = two_sided_p(fits["unit"])
    votes = _votes(fits["speaker"], PANEL_VOTES) if fits["speaker"].items else {}
    top = max(votes.values(), default=0)
    majority = sum(1 for b in ballots if b.winner == winner)
    dissent = Dissent(winner_split=f"{majority}:{len(ballots) - majority}", dissenting_judges=[b.judge_id for b in ballots if b.winner != winner])
    # the quality gate without the ballot checks: a pairwise ballot is read off its judge's fits (no reasoning, no scores of its own)
    review = review_of(p, dissent.winner_split, failures, match=view, battlefields=common["battlefields"], calls=calls)
    return Verdict(winner=winner, p=p, best_debater_votes=votes, best_debaters=[k for k, n in votes.items() if n == top and n > 0], dissent=dissent, review=review, **common)


def house_ranking(view: MatchView, unit_fit: BradleyTerryFit, ballots: list[Ballot]) -> list[UnitResult]:
    """The units in the panel fit's order, with each ballot's rank and their mean (3 decimals); no points."""
    spec = view.spec()
    ranks = unit_fit.ranks()
    out = []
    for u in unit_fit.order():
        judge_ranks = [b.ranking[u] for b in ballots]
        out.append(UnitResult(unit=u, name=spec.unit(u).name, rank=ranks[u], judge_ranks=judge_ranks, mean_rank=round(sum(judge_ranks) / len(judge_ranks), 3)))
    return out


def speech_ranking(view: MatchView, speaker_fit: BradleyTerryFit, judge_fits: dict[str, dict[str, BradleyTerryFit]], judges: list[str]) -> list[SpeechResult]:
    """Per speech in speaking order: the panel's speaker rank from the speaker fit and each balloted
    judge's rank from its own fit; no scores (None). Empty when the speaker level has no result."""
    if not speaker_fit.comparisons:
        return []
    ranks = speaker_fit.ranks()
    own = {j: judge_fits[j]["speaker"].ranks() for j in judges if judge_fits[j]["speaker"].comparisons}
    return [
        SpeechResult(stage_id=sid, speech=abbr, unit=unit, judge_scores=[], mean=None, judge_ranks=[own[j][sid] for j in own if sid in own[j]], rank=ranks.get(sid))
        for sid, unit, abbr in view.speeches()
        if sid in ranks
    ]


def ranking_dissent(ballots: list[Ballot], ranked: list[UnitResult]) -> Dissent:
    """First-place split, judges whose ranking differs from the panel's, and each judge's rank error."""
    panel = {r.unit: r.rank for r in ranked}
    first = ranked[0].unit
    agree = sum(1 for b in ballots if b.ranking.get(first) == 1)
    return Dissent(
        winner_split=f"{agree}:{len(ballots) - agree}",
        dissenting_judges=[b.judge_id for b in ballots if b.ranking != panel],
        rank_error={b.judge_id: sum(abs(b.ranking[u] - panel[u]) for u in panel) for b in ballots},
    )

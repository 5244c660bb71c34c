"""Score the ranking-format matches of a run (BP): the ``tasks.bp`` section of report.json.

Four tasks, each a table of the run's arms and its baselines, every value a leaf
(:mod:`~adjudicator.bench.scoring.leaves`: value, n, n_excluded, match-level bootstrap interval):

- ``house_order``: DebateBench's house-order error (mean over matches of the summed absolute rank
  differences of the four houses; 0 best, 8 worst);
- ``speaker_scores``: speaker-score MAE (points) and accuracy within each tolerance 2-9;
- ``speaker_ranks``: speaker-rank error (mean over matches of the summed absolute rank differences
  of the eight speeches; 0 best, 32 worst);
- ``advancing``: PanelBench BP's advancing teams: the predicted top k equals the gold set
  (``set_accuracy``) and per-team advance/eliminate accuracy (``team_accuracy``), k the number of
  houses that advanced in that round.

Metrics from :mod:`adjudicator.evaluation.ranking_metrics`. Baselines: a uniformly random ranking,
reported by its exact expected value (no draw), and fixed orders: the speaking order (OG, OO, CG,
CO: "opening government first"; speeches PM first ... OW last) and closing houses first (CG, CO, OG,
OO); for speaker scores a constant 80 (DebateBench's reported mean, 80.25, rounded; not taken from
this run's gold). A task whose gold the dataset lacks is not applicable with the reason (PanelBench BP
has only the advancing houses). Each table gives ``n_matches`` and ``effective_n``: the number of
distinct motions among the scored matches, because rounds on one motion (a tournament's
quarter-finals) share their arguments and are not independent samples; speeches and teams of one
match are resampled together in the intervals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from adjudicator.bench.predictions import exact_mean
from adjudicator.bench.results import SampleResult
from adjudicator.bench.scoring.leaves import ScoreSettings, scored
from adjudicator.evaluation import ranking_metrics as R
from adjudicator.input.match import Match

TOLERANCES = tuple(range(2, 10))
#: DebateBench (seed 002, Table 1): mean speaker score 80.25 over its elite BP rounds.
CONSTANT_SCORE = 80.0


def _rank_vector(ranks: dict[str, int] | None, units: list[str]) -> np.ndarray | None:
    if not ranks or any(u not in ranks for u in units):
        return None
    return np.array([float(ranks[u]) for u in units])


def _order_ranks(order: Sequence[str], units: list[str]) -> np.ndarray:
    return np.array([float(list(order).index(u) + 1) for u in units])


class RankingGold:
    """Gold of the ranking matches, aligned: per match the unit ranking (None when absent), the
    advancing unit indices, per speech the score and the per-match speech-rank vector."""

    def __init__(self, matches: Sequence[Match]) -> None:
        self.matches = list(matches)
        self.ids = [m.match_id for m in self.matches]
        self.units = [m.units() for m in self.matches]
        self.speeches = [m.speeches() for m in self.matches]
        self.motions = {m.match_id: " ".join(m.motion.lower().split()) for m in self.matches}
        self.ranking: list[np.ndarray | None] = []
        self.advanced: list[list[int] | None] = []
        self.speech_rank: list[np.ndarray | None] = []
        self.score: list[float] = []
        self.score_match: list[str] = []
        for m, units, speeches in zip(self.matches, self.units, self.speeches):
            lab = m.labels
            self.ranking.append(_rank_vector(lab.ranking if lab else None, units))
            self.advanced.append([units.index(u) for u in lab.advanced] if lab and lab.advanced else None)
            sids = [sid for sid, _, _ in speeches]
            self.speech_rank.append(_rank_vector(lab.speaker_ranks if lab else None, sids))
            for sid in sids:
                self.score.append(float(lab.speaker_scores[sid]) if lab and sid in lab.speaker_scores else float("nan"))
                self.score_match.append(m.match_id)

    def effective_n(self, mask: Sequence[bool]) -> dict[str, int]:
        """``n_matches`` among ``mask`` and ``effective_n`` = their distinct motions."""
        ids = [i for i, keep in zip(self.ids, mask) if keep]
        return {"n_matches": len(ids), "effective_n": len({self.motions[i] for i in ids})}


class RankingPredictions:
    """One arm's predictions aligned with :class:`RankingGold` (None / NaN where the arm has none)."""

    def __init__(self, gold: RankingGold, results: dict[str, SampleResult]) -> None:
        self.ranking: list[np.ndarray | None] = []
        self.speech_rank: list[np.ndarray | None] = []
        self.score: list[float] = []
        for mid, units, speeches in zip(gold.ids, gold.units, gold.speeches):
            r = results.get(mid)
            v = (r.verdict if r is not None and r.status != "failed" else None) or {}
            ranks = {x["unit"]: int(x["rank"]) for x in v.get("ranking") or []}
            self.ranking.append(_rank_vector(ranks, units))
            by_speech = {x["stage_id"]: x for x in v.get("speaker_scores") or []}
            sids = [sid for sid, _, _ in speeches]
            self.speech_rank.append(_rank_vector({s: int(by_speech[s]["rank"]) for s in sids if s in by_speech and by_speech[s].get("rank") is not None}, sids))
            self.score.extend(m if s in by_speech and (m := exact_mean(by_speech[s])) is not None else float("nan") for s in sids)


def _row(label: str, kind: str, leaves: dict[str, Any], note: str = "") -> dict[str, Any]:
    return {"label": label, "kind": kind, "metrics": leaves, **({"note": note} if note else {})}


def _expected_leaf(value: float, n: int) -> dict[str, Any]:
    return {"value": round(value, 6), "n": n, "n_excluded": 0, "ci": None, "expected": True}


def ranking_tables(matches: Sequence[Match], arm_results: dict[str, dict[str, SampleResult]], arm_labels: dict[str, str], settings: ScoreSettings) -> dict[str, Any]:
    """The ``tasks.bp`` section for the ranking matches of a run (module docstring)."""
    gold = RankingGold(matches)
    preds = {a: RankingPredictions(gold, arm_results[a]) for a in arm_results}
    return {
        "house_order": _house_order(gold, preds, arm_labels, settings),
        "speaker_scores": _speaker_scores(gold, preds, arm_labels, settings),
        "speaker_ranks": _speaker_ranks(gold, preds, arm_labels, settings),
        "advancing": _advancing(gold, preds, arm_labels, settings),
    }


def _house_order(gold: RankingGold, preds: dict[str, RankingPredictions], labels: dict[str, str], st: ScoreSettings) -> dict[str, Any]:
    has = [g is not None for g in gold.ranking]
    if not any(has):
        return {"reason": "not applicable: no match has a gold house ranking (PanelBench BP records only the houses that advanced)", "rows": []}
    rows = [_row(labels.get(a, a), "arm", {"error": scored(R.house_order_error, [p.ranking, gold.ranking], None, st)}) for a, p in preds.items()]
    n = sum(has)
    rows.append(_row("random ranking (expected)", "baseline", {"error": _expected_leaf(R.expected_random_rank_error(4), n)}, "exact expectation (n^2 - 1) / 3 of a uniformly random ranking"))
    for name, order in (("speaking order (OG, OO, CG, CO)", ("OG", "OO", "CG", "CO")), ("closing first (CG, CO, OG, OO)", ("CG", "CO", "OG", "OO"))):
        fixed = [_order_ranks(order, u) for u in gold.units]
        rows.append(_row(name, "baseline", {"error": scored(R.house_order_error, [fixed, gold.ranking], None, st)}))
    return {"metric": "house-order error (sum of |rank difference| over the 4 houses; lower is better)", **gold.effective_n(has), "rows": rows}


def _score_leaves(pred: np.ndarray, gold: np.ndarray, ids: list[str], st: ScoreSettings) -> dict[str, Any]:
    leaves = {"mae": scored(R.speaker_score_mae, [pred, gold], ids, st)}
    for t in TOLERANCES:
        leaves[f"within_{t}"] = scored(lambda p, g, t=t: R.speaker_score_accuracy(p, g, t), [pred, gold], ids, st)
    return leaves


def _speaker_scores(gold: RankingGold, preds: dict[str, RankingPredictions], labels: dict[str, str], st: ScoreSettings) -> dict[str, Any]:
    g = np.array(gold.score)
    if not np.isfinite(g).any():
        return {"reason": "not applicable: no speech has a gold speaker score (PanelBench BP has none)", "rows": []}
    rows = [_row(labels.get(a, a), "arm", _score_leaves(np.array(p.score), g, gold.score_match, st)) for a, p in preds.items()]
    rows.append(_row(f"constant {CONSTANT_SCORE:g}", "baseline", _score_leaves(np.full(g.shape, CONSTANT_SCORE), g, gold.score_match, st), "DebateBench's reported mean speaker score, rounded"))
    scored_matches = {m for m, x in zip(gold.score_match, g) if np.isfinite(x)}
    return {"metric": "speaker-score MAE (points; lower is better) and accuracy within 2-9 points", "n_speeches": int(np.isfinite(g).sum()), **gold.effective_n([i in scored_matches for i in gold.ids]), "rows": rows}


def _speaker_ranks(gold: RankingGold, preds: dict[str, RankingPredictions], labels: dict[str, str], st: ScoreSettings) -> dict[str, Any]:
    has = [g is not None for g in gold.speech_rank]
    if not any(has):
        return {"reason": "not applicable: no match has gold speaker ranks (PanelBench BP has none)", "rows": []}
    rows = [_row(labels.get(a, a), "arm", {"error": scored(R.speaker_rank_error, [p.speech_rank, gold.speech_rank], None, st)}) for a, p in preds.items()]
    rows.append(_row("random ranking (expected)", "baseline", {"error": _expected_leaf(R.expected_random_rank_error(8), sum(has))}, "exact expectation (n^2 - 1) / 3 of a uniformly random ranking"))
    speaking = [np.arange(1.0, len(s) + 1) for s in gold.speeches]
    rows.append(_row("speaking order (PM first ... OW last)", "baseline", {"error": scored(R.speaker_rank_error, [speaking, gold.speech_rank], None, st)}))
    return {"metric": "speaker-rank error (sum of |rank difference| over the 8 speeches; lower is better)", **gold.effective_n(has), "rows": rows}


def _advancing(gold: RankingGold, preds: dict[str, RankingPredictions], labels: dict[str, str], st: ScoreSettings) -> dict[str, Any]:
    has = [a is not None for a in gold.advanced]
    if not any(has):
        return {"reason": "not applicable: no match records the houses that advanced", "rows": []}

    def leaves(ranking: Sequence[np.ndarray | None]) -> dict[str, Any]:
        return {"set_accuracy": scored(R.advancing_sets, [ranking, gold.advanced], None, st), "team_accuracy": scored(R.advancing_teams, [ranking, gold.advanced], None, st)}

    rows = [_row(labels.get(a, a), "arm", leaves(p.ranking)) for a, p in preds.items()]
    ks = [(len(u), len(a)) for u, a in zip(gold.units, gold.advanced) if a]
    rows.append(
        _row(
            "random ranking (expected)",
            "baseline",
            {
                "set_accuracy": _expected_leaf(float(np.mean([R.expected_random_advancing_set(n, k) for n, k in ks])), len(ks)),
                "team_accuracy": _expected_leaf(float(np.mean([R.expected_random_advancing_team(n, k) for n, k in ks])), 4 * len(ks)),
            },
            "exact expectation over the matches' k: 1 / C(4, k) and (k^2 + (4 - k)^2) / 16",
        )
    )
    for name, order in (("speaking order (OG, OO, CG, CO)", ("OG", "OO", "CG", "CO")), ("closing first (CG, CO, OG, OO)", ("CG", "CO", "OG", "OO"))):
        rows.append(_row(name, "baseline", leaves([_order_ranks(order, u) for u in gold.units])))
    return {"metric": "advancing teams: predicted top k equals the gold set; per-team advance/eliminate accuracy (higher is better)", **gold.effective_n(has), "rows": rows}

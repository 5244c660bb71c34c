"""The label-reliability report of a labelled dataset (CCDB paper 2.5 and Appendix B.1), JSON-ready.

:func:`reliability_from_matches` reads the gold labels of :class:`adjudicator.input.match.Match` objects
into the plain arrays of :mod:`adjudicator.evaluation.reliability` and returns the report's
``reliability`` section::

    {"source", "n_matches", "n_matches_with_panel", "panel_size",
     "winner":       {pairwise_agreement, unanimous_share, split_share,
                      equal_ability_judge_accuracy, equal_ability_panel_accuracy},
     "stage_scores": {icc_1_3, icc_1_3_paired_difference, judge_mse, judge_mse_pairwise,
                      band_all_same, band_two_same, band_all_different},
     "best_debater": {every_judge_voted_for_best, n_tied_top},
     "human_reference": {note, self_included: {...}, leave_one_out: {...}}}

Every leaf is ``{"value", "n", "n_excluded", "reason"}``; a statistic the dataset cannot support
(e.g. PanelBench has no judge panels) has ``value: None`` and a reason, never 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from adjudicator.evaluation.metrics import MetricResult
from adjudicator.evaluation.reliability import (
    best_debater_consensus,
    human_stage_references,
    human_vote_references,
    human_winner_references,
    icc_1k,
    judge_score_mse,
    score_band_agreement,
    winner_vote_agreement,
)

#: Leaf keys of each section; a section the dataset cannot support has every one not applicable.
WINNER_KEYS = ("pairwise_agreement", "unanimous_share", "split_share", "equal_ability_judge_accuracy", "equal_ability_panel_accuracy")
STAGE_KEYS = ("icc_1_3", "icc_1_3_paired_difference", "judge_mse", "judge_mse_pairwise", "band_all_same", "band_two_same", "band_all_different")
STAGE_REFERENCE_KEYS = ("stage_mse", "stage_pearson", "stage_spearman")
VOTE_REFERENCE_KEYS = ("best_debater_top1", "vote_share_mae")
SETTINGS = ("self_included", "leave_one_out")

Leaf = dict[str, Any]
#: One section's human references: setting (:data:`SETTINGS`) -> metric -> leaf.
References = dict[str, dict[str, Leaf]]


def _leaf(result: MetricResult | None, reason: str | None = None) -> Leaf:
    """``{"value", "n", "n_excluded", "reason"}``; an undefined or missing value is None with a reason."""
    if result is None:
        return {"value": None, "n": 0, "n_excluded": 0, "reason": reason or "not applicable"}
    d = result.as_dict()
    d["reason"] = None if result.defined else (reason or "undefined: too few items or zero variance")
    return d


def _na(reason: str) -> Leaf:
    return _leaf(None, reason)


def _na_references(keys: tuple[str, ...], reason: str) -> References:
    return {s: {k: _na(reason) for k in keys} for s in SETTINGS}


@dataclass
class PanelLabels:
    """The original panels' labels as plain arrays: ``votes`` per match the judges' winner votes
    (matches where every judge voted); ``scores`` (S, k) rows of a unit every judge scored;
    ``differences`` (P, k) affirmative - negative per judge of a stage every judge scored for both
    sides; ``vote_tables`` per match a (J, K) table where every judge cast a best-debater vote."""

    votes: list[list[Any]] = field(default_factory=list)
    scores: list[list[int]] = field(default_factory=list)
    differences: list[list[int]] = field(default_factory=list)
    vote_tables: list[np.ndarray] = field(default_factory=list)


def panel_labels(panels: list[Any]) -> PanelLabels:
    """The labels of ``panels`` (matches whose original panel has the report's size) as arrays."""
    out = PanelLabels(votes=[[j.winner for j in m.labels.judges] for m in panels if all(j.winner for j in m.labels.judges)])
    for m in panels:
        judges = m.labels.judges
        for sid, side in m.scored_units():
            key = f"{sid}|{side}"
            if all(key in j.stage_scores for j in judges):
                out.scores.append([j.stage_scores[key] for j in judges])
        for st in m.stages:
            ka, kn = f"{st.stage_id}|affirmative", f"{st.stage_id}|negative"
            if all(ka in j.stage_scores and kn in j.stage_scores for j in judges):
                out.differences.append([j.stage_scores[ka] - j.stage_scores[kn] for j in judges])
        labels = m.debater_labels()
        table = np.array([[j.best_debater_votes.get(lab, 0) for lab in labels] for j in judges], dtype=float)
        if table.size and np.all(table.sum(axis=1) > 0):
            out.vote_tables.append(table)
    return out


def winner_section(votes: list[list[Any]], no_panel: str | None) -> tuple[dict[str, Leaf], dict[str, Leaf]]:
    """(the ``winner`` section, the winner-accuracy references by setting). ``no_panel`` is the
    reason when the dataset has no panel of the right size, None when it has one."""
    if not votes:
        reason = no_panel or "the panels' judges have no winner votes"
        return {k: _na(reason) for k in WINNER_KEYS}, {s: _na(reason) for s in SETTINGS}
    wa = winner_vote_agreement(votes)
    n = wa.unanimous.n
    below = "undefined: pairwise agreement below 0.5"
    section = {
        "pairwise_agreement": _leaf(wa.pairwise),
        "unanimous_share": _leaf(wa.unanimous),
        "split_share": _leaf(wa.split),
        "equal_ability_judge_accuracy": _leaf(MetricResult(value=float(wa.equal_ability_judge_accuracy), n=n), below),
        "equal_ability_panel_accuracy": _leaf(MetricResult(value=float(wa.equal_ability_panel_accuracy), n=n), below),
    }
    wr = human_winner_references(votes)
    return section, {"self_included": _leaf(wr.self_included), "leave_one_out": _leaf(wr.leave_one_out)}


def stage_section(scores: list[list[int]], differences: list[list[int]], panel_size: int, no_panel: str | None) -> tuple[dict[str, Leaf], References]:
    """(the ``stage_scores`` section, the Task 2 references): ICC(1,3) of the scores and of the
    paired differences, the judges' MSE both ways, band agreement (3-judge panels only)."""
    if not scores:
        reason = no_panel or "no stage scored by every judge of a panel (labels.judges[].stage_scores)"
        return {k: _na(reason) for k in STAGE_KEYS}, _na_references(STAGE_REFERENCE_KEYS, reason)
    table = np.array(scores, dtype=float)
    bands = score_band_agreement(table) if panel_size == 3 else None
    no_band = "band agreement is defined for 3-judge panels"
    section = {
        "icc_1_3": _leaf(icc_1k(table)),
        "icc_1_3_paired_difference": _leaf(icc_1k(np.array(differences, dtype=float)), None)
        if differences
        else _na("no stage scored for both sides by every judge"),
        "judge_mse": _leaf(judge_score_mse(table)),
        "judge_mse_pairwise": _leaf(judge_score_mse(table, kind="pairwise")),
        "band_all_same": _leaf(bands.all_same) if bands else _na(no_band),
        "band_two_same": _leaf(bands.two_same) if bands else _na(no_band),
        "band_all_different": _leaf(bands.all_different) if bands else _na(no_band),
    }
    sr = human_stage_references(table)
    refs = {
        name: {"stage_mse": _leaf(ref.mse), "stage_pearson": _leaf(ref.pearson), "stage_spearman": _leaf(ref.spearman)}
        for name, ref in (("self_included", sr.self_included), ("leave_one_out", sr.leave_one_out))
    }
    return section, refs


def best_debater_section(vote_tables: list[np.ndarray], no_panel: str | None) -> tuple[dict[str, Any], References]:
    """(the ``best_debater`` section, the Task 3 references)."""
    if not vote_tables:
        reason = no_panel or "no match where every judge cast best-debater votes (labels.judges[].best_debater_votes)"
        return {"every_judge_voted_for_best": _na(reason), "n_tied_top": None}, _na_references(VOTE_REFERENCE_KEYS, reason)
    bc = best_debater_consensus(vote_tables)
    vr = human_vote_references(vote_tables)
    refs = {
        name: {"best_debater_top1": _leaf(ref.top1), "vote_share_mae": _leaf(ref.vote_share_mae)}
        for name, ref in (("self_included", vr.self_included), ("leave_one_out", vr.leave_one_out))
    }
    return {"every_judge_voted_for_best": _leaf(bc.share), "n_tied_top": bc.n_tied_top}, refs


def reliability_from_matches(matches: Iterable[Any], *, panel_size: int = 3) -> dict[str, Any]:
    """Label-reliability report of a labelled dataset (paper 2.5, Appendix B.1), JSON-ready.

    ``matches``: :class:`adjudicator.input.match.Match` objects. Only ``labels.judges`` (the original
    panel) is read; ``appeal_judges`` and ``outcome`` are ignored. A match contributes when its
    original panel has exactly ``panel_size`` judges (CCDB: 3); a stage unit when every judge scored
    it; a paired stage when every judge scored both sides; a best-debater table when every judge cast
    a vote. Every leaf is ``{"value", "n", "n_excluded", "reason"}``; a statistic the dataset cannot
    support (e.g. PanelBench has no judge panels) has ``value: None`` and a reason, never 0.
    """
    matches = list(matches)
    panels = [m for m in matches if m.labels is not None and len(m.labels.judges) == panel_size]
    report: dict[str, Any] = {
        "source": "gold labels of the original panels only (appeal panels ignored)",
        "n_matches": len(matches),
        "n_matches_with_panel": len(panels),
        "panel_size": panel_size,
    }
    labels = panel_labels(panels)
    no_panel = None if panels else f"no match has a {panel_size}-judge original panel (labels.judges); the dataset has match-level outcomes only"
    report["winner"], winner_ref = winner_section(labels.votes, no_panel)
    report["stage_scores"], stage_ref = stage_section(labels.scores, labels.differences, panel_size, no_panel)
    report["best_debater"], vote_ref = best_debater_section(labels.vote_tables, no_panel)
    report["human_reference"] = {
        "note": "non-comparable references, excluded from rankings (Appendix B.1)",
        **{s: {"winner_accuracy": winner_ref[s], **stage_ref[s], **vote_ref[s]} for s in SETTINGS},
    }
    return report


__all__ = ["PanelLabels", "panel_labels", "reliability_from_matches"]

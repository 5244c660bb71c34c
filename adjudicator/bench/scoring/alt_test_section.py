"""The ``alt_test`` section of report.json: could each arm replace one of the human judges?

For every model arm and every applicable task, :func:`adjudicator.evaluation.alt_test.alt_test` runs on
the matches whose labels carry at least :data:`MIN_PANEL` judges (the CCDB format's three-judge
panels), with the judges' own annotations as the humans and the arm's prediction as the alternative:

- Task 1, winner: instance = match; the judge's winner against the arm's winner from p, scored by
  ``accuracy``; an arm's p of exactly 0.5 is the answer "tie", which agrees with no judge (a constant
  p = 0.5 arm gets omega 0 and a small rho, as in the authors' code), a missing p is no answer.
- Task 2, stage scores: instance = scored unit; the judge's integer against the arm's panel-mean
  prediction, scored by ``neg_rmse``.
- Task 3, best debater: instance = match; the judge's vote shares against the arm's (each vote vector
  over the match's position labels divided by its total), scored by ``neg_rmse`` over judges and
  debaters.

A judge needs the authors' 30 instances (:data:`~adjudicator.evaluation.alt_test.MIN_INSTANCES`); a task
where no judge has them says "not enough instances", never pass or fail.

A task without per-judge labels (PanelBench's audience outcomes) is reported as not applicable, with
the reason. Baselines are not tested (they are not candidates for replacing a judge).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from adjudicator.bench.gold import Gold
from adjudicator.bench.predictions import ArmPredictions
from adjudicator.evaluation.alt_test import DEFAULT_ALPHA, DEFAULT_EPSILON, MIN_INSTANCES, accuracy, alt_test, neg_rmse
from adjudicator.evaluation.metrics import winner_from_p
from adjudicator.input.match import Match

#: Judges a match needs for the test to read it (a leave-one-out needs someone left).
MIN_PANEL = 3

TASK_TITLES = {"task1": "Task 1, winner", "task2": "Task 2, stage scores", "task3": "Task 3, best debater"}


def _shares(votes: dict[str, int] | np.ndarray | None, labels: list[str]) -> np.ndarray | None:
    if votes is None:
        return None
    v = np.array([float(votes.get(lab, 0)) for lab in labels]) if isinstance(votes, dict) else np.asarray(votes, dtype=float)
    return v / v.sum() if v.sum() > 0 else None


def human_annotations(matches: Sequence[Match]) -> dict[str, dict[str, dict[Any, Any]]]:
    """Task -> judge id -> instance -> annotation, over the matches with at least :data:`MIN_PANEL`
    judges (instances: match id for Tasks 1 and 3, ``(match id, stage id, side)`` for Task 2)."""
    out: dict[str, dict[str, dict[Any, Any]]] = {"task1": {}, "task2": {}, "task3": {}}
    for m in matches:
        judges = list(m.labels.judges) if m.labels else []
        if len(judges) < MIN_PANEL:
            continue
        labels = m.debater_labels()
        for j in judges:
            if j.winner in ("affirmative", "negative"):
                out["task1"].setdefault(j.judge_id, {})[m.match_id] = j.winner
            for sid, side in m.scored_units():
                score = j.stage_scores.get(f"{sid}|{side}")
                if score is not None:
                    out["task2"].setdefault(j.judge_id, {})[(m.match_id, sid, side)] = float(score)
            shares = _shares(j.best_debater_votes or None, labels)
            if shares is not None:
                out["task3"].setdefault(j.judge_id, {})[m.match_id] = shares
    return out


def arm_annotations(pr: ArmPredictions, gold: Gold) -> dict[str, dict[Any, Any]]:
    """Task -> instance -> the arm's annotation (the same instances as :func:`human_annotations`)."""
    t1 = {mid: winner_from_p(float(p)) or "tie" for mid, p in zip(gold.match_ids, pr.p) if np.isfinite(p)}
    t2 = {u: float(v) for u, v in zip(gold.units, pr.unit_pred) if np.isfinite(v)}
    t3 = {mid: _shares(v, labels) for mid, v, labels in zip(gold.match_ids, pr.votes, gold.debater_labels)}
    return {"task1": t1, "task2": t2, "task3": t3}


def alt_test_section(matches: Sequence[Match], gold: Gold, preds: dict[str, ArmPredictions], *, epsilon: float = DEFAULT_EPSILON, alpha: float = DEFAULT_ALPHA) -> dict[str, Any]:
    """``{"epsilon", "alpha", "min_instances", "applicable", "reason"?, "tasks": {task: {"title", "applicable", "reason"?,
    "arms": {arm: {label, omega, passed, rho, min_instances, scoring, verdict, judges: [...]}}}}}``."""
    humans = human_annotations(matches)
    panels = sum(1 for m in matches if m.labels and len(m.labels.judges) >= MIN_PANEL)
    out: dict[str, Any] = {"epsilon": epsilon, "alpha": alpha, "min_instances": MIN_INSTANCES, "matches_with_panel": panels, "tasks": {}}
    if panels == 0:
        out.update(applicable=False, reason=f"no match has a panel of {MIN_PANEL} or more judges with their own labels (labels.judges); e.g. PanelBench has audience outcomes only")
        return out
    out["applicable"] = True
    scoring = {"task1": accuracy, "task2": neg_rmse, "task3": neg_rmse}
    for task, title in TASK_TITLES.items():
        judges = {j: ann for j, ann in humans[task].items() if ann}
        if len(judges) < 2:
            out["tasks"][task] = {"title": title, "applicable": False, "reason": "fewer than two judges labelled this task"}
            continue
        arms = {}
        for arm, pr in preds.items():
            res = alt_test(judges, arm_annotations(pr, gold)[task], scoring[task], epsilon=epsilon, alpha=alpha)
            arms[arm] = {"label": pr.label, **res.model_dump(mode="json"), "verdict": res.verdict_text()}
        out["tasks"][task] = {"title": title, "applicable": True, "arms": arms}
    return out

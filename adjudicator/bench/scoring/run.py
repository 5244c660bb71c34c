"""Score every arm of a run against the gold labels: the ``tasks``, ``parsing``, ``failures``,
``calibration``, ``paired`` and ``arm_vs_baseline`` sections of report.json.

Nothing here defines a metric: every number comes from :mod:`adjudicator.evaluation.metrics` (the CCDB task
metrics), :mod:`adjudicator.evaluation.baselines` (structural baselines), :mod:`adjudicator.evaluation.uncertainty` (bootstrap
intervals, paired tests, calibration) and :mod:`adjudicator.evaluation.reliability` (label reliability). The
gold labels are aligned by :mod:`adjudicator.bench.gold`, each arm's predictions and parse modes by
:mod:`adjudicator.bench.predictions`, and each task is scored by its own module
(:mod:`~adjudicator.bench.scoring.winner`, :mod:`~adjudicator.bench.scoring.stage_scores`,
:mod:`~adjudicator.bench.scoring.best_debater`) (protocol 001 s.01-02; paper 2.3, 3, A.5, B.1):

- Common subset. Every metric is also computed on the instances that all model arms of the run
  parsed (one arm: the subset is that arm's parsed set).
- Not applicable. A task whose gold labels the dataset lacks (PanelBench has no stage scores and no
  best-debater votes) is reported as not applicable with the reason, never as 0.
- Baselines and references. Every table carries the task's structural baselines (seeded draws and
  their exact expectations) and, marked non-comparable and left out of rankings, the Task 3 oracle
  and the individual-judge references (Appendix B.1).
- Canonical order. The matches are scored in the order of their sample ids (:func:`canonical_order`),
  whatever order the caller gives them in (a dataset's file order, a pooled report's fold order), so
  the seeded bootstrap resamples and baseline draws, and with them every interval, depend on the
  predictions alone: one statistic has one interval wherever it is printed.
- Uncertainty. Every metric value carries a match-level percentile bootstrap 95% interval (seeded);
  arms are compared pairwise on the common subset with an exact McNemar test (winner accuracy) and
  paired bootstraps (the other metrics); p is checked for calibration (Brier score, ECE, reliability
  curve).
- Replacing a judge. The alternative annotator test (Calderon et al., ACL 2025) per arm and task on
  datasets with three-judge panels (:mod:`~adjudicator.bench.scoring.alt_test_section`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from adjudicator.bench.gold import Gold, gold_from_matches
from adjudicator.bench.predictions import ArmPredictions, parse_statistics, predictions_for_arm
from adjudicator.bench.results import SampleResult
from adjudicator.bench.scoring import best_debater, dimensions, pairwise, panelbench, ranking, stage_scores, winner
from adjudicator.bench.scoring.alt_test_section import alt_test_section
from adjudicator.bench.scoring.leaves import ScoreSettings
from adjudicator.input.match import Match


def canonical_order(matches: Sequence[Match]) -> list[Match]:
    """``matches`` in the order the scoring resamples them: by sample id (``match_id``, which a
    dataset's sample id is; :class:`adjudicator.bench.dataset.Sample`), ascending as Python compares
    strings."""
    return sorted(matches, key=lambda m: m.match_id)


def score_run(
    matches: Sequence[Match],
    arm_results: dict[str, dict[str, SampleResult]],
    arm_labels: dict[str, str],
    settings: ScoreSettings,
    reliability: dict[str, Any] | None = None,
    *,
    synthetic_labels: bool = False,
    probe_flips: set[str] | None = None,
) -> dict[str, Any]:
    """Score every arm of a run against the gold labels of ``matches``.

    ``arm_results`` arm -> match id -> result (absent = not run); ``arm_labels`` arm -> display name;
    ``reliability`` the label-reliability report (its ``human_reference`` gives the individual-judge
    rows); ``synthetic_labels`` True when the labels were written by developers (the individual-judge
    reference rows are then named "synthetic judge"); ``probe_flips`` the match ids a bench probe
    flipped (escalated in the ``selective`` section). Returns the ``tasks``, ``parsing``,
    ``failures``, ``paired`` and ``calibration`` sections of report.json (see report.py), plus the
    private ``_predictions`` and ``_gold`` for the plots. Baseline draws use ``settings.seed``. Rows
    of every table are sorted by rank (see :func:`adjudicator.bench.scoring.tables.rank`).

    Matches of a ranking format (BP) are scored apart (see :func:`_further_tasks`); the CCDB tasks
    see only the two-sided matches.

    Every section is computed over the matches in :func:`canonical_order`, and ``_gold`` and
    ``_predictions`` are aligned in that order, not in the order of ``matches``.
    """
    ordered = canonical_order(matches)
    ranked = [m for m in ordered if m.spec().verdict == "ranking"]
    matches = [m for m in ordered if m.spec().verdict != "ranking"]
    gold = gold_from_matches(matches)
    app = gold.applicability()
    arms = list(arm_results)
    preds = {a: predictions_for_arm(a, arm_labels.get(a, a), gold, matches, arm_results[a]) for a in arms}
    refs = reliability or {}
    tasks: dict[str, Any] = {
        "task1": winner.winner_table(gold, preds, settings, refs, synthetic_labels),
        "task2": stage_scores.stage_table(gold, preds, settings, refs, synthetic_labels),
        "task3": best_debater.best_debater_table(gold, preds, settings, refs, synthetic_labels),
    }
    tasks.update(_further_tasks(ranked, matches, preds, arm_results, arm_labels, settings))
    return {
        "tasks": tasks,
        "parsing": {a: parse_statistics(preds[a], arm_results[a]) for a in arms},
        "failures": [f for a in arms for f in preds[a].failures],
        "calibration": winner.calibration(gold, preds, settings),
        "paired": [paired_comparison(preds[a], preds[b], gold, app, settings) for a, b in combinations(arms, 2)],
        "arm_vs_baseline": winner.arm_vs_baselines(gold, preds, settings.seed),
        "alt_test": alt_test_section(matches, gold, preds),
        "selective": winner.selective(gold, preds, probe_flips),
        "_predictions": preds,
        "_gold": gold,
    }


def _further_tasks(
    ranked: list[Match],
    matches: list[Match],
    preds: dict[str, ArmPredictions],
    arm_results: dict[str, dict[str, SampleResult]],
    arm_labels: dict[str, str],
    settings: ScoreSettings,
) -> dict[str, Any]:
    """The ``tasks`` sections beyond CCDB's three, each present only when the run has what it scores.

    ``bp``: the ranking (BP) matches ``ranked``, by :mod:`~adjudicator.bench.scoring.ranking` (absent
    without a ranking match). ``pairwise``: a pairwise panel's figures
    (:mod:`~adjudicator.bench.scoring.pairwise`; absent when no arm ran one). ``dimensions``: the
    two-sided ``matches`` with per-dimension gold (``labels.dimensions``), by
    :mod:`~adjudicator.bench.scoring.dimensions`. ``panelbench``: PanelBench's own metrics (DebateArt
    RMSE x 100, BP best-team accuracy and pick rate per house, beside Debatrix's published table), by
    :mod:`~adjudicator.bench.scoring.panelbench` (absent without audience outcomes or advanced teams).
    """
    out: dict[str, Any] = {}
    if ranked:
        out["bp"] = ranking.ranking_tables(ranked, arm_results, arm_labels, settings)
    optional = {
        "pairwise": pairwise.pairwise_table(ranked + matches, arm_results, arm_labels),
        "dimensions": dimensions.dimension_tables(matches, arm_results, arm_labels, settings),
        "panelbench": panelbench.panelbench_tables(matches, ranked, preds, arm_results, arm_labels, settings),
    }
    out.update({name: table for name, table in optional.items() if table is not None})
    return out


def paired_comparison(a: ArmPredictions, b: ArmPredictions, gold: Gold, app: dict[str, str | None], st: ScoreSettings) -> dict[str, Any]:
    """Arm ``a`` versus arm ``b`` on their common subset: exact McNemar on winner accuracy, paired
    bootstrap differences (a - b) of every other applicable metric. ``app`` is
    :meth:`Gold.applicability` (a task with a reason is skipped)."""
    tests: dict[str, Any] = {}
    if app["task1"] is None:
        tests.update(winner.paired_tests(a, b, gold, st))
    if app["task2"] is None:
        tests.update(stage_scores.paired_tests(a, b, gold, st))
    if app["task3"] is None:
        tests.update(best_debater.paired_tests(a, b, gold, st))
    return {"a": a.arm, "b": b.arm, "label_a": a.label, "label_b": b.label, "tests": tests}

"""``report.json``: every number of a run with its effective sample size.

Layout (all metric leaves are ``{"value", "n", "n_excluded", "ci", "reason"?}``; ``value`` None with a
``reason`` when undefined or not applicable, never 0)::

    {"schema_version": 1,
     "warnings": [str],                                  # e.g. the SYNTHETIC-labels banner; [] when none
     "caveats":  [str],                                  # research-validity caveats (report.research_caveats)
     "run":      {run_id, name, created_at, state, reason, message, dataset (with "provenance": real/synthetic
                  counts, origins, PanelBench label conventions), arms, models, is_llm, seeds, git},
     "samples":  {"selected", "per_arm": {arm: {"ok", "failed", "not_run"}}},
     "ledger":   {"arms": {arm: {samples, requests, cache_hits, tokens, cost_usd, priced_requests,
                  unpriced_requests, ...}}, "total": {...}},
     "parsing":  {arm: {"task1"|"task2"|"task3": {instances, parsed, parse_rate, strict, recovered, native,
                        failed, not_run}, "calls": {...}}},
     "failures": [{arm, sample_id, status, error_type, error, cause, session, failed_nodes, result_file}],
                                                         # cause: the first underlying node failure
     "tasks":    {"task1"|"task2"|"task3": {title, applicable, reason, ranked_by: {metric, label,
                  higher_is_better, text}, n_..., rows: [...],
                  common_subset: {n..., arms, rows}}},
     "calibration": {arm: {brier, ece, curve}},
     "paired":   [{a, b, tests: {metric: {...}}}],       # arms against each other, common subset
     "arm_vs_baseline": [...],                           # exact McNemar against Task 1 baselines
     "selective": {arm: {label, curve: [{band, n, kept, coverage, accuracy}], review: {...} | null,
                  review_with_probes?: {...}}},     # adjudicator.evaluation.selective, escalation
     "alt_test": {epsilon, alpha, min_instances, matches_with_panel, applicable, reason?, tasks: {task: {title, applicable,
                  reason?, arms: {arm: {label, omega, passed, rho, min_instances, scoring, verdict, judges: [{judge, n, rho_f, rho_h,
                  t, p_value, p_adjusted, won, note}]}}}}},   # adjudicator.bench.scoring.alt_test_section
     "reliability": {...},                               # adjudicator.evaluation.reliability_report.reliability_from_matches
     "bias_card": {model, is_llm, probes, matches, accuracy, accuracy_n, repeats, temperature,
                   measures: [{probe, measure, value, ci_low, ci_high, n, reference, reference_kind}],
                   skipped: [{probe, match_id, reason}]},   # only after bench --probe (probes.json has the samples)
     "fold_fit": {fold, calibration_part, n_calibration, n_train, n_test, fit_file, note,
                  calibration: {arm: {label, raw, calibrated?, fit? | reason?}},
                  baselines: {task: {rows: [{predictor, kind, metrics}]} | {reason}},
                  calibration_ledger}}   # only for bench --fold (adjudicator.finetune.fold_fit)

A row is ``{"predictor", "kind": "arm"|"baseline"|"reference", "comparable", "rank", "metrics",
"expected"?, "seed"?, "note"?}``; references (the oracle, the Task 1 majority class, human judges)
have ``comparable: false`` and ``rank: null``. Rows are listed in rank order (equal values share a
rank), references last.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adjudicator.bench.layout import REPORT_JSON
from adjudicator.files import atomic_write_json

REPORT_SCHEMA = 1


def public(report: dict[str, Any]) -> dict[str, Any]:
    """The report without its private (``_``-prefixed) keys."""
    return {k: v for k, v in report.items() if not k.startswith("_")}


def write_report_json(run_dir: Path, report: dict[str, Any]) -> Path:
    """Write ``report.json`` atomically; returns its path."""
    path = run_dir / REPORT_JSON
    atomic_write_json(path, public(report))
    return path

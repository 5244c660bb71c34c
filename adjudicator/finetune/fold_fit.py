"""``bench --fold K``: what is fitted on the other folds and applied to fold K (protocol 001 s.03:
"any data-dependent baseline or calibration must be fitted on the training portion of each fold
only"). The ``fold_fit`` section of report.json/md/html and the run folder's ``fit.json``.

- Calibration of p (:mod:`adjudicator.finetune.calibration`, Platt scaling): fitted per arm on the
  arm's own p over the run's *calibration part* -- matches of the training portion that the run
  also ran (the manifest's ``fold.calibration``: every other fold's match by default, or only the
  validation part of a fine-tuning export, whose model never trained on it; see
  :func:`adjudicator.bench.splits.choose_fold`) -- against their gold winners, then applied to
  the arm's p on fold K. Raw and calibrated winner accuracy, Brier score and ECE are reported side
  by side on the same test matches.
- Data-dependent baselines (:mod:`adjudicator.finetune.baselines`): fitted on the labels of the
  whole training portion, applied to fold K, each in a table beside the arms' raw values.

What reaches a fit is named in ``fit.json`` (``fitted_on``: match ids); the test part's labels are
read only to score. The calibration part's own results are never scored here or in the main
tables; its spend is shown as its own ledger.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from adjudicator.finetune import baselines as FB
from adjudicator.finetune.calibration import METHOD, PlattFit, fit_platt

FIT_JSON = "fit.json"
NOTE = (
    "Fitted on the other folds only (protocol 001 s.03): the calibration of p on each arm's own p over the run's calibration part, "
    "the baselines on the labels of the whole training portion; both applied to this fold's test matches. "
    "Platt scaling (two parameters on logit p) rather than isotonic regression, which overfits a few dozen matches."
)


def _samples_by_name(run_dir: Path, manifest: Any) -> dict[str, Any]:
    """File name -> sample of the run's whole dataset (its ``dataset/`` copy or recorded folder)."""
    from adjudicator.bench.dataset import load_folder
    from adjudicator.bench.layout import DATASET

    folder = run_dir / DATASET if (run_dir / DATASET).is_dir() else Path(manifest.dataset["folder"])
    return {s.path.name: s for s in load_folder(folder, kind=manifest.dataset.get("kind", "match-folder")).samples}


def fit_calibrations(arms: Sequence[str], labels: dict[str, str], calib: Sequence[Any], results: dict[str, dict[str, Any]]) -> dict[str, PlattFit | str]:
    """arm -> Platt fit (or the reason there is none) on the calibration samples ``calib`` and their
    results (arm -> match id -> SampleResult). Reads only these samples' labels."""
    from adjudicator.bench.gold import gold_from_matches
    from adjudicator.bench.predictions import predictions_for_arm

    matches = [s.match for s in calib]
    two_sided = [m for m in matches if m.spec().verdict != "ranking"]
    if not two_sided:
        return {a: "not fitted: the run has no calibration part (--calibrate-on none, or no two-sided match in it)" for a in arms}
    gold = gold_from_matches(two_sided)
    return {a: fit_platt(predictions_for_arm(a, labels.get(a, a), gold, two_sided, results.get(a, {})).p, gold.winners) for a in arms}


def calibration_leaves(p: np.ndarray, gold: Any, st: Any) -> dict[str, Any]:
    """Winner accuracy, Brier score (each a report leaf with its interval) and ECE (10 bins) of
    tendencies ``p`` (M,) against ``gold``'s winners."""
    from adjudicator.bench.scoring.leaves import scored, take
    from adjudicator.bench.scoring.winner import task1_metrics
    from adjudicator.evaluation import uncertainty as S

    d = gold.decisive
    return {
        "winner_accuracy": task1_metrics(p, gold, np.ones(len(p), bool), st)["winner_accuracy"],
        "brier": scored(S.brier_score, [p[d], take(gold.winners, d)], None, st),
        "ece": S.expected_calibration_error(p, gold.winners, 10).as_dict(),
    }


def _calibration_rows(fits: dict[str, PlattFit | str], preds: dict[str, Any], gold: Any, st: Any) -> dict[str, Any]:
    """arm -> ``{"label", "fit" | "reason", "raw", "calibrated"}`` on the test matches."""
    out: dict[str, Any] = {}
    for a, fit in fits.items():
        pr = preds.get(a)
        if pr is None:
            continue
        row: dict[str, Any] = {"label": pr.label, "raw": calibration_leaves(pr.p, gold, st)}
        if isinstance(fit, str):
            row["reason"] = fit
        else:
            row["fit"] = fit.model_dump()
            row["calibrated"] = calibration_leaves(fit.apply(pr.p), gold, st)
        out[a] = row
    return out


def _pairs(gold: Any, unit_pred: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit scores (S,) as (affirmative, negative) scores of the gold's paired stages (P,)."""
    at = {u: i for i, u in enumerate(gold.units)}
    aff = [unit_pred[at[(m, s, "affirmative")]] for m, s in gold.pairs]
    neg = [unit_pred[at[(m, s, "negative")]] for m, s in gold.pairs]
    return np.array(aff, dtype=float), np.array(neg, dtype=float)


def baseline_tables(base: dict[str, Any], preds: dict[str, Any], gold: Any, st: Any) -> dict[str, Any]:
    """task -> ``{"rows": [{"predictor", "kind", "metrics"}], "reason"?}``: each arm's raw values and
    the train-fitted baselines' predictions ``base`` (:func:`adjudicator.finetune.baselines.predict`)
    on the test matches of ``gold``; a task without gold labels gets its reason."""
    from adjudicator.bench.scoring.best_debater import task3_metrics
    from adjudicator.bench.scoring.stage_scores import task2_metrics
    from adjudicator.bench.scoring.winner import task1_metrics

    app = gold.applicability()
    every_m = np.ones(len(gold.match_ids), bool)
    every_u = np.ones(len(gold.units), bool)
    every_p = np.ones(len(gold.pairs), bool)
    scorers = {
        "task1": lambda p, units, votes: task1_metrics(p, gold, every_m, st),
        "task2": lambda p, units, votes: task2_metrics(units, *_pairs(gold, units), gold, every_u, every_p, st),
        "task3": lambda p, units, votes: task3_metrics(votes, gold, every_m, st),
    }
    out: dict[str, Any] = {}
    for task, score in scorers.items():
        if app[task] is not None:
            out[task] = {"reason": f"not applicable: {app[task]}", "rows": []}
            continue
        rows = [{"predictor": pr.label, "kind": "arm", "metrics": score(pr.p, pr.unit_pred, pr.votes)} for pr in preds.values()]
        rows.append({"predictor": f"{FB.NAMES[task]} (fitted on the training folds)", "kind": "baseline", "metrics": score(base["p"], base["unit_pred"], base["votes"])})
        out[task] = {"rows": rows}
    return out


def fold_samples(run_dir: Path, manifest: Any) -> tuple[list[Any], list[Any]]:
    """(training portion, calibration part) of a ``--fold`` run as samples of its dataset, in
    file-name order (ranking-format matches left out of the training portion)."""
    fold = manifest.fold or {}
    by_name = _samples_by_name(run_dir, manifest)
    train = [by_name[n] for n in fold.get("train") or [] if n in by_name and by_name[n].match.spec().verdict != "ranking"]
    return train, [by_name[n] for n in fold.get("calibration") or [] if n in by_name]


def fold_fit_section(run_dir: Path, manifest: Any, matches: Sequence[Any], preds: dict[str, Any], gold: Any, settings: Any,
                     calib_results: dict[str, dict[str, Any]], calib_ledger: dict[str, Any]) -> dict[str, Any] | None:
    """The ``fold_fit`` section of a ``--fold`` run's report (None for another run), after writing
    ``fit.json``: the fits (calibration per arm, baselines) from the training portion
    (:func:`fold_samples`; ``calib_results`` the calibration part's results, arm -> match id ->
    result, and ``calib_ledger`` their ledger), applied to the test ``matches`` (two-sided; ``gold`` and
    ``preds`` align them in the scoring's order, their ``gold.match_ids``, which may differ from the
    order of ``matches``)."""
    from adjudicator.files import atomic_write_json

    fold = manifest.fold
    if not fold:
        return None
    train, calib = fold_samples(run_dir, manifest)
    arms = list(manifest.arms)
    fits = fit_calibrations(arms, {a: preds[a].label for a in preds}, calib, calib_results)
    base = FB.fit_baselines([s.match for s in train])
    record = {
        "fold": fold["fold"],
        "calibration_part": fold.get("calibration_part", "none"),
        "calibration": {"method": METHOD, "fitted_on": [s.sample_id for s in calib], "arms": {a: (f if isinstance(f, str) else f.model_dump()) for a, f in fits.items()}},
        "baselines": {"fitted_on": [s.sample_id for s in train], **base.model_dump()},
        "test": [m.match_id for m in matches],
    }
    atomic_write_json(run_dir / FIT_JSON, record)
    by_id = {m.match_id: m for m in matches}
    in_gold_order = [by_id[mid] for mid in gold.match_ids]  # the scoring's canonical order (bench.scoring.run.canonical_order)
    return {
        "fold": fold["fold"],
        "calibration_part": record["calibration_part"],
        "n_calibration": len(calib),
        "n_train": len(train),
        "n_test": len(matches),
        "fit_file": FIT_JSON,
        "note": NOTE,
        "calibration": _calibration_rows(fits, preds, gold, settings),
        "baselines": baseline_tables(FB.predict(base, in_gold_order), preds, gold, settings),
        "calibration_ledger": calib_ledger,
    }

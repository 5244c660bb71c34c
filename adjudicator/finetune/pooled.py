"""``adjudicate finetune report RUNS...``: the folds of a cross-validation pooled into one result,
as the protocol reports a fine-tuned model (protocol 001 s.02-03).

Each run is a ``bench --fold K`` run (for a fine-tuned model, the model fine-tuned on the other
folds). Pooling concatenates the runs' test parts -- every match of the dataset exactly once, each
predicted by the run whose model never trained on it -- and scores them as one set with the bench's
own scoring (:func:`adjudicator.bench.scoring.run.score_run`): the task tables with their
structural baselines and intervals, and the parse statistics the protocol asks for (strict JSON
success, recovered extraction, effective n). Beside them: each arm's calibrated p (each fold's
fit applied to its own test part, then pooled) against its raw p, and the data-dependent
baselines (each fold's fit on its own training portion, applied to its test part, then pooled),
and a per-fold table. The pooled matches are scored in the bench's canonical order (by sample id), so
a statistic of the pooled predictions has the interval a bench report of the same predictions prints.

Refused (InputError, exit 2) unless the runs are fold runs of one dataset (same hash) with the same
number of folds and the same arms, of one fold assignment (the same ``assignment_sha256`` where the
runs record one), one run per fold, every fold present, their test parts disjoint.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from adjudicator.errors import InputError

NOTE = (
    "Pooled over the folds: each match is predicted once, by the run of the fold it is a test match in, and all folds are scored as one set; "
    "calibration and data-dependent baselines are each fold's own, fitted on its training portion only"
)


def _check_runs(runs: Sequence[tuple[Path, Any]]) -> None:
    """The refusals of the module docstring."""
    first = runs[0][1]
    for d, m in runs:
        if not m.fold:
            raise InputError(f"{d}: not a fold run (started without --fold)", "give the runs of bench --fold 0, --fold 1, ... on one dataset")
        if m.dataset.get("sha256") != first.dataset.get("sha256"):
            raise InputError(f"{d}: was run on another dataset than {runs[0][0]} (the dataset hash differs)", "pool the folds of one dataset")
        if m.fold["folds"] != first.fold["folds"] or m.arms != first.arms:
            raise InputError(f"{d}: its folds or arms differ from {runs[0][0]} ({m.fold['folds']} folds, arms {m.arms})", "pool runs of the same splits and arms")
        digest, first_digest = m.fold.get("assignment_sha256"), first.fold.get("assignment_sha256")
        if digest and first_digest and digest != first_digest:
            raise InputError(f"{d}: its fold assignment differs from {runs[0][0]}'s (assignment sha256 {digest[:12]} vs {first_digest[:12]}), so one run's test matches may be another's training matches",
                             "run every fold with the same --splits file (the splits.json of the finetune export the models were trained on)")
        if sorted(m.fold["test"] + m.fold["train"]) != sorted(first.fold["test"] + first.fold["train"]):
            raise InputError(f"{d}: its folds cover other matches than {runs[0][0]}'s", "pool runs of the same splits")
    got = sorted(m.fold["fold"] for _, m in runs)
    want = list(range(first.fold["folds"]))
    if got != want:
        dup = sorted({k for k in got if got.count(k) > 1})
        what = f"fold {dup[0]} is given twice" if dup else f"fold(s) {sorted(set(want) - set(got))} missing"
        raise InputError(f"finetune report: {what} (got folds {got} of {first.fold['folds']})", "give exactly one run per fold")
    seen: set[str] = set()
    for d, m in runs:
        both = seen & set(m.fold["test"])
        if both:
            raise InputError(f"{d}: test match {sorted(both)[0]} is also a test match of another run", "pool runs of the same splits")
        seen |= set(m.fold["test"])


def _fold_parts(run_dir: Path, manifest: Any) -> dict[str, Any]:
    """One run's test samples and results, calibration fits and baseline fit."""
    from adjudicator.bench.report import arm_label, load_results, run_samples
    from adjudicator.finetune import baselines as FB
    from adjudicator.finetune.fold_fit import fit_calibrations, fold_samples

    arms = list(manifest.arms)
    test = [s for s in run_samples(run_dir, manifest.limit) if s.match.spec().verdict != "ranking"]
    train, calib = fold_samples(run_dir, manifest)
    labels = {a: arm_label(a, manifest.models.get(a, {}), str(manifest.config.get("panel") or "scoring")) for a in arms}
    return {
        "run_dir": run_dir, "manifest": manifest, "labels": labels, "test": test, "results": load_results(run_dir, arms, test),
        "fits": fit_calibrations(arms, labels, calib, load_results(run_dir, arms, calib)), "baseline": FB.fit_baselines([s.match for s in train]),
    }  # fmt: skip


def _canonical_positions(fold_golds: Sequence[Any], gold: Any) -> tuple[np.ndarray, np.ndarray]:
    """Where each match (M,) and gold unit (S,) of the pooled ``gold`` -- in the scoring's canonical
    order, :func:`adjudicator.bench.scoring.run.canonical_order` -- sits in the folds' values
    concatenated fold by fold (``fold_golds`` each fold's test gold, in fold order): index arrays that
    put the folds' raw and calibrated p and baseline predictions in the order the pooled gold has."""
    match_at = {mid: k for k, mid in enumerate(mid for g in fold_golds for mid in g.match_ids)}
    unit_at = {u: k for k, u in enumerate(u for g in fold_golds for u in g.units)}
    return np.array([match_at[m] for m in gold.match_ids], dtype=int), np.array([unit_at[u] for u in gold.units], dtype=int)


def pool_runs(run_dirs: Sequence[Path], settings: Any) -> dict[str, Any]:
    """The pooled report of the fold runs ``run_dirs`` (module docstring) as a JSON-ready dict:
    ``runs``, ``per_fold``, ``parsing``, ``tasks``, ``calibration``, ``baselines``, ``note``."""
    from adjudicator.bench.gold import gold_from_matches
    from adjudicator.bench.manifest import read_manifest
    from adjudicator.bench.predictions import predictions_for_arm
    from adjudicator.bench.scoring.run import canonical_order, score_run
    from adjudicator.finetune import baselines as FB
    from adjudicator.finetune.fold_fit import baseline_tables, calibration_leaves

    runs = [(Path(d), read_manifest(Path(d))) for d in run_dirs]
    if not runs:
        raise InputError("RUNS: missing", "give the run folders (or names) of bench --fold 0, --fold 1, ...")
    _check_runs(runs)
    parts = sorted((_fold_parts(d, m) for d, m in runs), key=lambda x: x["manifest"].fold["fold"])
    arms = list(parts[0]["manifest"].arms)
    labels = {a: " | ".join(dict.fromkeys(x["labels"][a] for x in parts)) for a in arms}
    matches = [s.match for x in parts for s in x["test"]]
    results = {a: {k: v for x in parts for k, v in x["results"][a].items()} for a in arms}
    scores = score_run(matches, results, labels, settings)
    gold, preds = scores["_gold"], scores["_predictions"]
    raw_p: dict[str, list[np.ndarray]] = {a: [] for a in arms}
    cal_p: dict[str, list[np.ndarray]] = {a: [] for a in arms}
    base_parts: list[dict[str, Any]] = []
    per_fold = []
    fold_golds = []
    for x in parts:
        ms = canonical_order([s.match for s in x["test"]])  # as the fold's own report scores them
        g = gold_from_matches(ms)
        fold_golds.append(g)
        row: dict[str, Any] = {"fold": x["manifest"].fold["fold"], "run_id": x["manifest"].run_id, "n_test": len(ms), "arms": {}}
        for a in arms:
            p = predictions_for_arm(a, x["labels"][a], g, ms, x["results"][a]).p
            fit = x["fits"][a]
            cp = np.full(len(p), np.nan) if isinstance(fit, str) else fit.apply(p)
            raw_p[a].append(p)
            cal_p[a].append(cp)
            row["arms"][a] = {"label": x["labels"][a], "raw": calibration_leaves(p, g, settings), "calibrated": None if isinstance(fit, str) else calibration_leaves(cp, g, settings),
                              "fit": fit if isinstance(fit, str) else fit.model_dump()}
        base_parts.append(FB.predict(x["baseline"], ms))
        per_fold.append(row)
    at, unit_at = _canonical_positions(fold_golds, gold)
    calibration = {a: {"label": labels[a], "raw": calibration_leaves(np.concatenate(raw_p[a])[at], gold, settings),
                       "calibrated": calibration_leaves(np.concatenate(cal_p[a])[at], gold, settings)} for a in arms}  # fmt: skip
    votes = [v for b in base_parts for v in b["votes"]]
    base = {"p": np.concatenate([b["p"] for b in base_parts])[at], "unit_pred": np.concatenate([b["unit_pred"] for b in base_parts])[unit_at], "votes": [votes[k] for k in at]}
    return {
        "note": NOTE,
        "runs": [{"fold": x["manifest"].fold["fold"], "run_id": x["manifest"].run_id, "run_dir": str(x["run_dir"]), "models": x["manifest"].models,
                  "calibration_part": x["manifest"].fold.get("calibration_part", "none")} for x in parts],
        "n_matches": len(matches),
        "per_fold": per_fold,
        "parsing": scores["parsing"],
        "tasks": scores["tasks"],
        "calibration": calibration,
        "baselines": baseline_tables(base, preds, gold, settings),
    }

"""The folds of an export: each fold's test, validation and train parts (protocol 001 s.03).

The folds are those of ``adjudicate splits`` (:func:`adjudicator.bench.splits.make_splits`: grouped
by motion, balanced by format, team overlap minimised then reported), computed with its defaults
or read from the folds file it wrote (``--splits``), always over every match of the dataset: the
export writes files for its two-sided matches only, but a BP round keeps the fold ``adjudicate
splits`` and ``bench --fold`` give it, so there is one fold assignment per dataset. Fold K's test part is fold K; its training
portion is every other fold. A validation part is held out of the training portion (for early
stopping, and for fitting a calibration on predictions the fine-tuning never saw), chosen the way
the folds are: the training portion's matches are split again by :func:`make_splits` into
``round(1 / share)`` groups by motion (at least 2, at most as many as it has motions) and the first
group is the validation part. ``share`` 0 (or a training portion of one motion) gives no validation
part.

The plan is written beside the files as ``splits.json``: the folds file of ``adjudicate splits``
(so ``bench --fold K --splits OUT/splits.json`` evaluates on exactly these folds, every match of the
dataset included; with its dataset and ``assignment_sha256``) with a
``validation`` entry, fold -> validation match ids, that ``bench`` reads as the calibration part of
a fine-tuned model's run.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from adjudicator.bench.splits import DEFAULT_FOLDS, DEFAULT_SPLIT_SEED, make_splits, motion_key, read_splits, with_dataset
from adjudicator.errors import InputError
from adjudicator.input.match import Match

DEFAULT_VALIDATION_SHARE = 0.2
PARTS = ("train", "validation", "test")


def validation_part(train: Sequence[Match], share: float, seed: int) -> list[str]:
    """The match ids of the validation part held out of a fold's training portion ``train``
    (module docstring); [] for ``share`` 0 or a training portion with fewer than two motions."""
    if share <= 0:
        return []
    motions = {motion_key(m.motion) for m in train}
    groups = min(len(motions), max(2, round(1.0 / share)))
    if groups < 2:
        return []
    return list(make_splits(train, folds=groups, seed=seed)["folds"][0]["match_ids"])


def fold_plan(matches: Sequence[Match], dataset_sha256: str, *, splits_file: Path | None = None, folds: int = DEFAULT_FOLDS, seed: int = DEFAULT_SPLIT_SEED,
              validation_share: float = DEFAULT_VALIDATION_SHARE) -> dict[str, Any]:
    """The export's folds over ``matches``, every match of the dataset: the splits (of
    ``splits_file``, which must assign every one of them, else :func:`make_splits` with ``folds``
    and ``seed``) with, per fold, ``{"fold", "test", "validation", "train"}`` (match ids, in
    dataset order; the test part is the matches the fold lists, so a file listing a match under
    two folds or none is caught by :func:`adjudicator.finetune.checks.check_partition`). Raises
    InputError for a splits file of another dataset and a share outside [0, 0.5]."""
    if not 0.0 <= validation_share <= 0.5:
        raise InputError(f"--validation-share: must be from 0 to 0.5, got {validation_share}", "0.2 holds a fifth of each fold's training portion out for validation; 0 for none")
    if splits_file is not None:
        splits = read_splits(splits_file, dataset_sha256, [m.match_id for m in matches])
    else:
        splits = make_splits(matches, folds=folds, seed=seed)
    assignment: dict[str, int] = {str(k): int(v) for k, v in splits["assignment"].items()}
    listed = [set(f.get("match_ids") or []) for f in splits["folds"]]
    plan = []
    for k, ids in enumerate(listed):
        test = [m.match_id for m in matches if m.match_id in ids]
        portion = [m for m in matches if m.match_id not in ids]
        val = set(validation_part(portion, validation_share, seed))
        plan.append({
            "fold": k,
            "test": test,
            "validation": [m.match_id for m in portion if m.match_id in val],
            "train": [m.match_id for m in portion if m.match_id not in val],
        })
    return {"splits": splits, "assignment": assignment, "folds": plan, "validation": {"share": validation_share, "seed": seed}}


def part_of(plan: dict[str, Any]) -> dict[int, dict[str, str]]:
    """fold -> match id -> its part (``train``, ``validation`` or ``test``) in that fold."""
    return {f["fold"]: {mid: part for part in PARTS for mid in f[part]} for f in plan["folds"]}


def splits_file_data(plan: dict[str, Any], dataset: dict[str, Any]) -> dict[str, Any]:
    """``splits.json`` of an export: the folds file (``adjudicate splits`` format, its ``dataset``
    entry ``{"source", "sha256"}`` and its ``assignment_sha256``) with ``validation`` ``{"share", "seed", "folds": {K: [ids]}}``."""
    splits = with_dataset({k: v for k, v in plan["splits"].items() if k not in ("dataset", "validation", "assignment_sha256")}, dataset["source"], dataset["sha256"])
    return {**splits, "validation": {**plan["validation"], "folds": {str(f["fold"]): f["validation"] for f in plan["folds"]}}}


def check_runs_against_export(export_dir: Path, run_dirs: Sequence[Path]) -> str:
    """``finetune report --export DIR``: refuse (InputError) a run in ``run_dirs`` that is not a
    fold run of the assignment the export at ``export_dir`` trained on -- another dataset, no
    ``assignment_sha256`` recorded (a run made before the digest), or another digest -- since its
    test matches could be the training matches of the model it ran. Returns the digest."""
    from adjudicator.bench.manifest import read_manifest
    from adjudicator.files import read_json

    try:
        export = read_json(export_dir / "manifest.json")
        digest, dataset = export["splits"]["assignment_sha256"], export["dataset"]["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        raise InputError(f"--export: {export_dir} is not a finetune export with a fold assignment digest (manifest.json: splits.assignment_sha256)", "give the folder adjudicate finetune export wrote") from None
    for d in run_dirs:
        m = read_manifest(d)
        got = (m.fold or {}).get("assignment_sha256")
        if m.dataset.get("sha256") != dataset:
            raise InputError(f"--export: run {d} was run on another dataset than the export's (the dataset hash differs)", "pool the runs of the export's dataset")
        if got != digest:
            what = f"assignment sha256 {got[:12]}" if got else "no fold assignment digest"
            raise InputError(f"--export: run {d} has {what}, not the export's {digest[:12]}: its test matches may be the training matches of the model it ran",
                             f"run bench --fold K --splits {export_dir / 'splits.json'} for every fold")
    return str(digest)

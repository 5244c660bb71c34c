"""Recommended fine-tuning folds (paper Appendix A.5; protocol 001 s.03).

Rules: the complete match is the smallest unit (all of a match's stages and labels stay in one fold,
so Task 2 never splits a match's preceding context across folds); all matches sharing a motion go to
the same fold; folds are balanced by format (and, as far as possible, in size); team overlap across
folds is checked and reported.

Algorithm (deterministic for a given seed):

1. Group matches by motion (whitespace- and case-normalised motion text).
2. Order the groups by size, largest first (ties broken by a seeded shuffle).
3. Assign each group to the fold that minimises, in order: the resulting maximum per-format count
   over folds (format balance), the resulting fold size, and then the number of the group's teams
   already in *other* folds (team overlap); remaining ties go to the lowest fold index.

A *team* is the set of debater names of one side (a single name in one-on-one debates); sides
without names have no team. The report lists every team that appears in more than one fold.

``bench --fold K`` runs fold K of these folds (:func:`choose_fold`: those of a ``--splits`` file, or
computed with the defaults of ``adjudicate splits``): its matches are the run's test part, the other
folds' its train part, both listed by file name in the manifest's ``fold`` entry, which
:func:`in_fold` reads back to select the run's samples. The entry's ``calibration`` lists the
matches of the train part the run also runs (never scores) so that a calibration of p can be fitted
on the other folds only (:mod:`adjudicator.finetune.fold_fit`; ``--calibrate-on``): every train
match, the validation part of a ``finetune export``'s ``splits.json``, or none.

One fold assignment per dataset (issue 42): the folds are always made over every match of the
dataset, whatever its format, so ``adjudicate splits``, ``finetune export`` (which writes training
files for the two-sided matches only and says which it left out, and why) and ``bench --fold K``
give each match the same fold for the same ``--folds`` and ``--seed``. A folds file records the
dataset (source and hash) and ``assignment_sha256`` (:func:`assignment_digest`: the SHA-256 of the
dataset hash and the sorted assignment); a ``--fold`` run's manifest records the digest of the
assignment it used, and ``finetune report`` pools only runs of one digest. :func:`read_splits`
refuses a file of another dataset, one whose assignment does not hash to its recorded digest
(changed after it was written) and one that leaves a match of the dataset without a fold or assigns
one it does not hold (``finetune export`` also checks that the fold lists agree with the
assignment: :func:`adjudicator.finetune.checks.check_partition`).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adjudicator.errors import InputError
from adjudicator.input.match import Match

if TYPE_CHECKING:
    from adjudicator.bench.dataset import Sample


def motion_key(motion: str) -> str:
    """The grouping key of a motion: lower-case, whitespace collapsed."""
    return " ".join(motion.lower().split())


def teams_of(match: Match) -> list[str]:
    """The match's teams: per side, the sorted debater names joined with ``" + "`` (sides with no
    named debater are skipped)."""
    out = []
    for side in ("affirmative", "negative"):
        names = sorted(d.name.strip() for d in match.debaters if d.side == side and d.name and d.name.strip())
        if names:
            out.append(" + ".join(names))
    return out


def _best_fold(ms: list[Match], fold_formats: list[Counter[str]], fold_size: list[int], fold_teams: list[set[str]]) -> int:
    """The fold for one motion group ``ms``: least resulting maximum per-format count, then least
    resulting size, then least team overlap with the other folds, then the lowest index."""
    folds = len(fold_size)
    fmt: Counter[str] = Counter(m.format for m in ms)
    teams = {t for m in ms for t in teams_of(m)}
    candidates = []
    for f in range(folds):
        trial = [fold_formats[i] + (fmt if i == f else Counter()) for i in range(folds)]
        balance = max(max(c.get(x, 0) for c in trial) for x in fmt)
        size = fold_size[f] + len(ms)
        overlap = sum(1 for t in teams for i in range(folds) if i != f and t in fold_teams[i])
        candidates.append((balance, size, overlap, f))
    return min(candidates)[3]


def _assign(groups: list[list[Match]], folds: int) -> tuple[dict[str, int], list[Counter[str]]]:
    """Assign the motion ``groups`` (in this order) to folds; returns match id -> fold and the
    per-fold format counts."""
    fold_formats: list[Counter[str]] = [Counter() for _ in range(folds)]
    fold_size = [0] * folds
    fold_teams: list[set[str]] = [set() for _ in range(folds)]
    assignment: dict[str, int] = {}
    for ms in groups:
        f = _best_fold(ms, fold_formats, fold_size, fold_teams)
        fmt: Counter[str] = Counter(m.format for m in ms)
        fold_formats[f] += fmt
        fold_size[f] += len(ms)
        fold_teams[f] |= {t for m in ms for t in teams_of(m)}
        for m in ms:
            assignment[m.match_id] = f
    return assignment, fold_formats


def team_overlap(matches: Sequence[Match], assignment: dict[str, int]) -> dict[str, Any]:
    """``{"n_teams", "n_overlapping", "teams_in_several_folds": [{"team", "folds", "matches"}]}``:
    the teams (:func:`teams_of`) whose matches lie in more than one fold."""
    team_folds: dict[str, set[int]] = defaultdict(set)
    team_matches: dict[str, list[str]] = defaultdict(list)
    for m in matches:
        for t in teams_of(m):
            team_folds[t].add(assignment[m.match_id])
            team_matches[t].append(m.match_id)
    overlapping = [
        {"team": t, "folds": sorted(fs), "matches": sorted(team_matches[t])} for t, fs in sorted(team_folds.items()) if len(fs) > 1
    ]
    return {"n_teams": len(team_folds), "n_overlapping": len(overlapping), "teams_in_several_folds": overlapping}


def make_splits(matches: Sequence[Match], *, folds: int = 3, seed: int = 0) -> dict[str, Any]:
    """Assign ``matches`` to ``folds`` folds (module docstring). Returns a JSON-ready dict::

        {"folds": [{"fold": 0, "match_ids": [...], "motions": n, "formats": {fmt: n}}, ...],
         "assignment": {match_id: fold}, "rule": "...", "seed": seed,
         "team_overlap": {"teams_in_several_folds": [{"team", "folds", "matches"}], "n_teams": N,
                          "n_overlapping": k}}

    Raises InputError for fewer than ``folds`` motions or folds < 2."""
    if folds < 2:
        raise InputError(f"--folds: need at least 2 folds, got {folds}")
    groups: dict[str, list[Match]] = defaultdict(list)
    for m in matches:
        groups[motion_key(m.motion)].append(m)
    if len(groups) < folds:
        raise InputError(f"the dataset has {len(groups)} distinct motion(s); {folds} folds grouped by motion need at least {folds}")
    keys = list(groups)
    random.Random(seed).shuffle(keys)
    keys.sort(key=lambda k: -len(groups[k]))  # stable: the shuffle breaks size ties

    assignment, fold_formats = _assign([groups[k] for k in keys], folds)
    overlap = team_overlap(matches, assignment)
    out_folds = []
    for f in range(folds):
        ids = sorted(mid for mid, ff in assignment.items() if ff == f)
        motions = {motion_key(m.motion) for m in matches if assignment[m.match_id] == f}
        out_folds.append({"fold": f, "n_matches": len(ids), "motions": len(motions), "formats": dict(sorted(fold_formats[f].items())), "match_ids": ids})
    return {
        "rule": "grouped by motion (a match never splits), balanced by format then size, team overlap minimised then reported (CCDB A.5)",
        "seed": seed,
        "n_matches": len(matches),
        "n_motions": len(groups),
        "folds": out_folds,
        "assignment": dict(sorted(assignment.items())),
        "team_overlap": overlap,
    }


# ---------------------------------------------------------------------------------------------
# one fold as a benchmark run's selection (bench --fold K)

#: The folds ``bench --fold K`` picks from when no ``--splits`` file is given: those of
#: ``adjudicate splits DATASET`` with its defaults.
DEFAULT_FOLDS = 3
DEFAULT_SPLIT_SEED = 0


def assignment_digest(assignment: dict[str, int], dataset_sha256: str) -> str:
    """The SHA-256 (hex) of a fold assignment (match id -> fold) of the dataset whose hash is
    ``dataset_sha256``: of the compact JSON ``{"assignment": {id: fold, ...sorted}, "dataset_sha256": h}``,
    so it is the same whichever command made the folds, and another for any other assignment."""
    payload = {"assignment": {str(k): int(v) for k, v in sorted(assignment.items())}, "dataset_sha256": dataset_sha256}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def with_dataset(splits: dict[str, Any], source: str, dataset_sha256: str) -> dict[str, Any]:
    """``splits`` (of :func:`make_splits`) as a folds file records them: with ``dataset``
    ``{"source", "sha256"}`` and ``assignment_sha256`` (:func:`assignment_digest`)."""
    return {**splits, "dataset": {"source": source, "sha256": dataset_sha256}, "assignment_sha256": assignment_digest(splits["assignment"], dataset_sha256)}


_GIVE = "give the folds file written for this dataset (adjudicate splits DATASET --out FILE, or the splits.json of the finetune export the model was trained on)"


def read_splits(path: Path, dataset_sha256: str, match_ids: Sequence[str] | None = None) -> dict[str, Any]:
    """The folds JSON at ``path`` (written by ``adjudicate splits --out`` or ``finetune export``).
    Raises InputError when it is unreadable, has no ``assignment``/``folds``, was made for another
    dataset (its recorded dataset hash differs), its assignment does not hash to its recorded
    ``assignment_sha256`` (a file without one, written before the digest, is read), or -- given the dataset's ``match_ids`` -- it leaves one of them
    without a fold or assigns a match the dataset does not hold: a fold assignment is one per
    dataset, and a second one made to fill a gap would put another fold's training matches in a
    test part. The returned ``assignment`` is the checked one (match id -> int fold)."""
    from adjudicator.files import read_json

    try:
        data = read_json(path)
    except (OSError, ValueError) as exc:
        raise InputError(f"--splits: {path}: cannot be read as JSON ({exc})", "give the file written by adjudicate splits DATASET --out FILE") from None
    if not isinstance(data, dict) or not isinstance(data.get("assignment"), dict) or not isinstance(data.get("folds"), list):
        raise InputError(f"--splits: {path}: not a folds file (no 'assignment' and 'folds')", "give the file written by adjudicate splits DATASET --out FILE")
    recorded = (data.get("dataset") or {}).get("sha256")
    if recorded is not None and recorded != dataset_sha256:
        raise InputError(f"--splits: {path} was made for another dataset (its dataset hash differs)", _GIVE)
    try:
        assignment = {str(k): int(v) for k, v in data["assignment"].items()}
    except (TypeError, ValueError):
        raise InputError(f"--splits: {path}: its assignment is not match id -> fold number", _GIVE) from None
    digest = data.get("assignment_sha256")
    if digest is not None and digest != assignment_digest(assignment, recorded or dataset_sha256):
        raise InputError(f"--splits: {path}: its assignment does not match its recorded digest (assignment_sha256), so it was changed after it was written", _GIVE)
    if match_ids is not None:
        missing = [m for m in match_ids if m not in assignment]
        if missing:
            raise InputError(f"--splits: {path} assigns no fold to match {missing[0]!r} ({len(missing)} of the dataset's {len(match_ids)} unassigned): it is not this dataset's fold assignment", _GIVE)
        extra = sorted(set(assignment) - set(match_ids))
        if extra:
            raise InputError(f"--splits: {path} assigns match {extra[0]!r}, which this dataset does not hold ({len(extra)} such): it is not this dataset's fold assignment", _GIVE)
    return {**data, "assignment": assignment}


#: ``--calibrate-on``: which training matches a ``--fold`` run also runs to fit the calibration of p.
CALIBRATION_PARTS = ("train", "validation", "none")


def _calibration_part(data: dict[str, Any], fold: int, calibrate_on: str | None, names: dict[str, str], train: list[str]) -> tuple[str, list[str]]:
    """(part, file names) of the fold's calibration part: ``train`` every train match; ``validation``
    the fold's validation part of the splits file (``finetune export``'s ``splits.json``), the
    default when it has one; ``none``. Raises InputError for ``validation`` without one."""
    validation = ((data.get("validation") or {}).get("folds") or {}).get(str(fold))
    part = calibrate_on or ("validation" if validation is not None else "train")
    if part == "train":
        return part, list(train)
    if part == "none":
        return part, []
    if validation is None:
        raise InputError("--calibrate-on validation: the folds have no validation part", "give --splits DIR/splits.json written by adjudicate finetune export, or --calibrate-on train")
    ids = set(validation)
    return part, [n for n in train if names[n] in ids]


def choose_fold(samples: Sequence[Sample], fold: int, dataset_sha256: str, splits_file: Path | None = None, calibrate_on: str | None = None) -> dict[str, Any]:
    """The manifest's ``fold`` entry of ``bench --fold K``: fold ``fold`` (0-based) of ``splits_file``
    (a folds JSON of ``adjudicate splits --out``), or, without one, of :func:`make_splits` over
    ``samples`` with the defaults of ``adjudicate splits`` (3 folds, seed 0).

    Returns ``{"fold", "folds", "seed", "rule", "splits_file", "splits_sha256", "assignment_sha256",
    "test", "train", "calibration_part", "calibration"}`` (``assignment_sha256``: :func:`assignment_digest`): ``test`` the file names of the fold's matches (the run's
    samples), ``train`` those of the other folds, ``calibration`` those of the train part the run
    also runs to fit a calibration of p (:func:`_calibration_part` of ``calibrate_on``), each in
    file-name order. Raises InputError for a fold out of range and for a splits file
    :func:`read_splits` refuses (a match of the dataset it does not assign among them)."""

    if splits_file is not None:
        data = read_splits(splits_file, dataset_sha256, [s.sample_id for s in samples])
    else:
        data = make_splits([s.match for s in samples], folds=DEFAULT_FOLDS, seed=DEFAULT_SPLIT_SEED)
    n = len(data["folds"])
    if not 0 <= fold < n:
        raise InputError(f"--fold: {fold} is not a fold of {splits_file or 'the recommended splits'} (folds 0 to {n - 1})", f"give --fold 0 to {n - 1}")
    assignment = data["assignment"]
    train = [s.path.name for s in samples if assignment[s.sample_id] != fold]
    part, calibration = _calibration_part(data, fold, calibrate_on, {s.path.name: s.sample_id for s in samples}, train)
    return {
        "fold": fold,
        "folds": n,
        "seed": data.get("seed"),
        "rule": data.get("rule"),
        "splits_file": None if splits_file is None else str(splits_file),
        "splits_sha256": None if splits_file is None else hashlib.sha256(splits_file.read_bytes()).hexdigest(),
        "assignment_sha256": assignment_digest(assignment, dataset_sha256),
        "test": [s.path.name for s in samples if assignment[s.sample_id] == fold],
        "train": train,
        "calibration_part": part,
        "calibration": calibration,
    }


def in_fold(samples: Sequence[Sample], fold: dict[str, Any] | None) -> list[Sample]:
    """The samples of a run's fold (its manifest's ``fold`` entry; all samples when None), in order."""
    if not fold:
        return list(samples)
    test = set(fold["test"])
    return [s for s in samples if s.path.name in test]


def selected_samples(samples: Sequence[Sample], fold: dict[str, Any] | None, limit: int | None) -> list[Sample]:
    """The samples of a run: those of its fold (``Manifest.fold``; all when None), the first
    ``limit`` of them when given."""
    chosen = in_fold(samples, fold)
    return chosen if limit is None else chosen[:limit]


def calibration_samples(samples: Sequence[Sample], fold: dict[str, Any] | None, limit: int | None) -> list[Sample]:
    """The samples of a ``--fold`` run's calibration part (its fold entry's ``calibration``; none
    without one), the first ``limit`` of them when given: run, never scored."""
    names = set((fold or {}).get("calibration") or [])
    chosen = [s for s in samples if s.path.name in names]
    return chosen if limit is None else chosen[:limit]


def fold_text(fold: dict[str, Any]) -> str:
    """One line for the report, e.g. ``fold 1 of 3 (test 20 matches; the other folds' 41 are its
    train part; recommended splits, seed 0)``."""
    source = f"splits file {fold['splits_file']}" if fold.get("splits_file") else f"the recommended splits of adjudicate splits, seed {fold.get('seed')}"
    calib = f"; {len(fold['calibration'])} of them also run to fit the calibration of p" if fold.get("calibration") else ""
    return f"fold {fold['fold']} of {fold['folds']}: {len(fold['test'])} test matches; the other folds' {len(fold['train'])} form its train part{calib} ({source})"

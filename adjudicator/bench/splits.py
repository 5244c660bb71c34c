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
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from adjudicator.errors import InputError
from adjudicator.match import Match


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

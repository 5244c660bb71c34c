"""The export's checks, each failing loudly (InputError, exit 2, nothing written) before a file is
written (protocol 001 s.03):

1. ``folds_partition``: every match of the dataset is in exactly one fold (the complete match is
   the smallest unit), and the validation part of a fold lies inside its training portion.
2. ``task2_stages_in_fold``: every example of every file belongs to a match of that file's part
   (train, validation or test) of that fold, so no stage of a match -- and no preceding context
   of a Task 2 instance -- sits on the other side of a fold boundary.
3. ``inputs_label_free``: no gold value in any input message. The label-free prompt check of
   ``tests/test_labels_isolation.py`` applied to the files: every example's input messages are
   byte-identical to those rendered from the match with its labels and provenance removed
   (:func:`label_free_copy`) and from the match with marker strings planted in every free-text
   label field, its rationales included (:func:`planted_copy`), and contain no marker. (Numbers
   such as gold scores cannot be searched for in a transcript; identity with the label-free
   rendering covers them.)
4. ``motions_grouped``: all matches sharing a motion are in one fold (recommended, not required:
   a splits file that breaks it is reported as a warning, not refused).
5. ``team_overlap``: the teams whose matches lie in more than one fold, reported, never refused
   (:func:`adjudicator.bench.splits.team_overlap`).

The rationale check (no gold number in a written basis) runs as each example is built
(:func:`adjudicator.finetune.gold_check.check_rationale`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from adjudicator.errors import InputError
from adjudicator.input.match import Match

#: The marker planted in every free-text label field by :func:`planted_copy`.
MARKER = "GOLDMARKER7f3a"


def planted_copy(match: Match, marker: str = MARKER) -> Match:
    """``match`` with ``marker`` strings in every free-text label field -- the labels' note, every
    judge id, every rationale, an extra per-dimension outcome (two-sided formats) -- and in its
    source; a match without judges or outcome gets an outcome, so its labels are never empty."""
    data = match.model_dump(mode="json")
    labels = data.get("labels") or {}
    labels["note"] = f"{marker}-note"
    for group in ("judges", "appeal_judges"):
        for i, j in enumerate(labels.get(group) or []):
            j["judge_id"] = f"{marker}-{group}-{i}"
    if match.format != "bp":
        labels["dimensions"] = {**(labels.get("dimensions") or {}), f"{marker}-dimension": "negative"}
        labels["rationales"] = {**{k: f"{marker}-{k}" for k in (labels.get("rationales") or {})}, "winner": f"{marker}-winner"}
    if not labels.get("judges") and not labels.get("outcome"):
        labels["outcome"] = "affirmative"
    data["labels"] = labels
    data["source"] = {"kind": "synthetic", "origin": f"{marker}-origin", "note": f"{marker}-source"}
    return Match.model_validate(data)


def label_free_copy(match: Match) -> Match:
    """``match`` without its labels and source."""
    data = match.model_dump(mode="json")
    data.pop("labels", None)
    data.pop("source", None)
    return Match.model_validate(data)


def fail(check: str, message: str, hint: str | None = None) -> InputError:
    """The InputError of a failed check, its message starting with the check's name."""
    return InputError(f"finetune export: check {check} failed: {message}", hint or "nothing was written")


def check_partition(match_ids: Sequence[str], folds: Sequence[dict[str, Any]], assignment: dict[str, int]) -> dict[str, Any]:
    """Check 1 over the export's folds (each ``{"fold", "test", "validation", "train"}``, lists of
    match ids) and the splits' ``assignment`` (match id -> fold). Returns the check's record;
    raises InputError when a match is in no fold or in two, the two disagree, or a fold's parts
    overlap."""
    seen: dict[str, int] = {}
    for f in folds:
        for mid in f["test"]:
            if mid in seen:
                raise fail("folds_partition", f"match {mid!r} is in fold {seen[mid]} and in fold {f['fold']}", "give a splits file in which every match has one fold")
            seen[mid] = f["fold"]
            if assignment.get(mid) != f["fold"]:
                raise fail("folds_partition", f"match {mid!r} is listed under fold {f['fold']} but assigned to fold {assignment.get(mid)}", "give a splits file written by adjudicate splits")
        parts = [set(f["test"]), set(f["validation"]), set(f["train"])]
        for a, b, name in ((0, 1, "test and validation"), (0, 2, "test and train"), (1, 2, "validation and train")):
            both = parts[a] & parts[b]
            if both:
                raise fail("folds_partition", f"fold {f['fold']}: match {sorted(both)[0]!r} is in both its {name} parts")
        rest = set(match_ids) - parts[0]
        if parts[1] | parts[2] != rest:
            raise fail("folds_partition", f"fold {f['fold']}: its train and validation parts are not exactly the other folds' matches")
    missing = [m for m in match_ids if m not in seen]
    if missing:
        raise fail("folds_partition", f"match {missing[0]!r} is in no fold ({len(missing)} without one)", "give the folds file written for this dataset (adjudicate splits DATASET --out FILE); one fold assignment covers every match")
    return {"check": "folds_partition", "passed": True, "detail": f"{len(match_ids)} matches, each in exactly one of {len(folds)} folds; validation inside each fold's training portion"}


def check_files(files: Iterable[tuple[str, int, str, Sequence[dict[str, Any]]]], part_of: dict[int, dict[str, str]]) -> dict[str, Any]:
    """Check 2: every example (its ``.meta.jsonl`` record) of a file ``(path, fold, part, metas)``
    belongs to a match of that part of that fold (``part_of`` fold -> match id -> part). Returns the
    check's record; raises InputError naming the file and the example otherwise."""
    n = 0
    for path, fold, part, metas in files:
        for meta in metas:
            n += 1
            got = part_of[fold].get(meta["match_id"])
            if got != part:
                raise fail("task2_stages_in_fold", f"{path}: {meta['task']} {meta['key']} of match {meta['match_id']!r} belongs to the {got} part of fold {fold}, not {part}")
    return {"check": "task2_stages_in_fold", "passed": True, "detail": f"{n} examples, each in a file of its own match's fold part (no stage or preceding context crosses a fold boundary)"}


def check_label_free(match: Match, examples: Sequence[Any], store: Any) -> int:
    """Check 3 for one match: the input messages of each of its ``examples`` must equal those of
    the same instance rendered from :func:`label_free_copy` and from :func:`planted_copy`
    (:func:`~adjudicator.finetune.examples.instance_requests`), and hold no marker. Returns how
    many inputs were compared; raises InputError otherwise."""
    from adjudicator.finetune.examples import instance_requests

    copies = [(name, instance_requests(m.view(), store)) for name, m in (("without labels", label_free_copy(match)), ("with planted labels", planted_copy(match)))]
    for e in examples:
        text = json.dumps(e.request.messages, ensure_ascii=False)
        for name, requests in copies:
            other = requests.get((e.task, e.key))
            if other is None or json.dumps(other.messages, ensure_ascii=False) != text:
                raise fail("inputs_label_free", f"match {match.match_id!r} {e.task} {e.key}: the input differs from the one rendered {name}, so it depends on a gold label")
            if MARKER in text:
                raise fail("inputs_label_free", f"match {match.match_id!r} {e.task} {e.key}: a planted label marker reached the input")
    return len(examples)


def motions_grouped(matches: Sequence[Match], assignment: dict[str, int]) -> dict[str, Any]:
    """Check 4's record: passed when every motion's matches share one fold, else a warning naming
    the first motion split across folds."""
    from adjudicator.bench.splits import motion_key

    folds: dict[str, set[int]] = defaultdict(set)
    for m in matches:
        folds[motion_key(m.motion)].add(assignment[m.match_id])
    split = sorted(k for k, fs in folds.items() if len(fs) > 1)
    if split:
        return {"check": "motions_grouped", "passed": False, "warning": True, "detail": f"{len(split)} motion(s) span several folds, e.g. {split[0]!r} (the protocol recommends grouping by motion)"}
    return {"check": "motions_grouped", "passed": True, "detail": f"{len(folds)} motions, each within one fold"}


def team_overlap_record(matches: Sequence[Match], assignment: dict[str, int]) -> dict[str, Any]:
    """Check 5's record: the team-overlap report (reported, never refused)."""
    from adjudicator.bench.splits import team_overlap

    ov = team_overlap(matches, assignment)
    return {"check": "team_overlap", "passed": True, "reported": ov, "detail": f"{ov['n_overlapping']} of {ov['n_teams']} named teams appear in more than one fold"}

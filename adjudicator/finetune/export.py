"""``adjudicate finetune export DATASET --out DIR``: per fold and task, train / validation / test
files of training chats, the folds, and a manifest with every check (protocol 001 s.03).

Layout of DIR::

    manifest.json                     what was written and how (schema below), written last
    splits.json                       the folds (adjudicate splits format) with each fold's validation part
    fold<K>/<set>/<part>.jsonl        one chat per line, {"messages": [system, user, assistant]}
    fold<K>/<set>/<part>.meta.jsonl   line by line beside it: {"match_id", "task", "key", "node", "template_hash"}

``<set>`` is ``task1``, ``task2``, ``task2_difference`` (the paired variant), ``task3`` or
``joint`` (Tasks 1-3 together, for multi-task fine-tuning: each match's Task 1, Task 2 units and
Task 3 in that order); ``<part>`` is ``train``, ``validation`` or ``test``. A set with no example
in the whole dataset (PanelBench has no stage scores or votes) gets no files and a reason in the
manifest; a part without an example (no validation part) gets no file.

Everything is built and checked (:mod:`adjudicator.finetune.checks`) before the first file is
written; a failed check writes nothing. DIR must not exist or be empty. The manifest
(``schema_version`` 1) holds the dataset (source, hash, provenance), the folds and their checks,
the prompt template hashes, the target rules, the rationale handling, the excluded instances and
every file with its counts, SHA-256 and ``max_chars``, the characters of its longest chat (every
message): a trainer's maximum length must hold the whole chat, since the answer comes last and
truncation would cut it off.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from adjudicator import __version__
from adjudicator.bench.dataset import Dataset
from adjudicator.errors import InputError
from adjudicator.finetune import checks, folds
from adjudicator.finetune.difference import template_name as difference_template
from adjudicator.finetune.examples import Example, MatchExamples, RationaleMode, match_examples
from adjudicator.model.prompts import PromptStore, prompt_language
from adjudicator.single_call.tasks import template_name

SCHEMA_VERSION = 1
#: Each file set and the tasks it holds.
TASK_SETS: dict[str, tuple[str, ...]] = {
    "task1": ("task1",), "task2": ("task2",), "task2_difference": ("task2_difference",), "task3": ("task3",), "joint": ("task1", "task2", "task3"),
}  # fmt: skip
#: How many excluded instances the manifest lists one by one per task (all are counted by reason).
LISTED_EXCLUSIONS = 200

FORMAT_NOTE = (
    "OpenAI chat fine-tuning JSONL: one {\"messages\": [system, user, assistant]} object per line, UTF-8; "
    "Hugging Face TRL's SFTTrainer reads it as a conversational dataset (datasets.load_dataset(\"json\", data_files=...))"
)
TARGET_RULES = {
    "task1": "{\"basis\", \"p\"}: the original panel's share of winner votes for the affirmative, rounded to 0.01 (2:1 -> 0.67); "
             "an outcome without judges gives 1.0 or 0.0; ties have no example",
    "task2": "{\"basis\", \"score\"}: the mean of the original panel's scores rounded to the nearest integer, halves up; units not scored by every judge have no example",
    "task2_difference": "{\"basis\", \"difference\"}: the affirmative's mean minus the negative's on a stage scored for both sides, rounded to 0.01",
    "task3": "{\"basis\", \"votes\"}: the summed best-debater votes as nine position labels, most-voted first; matches whose votes do not sum to nine have no example",
    "basis": "the match's rationale for the instance after the gold-number filter (labels.rationales), else \"\"",
}  # fmt: skip


def _check_out(out: Path) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError(f"--out: {out} exists and is not an empty folder", "give a new folder (an export is never written over another)")


def _jsonl(rows: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in rows)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _exclusions(built: Sequence[MatchExamples], n_examples: Counter[str]) -> dict[str, Any]:
    """task -> ``{"n", "by_reason", "instances"}`` (the first :data:`LISTED_EXCLUSIONS`)."""
    out: dict[str, Any] = {}
    every = [x for b in built for x in b.excluded]
    for task in ("task1", "task2", "task2_difference", "task3"):
        rows = [x for x in every if x["task"] == task]
        if rows and n_examples[task]:  # a task without any example is reported under not_applicable
            out[task] = {"n": len(rows), "n_examples": n_examples[task], "by_reason": dict(Counter(x["reason"] for x in rows).most_common()), "instances": rows[:LISTED_EXCLUSIONS]}
    return out


def _not_applicable(built: Sequence[MatchExamples], present: Counter[str]) -> dict[str, str]:
    """File set -> why it has no example anywhere (its instances' most common reason)."""
    out = {}
    for name, tasks in TASK_SETS.items():
        if not any(present[t] for t in tasks):
            reasons = Counter(x["reason"] for b in built for x in b.excluded if x["task"] in tasks)
            if reasons:
                out[name] = f"no instance has a target: {reasons.most_common(1)[0][0]} ({sum(reasons.values())} instances)"
            else:
                out[name] = "no instance in this dataset" + (" (no stage is scored for both sides)" if name == "task2_difference" else "")
    return out


def _files(plan: dict[str, Any], by_match: dict[str, list[Example]], not_applicable: dict[str, str]) -> list[dict[str, Any]]:
    """The files to write (``{"fold", "set", "part", "path", "text", "meta", "metas", ...}``); the
    sets in ``not_applicable`` get none."""
    files = []
    for f in plan["folds"]:
        for name, tasks in TASK_SETS.items():
            if name in not_applicable:
                continue
            for part in folds.PARTS:
                exs = [e for mid in f[part] for e in by_match.get(mid, []) if e.task in tasks]
                if not exs:
                    continue
                path = f"fold{f['fold']}/{name}/{part}.jsonl"
                metas = [e.meta() for e in exs]
                chats = [e.chat() for e in exs]
                files.append({"fold": f["fold"], "set": name, "part": part, "path": path, "text": _jsonl(chats), "meta": _jsonl(metas), "metas": metas,
                              "n_examples": len(exs), "n_matches": len({e.match_id for e in exs}),
                              "max_chars": max(sum(len(m["content"]) for m in c["messages"]) for c in chats)})
    return files


def _prompt_hashes(store: PromptStore, formats: set[str]) -> dict[str, str]:
    """Template name -> hash of every template the examples were rendered from."""
    names = []
    for lang in sorted({prompt_language(f) for f in formats}):
        names += [template_name(t, lang) for t in ("task1", "task2", "task3")] + [difference_template(lang)]
    return store.hashes(names)


#: Why a ranking match (British Parliamentary) has no training file.
LEFT_OUT_WHY = (
    "a ranking format (British Parliamentary: four teams ranked): the CCDB tasks need an affirmative and a negative, so it has no Task 1-3 instance; "
    "it keeps its fold in splits.json, so bench --fold K tests it with the fold's other matches"
)


def left_out(ds: Dataset, skipped: Sequence[str]) -> dict[str, Any]:
    """The manifest's ``left_out``: the matches of the dataset without any training file (``{"n",
    "by_format", "why", "match_ids"}``); ``n`` 0 when every match is two-sided."""
    fmt = {s.match.match_id: s.match.format for s in ds.samples}
    return {"n": len(skipped), "by_format": dict(Counter(fmt[m] for m in skipped).most_common()), "why": LEFT_OUT_WHY if skipped else None, "match_ids": list(skipped)}


def build_export(ds: Dataset, *, splits_file: Path | None = None, n_folds: int = folds.DEFAULT_FOLDS, seed: int = folds.DEFAULT_SPLIT_SEED,
                 validation_share: float = folds.DEFAULT_VALIDATION_SHARE, rationales: RationaleMode = "filter", store: PromptStore | None = None) -> dict[str, Any]:
    """Build and check everything an export writes, writing nothing. Returns ``{"manifest",
    "files", "splits"}``. Raises InputError for a failed check, a bad splits file or a rationale
    that still holds a gold number."""
    store = store or PromptStore()
    every = [s.match for s in ds.samples]
    two_sided = [m for m in every if m.spec().verdict != "ranking"]
    skipped = [m.match_id for m in every if m.spec().verdict == "ranking"]
    if not two_sided:
        raise InputError(f"{ds.source}: no two-sided match (the CCDB tasks need an affirmative and a negative)", "give a folder of CCDB-format or one-on-one match files")
    # one fold assignment per dataset: the folds are made over every match, files only for the two-sided ones
    plan = folds.fold_plan(every, ds.sha256, splits_file=splits_file, folds=n_folds, seed=seed, validation_share=validation_share)
    record = [checks.check_partition([m.match_id for m in every], plan["folds"], plan["assignment"])]
    built = [match_examples(m, store, rationales) for m in two_sided]
    compared = sum(checks.check_label_free(m, b.examples, store) for m, b in zip(two_sided, built))
    record.append({"check": "inputs_label_free", "passed": True, "detail": f"{compared} input message pairs identical to the label-free and the planted-marker renderings; no marker"})
    by_match = {b.match_id: b.examples for b in built}
    n_examples: Counter[str] = Counter(e.task for exs in by_match.values() for e in exs)
    not_applicable = _not_applicable(built, n_examples)
    files = _files(plan, by_match, not_applicable)
    record.append(checks.check_files(((x["path"], x["fold"], x["part"], x["metas"]) for x in files), folds.part_of(plan)))
    with_basis = [e for exs in by_match.values() for e in exs if e.basis]
    record.append({"check": "rationales_free_of_gold_numbers", "passed": True,
                   "detail": f"{len(with_basis)} rationale(s) written, none with a gold number in any rendering the filter reads or the independent search writes out ({sum(e.removed_numbers for e in with_basis)} gold number(s) removed by the filter; mode {rationales})"})
    record.append(checks.motions_grouped(every, plan["assignment"]))
    record.append(checks.team_overlap_record(every, plan["assignment"]))
    dataset = {"source": str(ds.source), "sha256": ds.sha256}
    splits_data = folds.splits_file_data(plan, dataset)
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "adjudicator": __version__,
        "dataset": {**{k: v for k, v in ds.describe().items() if k != "files"}, "excluded_ranking_matches": skipped},
        "format": FORMAT_NOTE,
        "folds": [{**{p: f[p] for p in ("fold", "test", "validation", "train")}, "n": {p: len(f[p]) for p in folds.PARTS}} for f in plan["folds"]],
        "splits": {"file": None if splits_file is None else str(splits_file), "seed": plan["splits"].get("seed"), "rule": plan["splits"].get("rule"),
                   "n_folds": len(plan["folds"]), "validation": plan["validation"], "assignment_sha256": splits_data["assignment_sha256"]},
        "left_out": left_out(ds, skipped),
        "prompt_hashes": _prompt_hashes(store, {m.format for m in two_sided}),
        "targets": TARGET_RULES,
        "rationales": {"mode": rationales, "n_written": len(with_basis), "n_numbers_removed": sum(e.removed_numbers for e in with_basis)},
        "examples": dict(sorted(n_examples.items())),
        "excluded": _exclusions(built, n_examples),
        "not_applicable": not_applicable,
        "checks": record,
        "files": [{k: x[k] for k in ("fold", "set", "part", "path", "n_examples", "n_matches", "max_chars")} | {"sha256": _sha(x["text"])} for x in files],
    }
    return {"manifest": manifest, "files": files, "splits": splits_data}


def write_export(built: dict[str, Any], out: Path) -> Path:
    """Write what :func:`build_export` built into ``out`` (files first, ``manifest.json`` last, so a
    folder with a manifest is a complete export). Returns the manifest's path."""
    from adjudicator.files import atomic_write_json, atomic_write_text

    _check_out(out)
    try:
        for x in built["files"]:
            atomic_write_text(out / x["path"], x["text"])
            atomic_write_text(out / x["path"].replace(".jsonl", ".meta.jsonl"), x["meta"])
        atomic_write_json(out / "splits.json", built["splits"])
        atomic_write_json(out / "manifest.json", built["manifest"])
    except OSError as exc:
        raise InputError(f"--out: cannot write {out} ({exc.strerror or exc})", "choose a writable folder") from None
    return out / "manifest.json"

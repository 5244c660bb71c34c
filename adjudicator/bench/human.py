"""A person's own call on a run's verdicts: ``human.json`` beside the run, one entry per (sample, arm).

A researcher reading the viewer (report.html) records, per sample, whether they agree with the arm's
verdict and why (a comment; most useful on a disagreement). A page opened from disk cannot write a
file, so there are two ways in, and both end in the same file:

- the page keeps what is typed in the browser (its local storage, per run) and its *Export human.json*
  button downloads the file; ``adjudicate annotate RUN --import FILE`` checks it and merges it into
  ``RUN/human.json`` (saving the download there by hand works too);
- ``adjudicate annotate RUN SAMPLE --agree|--disagree [--comment TEXT]`` writes one entry directly.

The file (:class:`HumanFile`)::

    {"schema_version": 1, "run_id": "...", "annotations": [
      {"sample_id": "m01", "arm": "agentic", "call": "disagree", "comment": "the negative's rebuttal decided it",
       "annotator": "ana", "at": "2026-01-01T12:00:00Z"}]}

Read back by the reports (report.html's Human column starts from it; report.json and report.md count
agreements, and how often the person sided with the gold where they disagreed) and by ``compare``
(each differing sample shows both runs' entries). A file that does not read as one is a one-line
error naming the field (exit code 2); an entry naming a sample or arm the run does not have is refused
on import, and skipped with a warning where a report reads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from adjudicator.bench.layout import HUMAN_JSON, MANIFEST
from adjudicator.errors import InputError
from adjudicator.files import atomic_write_json
from adjudicator.frozen import FrozenModel

HUMAN_SCHEMA = 1

HumanCall = Literal["agree", "disagree"]


class Annotation(FrozenModel):
    """One person's call on one (sample, arm) verdict: ``call`` agree or disagree, a free-text
    ``comment`` (up to 4,000 characters), who (``annotator``, optional) and when (``at``, ISO UTC)."""

    sample_id: str = Field(min_length=1, max_length=200)
    arm: str = Field(min_length=1, max_length=64)
    call: HumanCall
    comment: str = Field(default="", max_length=4000)
    annotator: str = Field(default="", max_length=200)
    at: str = Field(default="", max_length=40)

    @property
    def key(self) -> tuple[str, str]:
        """``(sample_id, arm)``."""
        return self.sample_id, self.arm


class HumanFile(FrozenModel):
    """``human.json`` (module docstring): the run it belongs to and at most one annotation per (sample, arm)."""

    schema_version: Literal[1] = 1  # HUMAN_SCHEMA
    run_id: str = ""
    annotations: list[Annotation] = Field(default_factory=list, max_length=100_000)


def human_path(run_dir: Path) -> Path:
    """``run_dir/human.json``."""
    return run_dir / HUMAN_JSON


def parse_human(data: Any, source: str) -> HumanFile:
    """A decoded ``human.json`` (or an exported one) as a :class:`HumanFile`. Raises InputError naming
    ``source`` and the first invalid field."""
    from adjudicator.input.field_errors import describe_validation_error

    try:
        return HumanFile.model_validate(data)
    except ValidationError as exc:
        raise InputError(describe_validation_error(exc, what=source), "fix or delete the file (see docs/viewer.md)") from None


def read_human_file(path: Path) -> HumanFile:
    """Read and check a human-annotation file. Raises InputError (one line) when it is missing,
    malformed or invalid."""
    from adjudicator.input.jsontext import read_json

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: unreadable ({exc})") from None
    return parse_human(read_json(text, str(path)), str(path))


def read_human(run_dir: Path) -> dict[tuple[str, str], Annotation]:
    """The run's annotations by ``(sample_id, arm)`` (empty without ``human.json``). Raises InputError
    for a file that does not read as one."""
    path = human_path(run_dir)
    if not path.is_file():
        return {}
    return {a.key: a for a in read_human_file(path).annotations}


def known_keys(run_dir: Path, sample_ids: Iterable[str]) -> set[tuple[str, str]]:
    """Every ``(sample_id, arm)`` the run can be annotated on: its samples under each of its arms."""
    from adjudicator.bench.manifest import read_manifest

    arms = read_manifest(run_dir).arms
    return {(s, a) for s in sample_ids for a in arms}


def merge(existing: dict[tuple[str, str], Annotation], new: Sequence[Annotation], known: set[tuple[str, str]], source: str) -> dict[tuple[str, str], Annotation]:
    """``existing`` with every entry of ``new`` laid over it (a later entry for the same (sample, arm)
    replaces the earlier). Raises InputError when an entry names a (sample, arm) not in ``known``."""
    out = dict(existing)
    for i, a in enumerate(new):
        if a.key not in known:
            raise InputError(f"{source}: annotations.{i}: the run has no sample {a.sample_id!r} under arm {a.arm!r}", "annotate a sample and arm of this run")
        out[a.key] = a
    return out


def write_human(run_dir: Path, annotations: dict[tuple[str, str], Annotation]) -> Path:
    """Write ``run_dir/human.json`` atomically (annotations sorted by sample, then arm); returns its path."""
    from adjudicator.files import read_json

    run_id = str(read_json(run_dir / MANIFEST).get("run_id", ""))
    body = HumanFile(run_id=run_id, annotations=[annotations[k] for k in sorted(annotations)])
    path = human_path(run_dir)
    atomic_write_json(path, body.model_dump(mode="json"))
    return path


def human_summary(annotations: dict[tuple[str, str], Annotation], rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The reports' count of the annotations over the run's sample rows (:mod:`adjudicator.bench.samples`),
    per arm: ``annotated``, ``agree``, ``disagree``, ``with_comment``, and, over the disagreements on
    samples winner accuracy scores (``correct`` not null), ``disagree_arm_wrong``: how many were on a
    verdict the gold calls wrong (the person sided with the gold). Entries naming no row are counted
    in ``unmatched``. Empty dict without annotations."""
    if not annotations:
        return {}
    per: dict[str, dict[str, int]] = {}
    seen: set[tuple[str, str]] = set()
    for r in rows:
        a = annotations.get((r["sample_id"], r["arm"]))
        if a is None:
            continue
        seen.add(a.key)
        c = per.setdefault(r["arm"], {"annotated": 0, "agree": 0, "disagree": 0, "with_comment": 0, "disagree_scored": 0, "disagree_arm_wrong": 0})
        c["annotated"] += 1
        c[a.call] += 1
        c["with_comment"] += bool(a.comment.strip())
        if a.call == "disagree" and r.get("correct") is not None:
            c["disagree_scored"] += 1
            c["disagree_arm_wrong"] += r["correct"] is False
    return {"arms": per, "unmatched": len(set(annotations) - seen)}


def human_markdown(summary: dict[str, Any] | None) -> list[str]:
    """report.md's lines for :func:`human_summary`'s ``summary`` (report.json's ``human``): one table
    row per arm; no lines without annotations."""
    if not summary:
        return []
    lines = ["## Human annotations (human.json)", "", "A person's own call on the verdicts (`adjudicate annotate`).", "",
             "| arm | annotated | agree | disagree | with a comment | disagreed where the gold calls the verdict wrong |", "|---|---|---|---|---|---|"]
    for arm, c in summary.get("arms", {}).items():
        lines.append(f"| {arm} | {c['annotated']} | {c['agree']} | {c['disagree']} | {c['with_comment']} | {c['disagree_arm_wrong']} of {c['disagree_scored']} scored |")
    if summary.get("unmatched"):
        lines.append(f"\n{summary['unmatched']} annotation(s) name no sample of this report.")
    return lines + [""]


def attach_to_rows(rows: list[dict[str, Any]], annotations: dict[tuple[str, str], Annotation]) -> None:
    """Add ``human`` (agree, disagree or null) and ``human_comment`` to every row, in place, when there
    are annotations (rows are left as they are without)."""
    if not annotations:
        return
    for r in rows:
        a = annotations.get((r["sample_id"], r["arm"]))
        r["human"] = a.call if a else None
        r["human_comment"] = a.comment if a else None

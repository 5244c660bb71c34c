"""Re-judge a frozen run: the parent run's tracker outputs, a new panel.

``adjudicate bench --rejudge RUN --judge-model M ... --name NAME`` writes a new run folder whose
samples are RUN's (same dataset files, same fold, same limit unless ``--limit`` is given) and whose
agentic arm seats, in place of the clash tracker, a
:class:`~adjudicator.judges.reused.ReusedTracker` holding the parent's tracker outputs for the sample
(read from the parent's result file: no tracker request is sent), so only the judges meet a model.

Rules (each refusal an :class:`~adjudicator.errors.InputError`, exit code 2, before any request):

- the parent must be a run folder (or the name of one under ``--runs-dir``) with the agentic arm;
  the new run has the agentic arm only (the single-call arm has no tracker to reuse);
- the tracker stays the parent's: ``--tracker-model`` may only repeat it, and the rubric and
  evidence source its outputs were made under (``--rubric``, ``--evidence``) too; ``--model`` and
  ``--judge-model`` set the judges (``--judge-model`` wins where both are given); every other
  answer-shaping setting (API base, JSON mode) is this invocation's where given, else the parent's;
- the parent's dataset files must be unchanged (their hash is the parent manifest's).

The new manifest's ``parent`` names the parent run (id, folder, manifest SHA-256, tracker model), and
since a run folder holds one configuration (a resumed run refuses another), a report never mixes
verdicts of two judge configurations. A sample with no agentic result in the parent fails with
that reason and sends nothing; ``--retry-errors`` reruns it once the parent has it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adjudicator.bench.dataset import Dataset, load_folder
from adjudicator.bench.layout import DATASET, MANIFEST
from adjudicator.bench.manifest import Manifest, read_manifest
from adjudicator.bench.results import SampleResult, read_result, result_path
from adjudicator.errors import InputError

ARM = "agentic"

#: Settings the tracker's outputs were made under (both reach the tracker's request): a re-judge run
#: keeps the parent's, so its judges read what the tracker would have written under them.
TRACKER_SETTINGS = ("rubric", "evidence")


@dataclass(frozen=True)
class Parent:
    """The run being re-judged: its folder, manifest and the SHA-256 of its manifest file."""

    run_dir: Path
    manifest: Manifest
    manifest_sha256: str

    @property
    def tracker_model(self) -> str:
        """The parent's tracker model as its manifest names it (``offline`` for the offline judge)."""
        return self.manifest.models.get(ARM, {}).get("tracker") or "offline"

    def record(self) -> dict[str, Any]:
        """The new manifest's ``parent`` entry."""
        return {
            "run_id": self.manifest.run_id,
            "run_dir": str(self.run_dir.resolve()),
            "manifest_sha256": self.manifest_sha256,
            "tracker": self.tracker_model,
            "reused": ["track_stage"],
        }


def open_parent(ref: str | Path, runs_dir: Path) -> Parent:
    """The parent run named by ``ref`` (a run folder, or a run name: its latest run under
    ``runs_dir``). Raises InputError when there is no such run or it has no agentic arm."""
    from adjudicator.bench.compare import resolve_run

    try:
        run_dir = resolve_run(str(ref), runs_dir)
    except InputError as exc:
        raise InputError(f"--rejudge: {exc.message}", exc.hint) from None
    manifest = read_manifest(run_dir)
    if ARM not in manifest.arms:
        raise InputError(f"--rejudge: run {run_dir.name} has no agentic arm (its arms: {', '.join(manifest.arms)})", "re-judge a run of the agentic arm")
    return Parent(run_dir, manifest, hashlib.sha256((run_dir / MANIFEST).read_bytes()).hexdigest())


def parent_of(manifest: Manifest) -> Parent | None:
    """The parent of a re-judge run from its manifest (None for an ordinary run). Raises InputError
    when the parent folder is gone or its manifest changed since the re-judge run started."""
    rec = manifest.parent
    if not rec:
        return None
    run_dir = Path(rec["run_dir"])
    if not (run_dir / MANIFEST).exists():
        raise InputError(f"--rejudge: the parent run {rec['run_dir']} is gone", "restore it: a re-judge run reads its tracker outputs")
    parent = open_parent(run_dir, run_dir.parent)
    if parent.manifest_sha256 != rec.get("manifest_sha256"):
        raise InputError(f"--rejudge: the manifest of parent run {run_dir.name} changed since this run started", "start a new re-judge run")
    return parent


def check_arms(arms: list[str] | None) -> list[str]:
    """The arms of a re-judge run: the agentic arm only. Raises InputError for any other."""
    if arms and list(arms) != [ARM]:
        raise InputError("--rejudge: only the agentic arm can be re-judged (the single-call arm has no tracker to reuse)", "drop --arm, or give --arm agentic")
    return [ARM]


def rejudge_config(config: Any, parent: Parent, explicit: frozenset[str] | None) -> Any:
    """The model configuration of a re-judge run (module docstring): ``config`` (this invocation's)
    on top of the parent's answer-shaping settings, with the tracker pinned to the parent's.
    ``explicit`` the fields given as options (None: all of ``config``'s). Raises InputError for a
    ``--tracker-model`` other than the parent's."""
    from pydantic import ValidationError

    from adjudicator.bench.manifest import config_dict, identity
    from adjudicator.config import is_offline

    recorded = identity(parent.manifest.config)
    now = config_dict(config)
    given = set(explicit) if explicit is not None else {k for k in recorded if now.get(k) != recorded.get(k)}
    tracker = parent.tracker_model
    wanted = now.get("tracker_model") if "tracker_model" in given else None
    if wanted is not None and not (wanted == tracker or (is_offline(wanted) and is_offline(tracker))):
        raise InputError(
            f"--tracker-model: a re-judge run keeps the tracker of run {parent.run_dir.name} ({tracker}), got {wanted}",
            "drop --tracker-model; to change the tracker, run the benchmark anew",
        )
    for key in TRACKER_SETTINGS:
        if key in given and now.get(key) != recorded.get(key):
            raise InputError(
                f"--{key}: a re-judge run keeps the {key} its tracker outputs were made under in run {parent.run_dir.name} ({recorded.get(key)!r}), got {now.get(key)!r}",
                f"drop --{key}; to change it, run the benchmark anew",
            )
    values = {**config.model_dump(), **{k: v for k, v in recorded.items() if k in type(config).model_fields and k not in given}}
    if "model" in given and "judge_models" not in given:
        values["judge_models"] = ()  # --model alone names the new judges
    values["tracker_model"] = tracker
    try:
        return type(config).model_validate(values)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise InputError(f"--rejudge: run {parent.run_dir.name}'s manifest.json: config.{err['loc'][0] if err.get('loc') else '?'} is invalid ({err.get('msg')})") from None


def parent_dataset(parent: Parent) -> Dataset:
    """The parent's dataset files (its ``dataset/`` copy of converted PanelBench, else the folder its
    manifest names), checked against the parent's dataset hash. Raises InputError when they changed."""
    ds = parent.manifest.dataset
    folder = parent.run_dir / DATASET if (parent.run_dir / DATASET).is_dir() else Path(ds["folder"])
    loaded = load_folder(folder, kind=ds.get("kind", "match-folder"), source=Path(ds.get("source") or folder))
    if loaded.sha256 != ds.get("sha256"):
        raise InputError(f"--rejudge: the dataset files of run {parent.run_dir.name} ({folder}) changed since it ran (hash differs)", "restore them; a re-judge run needs the parent's matches")
    return Dataset(loaded.samples, loaded.folder.resolve(), loaded.sha256, loaded.kind, loaded.source, loaded.file_hashes, ds.get("label_convention"))


def parent_result(parent: Parent, stem: str) -> SampleResult | None:
    """The parent's agentic result for the sample with file stem ``stem`` (None when it has none)."""
    return read_result(result_path(parent.run_dir, ARM, stem))


def reused_tracker(parent: Parent, result: SampleResult) -> Any:
    """The :class:`~adjudicator.judges.reused.ReusedTracker` of one sample: the parent's tracker
    model, the parent's prompt hashes (it reports those its tracker backend rendered), and the
    sample's call records (their message texts read from the parent's ``prompts/``), failures and analyses."""
    from adjudicator.config import is_offline
    from adjudicator.judges.reused import ReusedTracker

    tracker = parent.tracker_model
    hashes = parent.manifest.prompt_hashes.get(ARM, {})
    from adjudicator.bench.prompt_store import PromptReader

    calls = PromptReader(parent.run_dir).with_texts(result.calls)  # the messages go into this run's prompts/ too
    return ReusedTracker(tracker, is_llm=not is_offline(tracker), calls=calls, failures=result.failures, analyses=result.analyses, hashes=hashes)

"""Benchmark datasets: a folder of labelled match files, or upstream PanelBench converted on the fly.

``load_dataset(path)`` accepts

- a folder of match ``*.json`` files (the match format of :mod:`adjudicator.input.match`, e.g. CCDB-format
  matches with per-judge labels, or the output of ``adjudicate convert panelbench``), read in file
  name order, non-recursively; or
- the upstream PanelBench folder (or its ``DebateArt`` folder, recognised by a ``motion/`` folder),
  which is converted with :func:`adjudicator.input.convert.debateart.convert_panelbench` into ``convert_into``
  (the run's ``dataset/`` folder) first. A resumed run reads its existing ``dataset/`` copy instead
  of converting again, so it scores exactly the data it started with even if the converter changed.

Every file is validated before any model call is spent; a bad file raises InputError naming it. The
dataset hash is the SHA-256 of the sorted ``(file name, SHA-256 of file bytes)`` list, so it changes
when any match file changes, and ``sample_hash`` is the SHA-256 of one file's bytes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adjudicator.bench.layout import safe_file_stem
from adjudicator.errors import InputError
from adjudicator.input.match import Match
from adjudicator.input.match_file import load_match


@dataclass(frozen=True)
class Sample:
    """One benchmark sample: a match, the file it came from, its content hash and its file stem."""

    sample_id: str
    match: Match
    path: Path
    sha256: str
    stem: str


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset: samples in file-name order, the folder they were read from, the dataset
    hash, and where it came from (``kind`` ``"match-folder"`` or ``"panelbench"``; ``source`` the
    path the user gave)."""

    samples: list[Sample]
    folder: Path
    sha256: str
    kind: str
    source: Path
    file_hashes: dict[str, str] = field(default_factory=dict)
    label_convention: str | None = None

    def limited(self, limit: int | None) -> list[Sample]:
        """The first ``limit`` samples (all when None)."""
        return list(self.samples if limit is None else self.samples[:limit])

    def describe(self) -> dict:
        """JSON-ready description for the manifest."""
        formats: dict[str, int] = {}
        for s in self.samples:
            formats[s.match.format] = formats.get(s.match.format, 0) + 1
        return {
            "source": str(self.source),
            "folder": str(self.folder),
            "kind": self.kind,
            "n_matches": len(self.samples),
            "formats": formats,
            "sha256": self.sha256,
            "label_convention": self.label_convention,
            "provenance": provenance([s.match for s in self.samples]),
            "files": self.file_hashes,
        }


#: How converted PanelBench files name their label convention in ``labels.note`` (adjudicator/input/convert/debateart.py).
_CONVENTION_RE = re.compile(r"read under the '([A-Za-z_-]+)' convention")

#: The banner of a dataset with synthetic labels (report.md/html/json put it at the top).
SYNTHETIC_WARNING = "SYNTHETIC labels written by developers -- not real judges; human-reference rows are not human"


def provenance(matches: Sequence[Match]) -> dict[str, Any]:
    """Where a dataset's labels come from, read from each match's ``source`` and ``labels.note``.

    Returns ``{"n_matches", "n_real", "n_synthetic", "n_unknown"`` (no ``source``), ``"synthetic"``
    (True when any match has ``source.kind == "synthetic"``), ``"origins"`` (distinct
    ``source.origin`` texts), ``"panelbench"`` (True when an origin mentions PanelBench) and
    ``"label_conventions"`` (convention name -> match count, from the ``read under the 'NAME'
    convention`` phrase the PanelBench converter writes into ``labels.note`` for winner matches; such
    matches whose note names none are counted under ``"unstated"``; PanelBench BP rounds, which have
    no winner label to read, count under no convention)}``.
    """
    kinds = {"real": 0, "synthetic": 0, "unknown": 0}
    origins: list[str] = []
    conventions: dict[str, int] = {}
    panelbench = False
    for m in matches:
        src = m.source
        kinds[src.kind if src is not None else "unknown"] += 1
        if src is not None and src.origin not in origins:
            origins.append(src.origin)
        if src is not None and "panelbench" in src.origin.lower():
            panelbench = True
            if m.spec().verdict != "winner":
                continue
            found = _CONVENTION_RE.search((m.labels.note if m.labels else None) or "")
            name = found.group(1) if found else "unstated"
            conventions[name] = conventions.get(name, 0) + 1
    return {
        "n_matches": len(matches),
        "n_real": kinds["real"],
        "n_synthetic": kinds["synthetic"],
        "n_unknown": kinds["unknown"],
        "synthetic": kinds["synthetic"] > 0,
        "origins": origins,
        "panelbench": panelbench,
        "label_conventions": conventions,
    }


def is_upstream_panelbench(path: Path) -> bool:
    """True when ``path`` is the upstream PanelBench folder (holding ``DebateArt/motion``) or its
    ``DebateArt`` folder (holding ``motion/``), rather than a folder of match files."""
    return (path / "motion").is_dir() or (path / "DebateArt" / "motion").is_dir()


def file_sha256(path: Path) -> str:
    """SHA-256 hex digest of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def dataset_hash(file_hashes: dict[str, str]) -> str:
    """SHA-256 of the sorted ``name<TAB>hash`` lines of ``file_hashes``."""
    text = "".join(f"{name}\t{h}\n" for name, h in sorted(file_hashes.items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def match_files(folder: Path) -> list[Path]:
    """The ``*.json`` files directly in ``folder``, sorted by name. Raises InputError when the folder
    is missing or holds none."""
    if not folder.exists():
        raise InputError(f"{folder}: no such folder", "give a folder of match .json files or the PanelBench folder")
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder", "give a folder of match .json files (use `adjudicate FILE` for one match)")
    files = sorted(p for p in folder.glob("*.json") if p.is_file() and not p.name.startswith("."))
    if not files:
        raise InputError(f"{folder}: no match .json files", "convert upstream data first (adjudicate convert panelbench DIR --out OUTDIR) or give the PanelBench folder")
    return files


def load_folder(folder: Path, *, kind: str = "match-folder", source: Path | None = None) -> Dataset:
    """Load and validate every match file of ``folder`` (see module docstring).

    Raises InputError naming the file for an invalid match, and for two files with the same
    ``match_id`` (or ids that map to the same result-file name)."""
    samples: list[Sample] = []
    seen_ids: dict[str, Path] = {}
    seen_stems: dict[str, str] = {}
    hashes: dict[str, str] = {}
    for path in match_files(folder):
        match = load_match(path)
        if match.match_id in seen_ids:
            raise InputError(f"{path}: match_id {match.match_id!r} is also used by {seen_ids[match.match_id].name}", "give every match a unique match_id")
        stem = safe_file_stem(match.match_id)
        if stem in seen_stems:
            raise InputError(f"{path}: match_id {match.match_id!r} and {seen_stems[stem]!r} give the same result file name", "rename one of them")
        seen_ids[match.match_id] = path
        seen_stems[stem] = match.match_id
        digest = file_sha256(path)
        hashes[path.name] = digest
        samples.append(Sample(match.match_id, match, path, digest, stem))
    return Dataset(samples, folder, dataset_hash(hashes), kind, source or folder, hashes)


def load_dataset(path: str | Path, *, convert_into: Path | None = None, reuse: bool = False, label_convention: str | None = None) -> Dataset:
    """Load a benchmark dataset (module docstring). ``convert_into`` is where upstream PanelBench is
    converted; it is required for upstream input. With ``reuse`` (a resumed run) an existing
    converted copy in ``convert_into`` is read as it is. ``label_convention`` (upstream PanelBench
    only; default the converter's) says how upstream labels map to winners, see
    :mod:`adjudicator.input.convert.debateart`. Raises InputError for a missing or invalid dataset, and for a label
    convention given with a folder of match files."""
    src = Path(path)
    if src.is_dir() and is_upstream_panelbench(src):
        from adjudicator.input.convert.debateart import DEFAULT_LABEL_CONVENTION, convert_panelbench

        if convert_into is None:
            raise InputError(f"{src}: upstream PanelBench needs converting first", "run adjudicate convert panelbench DIR --out OUTDIR")
        convention = label_convention or DEFAULT_LABEL_CONVENTION
        if not (reuse and convert_into.is_dir() and any(convert_into.glob("*.json"))):
            convert_panelbench(src, convert_into, label_convention=convention, parts=("DebateArt",))
        ds = load_folder(convert_into, kind="panelbench", source=src)
        return Dataset(ds.samples, ds.folder, ds.sha256, ds.kind, ds.source, ds.file_hashes, convention)
    if label_convention is not None:
        raise InputError("--label-convention: applies only to the upstream PanelBench folder", "match files already carry their outcomes; drop the option")
    return load_folder(src, kind="match-folder", source=src)

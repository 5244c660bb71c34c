"""The run manifest: everything that defines a benchmark run, written once before the first model call.

``manifest.json`` holds the run id and name, the command line, the resolved model configuration with
every credential-like field removed, the arms and the models behind them, prompt hashes (per backend
and of every template file), the dataset description and hash, package versions, the git commit
(when the package runs from a git checkout) and the seeds. A resumed run checks that the dataset
hash, the arms and the model configuration still match, so one run folder never mixes conditions.

A resumed run keeps the manifest's ``limit`` and ``seeds`` unless the user passes them again: a
different seed is refused; a larger ``--limit`` grows the run, and the manifest is then rewritten
with the new limit and an entry in ``amendments`` (``{"session", "at", "field", "from", "to"}``), the
only change ever made to a written manifest.
"""

from __future__ import annotations

import dataclasses
import hashlib
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import Field

from adjudicator import __version__
from adjudicator.bench.layout import MANIFEST
from adjudicator.errors import InputError
from adjudicator.files import atomic_write_json, read_json
from adjudicator.frozen import FrozenModel
from adjudicator.model.cache import CREDENTIAL_FIELDS

MANIFEST_SCHEMA = 1

#: Packages whose versions are recorded.
PACKAGES = ("adjudicator", "langgraph", "langchain-core", "litellm", "pydantic", "numpy", "scipy", "diskcache", "matplotlib", "click")

#: Configuration fields that do not change what a model answers (where the cache lives, time-outs,
#: how often and how patiently a failed connection is retried); a resumed run may change them.
OPERATIONAL_FIELDS = frozenset({"no_cache", "cache_dir", "timeout_s", "cache", "config_file", "transport_retries", "backoff_base_s", "max_concurrent_requests"})

_SECRET_WORDS = ("key", "secret", "token", "password", "authorization", "credential")
#: Field names that contain a secret word but hold a count, not a credential (kept in the manifest).
_NOT_SECRET = frozenset({"max_tokens", "prompt_tokens", "completion_tokens"})


class Manifest(FrozenModel):
    """The manifest (see module docstring). ``config`` is the redacted resolved configuration;
    ``models`` arm -> role -> model name; ``prompt_hashes`` arm -> template name -> hash;
    ``prompt_files`` file name -> SHA-256 of every file under ``prompts/``; ``seeds`` name -> int;
    ``limit`` the first N samples (None: all), the current value when a resume raised it;
    ``amendments`` every change made after the run started (see module docstring), oldest first;
    ``fold`` the fold a ``--fold K`` run selects (:func:`adjudicator.bench.splits.choose_fold`: fold,
    folds, seed, splits file, its test and train file names), None for the whole dataset;
    ``parent`` the run a ``--rejudge`` run reuses the tracker outputs of (run id, folder, manifest
    SHA-256, tracker model; :mod:`adjudicator.bench.rejudge`), None for an ordinary run."""

    schema_version: int = MANIFEST_SCHEMA
    run_id: str
    name: str
    created_at: str
    command: list[str]
    arms: list[str]
    config: dict[str, Any]
    models: dict[str, dict[str, str]] = Field(default_factory=dict)
    is_llm: dict[str, bool] = Field(default_factory=dict)
    prompt_hashes: dict[str, dict[str, str]] = Field(default_factory=dict)
    prompt_files: dict[str, str] = Field(default_factory=dict)
    dataset: dict[str, Any]
    limit: int | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    seeds: dict[str, int] = Field(default_factory=dict)
    packages: dict[str, str] = Field(default_factory=dict)
    python: str = ""
    platform: str = ""
    git: dict[str, Any] | None = None
    amendments: list[dict[str, Any]] = Field(default_factory=list)
    fold: dict[str, Any] | None = None
    parent: dict[str, Any] | None = None


def _is_secret(name: str) -> bool:
    low = name.lower()
    if low in _NOT_SECRET:
        return False
    return low in CREDENTIAL_FIELDS or any(w in low for w in _SECRET_WORDS)


def redact(value: Any) -> Any:
    """``value`` with every credential-like field removed at any depth (names in
    :data:`adjudicator.model.cache.CREDENTIAL_FIELDS` or containing key/secret/token/password), and paths and
    other non-JSON values turned into strings. Token counts such as ``max_tokens`` are kept."""
    if isinstance(value, dict):
        return {str(k): redact(v) for k, v in value.items() if not _is_secret(str(k))}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [redact(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def config_dict(config: Any) -> dict[str, Any]:
    """The model configuration as a redacted JSON-ready dict (pydantic model, dataclass or mapping)."""
    if config is None:
        return {}
    if hasattr(config, "model_dump"):
        try:
            raw = config.model_dump(mode="json")
        except Exception:  # a field that JSON cannot encode
            raw = config.model_dump()
    elif dataclasses.is_dataclass(config) and not isinstance(config, type):
        raw = dataclasses.asdict(config)
    elif isinstance(config, dict):
        raw = dict(config)
    else:
        raw = {k: v for k, v in vars(config).items() if not k.startswith("_")}
    return redact(raw)


def identity(config: dict[str, Any]) -> dict[str, Any]:
    """The part of a redacted configuration that shapes model answers (operational fields removed)."""
    return {k: v for k, v in config.items() if k not in OPERATIONAL_FIELDS}


def package_versions() -> dict[str, str]:
    """Installed versions of :data:`PACKAGES` (``"not installed"`` when absent)."""
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = __version__ if name == "adjudicator" else "not installed"
    return out


def repo_root() -> Path:
    """The folder above the ``adjudicator`` package (the repository root in a checkout)."""
    return Path(__file__).resolve().parents[2]


def git_info(root: Path | None = None) -> dict[str, Any] | None:
    """``{"commit", "dirty"}`` of the checkout the package runs from, or None outside git.
    Runs read-only git commands with a short time-out."""
    root = root or repo_root()
    if not (root / ".git").exists():
        return None
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        if commit.returncode != 0:
            return None
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True, timeout=5)
        return {"commit": commit.stdout.strip(), "dirty": bool(status.stdout.strip()) if status.returncode == 0 else None}
    except (OSError, subprocess.SubprocessError):
        return None


def prompt_file_hashes(root: Path | None = None) -> dict[str, str]:
    """SHA-256 of every file under the repository's ``prompts/`` folder, by relative path (empty when
    the folder is not there, e.g. an installed wheel: backends then report their own hashes)."""
    folder = (root or repo_root()) / "prompts"
    if not folder.is_dir():
        return {}
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def runtime_description() -> tuple[str, str]:
    """``(python version, platform)``."""
    return sys.version.split()[0], platform.platform()


def write_manifest(run_dir: Path, manifest: Manifest) -> Path:
    """Write ``run_dir/manifest.json`` atomically and return its path."""
    path = run_dir / MANIFEST
    atomic_write_json(path, manifest.model_dump(mode="json"))
    return path


def read_manifest(run_dir: Path) -> Manifest:
    """Read a run's manifest. Raises InputError when it is missing (a folder that is not a run, or a
    run that died before writing it) or malformed."""
    path = run_dir / MANIFEST
    if not path.exists():
        raise InputError(f"{run_dir}: no manifest.json, so this is not a benchmark run folder", "start a new run without --resume")
    try:
        return Manifest.model_validate(read_json(path))
    except ValueError as exc:
        raise InputError(f"{path}: not a benchmark manifest ({str(exc).splitlines()[0]})") from None


def first_difference(a: dict[str, Any], b: dict[str, Any]) -> str | None:
    """The first top-level key whose value differs between two dicts, or None."""
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            return k
    return None


def adopt_manifest_config(config: Any, recorded: dict[str, Any], explicit: frozenset[str] | set[str] | None) -> tuple[Any, dict[str, dict[str, Any]]]:
    """The model configuration of a resumed run: ``config`` (a pydantic model, e.g.
    :class:`adjudicator.config.ModelConfig`, resolved from this invocation's flags, environment and
    config file) with every answer-shaping field (:func:`identity`) that was *not* given explicitly
    replaced by the manifest's value ``recorded``, so ``--resume`` with no model option continues
    under the run's own model, API base, judges and JSON mode. Fields in ``explicit`` (the command-line
    options given) are left alone, so that a different explicit value is refused by the caller;
    ``explicit`` None means every field is explicit (nothing is adopted). Operational fields (cache,
    time-out, transport retries) always come from this invocation; credentials are never in the
    manifest and keep coming from the environment.

    Returns ``(config, adopted)``: ``adopted`` maps each field whose value changed to
    ``{"from": this invocation's value, "to": the manifest's}``. Raises InputError when the
    manifest's values do not validate (a hand-edited manifest)."""
    if explicit is None or config is None or not hasattr(config, "model_dump"):
        return config, {}
    fields = set(type(config).model_fields)
    now = config_dict(config)
    adopted: dict[str, dict[str, Any]] = {}
    for key, value in identity(recorded).items():
        if key in explicit or key not in fields or now.get(key) == value:
            continue
        adopted[key] = {"from": now.get(key), "to": value}
    if not adopted:
        return config, {}
    from pydantic import ValidationError

    try:
        merged = type(config).model_validate({**config.model_dump(), **{k: v["to"] for k, v in adopted.items()}})
    except ValidationError as exc:
        err = exc.errors()[0]
        raise InputError(f"manifest.json: config.{err['loc'][0] if err.get('loc') else '?'} is invalid ({err.get('msg', 'invalid')})", "give the model options explicitly, or start a new run") from None
    return merged, adopted

"""The per-sample result cache: a benchmark sample whose every model answer is in the response cache
is not run again when nothing that determines its result has changed; its stored outcome is written
as the result file the rerun would have written.

Why it is correct by construction. The entry's key (:func:`sample_key`) is a hash of everything a
sample's result depends on:

- the code: every file of the ``adjudicator`` package and of the prompts folder, byte for byte
  (:func:`code_fingerprint`; about 15 ms once per process), the Python version and every installed
  distribution's name and version (langgraph, litellm, pydantic, ... as the ``*.dist-info`` folders
  in the interpreter's package folders name them);
- the settings: the whole model configuration the sample runs with (``ModelConfig.model_dump``:
  every field, so a setting added later is covered without listing it here), with the content of a
  rubric file and of an evidence folder when those name files;
- the input: the arm and the SHA-256 of the match file.

The entry also lists every response-cache entry the sample looked up (:class:`~adjudicator.model.cache.JournaledCache`)
with a digest of its content, and is trusted only while each of them is still there, unchanged
(:func:`~adjudicator.model.cache.entries_unchanged`): an evicted or rewritten response means the
sample is run again. Only a sample that finished ``ok`` and whose every lookup is now in the cache is
stored, i.e. one a rerun would answer wholly from the cache with no request. Its call records are
stored as that rerun records them (:func:`as_cache_hit`: ``cache_hit`` true, no transport retry, and
a latency of 0, since nothing was read per call), so the result file, its usage (0 requests, the same
tokens, no cost billed) and the verdict are what a cached rerun writes, except for wall-clock fields
(``started_at``, ``finished_at``, ``elapsed_s``, each call's ``latency_s`` and their sum), which no
two runs share. ``tests/test_bench_result_cache.py`` checks that against a run with the result cache
off.

Entries live in the response cache's folder (:mod:`adjudicator.model.cache`, the one diskcache
owner), so ``--no-cache`` bypasses them and deleting the folder clears them; ``bench
--no-result-cache`` bypasses only them (every sample is run, its answers still come from the response
cache). The offline judge's samples and a re-judge run's (whose tracker outputs come from another
run's files) are never stored: they run as before.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path
from typing import Any

from pydantic import Field

from adjudicator.bench.prompt_store import texts_of
from adjudicator.frozen import FrozenModel
from adjudicator.model.cache import RESULT_PREFIX, EntryKind, entries_unchanged, request_key
from adjudicator.records import CallRecord, NodeFailure
from adjudicator.verdict.battlefield import StageAnalysis

#: Bumped when what an entry holds or means changes.
RESULT_CACHE_VERSION = 2  # 2: the messages' texts (prompts) are stored with the outcome


class StoredOutcome(FrozenModel):
    """One stored sample outcome: the verdict as JSON, its call records as a cached rerun records
    them, the failures (empty: only ``ok`` samples are stored), the tracker's analyses,
    ``entries``, the ``(kind, key, digest)`` of every response-cache entry it looked up (digest None:
    absent, such as the JSON-schema rejection marker of a server that never rejected one), and
    ``prompts``, the texts of the calls' messages by SHA-256 (a run folder stores them apart:
    :mod:`adjudicator.bench.prompt_store`)."""

    verdict: dict[str, Any]
    calls: list[CallRecord]
    failures: list[NodeFailure] = Field(default_factory=list)
    analyses: list[StageAnalysis] = Field(default_factory=list)
    entries: list[tuple[EntryKind, str, str | None]]
    prompts: dict[str, str] = Field(default_factory=dict)

    def calls_with_texts(self) -> list[CallRecord]:
        """The call records with their messages' texts in memory again (from ``prompts``)."""
        out = []
        for c in self.calls:
            refs = [m.model_copy(update={"text": self.prompts.get(m.sha256)}) for m in c.messages]
            out.append(c.model_copy(update={"messages": refs}) if refs else c)
        return out


def _hash_tree(h: Any, root: Path) -> None:
    """Feed every file under ``root`` (relative path and bytes, in path order) into ``h``;
    ``__pycache__`` folders are left out."""
    if not root.is_dir():
        h.update(f"missing {root}\0".encode())
        return
    for p in sorted(root.rglob("*")):
        if "__pycache__" in p.parts or not p.is_file():
            continue
        h.update(str(p.relative_to(root)).encode("utf-8") + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())


def installed_distributions() -> list[str]:
    """Names of the ``*.dist-info`` / ``*.egg-info`` entries in the interpreter's package folders
    (its ``purelib`` and ``platlib`` and every ``site-packages`` / ``dist-packages`` folder on
    ``sys.path``): name and version of every installed distribution, e.g.
    ``langgraph-1.0.1.dist-info``, sorted. The working folder is never looked at, so the list does not
    depend on where the command runs."""
    import sysconfig

    paths = sysconfig.get_paths()
    folders = {paths["purelib"], paths["platlib"], *(p for p in sys.path if p.rstrip("/").endswith(("site-packages", "dist-packages")))}
    names: set[str] = set()
    for folder in sorted(folders):
        try:
            names.update(n for n in os.listdir(folder) if n.endswith((".dist-info", ".egg-info")))
        except OSError:
            continue
    return sorted(names)


@functools.cache
def code_fingerprint() -> str:
    """SHA-256 (64 hex digits) of the code a sample's result depends on: the ``adjudicator``
    package's files and the prompts folder (:func:`adjudicator.model.prompts.prompts_dir`), the
    Python version and :func:`installed_distributions`. Computed once per process (about 15 ms)."""
    import adjudicator
    from adjudicator.model.prompts import prompts_dir

    h = hashlib.sha256(f"python {sys.version}\0".encode())
    _hash_tree(h, Path(adjudicator.__file__).resolve().parent)
    h.update(b"prompts\0")
    _hash_tree(h, prompts_dir())
    h.update("\n".join(installed_distributions()).encode("utf-8"))
    return h.hexdigest()


def _named_files(config: Any) -> dict[str, str] | None:
    """Digests of the files a setting names: a rubric file (a preset is code, already hashed) and an
    evidence folder or file. None when one cannot be read (the sample is then not cached)."""
    out: dict[str, str] = {}
    try:
        rubric = getattr(config, "rubric", None)
        if rubric and Path(rubric).expanduser().is_file():
            out["rubric"] = hashlib.sha256(Path(rubric).expanduser().read_bytes()).hexdigest()
        evidence = getattr(config, "evidence", None)
        if evidence and evidence != "transcript":
            path = Path(evidence).expanduser()
            h = hashlib.sha256()
            if path.is_file():
                h.update(path.read_bytes())
            else:
                _hash_tree(h, path)
            out["evidence"] = h.hexdigest()
    except OSError:
        return None
    return out


def eligible(config: Any, arm: str) -> bool:
    """Whether a sample of ``arm`` under ``config`` may use the result cache: the response cache is
    on (no ``--no-cache``) and the arm calls a language model (the single-call arm always does; the
    agentic arm unless every role is the offline judge)."""
    if getattr(config, "no_cache", True):
        return False
    return arm == "single-call" or not config.is_offline


def sample_key(config: Any, arm: str, sample_sha256: str) -> str | None:
    """The result-cache key of one sample (:data:`~adjudicator.model.cache.RESULT_PREFIX` + the
    response cache's hash of the description in the module docstring), or None when the sample may
    not use the result cache (:func:`eligible`) or a file a setting names cannot be read."""
    if not eligible(config, arm):
        return None
    files = _named_files(config)
    if files is None:
        return None
    description = {
        "result_cache": RESULT_CACHE_VERSION,
        "code": code_fingerprint(),
        "settings": config.model_dump(mode="json"),
        "api_bases": _api_bases(config),
        "files": files,
        "arm": arm,
        "sample_sha256": sample_sha256,
    }
    return RESULT_PREFIX + request_key(description)


def as_cache_hit(call: CallRecord) -> CallRecord:
    """``call`` as a rerun answered from the response cache records it
    (:meth:`adjudicator.model.llm.LLMClient.complete`'s hit path, then the attempts runner): a cache
    hit, no transport retry, latency 0 (nothing is read per call); tokens, cost, raw output, parse
    stage and the rest are the stored answer's, i.e. unchanged."""
    return call.model_copy(update={"cache_hit": True, "transport_retries": 0, "latency_s": 0.0})


def lookup(store: Any, key: str) -> StoredOutcome | None:
    """The stored outcome under ``key`` when there is one and every response entry it used is still
    in ``store`` unchanged; else None (the sample is run)."""
    text = store.get_result(key)
    if text is None:
        return None
    try:
        stored = StoredOutcome.model_validate_json(text)
    except ValueError:
        return None
    if not entries_unchanged(store, stored.entries):
        return None
    return stored.model_copy(update={"calls": stored.calls_with_texts()})


def absence_markers(config: Any) -> frozenset[str]:
    """Cache keys a sample of ``config`` looks up whose absence is an answer too: the JSON-schema
    rejection marker of each of its models (:func:`adjudicator.model.structured_output.schema_rejection_key`)."""
    from adjudicator.model.structured_output import schema_rejection_key

    return frozenset(schema_rejection_key(m, base) for m, base in _api_bases(config).items())


def _api_bases(config: Any) -> dict[str, str | None]:
    """Each model of ``config`` -> the API base its requests go to (the setting, else a base URL the
    environment sets for its provider: :func:`adjudicator.model.preflight.effective_api_base`), so a
    result stored from one server is never answered for another."""
    from adjudicator.model.preflight import effective_api_base

    models = {config.model, config.tracker, *config.judges().values()} - {None}
    return {m: effective_api_base(config.api_base, m) for m in sorted(models) if m}


def remember(store: Any, key: str, result: Any, config: Any) -> bool:
    """Store ``result`` (a :class:`~adjudicator.bench.results.SampleResult` of ``config``) under
    ``key`` when it is ``ok`` and ``store`` (the sample's :class:`~adjudicator.model.cache.JournaledCache`)
    holds every entry the sample looked up, absence markers (:func:`absence_markers`) apart: then a
    rerun would answer every call from the response cache and send nothing. A sample whose server
    rejected a JSON schema is not stored (its rejected request's entry stays absent). Returns whether
    it was stored."""
    if result.status != "ok" or result.verdict is None or not store.complete(absence_markers(config)):
        return False
    outcome = StoredOutcome(
        verdict=result.verdict,
        calls=[as_cache_hit(c) for c in result.calls],
        failures=list(result.failures),
        analyses=list(result.analyses),
        entries=store.entries(),
        prompts=texts_of(result.calls),
    )
    store.set_result(key, outcome.model_dump_json())
    return True

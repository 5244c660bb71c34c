"""One result file per (sample, arm): the verdict, every call record with every raw output of every
attempt, the failures, usage, and timing.

``results/<arm>/<sample stem>.json`` holds a :class:`SampleResult`. ``status`` is ``"ok"`` when the
arm produced a verdict with no failed node or task, ``"partial"`` when it produced a verdict but some
nodes or protocol instances failed after their attempts (listed in ``failures`` and the verdict's
``tasks``; their instances are excluded from the metrics), and ``"failed"`` when it produced no
verdict or a verdict without a single value; a failed sample keeps the call records and raw outputs
it got before failing. ``--retry-errors`` reruns partial and failed samples (the successful calls of
a partial sample come back from the response cache at no cost). Result files are written atomically,
so a file that exists is complete: a resumed run trusts it and never redoes or re-bills it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from adjudicator.bench.layout import RESULTS, SUPERSEDED
from adjudicator.files import atomic_write_json, read_json
from adjudicator.frozen import FrozenModel
from adjudicator.records import CallRecord, NodeFailure, Usage
from adjudicator.verdict.battlefield import StageAnalysis

RESULT_SCHEMA = 1

SampleStatus = Literal["ok", "partial", "failed"]


class SampleResult(FrozenModel):
    """The outcome of one arm on one sample.

    - ``verdict``: the verdict as JSON (``Verdict.model_dump(mode="json")``), None when failed.
    - ``calls``: every :class:`CallRecord` of the sample (all attempts, raw outputs included);
      ``failures``: every node that failed after its attempts.
    - ``analyses``: the agentic arm's tracker outputs, one
      :class:`~adjudicator.verdict.battlefield.StageAnalysis` per analysed stage in stage order (what the
      judges read; ``bench --rejudge`` reuses them); empty for the other arms and in result files
      written before they were stored.
    - ``error`` / ``error_type``: why the sample failed (one line), None when ok; ``traceback`` only
      for an unexpected exception (a bug, not a model fault).
    - ``usage``: the calls summed (requests, cache hits, tokens, cost_usd).
    - ``session``: the invocation (1 = first run, 2 = first resume, ...) that produced the file;
      ``superseded``: relative paths of earlier failed results this one replaced (--retry-errors).
    - ``elapsed_s``: wall-clock seconds of the sample; ``started_at``/``finished_at`` ISO UTC.
    """

    schema_version: int = RESULT_SCHEMA
    sample_id: str
    arm: str
    sample_sha256: str
    status: SampleStatus
    error: str | None = None
    error_type: str | None = None
    traceback: str | None = None
    verdict: dict[str, Any] | None = None
    calls: list[CallRecord] = Field(default_factory=list)
    failures: list[NodeFailure] = Field(default_factory=list)
    analyses: list[StageAnalysis] = Field(default_factory=list)
    usage: Usage = Field(default_factory=lambda: Usage.model_validate({}))
    session: int = 1
    superseded: list[str] = Field(default_factory=list)
    started_at: str = ""
    finished_at: str = ""
    elapsed_s: float = 0.0


def result_path(run_dir: Path, arm: str, stem: str) -> Path:
    """``run_dir/results/<arm>/<stem>.json``."""
    return run_dir / RESULTS / arm / f"{stem}.json"


def superseded_dir(run_dir: Path, arm: str) -> Path:
    """``run_dir/results/<arm>/superseded``: failed results replaced by ``--retry-errors``."""
    return run_dir / RESULTS / arm / SUPERSEDED


def write_result(path: Path, result: SampleResult) -> None:
    """Write ``result`` atomically (every call record included, raw outputs and all)."""
    atomic_write_json(path, result.model_dump(mode="json"))


def read_result(path: Path) -> SampleResult | None:
    """The result stored at ``path``, or None when there is none. A file that does not validate
    raises InputError naming it (it was written atomically, so it was edited by hand)."""
    if not path.exists():
        return None
    from pydantic import ValidationError

    from adjudicator.errors import InputError

    data = read_json(path)
    try:
        return SampleResult.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"{path}: not a sample result ({exc.errors()[0].get('msg', 'invalid')})", "delete the file to rerun that sample") from None


def first_failure(failures: list[NodeFailure]) -> NodeFailure | None:
    """The node failure that says why a sample failed (failures are sorted by node and key, so a
    judge's derived "no stage analysis succeeded" can come before the tracker call that caused it):
    the first ``transport``/``refused`` one, else the first one of a model that answered unusably
    (:attr:`~adjudicator.records.FailureKind.answered`: ``unparseable``, ``truncated``, ``copied_example``, ``repeated_repair``), else
    the first; None when there is no failure."""
    for wanted in (lambda k: k.unreachable, lambda k: k.answered):
        for f in failures:
            if wanted(f.kind):
                return f
    return failures[0] if failures else None


def first_cause(failures: list[NodeFailure]) -> str | None:
    """The reason of :func:`first_failure`, None when there is no failure."""
    f = first_failure(failures)
    return None if f is None else f.reason


def is_unreachable(result: SampleResult) -> bool:
    """True when ``result`` failed without the model ever answering: status ``failed``, at least one
    ``transport``/``refused`` node failure, no ``unparseable`` or ``truncated`` one, and no call record holding a
    model output (a cache hit or a received reply). Such a sample says nothing about the model, only
    that its server could not be used (see the unreachable-server stop in stops.py)."""
    if result.status != "failed":
        return False
    if not any(f.kind.unreachable for f in result.failures):
        return False
    if any(f.kind.answered for f in result.failures):
        return False
    return not any(c.raw_output is not None or c.cache_hit for c in result.calls if c.parse != "native")

"""Golden outputs: what the redesign (and any change meant to be invisible) must leave unchanged.

- the full verdict JSON of every bundled match with the offline judge;
- every stage analysis the offline tracker writes for every bundled match, walking the match one stage
  at a time as the tracking graph does (first recorded as SHA-256 hashes with the tracker that re-read
  the whole debate at every stage, before it kept running counts; recorded as JSON, so that numbers can
  compare within a tolerance, at a commit where every hash still matched);
- the verdict JSON of two bundled matches (one English, one Chinese) adjudicated through the loopback
  OpenAI-compatible server, plus the SHA-256 of every request's messages and response format, so a
  changed prompt or schema shows up even when the scripted answers hide it (text a model reads is
  behaviour, so those hashes stay exact);
- the benchmark ``report.json`` over the bundled synthetic CCDB set with the offline judge, with the
  fields that record when, where and how fast it ran (run id, creation time, latency, elapsed time,
  commit, installed versions, the checkout's path) blanked.

A JSON golden is parsed and compared by ``golden_compare``: numbers within a relative 1e-9 (another
numpy or BLAS may sum in another order and move the last bits of a float; a real change moves far
more), strings, keys and structure exactly. Other goldens compare as text. The recorded files live in
``tests/golden/``. To re-record after a deliberate, explained change, run
``UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from golden_compare import assert_json_matches

from adjudicator.cli import main

GOLDEN = Path(__file__).resolve().parent / "golden"
MATCHES = Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches"
BUNDLED = sorted(MATCHES.glob("*/*.json"))
LOOPBACK = ["panelbench/debateart_4389.json", "synthetic/synthetic_2v2_01.json"]
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
#: report.json fields that say when, where and how fast a run went (and with which installed versions
#: and commit), not what it found.
VOLATILE = frozenset({"run_id", "created_at", "latency_s", "elapsed_s", "git", "packages"})
REPO = str(Path(__file__).resolve().parents[1])


def check(name: str, text: str) -> None:
    """Compare ``text`` with the recorded ``tests/golden/<name>`` (or record it when updating): a ``.json``
    golden as JSON within :mod:`golden_compare`'s tolerance, any other exactly as text."""
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.is_file(), f"no golden file {name}; record it with UPDATE_GOLDEN=1"
    recorded = path.read_text(encoding="utf-8")
    if name.endswith(".json"):
        assert_json_matches(text, recorded, name)
    else:
        assert text == recorded, f"{name} differs from the recorded golden output"


def blank_volatile(value):
    """``value`` (decoded JSON) with every :data:`VOLATILE` field replaced by ``"<volatile>"``."""
    if isinstance(value, dict):
        return {k: ("<volatile>" if k in VOLATILE else blank_volatile(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [blank_volatile(v) for v in value]
    if isinstance(value, str):
        return value.replace(REPO, "<repo>")
    return value


def sha(value) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()[:16]


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_offline_verdict_of_every_bundled_match_is_unchanged(path, tmp_path, capsys):
    out = tmp_path / "v.json"
    assert main([str(path), "--out", str(out)]) == 0
    capsys.readouterr()
    check(f"offline/{path.stem}.json", out.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_offline_stage_analyses_of_every_bundled_match_are_unchanged(path):
    from adjudicator.input.match_file import load_match
    from adjudicator.judges.base import StageRequest
    from adjudicator.judges.offline import OfflineBackend
    from adjudicator.verdict.battlefield import apply_clash_updates, merge_clashes

    view = load_match(path).view()
    backend = OfflineBackend()
    clashes: dict = {}
    records = []
    for i, stage in enumerate(view.stages):
        result = backend.analyse_stage(StageRequest(match=view, stage=stage, index=i, previous=list(view.stages[:i]), clashes=clashes, analyses=[]))
        assert result.value is not None, result.failure
        clashes = merge_clashes(clashes, apply_clash_updates(clashes, stage.stage_id, result.value.clash_updates))
        records.append({"stage_id": stage.stage_id, "analysis": result.value.model_dump(mode="json")})
    check(f"offline/{path.stem}.analyses.json", json.dumps(records, ensure_ascii=False, indent=1) + "\n")


@pytest.mark.parametrize("rel", LOOPBACK, ids=lambda r: Path(r).stem)
def test_loopback_verdict_and_requests_are_unchanged(rel, tmp_path, capsys):
    from fake_openai import FakeOpenAI
    from llm_helpers import schema_responder

    server = FakeOpenAI()
    try:
        server.respond_with(schema_responder)
        out = tmp_path / "v.json"
        code = main([str(MATCHES / rel), "--model", "openai/test-model", "--api-base", server.base_url, "--json-mode", "object",
                     "--no-cache", "--out", str(out)])
        capsys.readouterr()
        requests = sorted(f"{sha(r.get('messages'))} {sha(r.get('response_format'))}" for r in server.requests)
    finally:
        server.close()
    assert code == 0
    stem = Path(rel).stem
    check(f"loopback/{stem}.json", out.read_text(encoding="utf-8"))
    check(f"loopback/{stem}.requests.txt", "\n".join(requests) + "\n")


def test_bench_report_over_the_synthetic_set_is_unchanged(tmp_path, capsys):
    runs = tmp_path / "runs"
    assert main(["bench", str(MATCHES / "synthetic"), "--name", "golden", "--runs-dir", str(runs)]) == 0
    capsys.readouterr()
    (run,) = [p for p in runs.iterdir() if p.is_dir()]
    report = blank_volatile(json.loads((run / "report.json").read_text(encoding="utf-8")))
    check("bench/synthetic_report.json", json.dumps(report, ensure_ascii=False, indent=1, sort_keys=True) + "\n")

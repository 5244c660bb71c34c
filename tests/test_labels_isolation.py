"""Gold labels never reach a model input (issue 2; the design card: "Gold labels ... never reach a prompt").

Two proofs over every bundled match (real PanelBench and synthetic CCDB, every format):

1. Every prompt the code can build -- the clash tracker's for each stage, each judge's, and the
   single-call protocol's Task 1, every Task 2 instance and Task 3 -- is byte-identical whether the
   match carries labels or not, and contains none of the marker strings planted in the labels
   (rationales included; the copies are :func:`adjudicator.finetune.checks.planted_copy` and
   ``label_free_copy``, which ``finetune export`` applies to every file it writes).
   (Numbers such as gold scores cannot be searched for; identity of the prompts covers them.)
2. End to end through the real graph and the real litellm client against a loopback server, the
   request bodies of both arms contain no planted marker.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_openai import fake_openai  # noqa: F401  (pytest fixture)

from adjudicator.finetune.checks import MARKER, label_free_copy, planted_copy
from adjudicator.input.match import Match
from adjudicator.input.match_file import load_match
from adjudicator.input.rubric import Rubric, load_rubric
from adjudicator.judges.base import JUDGE_PERSPECTIVES, JudgeRequest, StageRequest
from adjudicator.judges.llm.backend import LLMBackend
from adjudicator.judges.offline import OfflineJudge
from adjudicator.model.cache import NullCache
from adjudicator.model.llm import LLMClient
from adjudicator.model.prompts import PromptStore
from adjudicator.single_call.tasks import task_instances
from adjudicator.verdict.battlefield import apply_clash_updates, merge_clashes

MATCHES = sorted((Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches").glob("*/*.json"))
# One source of the check: the export of training files applies the same copies to its files
# (adjudicator.finetune.checks, check inputs_label_free).
with_planted_labels = planted_copy
without_labels = label_free_copy


def every_prompt(match: Match, rubric: Rubric | None = None) -> list[str]:
    """Every request the code builds for ``match``, as JSON text: trackers (with a realistic ledger
    from the offline judge), the three judges, and all single-call task instances; under a
    dimensional ``rubric`` the dimensional tracker and judge prompts (with the offline ratings)."""
    store = PromptStore()
    backend = LLMBackend(LLMClient("openai/test-model", cache=NullCache()), store)
    offline = OfflineJudge()
    view = match.view()
    clashes: dict = {}
    analyses: list = []
    out: list[str] = []
    for i, stage in enumerate(view.stages):
        req = StageRequest(match=view, stage=stage, index=i, previous=view.stages[:i], clashes=clashes, analyses=analyses, rubric=rubric, evidence="transcript" if rubric else None)
        out.append(json.dumps(backend.stage_prompt(req).messages, ensure_ascii=False))
        analysis = offline.analyse_stage(req).value
        clashes = merge_clashes(clashes, apply_clash_updates(clashes, stage.stage_id, analysis.clash_updates))
        analyses = analyses + [analysis]
    for judge_id, perspective in JUDGE_PERSPECTIVES.items():
        jr = JudgeRequest(judge_id=judge_id, perspective=perspective, match=view, clashes=clashes, analyses=analyses, rubric=rubric)
        out.append(json.dumps(backend.judge_prompt(jr).messages, ensure_ascii=False))
    for inst in task_instances(view, store):
        out.append(json.dumps(inst.request.messages, ensure_ascii=False))
    return out


def test_every_bundled_format_is_covered():
    formats = {load_match(p).format for p in MATCHES}
    assert formats == {"ccdb-4v4", "ccdb-2v2", "online-1v1"}


@pytest.mark.parametrize("path", MATCHES, ids=[p.stem for p in MATCHES])
def test_prompts_are_identical_with_and_without_labels(path):
    planted = with_planted_labels(load_match(path))
    assert planted.labels is not None and "labels" not in planted.view().model_dump()
    with_l = every_prompt(planted)
    without = every_prompt(without_labels(planted))
    n_units = len(planted.view().scored_units())
    assert len(with_l) == len(planted.stages) + 3 + (n_units + 2)
    assert with_l == without
    assert not any(MARKER in p for p in with_l)


@pytest.mark.parametrize("rubric", ["debateart", "inspire"])
def test_dimensional_prompts_are_identical_with_and_without_labels(rubric):
    # a real DebateArt match: its labels carry the per-dimension audience outcomes the rubric is measured on
    path = next(p for p in MATCHES if p.stem == "debateart_4395")
    planted = with_planted_labels(load_match(path))
    assert planted.labels is not None and planted.labels.dimensions
    r = load_rubric(rubric)
    with_l = every_prompt(planted, r)
    assert with_l == every_prompt(without_labels(planted), r)
    assert not any(MARKER in p for p in with_l)
    assert sum('rubric' in p and r.name in p for p in with_l) >= len(planted.stages) + 3  # the dimensional templates were used


def test_requests_sent_by_both_arms_carry_no_label(fake_openai, tmp_path):
    from llm_helpers import schema_responder

    from adjudicator.api import adjudicate
    from adjudicator.config import resolve_config

    fake_openai.respond_with(schema_responder)
    config = resolve_config(model="openai/test-model", api_base=fake_openai.base_url, json_mode="schema", cache_dir=tmp_path / "cache", env={})
    for path in (MATCHES[0], next(p for p in MATCHES if "2v2" in p.stem)):
        planted = with_planted_labels(load_match(path))
        for arm in ("agentic", "single-call"):
            verdict = adjudicate(planted, config, arm=arm)
            assert verdict.p is not None and not verdict.failures
    assert fake_openai.count > 0
    bodies = json.dumps(fake_openai.requests, ensure_ascii=False)
    assert MARKER not in bodies

"""``--no-feedback`` (issue 39): no ballot asks for the coach's feedback, so the chair writes none and
no request carries its schema; the verdict has none and its provenance says so."""

from __future__ import annotations

import json

from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import online_match, request_schema, schema_responder

from adjudicator.api import adjudicate
from adjudicator.config import ModelConfig


def _run(server, **kw):
    server.respond_with(schema_responder)
    config = ModelConfig.resolve(model="openai/test-model", api_base=server.base_url, json_mode="schema", no_cache=True, env={}, **kw)
    return adjudicate(online_match(), config)


def _ballot_requests(server) -> list[dict]:
    return [b for b in server.requests if "stage_scores" in (request_schema(b) or {}).get("properties", {})]


def test_no_ballot_asks_for_feedback_and_the_verdict_has_none(fake_openai) -> None:  # noqa: F811
    asked = _run(fake_openai)
    assert asked.feedback and asked.provenance.feedback is None
    assert all("feedback" in request_schema(b)["properties"] for b in _ballot_requests(fake_openai))
    fake_openai.reset()
    v = _run(fake_openai, feedback=False)
    ballots = _ballot_requests(fake_openai)
    assert len(ballots) == 3
    assert all("feedback" not in request_schema(b)["properties"] for b in ballots)
    assert all("feedback" not in json.dumps(b["messages"]) for b in ballots)
    assert v.feedback == [] and all(not b.feedback for b in v.ballots)
    assert v.provenance.feedback is False and json.loads(v.model_dump_json())["provenance"]["feedback"] is False
    assert v.winner == asked.winner and v.stage_scores == asked.stage_scores


def test_the_setting_comes_from_the_flag_the_environment_and_a_config_file(tmp_path) -> None:
    assert ModelConfig.resolve(env={}).feedback is True
    assert ModelConfig.resolve(env={"ADJUDICATOR_FEEDBACK": "false"}).feedback is False
    cfg = tmp_path / "c.toml"
    cfg.write_text("feedback = false\n", encoding="utf-8")
    assert ModelConfig.resolve(config_file=cfg, env={}).feedback is False
    assert ModelConfig.resolve(feedback=True, config_file=cfg, env={}).feedback is True

"""Issue 38, session 5 item 4: what a run's records say beside stderr.

- The json-mode fallback: a server that refuses ``json_schema`` (llama-cpp-python's 500 naming
  response_format) is recognised once and the client sends the ``json_object`` form for the rest of the
  run. Before, only stderr said so; now the first call record after the fallback carries
  ``json_mode_fallback`` and the verdict's provenance lists it, and a cached rerun says it too.
- A ``dropped_field`` failure (an answer taken without fields still invalid after their repair) is no
  failed node: not in stderr's "N node(s) failed", not a partial bench sample, not a report's failed node.
"""

from __future__ import annotations

import json

from fake_openai import Reply, fake_openai  # noqa: F401 (fixture)
from llm_helpers import schema_responder

from adjudicator.bench.execute import _status
from adjudicator.cli import main
from adjudicator.records import FailureKind, NodeFailure
from adjudicator.verdict.aggregate import aggregate, provenance_of


def refusing_schema(body):
    if (body.get("response_format") or {}).get("type") == "json_schema":
        return Reply(content=None, status=400, error_message="response_format json_schema is not supported")
    return schema_responder(body)


def test_the_json_mode_fallback_is_written_into_the_call_records(fake_openai):
    from llm_helpers import online_match

    from adjudicator.api import adjudicate_with_context
    from adjudicator.judges.llm.backend import LLMBackend
    from adjudicator.model.llm import LLMClient
    from adjudicator.model.prompts import PromptStore
    from adjudicator.workflow.context import AdjudicationContext

    fake_openai.respond_with(refusing_schema)
    client = LLMClient("openai/test-model", api_base=fake_openai.base_url, api_key="sk-test-0123456789", json_mode="schema")
    verdict = adjudicate_with_context(online_match(), AdjudicationContext.single(LLMBackend(client, PromptStore())))
    noted = [c for c in verdict.calls if c.json_mode_fallback]
    assert [(c.node, c.key) for c in noted] == [("track_stage", "s1")]  # once, on the first reply after the refusal
    assert noted[0].json_mode_fallback.startswith("json_schema -> json_object: ") and "json_schema is not supported" in noted[0].json_mode_fallback
    assert verdict.provenance.json_mode_fallback == [noted[0].json_mode_fallback]
    assert [b.get("response_format", {}).get("type") for b in fake_openai.requests][:2] == ["json_schema", "json_object"]


def test_the_json_mode_fallback_is_in_the_verdicts_provenance_and_a_cached_rerun_says_it_too(fake_openai, tmp_path, capsys):
    from llm_helpers import online_match

    match = tmp_path / "m.json"
    match.write_text(online_match().model_dump_json())
    fake_openai.respond_with(refusing_schema)
    args = [str(match), "--model", "openai/test-model", "--api-base", fake_openai.base_url, "--json-mode", "schema", "--concurrency", "1", "--cache-dir", str(tmp_path / "c")]
    assert main([*args, "--out", str(tmp_path / "v.json")]) == 0
    said = json.loads((tmp_path / "v.json").read_text())["provenance"]["json_mode_fallback"]
    assert len(said) == 1 and said[0].startswith("json_schema -> json_object: ")
    sent = fake_openai.count
    assert main([*args, "--out", str(tmp_path / "again.json")]) == 0  # from the cache: no request, the same records
    assert fake_openai.count == sent
    assert json.loads((tmp_path / "again.json").read_text())["provenance"]["json_mode_fallback"] == said
    capsys.readouterr()


def test_a_dropped_field_is_no_failed_node_on_stderr_or_in_the_bench(capsys):
    from llm_helpers import online_match

    from adjudicator.cli.run import report_failures
    from adjudicator.verdict.ballots import Ballot, BallotScore

    view = online_match().view()
    dropped = NodeFailure(node="track_stage", key="s2", kind=FailureKind.DROPPED_FIELD, reason="dropped_field: answer taken without 1 field(s) still invalid after their repair: clash_updates (...)")
    ballots = [
        Ballot(judge_id=j, model="m", winner="affirmative", p=0.7, best_debater_votes={"Affirmative Speaker 1": 3},
               stage_scores=[BallotScore(stage_id=s.stage_id, side=s.sides[0], score=7) for s in view.stages])
        for j in ("judge-1", "judge-2")
    ]  # fmt: skip
    verdict = aggregate(view, ballots, {}, [dropped], [], provenance_of("agentic", "m", {}, True, {}, [], "t"))
    assert _status(verdict, [dropped], None, None) == ("ok", None, None)
    report_failures(verdict)
    err = capsys.readouterr().err
    assert "node(s) failed" not in err
    assert "1 answer(s) taken without fields still invalid after their repair (dropped_field; see failures): track_stage s2" in err
    failed = dropped.model_copy(update={"kind": FailureKind.UNPARSEABLE, "reason": "unparseable: x"})
    verdict = verdict.model_copy(update={"failures": [dropped, failed]})
    assert _status(verdict, [dropped, failed], None, None) == ("partial", "1 failed: track_stage s2", "PartialFailure")

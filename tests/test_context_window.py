"""--judge-evidence transcript on a model whose context window is too small: refused before any request.

litellm knows gpt-4's input window (8,192 tokens). The match's four speeches have 2,400 words each
("word " repeated: about one token a word), so a tracker's prompt (a stage and the one before it,
about 4,800 words, plus the instructions) fits, and a judge's prompt with the whole transcript
(9,600 words and more) does not.
"""

from __future__ import annotations

from pathlib import Path

from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import online_match, schema_responder

from adjudicator.api import run_agentic
from adjudicator.cli import main
from adjudicator.judges.base import JudgeRequest, StageRequest
from adjudicator.judges.llm.backend import LLMBackend
from adjudicator.judges.offline import OfflineJudge
from adjudicator.model.llm import LLMClient
from adjudicator.model.prompts import PromptStore
from adjudicator.records import FailureKind, Usage
from adjudicator.workflow.context import AdjudicationContext
from adjudicator.workflow.nodes import partial_verdict

LONG = online_match(texts=[f"Speech {i}: " + "word " * 2400 for i in range(1, 5)], match_id="long")


def _run(server, tmp_path: Path, capsys, mode: str) -> tuple[int, str, str]:
    server.respond_with(schema_responder)
    path = tmp_path / "long.json"
    path.write_text(LONG.model_dump_json(), encoding="utf-8")
    args = [str(path), "--model", "openai/gpt-4", "--api-base", server.base_url, "--json-mode", "schema", "--no-cache", "--judge-evidence", mode]
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_transcript_too_long_for_the_judges_window_is_bad_input_before_any_request(fake_openai, tmp_path: Path, capsys) -> None:  # noqa: F811
    code, out, err = _run(fake_openai, tmp_path, capsys, "transcript")
    assert code == 2 and out == ""
    assert fake_openai.count == 0  # not even the trackers ran
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err
    assert "--judge-evidence transcript" in lines[0] and "openai/gpt-4's context window of 8192" in lines[0]
    assert "use --judge-evidence quotes or --judge-evidence ledger" in lines[0]


def test_only_the_judges_transcript_prompt_overflows() -> None:
    # what the pre-check relies on: the tracker's prompts and a ledger judge's fit, a transcript judge's does not
    judge = LLMBackend(LLMClient("openai/gpt-4", api_base="http://127.0.0.1:9/v1", api_key="sk-test-0123456789"), PromptStore())
    view = LONG.view()
    tracker = judge.stage_prompt(StageRequest(match=view, stage=view.stages[1], index=1, previous=[view.stages[0]]))
    assert judge.client.overflow(tracker.messages) is None

    def judge_messages(mode: str):
        return judge.judge_prompt(JudgeRequest(judge_id="judge-1", perspective="task", match=view, clashes={}, analyses=[], judge_evidence=mode)).messages

    assert judge.client.overflow(judge_messages("ledger")) is None
    tokens, window = judge.client.overflow(judge_messages("transcript"))
    assert window == 8192 and tokens > 9600  # the four speeches alone are 9,600 words


def test_a_judge_refused_before_sending_is_no_request_and_no_parse_failure(fake_openai) -> None:  # noqa: F811
    # the bench's path (run_agentic, no pre-check): each judge's prompt is refused when its turn comes
    client = LLMClient("openai/gpt-4", api_base=fake_openai.base_url, api_key="sk-test-0123456789", json_mode="schema")
    judge = LLMBackend(client, PromptStore())
    ctx = AdjudicationContext(tracker=OfflineJudge(), judges={j: judge for j in ("judge-1", "judge-2", "judge-3")}, judge_evidence="transcript")
    events: list = []
    verdict, state = run_agentic(LONG, ctx, progress=events.append)
    assert verdict is None and fake_openai.count == 0
    # the judges' progress lines say why, and count no request (they said "(1 request)")
    judged = [e for e in events if e.kind == "judge"]
    assert [(e.ok, e.requests) for e in judged] == [(False, 0)] * 3 and all("prompt_too_long" in e.detail for e in judged)
    judges = [f for f in state["failures"] if f.node == "judge"]
    assert [f.kind for f in judges] == [FailureKind.PROMPT_TOO_LONG] * 3
    assert all(f.reason.startswith("prompt_too_long: the prompt has about") for f in judges)
    assert [c for c in state["calls"] if c.node == "judge"] == []  # nothing was sent, so nothing is recorded
    usage = Usage.of(list(state["calls"]))
    assert (usage.requests, usage.parse_failures) == (0, 0)
    assert partial_verdict(state, ctx).provenance.parse_failures == 0

"""The CCDB single-call zero-shot protocol: the comparison arm (``--arm single-call``).

Protocol (seed 001 section 02; paper section 3, Appendix A.5, prompts in the spirit of Appendix C):
independent model calls per task, nothing shared between them.

- Task 1 (winner tendency): one call with the format, motion and the complete transcript; the output
  is p in [0, 1] in steps of 0.01, p > 0.5 predicting the affirmative. An extracted p = 0.5 is kept as
  0.5: it is an *incorrect prediction*, not a parse failure (the verdict's winner is then None and
  the scorer counts it wrong).
- Task 2 (stage score): one call per (stage, evaluated side) (``MatchView.scored_units``), with the
  target stage, the *entire* preceding transcript as context (not scored), the evaluated side and its
  role, the judges' rubric (paper Table 5) and the side-specific rule of the paper's stage-scoring
  prompt for speeches, questioning / cross-examination (questioner or respondent), direct exchanges
  and free debate. Output: an integer 1-10.
- Task 3 (best debater): a separate call with the same input as Task 1 and no shared context;
  output: nine votes over the position labels.

Every instance uses the shared machinery of the agentic arm: templates from ``prompts/``
(``task1_winner``, ``task2_stage_score``, ``task3_best_debater``, ``.zh`` for ``ccdb-*`` and ``.en``
for ``online-1v1``) rendered by :class:`~adjudicator.model.prompts.PromptStore`, transcripts fenced so
their text cannot close the fence, :class:`~adjudicator.model.llm.LLMClient` (temperature 0, transport
retries, cache), :func:`~adjudicator.model.attempts.run_attempts` (up to three attempts, every raw output
kept) and :func:`~adjudicator.model.parsing.parse_output` (strict JSON, normalisation, field regexes).

Every request is built from the label-free :class:`~adjudicator.match.MatchView`, so gold labels
cannot reach a prompt; a request never contains another task's output.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from adjudicator import __version__
from adjudicator.aggregate import provenance_of, rank_votes
from adjudicator.formats import INTERACTION, Side, other_side, position_label_zh
from adjudicator.judges.base import NodeResult
from adjudicator.match import MatchView, Stage
from adjudicator.model.attempts import MAX_ATTEMPTS, run_attempts
from adjudicator.model.llm import ChatRequest, LLMClient
from adjudicator.model.parsing import (
    OutputInvalid,
    ParseResult,
    as_probability,
    as_score,
    as_votes,
    find_number,
    find_string,
    find_votes,
    parse_output,
)
from adjudicator.model.prompts import PromptStore, prompt_language, utterance_lines
from adjudicator.rubric import rubric_rows
from adjudicator.verdict import PANEL_VOTES, StageScore, TaskStatus, Verdict

TaskName = Literal["task1", "task2", "task3"]

TASK1_NODE = "task1"
TASK2_NODE = "task2"
TASK3_NODE = "task3"
#: Template stem of each task (``prompts/<stem>.<lang>.j2``).
TEMPLATES: dict[str, str] = {TASK1_NODE: "task1_winner", TASK2_NODE: "task2_stage_score", TASK3_NODE: "task3_best_debater"}
#: Unit key of the two match-level tasks (Task 2 keys are ``"<stage_id>|<side>"``).
MATCH_KEY = "match"
#: Default number of concurrent requests of one match (the instances are independent).
DEFAULT_CONCURRENCY = 4

#: Stage type -> (English, Chinese) wording for transcripts and prompts (paper 2.2.2, Appendix A.2).
STAGE_TYPE_TEXT: dict[str, tuple[str, str]] = {
    "constructive": ("constructive speech", "开篇立论"),
    "supplementary": ("supplementary speech", "申论"),
    "questioning": ("questioning", "质询"),
    "cross_examination": ("cross-examination", "盘问"),
    "summary": ("summary speech", "小结"),
    "head_to_head": ("head-to-head exchange", "对辩"),
    "free_debate": ("free debate", "自由辩论"),
    "closing": ("closing speech", "总结陈词"),
}

#: Format name -> a one-line description in the format's prompt language.
FORMAT_TEXT: dict[str, str] = {
    "ccdb-4v4": "华语辩论 4v4 赛制（每方四名辩手；立论、质询、对辩、盘问、小结、自由辩论、总结陈词共十四个环节）",
    "ccdb-2v2": "华语辩论 2v2 赛制（每方两名辩手；十二个固定环节，每方最多可发起一次奇袭）",
    "online-1v1": "one-on-one online debate: one debater a side, each posting alternating written speeches",
}

_ZH_SIDE = {"affirmative": "正方", "negative": "反方"}


def _t(language: str, pair: tuple[str, str]) -> str:
    return pair[1] if language == "zh" else pair[0]


def side_text(side: str, language: str) -> str:
    """``正方``/``反方`` in Chinese, ``the affirmative``/``the negative`` in English."""
    return _ZH_SIDE[side] if language == "zh" else f"the {side}"


def zh_position(label: str) -> str:
    """The Chinese name of a position label: ``"Affirmative Speaker 3"`` -> ``"正方三辩"``."""
    return position_label_zh(label) or label


def speaker_legend(view: MatchView, language: str) -> str:
    """The debaters' position labels as the transcript writes them, glossed in Chinese for ``zh``.
    Debater names are left out: debaters are identified by position only (paper Appendix C)."""
    labels = view.debater_labels()
    if language == "zh":
        return "，".join(f"{label} 即{zh_position(label)}" for label in labels)
    return ", ".join(labels) + " (Affirmative Speaker N speaks for the affirmative, Negative Speaker N for the negative)"


def stage_heading(stage: Stage, number: int, language: str) -> str:
    """One heading line for a stage in a transcript: its number, name, type and who acts.

    E.g. zh ``【第2环节】反方四辩质询正方一辩（质询；质询方：反方，答辩方：正方）``; en
    ``[Stage 2] Round 1, negative (Con) speech (constructive speech; speaking side: negative)``.
    """
    kind = _t(language, STAGE_TYPE_TEXT[stage.type])
    if stage.interaction == "monologue":
        who = f"发言方：{_ZH_SIDE[stage.sides[0]]}" if language == "zh" else f"speaking side: {stage.sides[0]}"
    elif stage.interaction == "asymmetric":
        q = stage.questioner or stage.sides[0]
        r = other_side(q)
        who = f"质询方：{_ZH_SIDE[q]}，答辩方：{_ZH_SIDE[r]}" if language == "zh" else f"questioning side: {q}, responding side: {r}"
    else:
        who = "双方轮流发言" if language == "zh" else "both sides, alternating turns"
    if stage.surprise:
        who += "，奇袭" if language == "zh" else ", surprise challenge"
    sep = "；" if language == "zh" else "; "
    if language == "zh":
        return f"【第{number}环节】{stage.name}（{kind}{sep}{who}）"
    return f"[Stage {number}] {stage.name} ({kind}{sep}{who})"


def transcript_text(stages: list[Stage], language: str, first_number: int = 1) -> str:
    """Stages as transcript text: a heading line per stage (:func:`stage_heading`, numbered from
    ``first_number``) followed by its utterances one per line (:func:`~adjudicator.model.prompts.utterance_lines`),
    stages separated by a blank line. Empty string for no stages. Not yet fenced (templates fence it)."""
    return "\n\n".join(f"{stage_heading(st, first_number + i, language)}\n{utterance_lines(st.utterances)}" for i, st in enumerate(stages))


def match_variables(view: MatchView) -> dict[str, Any]:
    """Template variables shared by the three tasks: format text, motion, positions, speaker legend
    and stage count. Built from the label-free view only."""
    lang = prompt_language(view.format)
    return {
        "format_text": FORMAT_TEXT.get(view.format, view.format),
        "motion": view.motion,
        "affirmative_position": view.affirmative_position,
        "negative_position": view.negative_position,
        "speaker_legend": speaker_legend(view, lang),
        "n_stages": len(view.stages),
    }


def template_name(task: str, language: str) -> str:
    """The template file of a task, e.g. ``task2_stage_score.zh.j2``."""
    return f"{TEMPLATES[task]}.{language}.j2"


def stage_rule(stage: Stage, side: Side) -> str:
    """The side-specific scoring rule of the paper's stage-scoring prompt that applies to ``side``
    in ``stage``: ``monologue`` (speeches), ``questioner`` / ``respondent`` (questioning and
    cross-examination), ``exchange`` (head-to-head) or ``free_debate`` (scored relative to the
    opponent)."""
    inter = INTERACTION[stage.type]
    if inter == "monologue":
        return "monologue"
    if inter == "asymmetric":
        return "questioner" if stage.role_of(side) == "questioner" else "respondent"
    return "free_debate" if stage.type == "free_debate" else "exchange"


def _obj_schema(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def example_votes(labels: list[str], total: int = PANEL_VOTES) -> dict[str, int]:
    """An illustrative allocation for the Task 3 prompt (format only): up to three labels, a
    negative speaker first so the example does not suggest the usual affirmative-third-speaker
    answer; counts sum to ``total``."""
    neg = [x for x in labels if x.startswith("Negative")] or labels
    aff = [x for x in labels if x.startswith("Affirmative")] or labels
    picks = list(dict.fromkeys([neg[min(2, len(neg) - 1)], aff[min(1, len(aff) - 1)], neg[0]]))
    shares = {1: [total], 2: [total - total // 2, total // 2], 3: [total - 2 * (total // 3) + 1, total // 3, total // 3 - 1]}[len(picks)]
    return dict(zip(picks, shares))


# ---------------------------------------------------------------------------------------------
# Requests


def task1_request(view: MatchView, store: PromptStore) -> ChatRequest:
    """Task 1's request: format, motion and the complete transcript; asks for p (module docstring)."""
    lang = prompt_language(view.format)
    variables = {**match_variables(view), "transcript": transcript_text(view.stages, lang)}
    rendered = store.render(template_name(TASK1_NODE, lang), variables)
    schema = _obj_schema({"basis": {"type": "string"}, "p": {"type": "number"}})
    return ChatRequest(messages=rendered.messages(), node=TASK1_NODE, key=MATCH_KEY, template_hash=rendered.template_hash, schema=schema, schema_name="winner_tendency")


def task2_request(view: MatchView, stage_index: int, side: Side, store: PromptStore) -> ChatRequest:
    """Task 2's request for ``side`` in stage ``stage_index`` (0-based): the stages before it as
    context, the stage itself, the side, its role and the applicable rule. Raises ValueError when
    ``side`` is not an evaluated side of that stage."""
    lang = prompt_language(view.format)
    stage = view.stages[stage_index]
    if side not in stage.evaluated_sides():
        raise ValueError(f"{side} is not scored in stage {stage.stage_id}")
    variables = {
        **match_variables(view),
        "rubric": rubric_rows(lang),
        "stage_number": stage_index + 1,
        "stage_name": stage.name,
        "stage_type_text": _t(lang, STAGE_TYPE_TEXT[stage.type]),
        "side_text": side_text(side, lang),
        "other_side_text": side_text(other_side(side), lang),
        "rule": stage_rule(stage, side),
        "context": transcript_text(view.stages[:stage_index], lang),
        "stage_text": transcript_text([stage], lang, first_number=stage_index + 1),
    }
    rendered = store.render(template_name(TASK2_NODE, lang), variables)
    schema = _obj_schema({"basis": {"type": "string"}, "score": {"type": "integer"}})
    return ChatRequest(
        messages=rendered.messages(),
        node=TASK2_NODE,
        key=f"{stage.stage_id}|{side}",
        template_hash=rendered.template_hash,
        schema=schema,
        schema_name="stage_score",
    )


def task3_request(view: MatchView, store: PromptStore) -> ChatRequest:
    """Task 3's request: the same match input as Task 1 (a separate request); asks for nine votes
    over the position labels."""
    lang = prompt_language(view.format)
    labels = view.debater_labels()
    joiner = "，" if lang == "zh" else ", "
    variables = {
        **match_variables(view),
        "transcript": transcript_text(view.stages, lang),
        "labels_text": joiner.join(labels),
        "total_votes": PANEL_VOTES,
        "example_json": json.dumps(example_votes(labels), ensure_ascii=False),
    }
    rendered = store.render(template_name(TASK3_NODE, lang), variables)
    schema = _obj_schema({"basis": {"type": "string"}, "votes": _obj_schema({label: {"type": "integer"} for label in labels})})
    return ChatRequest(messages=rendered.messages(), node=TASK3_NODE, key=MATCH_KEY, template_hash=rendered.template_hash, schema=schema, schema_name="best_debater_votes")


# ---------------------------------------------------------------------------------------------
# Reading outputs (validators and stage-3 recoveries)


def read_task1(obj: Mapping[str, Any]) -> float:
    """p from a decoded Task 1 answer: a number in [0, 1], rounded to 0.01. 0.5 is accepted (an
    incorrect prediction, not a parse failure). Raises OutputInvalid."""
    if "p" not in obj:
        raise OutputInvalid("p: missing")
    return as_probability(obj["p"], "p")


def recover_task1(text: str) -> dict[str, Any] | None:
    """Stage 3 for Task 1: the last ``p: <number>`` in the text."""
    p = find_number(text, ["p"])
    return None if p is None else {"p": p}


def read_task2(obj: Mapping[str, Any]) -> int:
    """The integer score 1-10 of a decoded Task 2 answer (key ``score``; the paper's ``p`` is
    accepted too). Raises OutputInvalid."""
    for key in ("score", "p"):
        if key in obj:
            return as_score(obj[key], key)
    raise OutputInvalid("score: missing")


def recover_task2(text: str) -> dict[str, Any] | None:
    """Stage 3 for Task 2: the last ``score: <number>`` (or ``得分``/``分数``) in the text."""
    score = find_number(text, ["score", "得分", "分数"])
    return None if score is None else {"score": score}


def read_task3(obj: Mapping[str, Any], labels: list[str]) -> dict[str, int]:
    """Nine votes from a decoded Task 3 answer: ``{"votes": {label: n}}``, or the labels as top-level
    keys (the paper's shape). Labels must be known (Chinese forms accepted), counts non-negative
    integers summing to 9. Raises OutputInvalid."""
    votes = obj.get("votes")
    if votes is None:
        votes = {k: v for k, v in obj.items() if k not in ("basis", "reasoning")}
    return as_votes(votes, labels, PANEL_VOTES, "votes")


def recover_task3(text: str, labels: list[str]) -> dict[str, Any] | None:
    """Stage 3 for Task 3: ``label: <integer>`` pairs for the known labels."""
    votes = find_votes(text, labels)
    return {"votes": votes} if votes else None


def _basis(text: str) -> str:
    return find_string(text, ["basis"]) or ""


@dataclass(frozen=True)
class TaskInstance:
    """One protocol instance: its task, unit key, the request, and the reader of its output."""

    task: TaskName
    key: str
    request: ChatRequest
    read: Callable[[str], ParseResult[Any]]


def task_instances(view: MatchView, store: PromptStore) -> list[TaskInstance]:
    """Every instance of the protocol for a match, in order: Task 1, Task 2 per scored unit in stage
    order, Task 3. Pure: renders requests, sends nothing (the token benchmark counts these)."""
    labels = view.debater_labels()
    out = [TaskInstance("task1", MATCH_KEY, task1_request(view, store), partial(parse_output, validate=read_task1, recover=recover_task1))]
    index = {st.stage_id: i for i, st in enumerate(view.stages)}
    read2 = partial(parse_output, validate=read_task2, recover=recover_task2)
    for stage_id, side in view.scored_units():
        req = task2_request(view, index[stage_id], side, store)
        out.append(TaskInstance("task2", req.key, req, read2))
    read3 = partial(parse_output, validate=partial(read_task3, labels=labels), recover=partial(recover_task3, labels=labels))
    out.append(TaskInstance("task3", MATCH_KEY, task3_request(view, store), read3))
    return out


def template_hashes(store: PromptStore, language: str) -> dict[str, str]:
    """Template name -> content hash of the three templates used for ``language``."""
    return store.hashes([template_name(t, language) for t in TEMPLATES])


# ---------------------------------------------------------------------------------------------
# The verdict


def _status(instance: TaskInstance, result: NodeResult[Any]) -> TaskStatus:
    last = result.calls[-1] if result.calls else None
    return TaskStatus(
        task=instance.task,
        key=instance.key,
        ok=result.value is not None,
        parse=last.parse if last is not None else "failed",
        attempts=len(result.calls),
        error=None if result.failure is None else result.failure.reason,
    )


def build_verdict(view: MatchView, instances: list[TaskInstance], results: list[NodeResult[Any]], model: str, prompt_hashes: dict[str, str]) -> Verdict:
    """Assemble the single-call :class:`Verdict` from one result per instance (same order).

    ``p`` is Task 1's p as extracted (0.5 kept; then ``winner`` is None); ``stage_scores`` one
    StageScore per parsed Task 2 unit with ``judge_scores = [score]`` and ``mean = score``;
    ``best_debater_votes`` Task 3's nine votes; ``ballots`` empty; ``tasks`` the parse status of
    every instance; ``failures`` every failed instance with its raw outputs; provenance with arm
    ``single-call``. Pure.
    """
    p: float | None = None
    votes: dict[str, int] = {}
    scores: dict[str, int] = {}
    for inst, res in zip(instances, results):
        if res.value is None:
            continue
        if inst.task == "task1":
            p = float(res.value)
        elif inst.task == "task2":
            scores[inst.key] = int(res.value)
        else:
            votes = dict(res.value)
    winner: Side | None = None if p is None or p == 0.5 else ("affirmative" if p > 0.5 else "negative")
    stage_scores = []
    for stage_id, side in view.scored_units():
        score = scores.get(f"{stage_id}|{side}")
        if score is None:
            continue
        st = view.stage(stage_id)
        stage_scores.append(
            StageScore(stage_id=stage_id, stage_name=st.name, stage_type=st.type, side=side, role=st.role_of(side), judge_scores=[score], mean=float(score))
        )
    votes, best = rank_votes(votes, view.debater_labels())
    calls = sorted((c for r in results for c in r.calls), key=lambda c: (c.node, c.key, c.attempt))
    failures = sorted((r.failure for r in results if r.failure is not None), key=lambda f: (f.node, f.key))
    provenance = provenance_of("single-call", model, {"single-call": model}, True, dict(sorted(prompt_hashes.items())), calls, __version__)
    return Verdict(
        match_id=view.match_id,
        format=view.format,
        motion=view.motion,
        arm="single-call",
        winner=winner,
        p=p,
        stage_scores=stage_scores,
        best_debater_votes=votes,
        best_debaters=best,
        ballots=[],
        failures=failures,
        tasks=[_status(i, r) for i, r in zip(instances, results)],
        provenance=provenance,
        calls=calls,
    )


def run_single_call(
    view: MatchView,
    client: LLMClient,
    store: PromptStore | None = None,
    *,
    max_attempts: int = MAX_ATTEMPTS,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> Verdict:
    """Run every protocol instance of ``view`` through ``client`` and build the verdict.

    Each instance is an independent request (up to ``max_attempts`` attempts, raw outputs kept);
    up to ``concurrency`` run at once; results are put back in instance order, so the verdict does
    not depend on completion order. A failed instance is recorded (status, failure with raw outputs)
    and excluded from the verdict's values; it never becomes a score. Never raises for model faults.
    """
    store = store or PromptStore()
    instances = task_instances(view, store)

    def run(inst: TaskInstance) -> NodeResult[Any]:
        return run_attempts(client, inst.request, inst.read, max_attempts=max_attempts)

    if concurrency <= 1:
        results = [run(i) for i in instances]
    else:
        with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="single-call") as pool:
            results = list(pool.map(run, instances))
    return build_verdict(view, instances, results, client.model, template_hashes(store, prompt_language(view.format)))

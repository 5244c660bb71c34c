"""The single-call protocol's instances: the template variables and the request of each task.

Task 1 and Task 3 read the match header and the whole transcript; Task 2 reads the header, the
transcript up to and including the scored stage (the stages before it are context, not scored) and
the rubric, for one side (the package docstring). Every task's request has the same system message
and begins with the same header and transcript text, the task's instructions after it, so a
provider's prompt cache can serve the part two requests share (docs/cost.md). The words and layout -- format lines, stage headings, side names, the
speaker legend, how stages are laid out -- are in ``prompts/_transcript.<lang>.j2``; here the stages
are prepared as data (:func:`transcript_stages`). :func:`task_instances` lists every instance of a
match with the reader of its answer. Pure: builds requests, sends nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from adjudicator.input.formats import INTERACTION, Side, other_side, position_label_zh
from adjudicator.input.match import MatchView, Stage
from adjudicator.input.rubric import Rubric, rubric_rows
from adjudicator.model.chat import ChatRequest
from adjudicator.model.parsing import ParseResult, parse_output
from adjudicator.model.prompts import PromptStore, match_fence_code, prompt_language, utterance_lines
from adjudicator.model.schema import response_schema
from adjudicator.single_call.outputs import StageScoreAnswer, WinnerTendencyAnswer, best_debater_answer
from adjudicator.single_call.recovery import read_task1, read_task2, read_task3, recover_task1, recover_task2, recover_task3
from adjudicator.verdict.ballots import PANEL_VOTES

TaskName = Literal["task1", "task2", "task3", "dimensions", "bp_house_order", "bp_speaker_scores", "bp_speaker_ranks"]

TASK1_NODE = "task1"
TASK2_NODE = "task2"
TASK3_NODE = "task3"
#: Template stem of each task (``prompts/<stem>.<lang>.j2``).
TEMPLATES: dict[str, str] = {TASK1_NODE: "task1_winner", TASK2_NODE: "task2_stage_score", TASK3_NODE: "task3_best_debater"}
#: Unit key of the two match-level tasks (Task 2 keys are ``"<stage_id>|<side>"``).
MATCH_KEY = "match"


def template_name(task: str, language: str) -> str:
    """The template file of a task, e.g. ``task2_stage_score.zh.j2``."""
    return f"{TEMPLATES[task]}.{language}.j2"


def template_hashes(store: PromptStore, language: str) -> dict[str, str]:
    """Template name -> content hash of the three templates used for ``language``."""
    return store.hashes([template_name(t, language) for t in TEMPLATES])


def zh_position(label: str) -> str:
    """The Chinese name of a position label: ``"Affirmative Speaker 3"`` -> ``"正方三辩"``."""
    return position_label_zh(label) or label


def transcript_stages(stages: list[Stage], first_number: int = 1) -> list[dict[str, Any]]:
    """``stages`` as the transcript partial lays them out (``transcript`` and ``heading`` macros):
    number (from ``first_number``), name, type, interaction, who acts -- ``speaking`` (the side of a
    monologue) or ``questioner`` / ``respondent`` (an asymmetric stage; the declared questioner, else
    the first side), None where they do not apply -- ``surprise``, and ``text``, the utterances one per
    line (:func:`~adjudicator.model.prompts.utterance_lines`)."""
    out = []
    for i, st in enumerate(stages):
        questioner = (st.questioner or st.sides[0]) if st.interaction == "asymmetric" else None
        out.append(
            {
                "number": first_number + i,
                "name": st.name,
                "type": st.type,
                "interaction": st.interaction,
                "speaking": st.sides[0] if st.interaction == "monologue" else None,
                "questioner": questioner,
                "respondent": other_side(questioner) if questioner else None,
                "surprise": st.surprise,
                "text": utterance_lines(st.utterances),
            }
        )
    return out


def match_variables(view: MatchView) -> dict[str, Any]:
    """Template variables shared by the three tasks: format name, motion, positions, the debaters'
    position labels (``labels``; ``speakers`` with each label's Chinese name for the legend), the
    stage count and the match's fence code (:func:`~adjudicator.model.prompts.match_fence_code`).
    Built from the label-free view only."""
    labels = view.debater_labels()
    return {
        "fence_code": match_fence_code(view),
        "format": view.format,
        "motion": view.motion,
        "affirmative_position": view.affirmative_position,
        "negative_position": view.negative_position,
        "labels": labels,
        "speakers": [{"label": label, "zh": zh_position(label)} for label in labels],
        "n_stages": len(view.stages),
    }


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


# ---------------------------------------------------------------------------------------------
# Requests


def task1_request(view: MatchView, store: PromptStore) -> ChatRequest:
    """Task 1's request: format, motion and the complete transcript; asks for p (package docstring)."""
    lang = prompt_language(view.format)
    variables = {**match_variables(view), "stages": transcript_stages(view.stages)}
    rendered = store.render(template_name(TASK1_NODE, lang), variables)
    return ChatRequest(
        messages=rendered.messages(),
        node=TASK1_NODE,
        key=MATCH_KEY,
        template_hash=rendered.template_hash,
        schema=response_schema(WinnerTendencyAnswer),
        schema_name="winner_tendency",
    )


def task2_request(view: MatchView, stage_index: int, side: Side, store: PromptStore) -> ChatRequest:
    """Task 2's request for ``side`` in stage ``stage_index`` (0-based): the transcript from the
    first stage to this one (the stages before it are context, the last one is scored), then the
    rubric, the stage, the side, its role and the applicable rule; so stage k's request begins with
    the text of stage k-1's up to that stage's end (docs/cost.md). Raises ValueError when ``side`` is
    not an evaluated side of that stage."""
    lang = prompt_language(view.format)
    stage = view.stages[stage_index]
    if side not in stage.evaluated_sides():
        raise ValueError(f"{side} is not scored in stage {stage.stage_id}")
    variables = {
        **match_variables(view),
        "rubric": rubric_rows(lang),
        "stage_number": stage_index + 1,
        "stage_name": stage.name,
        "stage_type": stage.type,
        "side": side,
        "other_side": other_side(side),
        "rule": stage_rule(stage, side),
        "stages": transcript_stages(view.stages[: stage_index + 1]),
    }
    rendered = store.render(template_name(TASK2_NODE, lang), variables)
    return ChatRequest(
        messages=rendered.messages(),
        node=TASK2_NODE,
        key=f"{stage.stage_id}|{side}",
        template_hash=rendered.template_hash,
        schema=response_schema(StageScoreAnswer),
        schema_name="stage_score",
    )


def task3_request(view: MatchView, store: PromptStore) -> ChatRequest:
    """Task 3's request: the same match input as Task 1 (a separate request); asks for nine votes
    over the position labels."""
    lang = prompt_language(view.format)
    labels = view.debater_labels()
    variables = {
        **match_variables(view),
        "stages": transcript_stages(view.stages),
        "total_votes": PANEL_VOTES,
    }
    rendered = store.render(template_name(TASK3_NODE, lang), variables)
    return ChatRequest(
        messages=rendered.messages(),
        node=TASK3_NODE,
        key=MATCH_KEY,
        template_hash=rendered.template_hash,
        schema=response_schema(best_debater_answer(tuple(labels))),
        schema_name="best_debater_votes",
    )


# ---------------------------------------------------------------------------------------------
# Instances


@dataclass(frozen=True)
class TaskInstance:
    """One protocol instance: its task, unit key, the request, and the reader of its output."""

    task: TaskName
    key: str
    request: ChatRequest
    read: Callable[[str], ParseResult[Any]]


def task_instances(view: MatchView, store: PromptStore, rubric: Rubric | None = None, evidence: Any = None) -> list[TaskInstance]:
    """Every instance of the protocol for a match, in order: Task 1, Task 2 per scored unit in stage
    order, Task 3, and under a dimensional ``rubric`` the per-dimension task
    (:mod:`adjudicator.single_call.dimensions`, fact authenticity checked against ``evidence``); for
    a ranking format (BP) DebateBench's three tasks instead (:mod:`adjudicator.single_call.ranking`).
    Pure: renders requests, sends nothing (the token benchmark counts these)."""
    if view.spec().verdict == "ranking":
        from adjudicator.single_call.ranking import MATCH_KEY as KEY
        from adjudicator.single_call.ranking import RANKING_TEMPLATES, ranking_readers, ranking_request

        readers = ranking_readers(view)
        return [TaskInstance(task, KEY, ranking_request(view, task, store), readers[task]) for task in RANKING_TEMPLATES]  # type: ignore[arg-type]
    labels = view.debater_labels()
    out = [TaskInstance("task1", MATCH_KEY, task1_request(view, store), partial(parse_output, validate=read_task1, recover=recover_task1))]
    index = {st.stage_id: i for i, st in enumerate(view.stages)}
    read2 = partial(parse_output, validate=read_task2, recover=recover_task2)
    for stage_id, side in view.scored_units():
        req = task2_request(view, index[stage_id], side, store)
        out.append(TaskInstance("task2", req.key, req, read2))
    read3 = partial(parse_output, validate=partial(read_task3, labels=labels), recover=partial(recover_task3, labels=labels))
    out.append(TaskInstance("task3", MATCH_KEY, task3_request(view, store), read3))
    if rubric is not None and rubric.dimensional:
        from adjudicator.single_call.dimensions import dimensions_reader, dimensions_request

        req = dimensions_request(view, store, rubric, evidence, match_variables(view), transcript_stages(view.stages))
        out.append(TaskInstance("dimensions", MATCH_KEY, req, dimensions_reader(rubric, view, evidence)))
    return out

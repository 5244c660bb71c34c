"""Training examples: one chat per protocol instance, its input the zero-shot arm's own request and
its answer the gold target (protocol 001 s.03).

The input messages (system, user) of Task 1, each Task 2 unit and Task 3 are exactly the requests
the single-call arm sends (:func:`adjudicator.single_call.tasks.task1_request`, ``task2_request``,
``task3_request``): one source of prompt text, so a model fine-tuned on these files is evaluated by
``bench --arm single-call`` on the prompts it was trained on. The paired variant's request comes
from :mod:`adjudicator.finetune.difference`. Every request is built from the label-free
:class:`~adjudicator.match.MatchView`; the answer (the assistant message) is the target of
:mod:`adjudicator.finetune.targets` as one JSON object with ``basis`` first, written as the
prompts' own examples are (``json.dumps``, non-ASCII kept).

One chat per line of an OpenAI fine-tuning file: ``{"messages": [{"role": "system", ...},
{"role": "user", ...}, {"role": "assistant", ...}]}`` -- the conversational format Hugging Face
TRL's ``SFTTrainer`` reads as it is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from adjudicator.finetune import targets as T
from adjudicator.finetune.difference import difference_request, paired_stages
from adjudicator.finetune.gold_check import check_rationale
from adjudicator.finetune.rationales import filter_rationale, gold_numbers
from adjudicator.input.match import Match, MatchView
from adjudicator.model.chat import ChatRequest
from adjudicator.model.prompts import PromptStore
from adjudicator.single_call.tasks import task1_request, task2_request, task3_request

ExampleTask = Literal["task1", "task2", "task2_difference", "task3"]
#: The unit key of the match-level tasks (as the single-call arm keys them).
MATCH = "match"
#: What ``--rationales`` does with a match's rationales: ``filter`` removes the gold numbers and
#: then checks; ``verbatim`` only checks (refusing any rationale with a gold number); ``omit``
#: leaves every basis empty.
RationaleMode = Literal["filter", "verbatim", "omit"]


@dataclass(frozen=True)
class Example:
    """One training chat: ``task``, its unit ``key`` (``"match"``, ``"<stage_id>|<side>"``, or a
    stage id for the paired variant), the request (input messages, template hash, response
    schema), the ``target`` values (without ``basis``), the ``basis`` written, and how many gold
    numbers the filter removed from its rationale."""

    match_id: str
    task: ExampleTask
    key: str
    request: ChatRequest
    target: dict[str, Any]
    basis: str = ""
    removed_numbers: int = 0

    def answer(self) -> str:
        """The assistant message: the target in the task's output schema, ``basis`` first."""
        return json.dumps({"basis": self.basis, **self.target}, ensure_ascii=False)

    def chat(self) -> dict[str, Any]:
        """The file line: ``{"messages": [system, user, assistant]}``."""
        return {"messages": [*({"role": m["role"], "content": m["content"]} for m in self.request.messages), {"role": "assistant", "content": self.answer()}]}

    def meta(self) -> dict[str, Any]:
        """The line of the ``.meta.jsonl`` file beside it: which instance the chat is."""
        return {"match_id": self.match_id, "task": self.task, "key": self.key, "node": self.request.node, "template_hash": self.request.template_hash}


@dataclass
class MatchExamples:
    """Every example of one match, and the instances left out with the reason (``{"match_id",
    "task", "key", "reason"}``)."""

    match_id: str
    examples: list[Example] = field(default_factory=list)
    excluded: list[dict[str, str]] = field(default_factory=list)


def _basis(match: Match, keys: tuple[str, ...], mode: RationaleMode, gold: frozenset[float], where: str) -> tuple[str, int]:
    """The basis of one instance: its rationale (``labels.rationales`` under ``keys``, joined by a
    space: the paired variant has its two units' rationales) after the gold-number filter under
    ``mode``, checked; ``""`` when there is none or ``mode`` is ``omit``."""
    given = match.labels.rationales if match.labels else {}
    text = " ".join(t.strip() for t in (given.get(k) or "" for k in keys) if t.strip())
    if mode == "omit" or not text:
        return "", 0
    removed = 0
    if mode == "filter":
        text, removed = filter_rationale(text, gold)
    check_rationale(text, gold, where)
    return text, removed


def instance_requests(view: MatchView, store: PromptStore) -> dict[tuple[ExampleTask, str], ChatRequest]:
    """(task, key) -> the request of every instance of a two-sided match, whether it has a target
    or not: Task 1, Task 2 per scored unit in stage order, the paired variant per paired stage,
    Task 3. Built from the label-free ``view`` alone."""
    out: dict[tuple[ExampleTask, str], ChatRequest] = {("task1", MATCH): task1_request(view, store)}
    index = {st.stage_id: i for i, st in enumerate(view.stages)}
    for sid, side in view.scored_units():
        out[("task2", f"{sid}|{side}")] = task2_request(view, index[sid], side, store)
    for i in paired_stages(view):
        out[("task2_difference", view.stages[i].stage_id)] = difference_request(view, i, store)
    out[("task3", MATCH)] = task3_request(view, store)
    return out


def _targets(match: Match) -> dict[tuple[ExampleTask, str], tuple[dict[str, Any] | str, tuple[str, ...]]]:
    """(task, key) -> (the target or the reason there is none, the rationale keys of its basis)."""
    means = T.unit_means(match)
    out: dict[tuple[ExampleTask, str], tuple[dict[str, Any] | str, tuple[str, ...]]] = {("task1", MATCH): (T.winner_target(match), (T.RATIONALE_KEYS["task1"],))}
    for sid, side in match.scored_units():
        key = f"{sid}|{side}"
        out[("task2", key)] = (T.score_target(means, key), (key,))
    for i in paired_stages(match):
        sid = match.stages[i].stage_id
        out[("task2_difference", sid)] = (T.difference_target(means, sid), (f"{sid}|affirmative", f"{sid}|negative"))
    out[("task3", MATCH)] = (T.votes_target(match), (T.RATIONALE_KEYS["task3"],))
    return out


def match_examples(match: Match, store: PromptStore, mode: RationaleMode = "filter") -> MatchExamples:
    """Every training example of a two-sided ``match`` (in :func:`instance_requests` order), with
    the instances that have no target. Raises InputError (from
    :func:`~adjudicator.finetune.gold_check.check_rationale`) for a rationale that still holds a
    gold number."""
    out = MatchExamples(match.match_id)
    requests = instance_requests(match.view(), store)
    targets = _targets(match)
    p = targets[("task1", MATCH)][0]
    gold = gold_numbers(match, [p["p"]] if isinstance(p, dict) else [])
    for (task, key), request in requests.items():
        target, rationale_keys = targets[(task, key)]
        if isinstance(target, str):
            out.excluded.append({"match_id": match.match_id, "task": task, "key": key, "reason": target})
            continue
        values = frozenset(float(v) for v in target.values() if isinstance(v, (int, float)))
        basis, removed = _basis(match, rationale_keys, mode, gold | values, f"{match.match_id} {task} {key}")
        out.examples.append(Example(match.match_id, task, key, request, target, basis, removed))
    return out

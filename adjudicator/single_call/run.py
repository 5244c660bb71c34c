"""Running the single-call protocol on one match: every instance through a client, into the verdict."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from adjudicator.input.match import MatchView
from adjudicator.input.rubric import Rubric
from adjudicator.judges.base import NodeResult
from adjudicator.model.attempts import MAX_ATTEMPTS, run_attempts
from adjudicator.model.llm import LLMClient
from adjudicator.model.prompts import PromptStore, prompt_language
from adjudicator.single_call.tasks import TaskInstance, task_instances, template_hashes
from adjudicator.single_call.verdict import build_verdict
from adjudicator.verdict.ballots import Verdict
from adjudicator.workflow.progress import ProgressSink, task_event
from adjudicator.workflow.send_order import lead_index

#: Default number of concurrent requests of one match (the instances are independent).
DEFAULT_CONCURRENCY = 4


def run_single_call(
    view: MatchView,
    client: LLMClient,
    store: PromptStore | None = None,
    *,
    max_attempts: int = MAX_ATTEMPTS,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: ProgressSink | None = None,
    rubric: Rubric | None = None,
    evidence: Any = None,
    lead_first: bool = False,
) -> Verdict:
    """Run every protocol instance of ``view`` through ``client`` and build the verdict.

    Each instance is an independent request (up to ``max_attempts`` attempts, raw outputs kept);
    up to ``concurrency`` run at once; results are put back in instance order, so the verdict does
    not depend on completion order. A failed instance is recorded (status, failure with raw outputs)
    and excluded from the verdict's values; it never becomes a score. Never raises for model faults.
    ``progress`` receives an event as each instance finishes (in completion order). Under a
    dimensional ``rubric`` the per-dimension task runs too (``evidence``: the fact-authenticity source).
    ``lead_first``: one instance (:func:`~adjudicator.workflow.send_order.lead_index`: the longest of
    the largest group with one response schema) runs first and the others once it finished, so a
    provider's prompt cache serves the beginning they share with it.
    """
    store = store or PromptStore()
    instances = task_instances(view, store, rubric, evidence)
    lock = threading.Lock()
    done = [0]

    def run(inst: TaskInstance) -> NodeResult[Any]:
        result = run_attempts(client, inst.request, inst.read, max_attempts=max_attempts, refuse_examples=False)
        if progress is not None:
            with lock:
                done[0] += 1
                n = done[0]
            key = f"{inst.task} {inst.key}".strip()
            detail = "ok" if result.failure is None else result.failure.reason
            progress(task_event(n, len(instances), key, result.failure is None, detail, list(result.calls)))
        return result

    lead = lead_index([i.request for i in instances]) if lead_first and concurrency > 1 else None
    if concurrency <= 1:
        results = [run(i) for i in instances]
    else:
        first = {} if lead is None else {lead: run(instances[lead])}
        rest = [k for k in range(len(instances)) if k not in first]
        with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="single-call") as pool:
            later = dict(zip(rest, pool.map(lambda k: run(instances[k]), rest), strict=True))
        results = [first[k] if k in first else later[k] for k in range(len(instances))]
    if view.spec().verdict == "ranking":
        from adjudicator.single_call.ranking import ranking_template_hashes

        return build_verdict(view, instances, results, client.model, ranking_template_hashes(store, view.spec().language))
    hashes = template_hashes(store, prompt_language(view.format))
    if rubric is not None and rubric.dimensional:
        hashes.update(store.hashes([f"task_dimensions.{prompt_language(view.format)}.j2"]))
    return build_verdict(view, instances, results, client.model, hashes, rubric)

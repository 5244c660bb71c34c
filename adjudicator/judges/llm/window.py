"""Does the judges' prompt fit their model's context window? Checked before the run's first request.

With ``--judge-evidence transcript`` a judge's prompt holds the whole transcript, which can exceed a
small model's context window. The client refuses such a prompt before sending it
(:class:`~adjudicator.model.transport.PromptTooLong`), but only when the judge's turn comes: the
trackers would have run and been paid for first. :func:`check_transcript_fits` renders each LLM
judge's prompt for the match as it will be sent, with every part except the tracker's output (the
ledger and the analyses, which only make it longer), and asks the judge's client whether it fits
(:meth:`~adjudicator.model.llm.LLMClient.overflow`) just before the run's first request (so a run
answered from the cache imports no litellm). A prompt that cannot fit stops the run with one line
naming the flag (:class:`~adjudicator.errors.InputError`, exit code 2), before any request.
"""

from __future__ import annotations

from typing import Any

from adjudicator.errors import InputError
from adjudicator.input.match import MatchView
from adjudicator.judges.base import JudgeRequest


def check_transcript_fits(view: MatchView, context: Any) -> None:
    """For ``context.judge_evidence == "transcript"``: register, on every LLM judge's client, the check
    that the judge's prompt for ``view`` (no tracker output yet) fits its context window (module
    docstring). The check raises :class:`InputError` naming ``--judge-evidence`` and suggesting
    ``quotes`` or ``ledger``. Other modes, offline judges and models of unknown window: nothing."""
    if getattr(context, "judge_evidence", "ledger") != "transcript":
        return
    seen: set[int] = set()
    for judge_id, backend in context.judges.items():
        client, prompt = getattr(backend, "client", None), getattr(backend, "judge_prompt", None)
        if client is None or prompt is None or id(backend) in seen:
            continue
        seen.add(id(backend))
        request = JudgeRequest(judge_id=judge_id, perspective=context.perspectives.get(judge_id, ""), match=view, clashes={}, analyses=[], rubric=context.rubric, judge_evidence="transcript")
        messages = prompt(request).messages

        def check(client: Any = client, messages: Any = messages) -> None:
            over = client.overflow(messages)
            if over is not None:
                tokens, window = over
                raise InputError(
                    f"--judge-evidence transcript: a judge's prompt with the whole transcript has about {tokens} tokens, more than {client.model}'s context window of {window}",
                    "use --judge-evidence quotes or --judge-evidence ledger, or a judge model with a larger context window",
                )

        client.before_first_request(check)

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
for ``online-1v1``, with the match words and transcript layout in the ``_transcript.<lang>.j2``
partial) rendered by :class:`~adjudicator.model.prompts.PromptStore`, transcripts fenced so their
text cannot close the fence, :class:`~adjudicator.model.llm.LLMClient` (temperature 0, transport
retries, cache), :func:`~adjudicator.model.attempts.run_attempts` (up to three attempts, every raw
output kept) and :func:`~adjudicator.model.parsing.parse_output` (strict JSON, normalisation, field
regexes).

Every request is built from the label-free :class:`~adjudicator.input.match.MatchView`, so gold labels
cannot reach a prompt; a request never contains another task's output.

Modules, in data-flow order:

- :mod:`.tasks`     the protocol's instances: template variables and the request of each task
- :mod:`.outputs`   each task's answer as a pydantic model (its JSON schema is the response schema)
- :mod:`.recovery`  reading an answer: validators and stage-3 recoveries
- :mod:`.verdict`   the single-call verdict from one result per instance
- :mod:`.run`       running every instance of a match through a client (concurrently) into the verdict
"""

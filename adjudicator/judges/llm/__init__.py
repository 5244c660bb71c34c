"""The LLM judge, in data-flow order: ``variables`` (what each node's prompt shows, the bounded
tracker context), ``ledger`` (which clashes and stages the ledger shows), ``outputs`` (the answers as
pydantic models, whose schema is sent), ``recovery`` (the tracker's answer -> StageAnalysis, and
field-level recovery), ``ballot_recovery`` (a judge's answer -> Ballot, the same way), ``backend`` (:class:`~adjudicator.judges.llm.backend.LLMBackend`)."""

"""The LLM judge, in data-flow order: ``variables`` (what each node's prompt shows, the bounded
tracker context), ``ledger`` (which clashes and stages the ledger shows), ``outputs`` (the answers as
pydantic models, whose schema is sent), ``recovery`` (decoded answer -> StageAnalysis/Ballot, and
field-level recovery), ``backend`` (:class:`~adjudicator.judges.llm.backend.LLMBackend`)."""

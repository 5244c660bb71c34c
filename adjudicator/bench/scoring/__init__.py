"""Scoring a run, one module per CCDB task: ``winner`` (Task 1), ``stage_scores`` (Task 2),
``best_debater`` (Task 3), each with its metrics, baselines, table and paired tests; ``leaves`` (a
metric value with its interval), ``tables`` (rows and ranking) and ``run`` (:func:`score_run`, the
orchestrator, and :func:`paired_comparison`)."""

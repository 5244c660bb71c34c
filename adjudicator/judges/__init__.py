"""The judges behind the graph's nodes: one interface, two implementations and a replay.

- ``base``: the :class:`~adjudicator.judges.base.Backend` protocol every judge implements (track a
  stage, write a ballot), its requests and :class:`~adjudicator.judges.base.NodeResult`.
- ``llm``: the LLM judge (template variables, output models, answer recovery, the backend).
- ``offline``: the offline judge, a deterministic baseline (not a judge) from structural priors and text features.
- ``reused``: a tracker that sends nothing and hands back a frozen run's tracker outputs (``bench --rejudge``).
"""
